//! A server-sent-events parser over any `BufRead`, following the WHATWG
//! "event stream interpretation" rules. Pure: no HTTP in it.
//!
//! Differences from a naive `lines()` loop, each one a bug seen in the wild:
//! lines end in LF, CR or CRLF (and a CR may be the last byte of one read);
//! `data:` with or without the space; multi-line data joined with LF; comments
//! and events without data skipped; a line over the cap is an error, not an
//! out-of-memory. An event the stream ends inside, before its closing blank
//! line, is discarded, as WHATWG says and the OpenAI SDKs and EventSource do: a
//! cut stream must not pass for a whole one (`data: [DONE]` without its blank
//! line is a stream that ended early, which the caller reports).

use std::io::{self, BufRead, BufReader, Cursor, Read};

/// A reader whose bytes already read can be looked at without a read: what
/// `SseParser::next_buffered` takes lines from.
pub trait Buffered {
    /// The bytes read and not yet consumed (`fill_buf` hands them out without a read).
    fn buffered(&self) -> &[u8];
    /// Whether `fill_buf` reads when nothing is buffered (a `BufReader`); a
    /// reader that never does (bytes fed to it) lets `next_buffered` look for
    /// the next line once, not twice.
    const FILL_READS: bool = true;
}

impl<R: Read> Buffered for BufReader<R> {
    fn buffered(&self) -> &[u8] {
        self.buffer()
    }
}

impl<T: AsRef<[u8]>> Buffered for Cursor<T> {
    const FILL_READS: bool = false;
    fn buffered(&self) -> &[u8] {
        let all = self.get_ref().as_ref();
        let at = usize::try_from(self.position()).map_or(all.len(), |p| p.min(all.len()));
        &all[at..]
    }
}

/// One dispatched event.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SseEvent {
    /// The `event:` field, or `message` when none was given.
    pub event: String,
    /// The `data:` lines joined with `\n`.
    pub data: String,
    /// The last event id seen so far.
    pub id: Option<String>,
    /// A `retry:` value, when this event carried one.
    pub retry_ms: Option<u64>,
}

#[derive(Debug)]
pub enum SseError {
    /// A line longer than the cap; the stream cannot be trusted past it.
    LineTooLong {
        limit: usize,
    },
    /// The data of one event (its `data:` lines together) is over the cap.
    EventTooLarge {
        limit: usize,
    },
    Io(io::Error),
}

const UTF8_BOM: &[u8] = &[0xEF, 0xBB, 0xBF];

/// The event cap when none is set (`SseParser::max_event_bytes`).
pub const DEFAULT_MAX_EVENT: usize = 8 * 1024 * 1024;

pub struct SseParser<R> {
    reader: R,
    max_line: usize,
    /// The stream ended while an event with data was still gathering (discarded).
    ended_inside_event: bool,
    /// The previous line ended in CR: a leading LF of the next read belongs to it.
    after_cr: bool,
    first_line: bool,
    gathering: Gathering,
    /// A line that did not end inside one read of the reader, put together.
    line: Vec<u8>,
}

/// The fields of the event being read, until its blank line dispatches it.
struct Gathering {
    max_event: usize,
    event: String,
    data: String,
    has_data: bool,
    last_id: Option<String>,
    retry_ms: Option<u64>,
}

impl<R> SseParser<R> {
    pub fn reader(&self) -> &R {
        &self.reader
    }

    pub fn reader_mut(&mut self) -> &mut R {
        &mut self.reader
    }

    /// Whether the stream ended inside an event (data gathered, no blank line
    /// after it), which was discarded: a cut, for the caller's error message.
    pub fn ended_inside_event(&self) -> bool {
        self.ended_inside_event
    }
}

impl<R: BufRead> SseParser<R> {
    pub fn new(reader: R, max_line: usize) -> Self {
        SseParser {
            reader,
            max_line,
            ended_inside_event: false,
            after_cr: false,
            first_line: true,
            gathering: Gathering {
                // Many lines under the line cap with no blank line between them must
                // not grow one event without bound either.
                max_event: max_line.max(DEFAULT_MAX_EVENT),
                event: String::new(),
                data: String::new(),
                has_data: false,
                last_id: None,
                retry_ms: None,
            },
            line: Vec::new(),
        }
    }

    /// Caps the data of one event (its `data:` lines joined).
    pub fn max_event_bytes(mut self, limit: usize) -> Self {
        self.gathering.max_event = limit;
        self
    }

    /// The next event, `Ok(None)` at the end of the stream.
    pub fn next_event(&mut self) -> Result<Option<SseEvent>, SseError> {
        let mut ev = SseEvent::default();
        Ok(self.next_into(&mut ev)?.then_some(ev))
    }

    /// The next event written into `out`, whose buffers are reused (a stream of
    /// a million events allocates nothing per event); false at the end.
    pub fn next_into(&mut self, out: &mut SseEvent) -> Result<bool, SseError> {
        loop {
            if let Some(outcome) = self.line_in_place(out) {
                if outcome? {
                    return Ok(true);
                }
                continue;
            }
            let Some(()) = self.read_line()? else {
                // End of stream: an event still gathering (no blank line yet) is discarded.
                self.ended_inside_event |= self.gathering.has_data;
                self.gathering.forget();
                return Ok(false);
            };
            if self.take_read_line(out)? {
                return Ok(true);
            }
        }
    }

