//! The bytes of an answer's body as they were fed (`Exchange::feed_body`), read
//! by the SSE parser as any `BufRead`: a buffer the driver fills, the parser
//! empties, and that grows only while one line is longer than it.

use std::io::{self, BufRead, Read};

use crate::stream::sse::Buffered;

/// The buffer a stream starts with when the built-in driver reads into it: a
/// few chunks of a model's answer.
pub(crate) const START_CAPACITY: usize = 8 * 1024;
/// ... and when a driver feeds it (`push`): a chunk or two, grown as bytes
/// wait. Thousands of streams in flight each hold one.
const PUSH_START_CAPACITY: usize = 1024;
/// Room kept for bytes fed while whole lines are waiting to be taken: beyond it
/// a feed is refused until the caller takes events (back-pressure, `room`).
pub(crate) const SOFT_LIMIT: usize = 64 * 1024;

/// Fed bytes not yet parsed: `storage[start..end]`, then the end when `ended`.
/// The storage is initialised once and reused, so a read into it costs no
/// zeroing.
pub(crate) struct Fed {
    storage: Vec<u8>,
    start: usize,
    end: usize,
    ended: bool,
    /// The longest line the parser takes (max_line_bytes): a buffer that holds
    /// more than this without a line end is a line over the cap.
    max_line: usize,
    /// Where the search for a line end stopped: `storage[start..searched]`
    /// holds none. Meaningful only while `searched > start` (the parser found no
    /// line end, `mark_no_line_end`, and has consumed nothing since). It keeps a
    /// long line fed in small pieces from being searched again whole at every
    /// piece: each byte is looked at once until the line ends.
    searched: usize,
    /// Bytes of whole lines the parser took straight from a feed
    /// (`SseParser::take_lines_in_place`), counted as waiting here until the
    /// parser next takes from the buffer: `room` and `line_over_cap` see what
    /// they would have seen had those lines been copied in.
    in_place: usize,
}

/// The most one read of the built-in driver asks for.
const READ_SIZE: usize = 8 * 1024;

impl Fed {
    pub(crate) fn new(max_line: usize) -> Fed {
        Fed {
            storage: Vec::new(),
            start: 0,
            end: 0,
            ended: false,
            max_line,
            searched: 0,
            in_place: 0,
        }
    }

    /// The parser took `n` bytes of whole lines from a feed, in place.
    pub(crate) fn took_in_place(&mut self, n: usize) {
        self.in_place += n;
    }

    /// The parser looked at every byte waiting and found no line end.
    pub(crate) fn mark_no_line_end(&mut self) {
        self.searched = self.end;
        self.in_place = 0;
    }

    /// Whether the parser can be spared a look: it found no line end before,
    /// and the bytes fed since hold none either.
    pub(crate) fn still_no_line_end(&mut self) -> bool {
        if self.searched <= self.start {
            return false;
        }
        if memchr::memchr2(b'\n', b'\r', &self.storage[self.searched..self.end]).is_some() {
            self.searched = 0;
            return false;
        }
        self.searched = self.end;
        true
    }

    /// Whether a line end waits, searching only what was not searched before.
    fn line_end_waiting(&mut self) -> bool {
        let from = if self.searched > self.start {
            self.searched
        } else {
            self.start
        };
        match memchr::memchr2(b'\n', b'\r', &self.storage[from..self.end]) {
            Some(_) => true,
            None => {
                self.searched = self.end;
                false
            }
        }
    }

    pub(crate) fn pending(&self) -> &[u8] {
        &self.storage[self.start..self.end]
    }

    pub(crate) fn ended(&self) -> bool {
        self.ended
    }

    pub(crate) fn end(&mut self) {
        self.ended = true;
    }

    /// How many more bytes a feed may bring now. Unbounded (up to the line cap)
    /// while no whole line is waiting, since the parser can take nothing
    /// before the line's end comes; bounded by `SOFT_LIMIT` once one is, so a
    /// driver that feeds faster than its caller takes events meets a refusal,
    /// not an unbounded buffer.
    pub(crate) fn room(&mut self) -> usize {
        let waiting = self.end - self.start + self.in_place;
        if self.in_place > 0 || self.line_end_waiting() {
            SOFT_LIMIT.saturating_sub(waiting)
        } else {
            self.max_line
                .saturating_add(2)
                .saturating_sub(waiting)
                .max(1)
        }
    }

