//! A request body written to the socket from the caller's memory.
//!
//! ureq sends a length-delimited body by reading it into the transport's output
//! window and transmitting the window: one copy of every byte, about a sixth of
//! a 5 MiB call's CPU. Here `BodyReader` hands ureq the window back unwritten
//! ("claims" it) when that window is a plain-TCP `GwTransport`'s, and that
//! transport writes the caller's bytes in its place, all the rest of them at
//! once. Under TLS ureq reads into rustls's buffer, not a `GwTransport` window,
//! so the bytes are copied there as they must be: the comparison of the two
//! pointers decides, never a guess from the URL.
//!
//! The reader and the transport meet through a per-thread slot that lives as
//! long as a `Lease` (one request; ureq drives both on the calling thread). The
//! slot holds nothing a caller sees.

use std::cell::Cell;
use std::io::{self, Read};
use std::marker::PhantomData;

/// Bodies under this size are copied (ureq's own path): the copy costs less than
/// the slot's bookkeeping, and head and body still leave in one write.
pub(crate) const DIRECT_MIN: usize = 64 * 1024;

#[derive(Clone, Copy)]
struct Slot {
    /// The body's pieces; valid while the lease that set them lives.
    pieces: *const [&'static [u8]],
    /// The output window a `GwTransport` last handed out on this thread.
    window: *const u8,
    /// A claimed chunk not transmitted yet: its offset in the body and length.
    claimed: Option<(usize, usize)>,
    /// Bytes of the body already written straight from the pieces (all of them
    /// from the first claimed chunk on, so 0 or the offset of that chunk's end).
    sent: usize,
}

thread_local! {
    static SLOT: Cell<Option<Slot>> = const { Cell::new(None) };
}

/// The body of the request this thread is sending, open to the transport.
/// Restores the slot it found when dropped (a logger may make a call inside one).
pub(crate) struct Lease<'a> {
    previous: Option<Slot>,
    _pieces: PhantomData<&'a [&'a [u8]]>,
}

impl<'a> Lease<'a> {
    pub(crate) fn new(pieces: &'a [&'a [u8]]) -> Lease<'a> {
        let slot = Slot {
            // The lifetime is erased here and given back by the lease: the slot is
            // cleared before 'a ends.
            pieces: erase(pieces),
            window: std::ptr::null(),
            claimed: None,
            sent: 0,
        };
        Lease {
            previous: SLOT.replace(Some(slot)),
            _pieces: PhantomData,
        }
    }
}

impl Drop for Lease<'_> {
    fn drop(&mut self) {
        SLOT.set(self.previous);
    }
}

/// The pieces as the slot holds them, their lifetime erased.
fn erase(pieces: &[&[u8]]) -> *const [&'static [u8]] {
    std::ptr::slice_from_raw_parts(pieces.as_ptr().cast::<&'static [u8]>(), pieces.len())
}

fn update<R>(f: impl FnOnce(&mut Slot) -> R) -> Option<R> {
    let mut slot = SLOT.get()?;
    let result = f(&mut slot);
    SLOT.set(Some(slot));
    Some(result)
}

/// A `GwTransport` is handing ureq its output window at `window`.
pub(crate) fn note_window(window: *const u8) {
    update(|slot| slot.window = window);
}

/// What a transport must write instead of a claimed chunk: the body's bytes from
/// `from` on that were not written yet (none when an earlier chunk sent them).
pub(crate) struct Unsent {
    pieces: *const [&'static [u8]],
    from: usize,
}

impl Unsent {
    /// The bytes, piece by piece. Valid only inside the `transmit_output` that
    /// took them: the lease outlives that call.
    pub(crate) fn slices(&self) -> Vec<&[u8]> {
        // SAFETY: the pieces belong to the live lease (see `take_claimed`).
        let pieces = unsafe { &*self.pieces };
        let mut skip = self.from;
        if skip >= pieces.iter().map(|p| p.len()).sum() {
            // Sent with an earlier chunk (the usual case): no allocation per chunk.
            return Vec::new();
        }
        let mut out = Vec::with_capacity(pieces.len());
        for piece in pieces {
            if skip >= piece.len() {
                skip -= piece.len();
                continue;
            }
            out.push(&piece[skip..]);
            skip = 0;
        }
        out
    }

    /// The caller wrote them all.
    pub(crate) fn mark_sent(&self) {
        // SAFETY: as `slices`.
        let total = unsafe { &*self.pieces }.iter().map(|p| p.len()).sum();
        update(|slot| slot.sent = total);
    }
}

/// Called by the transport for `amount` bytes of output at `window`: when they
/// are a chunk the reader claimed there, what to write in their place. An error
/// when the claimed chunk and the output disagree (ureq changed its ways):
/// sending the window's stale bytes would corrupt the request.
pub(crate) fn take_claimed(window: *const u8, amount: usize) -> io::Result<Option<Unsent>> {
    let taken = update(|slot| {
        if slot.window != window {
            return None;
        }
        let (offset, len) = slot.claimed.take()?;
        Some((slot.pieces, offset, len, slot.sent))
    });
    let Some(Some((pieces, offset, len, sent))) = taken else {
        return Ok(None);
    };
    if len != amount {
        return Err(io::Error::other(format!(
            "gw: the body chunk sent ({amount} bytes) is not the one read ({len} bytes)"
        )));
    }
    Ok(Some(Unsent {
        pieces,
        from: offset.max(sent),
    }))
}

/// ureq's body for a request under a lease: the pieces one after another, claimed
/// where the output window is a `GwTransport`'s, copied anywhere else.
pub(crate) struct BodyReader<'a> {
    pieces: &'a [&'a [u8]],
    offset: usize,
    total: usize,
}