    /// The line `read_line` put together, taken: whether it dispatched an event.
    #[inline(always)]
    fn take_read_line(&mut self, out: &mut SseEvent) -> Result<bool, SseError> {
        let mut raw: &[u8] = &self.line;
        if self.first_line {
            self.first_line = false;
            raw = raw.strip_prefix(UTF8_BOM).unwrap_or(raw);
        }
        let outcome = self.gathering.take_line(raw, out);
        self.line.clear();
        outcome
    }
}

impl<R: BufRead + Buffered> SseParser<R> {
    /// As `next_into`, from the bytes already read only, never reading: `Ok(None)`
    /// where `next_into` would read (the next line is not whole in the reader's
    /// buffer, the end of the stream is not known yet); nothing of that line is
    /// consumed, and the lines taken before it stay gathered, so a `next_into` (or
    /// `next_buffered`) after it goes on exactly where this stopped. Mixed in any
    /// order with `next_into`, the events are those `next_into` alone gives.
    pub fn next_buffered(&mut self, out: &mut SseEvent) -> Result<Option<bool>, SseError> {
        if !R::FILL_READS {
            return self.next_in_buffer(out);
        }
        while self.line_is_buffered() {
            // The line lies whole in the buffer: `fill_buf` hands it out without a read.
            if let Some(outcome) = self.line_in_place(out) {
                if outcome? {
                    return Ok(Some(true));
                }
                continue;
            }
            // The first line, or one over the cap (which `read_line` refuses), whole
            // in the buffer too: `read_line` ends at its line end, without a read.
            if self.read_line()?.is_none() {
                return Ok(None); // not reached: the buffer holds a line end
            }
            if self.take_read_line(out)? {
                return Ok(Some(true));
            }
        }
        Ok(None)
    }

    /// `next_buffered` over a reader whose `fill_buf` never reads: the line is
    /// taken where it lies, and only when it is not whole (or is the first or an
    /// over-long one) is the buffer searched again.
    fn next_in_buffer(&mut self, out: &mut SseEvent) -> Result<Option<bool>, SseError> {
        loop {
            if let Some(outcome) = self.line_in_place(out) {
                if outcome? {
                    return Ok(Some(true));
                }
                continue;
            }
            if !self.line_is_buffered() {
                return Ok(None);
            }
            if self.read_line()?.is_none() {
                return Ok(None); // not reached: the buffer holds a line end
            }
            if self.take_read_line(out)? {
                return Ok(Some(true));
            }
        }
    }

    /// Takes the whole field lines at the start of `bytes` as `next_buffered`
    /// would take them once they were in the reader, stopping before the blank
    /// line that dispatches an event (and before anything else `next_buffered`
    /// must judge: a line over the cap, one whose field is refused, the first
    /// line of the stream): returns how many bytes were taken. For bytes fed to
    /// an empty reader (`Exchange::feed_body`), whose event's data then goes
    /// straight from the caller's bytes to the event, with no copy in between;
    /// the rest goes into the reader, and the events are those it alone gives.
    /// Takes nothing while the reader holds bytes.
    pub(crate) fn take_lines_in_place(&mut self, bytes: &[u8]) -> usize {
        if self.first_line || !self.line.is_empty() || !self.reader.buffered().is_empty() {
            return 0;
        }
        let mut at = 0;
        loop {
            let rest = &bytes[at..];
            let start = usize::from(self.after_cr && rest.first() == Some(&b'\n'));
            let Some(pos) = memchr::memchr2(b'\n', b'\r', &rest[start..]) else {
                return at;
            };
            if pos == 0 || pos > self.max_line {
                return at;
            }
            let line = &rest[start..start + pos];
            // Refused fields (an event over its cap) change nothing: the parser
            // meets them again in the reader and says so.
            if self.gathering.take_field(line).is_err() {
                return at;
            }
            self.after_cr = rest[start + pos] == b'\r';
            at += start + pos + 1;
        }
    }

    /// Whether the next line (its end included) lies in the reader's buffer.
    fn line_is_buffered(&self) -> bool {
        let buf = self.reader.buffered();
        let start = usize::from(self.after_cr && buf.first() == Some(&b'\n'));
        memchr::memchr2(b'\n', b'\r', &buf[start..]).is_some()
    }
}

