//! The C copies of a stream event's texts, kept from event to event so that
//! handing an event to C allocates nothing once the buffers are warm.

use std::ffi::c_char;

use super::event::gw_event;
use crate::stream::driver::CurrentMut;
use crate::StreamEvent;

/// NUL-terminated copies of the current event's name, data and text.
#[derive(Default)]
pub(crate) struct EventBuffers {
    name: Vec<u8>,
    data: Vec<u8>,
    text: Vec<u8>,
}

impl EventBuffers {
    /// A `gw_event` pointing into these buffers; valid until the next `expose`.
    pub(crate) fn expose(&mut self, ev: &StreamEvent<'_>) -> gw_event {
        // The name is nearly always the last event's ("message"): kept, not copied again.
        if self.name.strip_suffix(&[0]) != Some(ev.event.as_bytes()) {
            fill(&mut self.name, ev.event);
        }
        fill(&mut self.data, ev.data);
        let has_text = ev.text_delta.inspect(|t| fill(&mut self.text, t)).is_some();
        gw_event {
            event: self.name.as_ptr() as *const c_char,
            data: self.data.as_ptr() as *const c_char,
            data_len: self.data.len() - 1,
            text_delta: if has_text {
                self.text.as_ptr() as *const c_char
            } else {
                std::ptr::null()
            },
            text_delta_len: if has_text { self.text.len() - 1 } else { 0 },
            index: ev.index,
            choice_index: ev.choice_index,
        }
    }
}

impl EventBuffers {
    /// A `gw_event` pointing into the event's own strings, each followed in
    /// memory by a NUL written into its spare capacity (no copy: the data of a
    /// chunk is a few cache lines that a copy would bring in and write again);
    /// a text holding a NUL itself is copied as `expose` copies it. Valid while
    /// the strings are not changed (until the exchange's next step or feed).
    pub(crate) fn expose_in_place(&mut self, ev: CurrentMut<'_>) -> gw_event {
        let (event, _) = in_place(ev.name, &mut self.name);
        let (data, data_len) = in_place(ev.data, &mut self.data);
        let (text_delta, text_delta_len) = match ev.text {
            Some(text) => in_place(text, &mut self.text),
            None => (std::ptr::null(), 0),
        };
        gw_event {
            event,
            data,
            data_len,
            text_delta,
            text_delta_len,
            index: ev.index,
            choice_index: ev.choice_index,
        }
    }
}

/// `text` as a C string in place (a NUL written after it, in its spare
/// capacity), or copied into `spare` when it holds a NUL; with its length.
fn in_place(text: &mut String, spare: &mut Vec<u8>) -> (*const c_char, usize) {
    if has_nul(text.as_bytes()) {
        fill(spare, text);
        return (spare.as_ptr() as *const c_char, spare.len() - 1);
    }
    text.reserve(1);
    // SAFETY: the String is not changed: the NUL goes into its spare capacity,
    // which `reserve` made at least one byte long.
    unsafe { text.as_mut_vec().spare_capacity_mut()[0].write(0) };
    (text.as_ptr() as *const c_char, text.len())
}

/// Copies `text` into `buf` as a C string, reusing its allocation. An interior
/// NUL (JSON text has none) becomes a space so C sees the whole text.
fn fill(buf: &mut Vec<u8>, text: &str) {
    buf.clear();
    buf.extend_from_slice(text.as_bytes());
    if has_nul(buf) {
        for b in buf.iter_mut().filter(|b| **b == 0) {
            *b = b' ';
        }
    }
    buf.push(0);
}

/// Whether `bytes` hold a NUL. memchr's setup costs more than a short text (a
/// text delta is a few bytes): those are looked at in one pass with no branch
/// per byte, which the compiler vectorizes.
fn has_nul(bytes: &[u8]) -> bool {
    if bytes.len() < 64 {
        bytes.iter().fold(false, |seen, &b| seen | (b == 0))
    } else {
        memchr::memchr(0, bytes).is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::{fill, has_nul};

    #[test]
    fn a_nul_is_found_wherever_it_is_short_or_long() {
        for len in [0usize, 1, 7, 63, 64, 65, 200] {
            assert!(!has_nul(&vec![b'a'; len]), "{len}");
            for at in 0..len {
                let mut bytes = vec![b'a'; len];
                bytes[at] = 0;
                assert!(has_nul(&bytes), "{len} at {at}");
            }
        }
    }

    #[test]
    fn fill_makes_a_c_string_with_interior_nuls_as_spaces() {
        let mut buf = b"old contents".to_vec();
        fill(&mut buf, "a\0b");
        assert_eq!(buf, b"a b\0");
        fill(&mut buf, "");
        assert_eq!(buf, b"\0");
    }
}