    /// Whether the bytes waiting hold more than a line may, without its end.
    pub(crate) fn line_over_cap(&mut self) -> bool {
        self.in_place == 0
            && self.end - self.start > self.max_line.saturating_add(1)
            && !self.line_end_waiting()
    }

    /// Appends fed bytes (the caller checked `room`).
    pub(crate) fn push(&mut self, bytes: &[u8]) {
        self.make_room(bytes.len(), PUSH_START_CAPACITY);
        self.storage[self.end..self.end + bytes.len()].copy_from_slice(bytes);
        self.end += bytes.len();
    }

    /// Reads once from `reader` straight into the buffer (the built-in driver:
    /// no copy between the socket's reader and the parser). Ok(0) is the end.
    pub(crate) fn read_from(&mut self, reader: &mut dyn Read) -> io::Result<usize> {
        // Asked for once the parser took every whole line: what waits is the start
        // of one line, so the room is the line cap's (no search for a line end).
        let line_room = self
            .max_line
            .saturating_add(2)
            .saturating_sub(self.end - self.start);
        let want = line_room.clamp(1, READ_SIZE);
        self.make_room(want, START_CAPACITY);
        // Whatever room is free after the bytes waiting, at least `want`.
        let n = reader.read(&mut self.storage[self.end..])?;
        self.end += n;
        Ok(n)
    }

    /// Makes `extra` bytes of room after the waiting ones: moves them to the
    /// front when that is enough, else grows the storage (a line longer than it)
    /// to `start` at least.
    fn make_room(&mut self, extra: usize, start: usize) {
        if self.storage.len() - self.end >= extra {
            return;
        }
        if self.start > 0 {
            self.storage.copy_within(self.start..self.end, 0);
            self.searched = self.searched.saturating_sub(self.start);
            self.end -= self.start;
            self.start = 0;
        }
        if self.storage.len() - self.end < extra {
            let size = (self.end + extra).max(start).max(self.storage.len() * 2);
            self.storage.resize(size, 0);
        }
    }
}

impl Read for Fed {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let pending = self.fill_buf()?;
        let n = pending.len().min(buf.len());
        buf[..n].copy_from_slice(&pending[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for Fed {
    /// The bytes waiting. Empty reads as the end to a reader, so the exchange
    /// reads the parser this way only once the end was fed; before it, it takes
    /// whole lines (`next_buffered`), which never mistakes "nothing yet" for the end.
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        Ok(&self.storage[self.start..self.end])
    }

    fn consume(&mut self, amount: usize) {
        self.in_place = 0;
        self.start = (self.start + amount).min(self.end);
        if self.start == self.end {
            self.start = 0;
            self.end = 0;
            self.searched = 0;
            // A long line made the buffer large: give the memory back once it is gone.
            if self.storage.len() > 4 * SOFT_LIMIT {
                self.storage = vec![0; START_CAPACITY];
            }
        }
    }
}

impl Buffered for Fed {
    const FILL_READS: bool = false;
    fn buffered(&self) -> &[u8] {
        self.pending()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn room_is_bounded_once_a_whole_line_waits() {
        let mut fed = Fed::new(1024 * 1024);
        assert!(fed.room() > SOFT_LIMIT, "no line yet: up to the line cap");
        fed.push(b"data: x\n");
        assert_eq!(fed.room(), SOFT_LIMIT - 8);
        fed.consume(8);
        assert!(fed.room() > SOFT_LIMIT);
    }

    #[test]
    fn a_line_without_end_over_the_cap_is_seen() {
        let mut fed = Fed::new(16);
        fed.push(&[b'a'; 17]);
        assert!(!fed.line_over_cap());
        fed.push(b"a");
        assert!(fed.line_over_cap());
    }

    #[test]
    fn bytes_read_in_come_out_in_order_across_moves_and_growth() {
        let mut fed = Fed::new(1 << 20);
        let text: Vec<u8> = (0..50_000u32).map(|i| (i % 251) as u8).collect();
        let mut source = &text[..];
        let mut out = Vec::new();
        while fed.read_from(&mut source).unwrap() > 0 {
            let take = fed.pending().len() / 2 + 1;
            let mut buf = vec![0; take];
            let n = fed.read(&mut buf).unwrap();
            out.extend_from_slice(&buf[..n]);
        }
        fed.end();
        fed.read_to_end(&mut out).unwrap();
        assert_eq!(out, text);
    }
}