impl<R: BufRead> SseParser<R> {
    /// Takes the next line where the reader holds it, without copying it out
    /// (nearly every line of a stream): None when the line is not whole in the
    /// reader's buffer or is the first one (`read_line` then puts it together);
    /// else whether it dispatched an event into `out`, or the read's failure.
    #[inline(always)]
    fn line_in_place(&mut self, out: &mut SseEvent) -> Option<Result<bool, SseError>> {
        if self.first_line {
            return None;
        }
        let buf = match self.reader.fill_buf() {
            Ok(buf) => buf,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => return None,
            Err(e) => return Some(Err(SseError::Io(e))),
        };
        let mut start = 0;
        if self.after_cr && buf.first() == Some(&b'\n') {
            start = 1;
        }
        let pos = memchr::memchr2(b'\n', b'\r', &buf[start..])?;
        if pos > self.max_line {
            return None;
        }
        self.after_cr = buf[start + pos] == b'\r';
        let outcome = self.gathering.take_line(&buf[start..start + pos], out);
        self.reader.consume(start + pos + 1);
        Some(outcome)
    }
}

impl Gathering {
    /// One line, without its end: an empty one dispatches the event gathered
    /// (true when it had data and is now in `out`), any other is a field.
    fn take_line(&mut self, raw: &[u8], out: &mut SseEvent) -> Result<bool, SseError> {
        if raw.is_empty() {
            return Ok(self.dispatch(out));
        }
        self.take_field(raw)?;
        Ok(false)
    }

    /// A line that is not blank: a field (refused, nothing changed, when it
    /// would make the event's data larger than its cap).
    fn take_field(&mut self, raw: &[u8]) -> Result<(), SseError> {
        // Valid UTF-8 (nearly always) is checked the fast way; a bad byte becomes U+FFFD.
        match crate::api::utf8_check::as_str(raw) {
            Some(text) => self.process_field(text),
            None => self.process_field(&String::from_utf8_lossy(raw)),
        }
    }

    fn forget(&mut self) {
        self.event.clear();
        self.data.clear();
        self.has_data = false;
    }

    fn process_field(&mut self, line: &str) -> Result<(), SseError> {
        // Nearly every line of a model's stream: no search for the colon.
        if let Some(value) = line.strip_prefix("data:") {
            return self.push_data(value.strip_prefix(' ').unwrap_or(value));
        }
        if line.starts_with(':') {
            return Ok(()); // comment, often a keep-alive
        }
        let (field, value) = match line.split_once(':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (line, ""),
        };
        match field {
            "event" => {
                self.event.clear();
                self.event.push_str(value);
            }
            "data" => self.push_data(value)?,
            "id" if !value.contains('\0') => self.last_id = Some(value.to_string()),
            "retry" if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) => {
                self.retry_ms = value.parse().ok();
            }
            _ => {}
        }
        Ok(())
    }

    fn push_data(&mut self, value: &str) -> Result<(), SseError> {
        if self.data.len() + value.len() + 1 > self.max_event {
            return Err(SseError::EventTooLarge {
                limit: self.max_event,
            });
        }
        if self.has_data {
            self.data.push('\n');
        }
        self.data.push_str(value);
        self.has_data = true;
        Ok(())
    }

    /// Moves the event gathered so far into `out`; false when it has no data
    /// (nothing to deliver).
    fn dispatch(&mut self, out: &mut SseEvent) -> bool {
        let retry_ms = self.retry_ms.take();
        if !self.has_data {
            self.event.clear();
            self.data.clear();
            return false;
        }
        self.has_data = false;
        out.event.clear();
        out.event.push_str(if self.event.is_empty() {
            "message"
        } else {
            &self.event
        });
        self.event.clear();
        // The buffers trade places: the next event is gathered into `out`'s old one.
        std::mem::swap(&mut out.data, &mut self.data);
        self.data.clear();
        out.id.clone_from(&self.last_id);
        out.retry_ms = retry_ms;
        true
    }
}

impl<R: BufRead> SseParser<R> {
    /// Reads one line (without its terminator) into `self.line`; None at EOF
    /// with nothing read.
    fn read_line(&mut self) -> Result<Option<()>, SseError> {
        self.line.clear();
        let mut read_any = false;
        loop {
            let buf = match self.reader.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(SseError::Io(e)),
            };
            if buf.is_empty() {
                // A fragment with no line end at EOF is still a line (WHATWG); the event
                // it belongs to has no blank line after it, so it is discarded anyway.
                return Ok(read_any.then_some(()));
            }
            let mut start = 0;
            if self.after_cr {
                self.after_cr = false;
                if buf[0] == b'\n' {
                    start = 1;
                }
            }
            let rest = &buf[start..];
            match memchr::memchr2(b'\n', b'\r', rest) {
                Some(pos) => {
                    self.after_cr = rest[pos] == b'\r';
                    push_checked(&mut self.line, self.max_line, &rest[..pos])?;
                    self.reader.consume(start + pos + 1);
                    return Ok(Some(()));
                }
                None => {
                    let n = rest.len();
                    if n > 0 {
                        read_any = true;
                    }
                    push_checked(&mut self.line, self.max_line, &buf[start..start + n])?;
                    self.reader.consume(start + n);
                }
            }
        }
    }
}

fn push_checked(line: &mut Vec<u8>, max_line: usize, bytes: &[u8]) -> Result<(), SseError> {
    if line.len() + bytes.len() > max_line {
        return Err(SseError::LineTooLong { limit: max_line });
    }
    line.extend_from_slice(bytes);
    Ok(())
}

#[cfg(test)]
mod tests;
