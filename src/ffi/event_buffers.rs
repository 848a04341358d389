//! The C copies of a stream event's texts, kept from event to event so that
//! handing an event to C allocates nothing once the buffers are warm.

use std::ffi::c_char;

use super::chat::gw_event;
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
        fill(&mut self.name, ev.event);
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

/// Copies `text` into `buf` as a C string, reusing its allocation. An interior
/// NUL (JSON text has none) becomes a space so C sees the whole text.
fn fill(buf: &mut Vec<u8>, text: &str) {
    buf.clear();
    buf.extend_from_slice(text.as_bytes());
    if memchr::memchr(0, buf).is_some() {
        for b in buf.iter_mut().filter(|b| **b == 0) {
            *b = b' ';
        }
    }
    buf.push(0);
}