impl<'a> BodyReader<'a> {
    pub(crate) fn new(pieces: &'a [&'a [u8]]) -> BodyReader<'a> {
        BodyReader {
            pieces,
            offset: 0,
            total: pieces.iter().map(|p| p.len()).sum(),
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.total
    }

    /// Whether the slot is this body's and `buf` is the window a transport handed
    /// out; if so the chunk is noted as claimed.
    fn claim(&self, buf: *const u8, len: usize) -> bool {
        let mine = erase(self.pieces);
        update(|slot| {
            let ok = std::ptr::eq(slot.pieces, mine) && slot.window == buf && !buf.is_null();
            if ok {
                slot.claimed = Some((self.offset, len));
            }
            ok
        })
        .unwrap_or(false)
    }

    fn copy_into(&self, buf: &mut [u8]) {
        let mut skip = self.offset;
        let mut at = 0;
        for piece in self.pieces {
            if at == buf.len() {
                break;
            }
            if skip >= piece.len() {
                skip -= piece.len();
                continue;
            }
            let take = (piece.len() - skip).min(buf.len() - at);
            buf[at..at + take].copy_from_slice(&piece[skip..skip + take]);
            at += take;
            skip = 0;
        }
    }
}

impl Read for BodyReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = buf.len().min(self.total - self.offset);
        if n == 0 {
            return Ok(0);
        }
        if !self.claim(buf.as_ptr(), n) {
            self.copy_into(&mut buf[..n]);
        }
        self.offset += n;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_all(reader: &mut BodyReader<'_>, step: usize) -> Vec<u8> {
        let mut out = Vec::new();
        let mut buf = vec![0u8; step];
        loop {
            let n = reader.read(&mut buf).unwrap();
            if n == 0 {
                return out;
            }
            out.extend_from_slice(&buf[..n]);
        }
    }

    #[test]
    fn without_a_window_the_pieces_are_copied_in_order() {
        let pieces: [&[u8]; 4] = [b"{\"a\":", b"", b"1,\"stream\":true", b"}"];
        for step in 1..8 {
            let _lease = Lease::new(&pieces);
            let mut reader = BodyReader::new(&pieces);
            assert_eq!(reader.len(), 21);
            assert_eq!(read_all(&mut reader, step), b"{\"a\":1,\"stream\":true}");
        }
    }

    #[test]
    fn a_claimed_chunk_is_left_unwritten_and_its_rest_handed_to_the_transport() {
        let pieces: [&[u8]; 2] = [b"hello ", b"world"];
        let _lease = Lease::new(&pieces);
        let mut reader = BodyReader::new(&pieces);
        let mut window = [b'#'; 4];
        // A copy first (another buffer), then the window is claimed.
        let mut other = [0u8; 3];
        assert_eq!(reader.read(&mut other).unwrap(), 3);
        assert_eq!(&other, b"hel");
        note_window(window.as_ptr());
        assert_eq!(reader.read(&mut window).unwrap(), 4);
        assert_eq!(&window, b"####", "a claimed window is not written");
        assert!(take_claimed(other.as_ptr(), 4).unwrap().is_none());
        let unsent = take_claimed(window.as_ptr(), 4).unwrap().unwrap();
        assert_eq!(unsent.slices(), vec![&b"lo "[..], &b"world"[..]]);
        unsent.mark_sent();
        // Later chunks are claimed too, with nothing left to write.
        assert_eq!(reader.read(&mut window).unwrap(), 4);
        let unsent = take_claimed(window.as_ptr(), 4).unwrap().unwrap();
        assert!(unsent.slices().is_empty());
    }

    #[test]
    fn a_chunk_of_another_size_than_claimed_is_an_error_not_stale_bytes() {
        let pieces: [&[u8]; 1] = [b"0123456789"];
        let _lease = Lease::new(&pieces);
        let mut reader = BodyReader::new(&pieces);
        let mut window = [0u8; 4];
        note_window(window.as_ptr());
        assert_eq!(reader.read(&mut window).unwrap(), 4);
        assert!(take_claimed(window.as_ptr(), 3).is_err());
    }

    #[test]
    fn another_bodys_reader_never_claims_and_a_lease_restores_the_slot_it_found() {
        let outer: [&[u8]; 1] = [b"outer"];
        let inner: [&[u8]; 1] = [b"inner"];
        let mut window = [0u8; 8];
        let _outer = Lease::new(&outer);
        note_window(window.as_ptr());
        {
            let _inner = Lease::new(&inner);
            let mut reader = BodyReader::new(&outer);
            assert_eq!(reader.read(&mut window).unwrap(), 5);
            assert_eq!(&window[..5], b"outer", "not the lease's body: copied");
        }
        let mut reader = BodyReader::new(&outer);
        assert_eq!(reader.read(&mut window).unwrap(), 5);
        assert!(take_claimed(window.as_ptr(), 5).unwrap().is_some());
    }
}
