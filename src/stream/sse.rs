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
        // Valid UTF-8 (nearly always) is checked the fast way; a bad byte becomes U+FFFD.
        match crate::api::utf8_check::as_str(raw) {
            Some(text) => self.process_field(text)?,
            None => self.process_field(&String::from_utf8_lossy(raw))?,
        }
        Ok(false)
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
mod tests {
    use super::*;
    use std::io::{BufReader, Cursor, Read};

    fn parse_all(input: &[u8]) -> Vec<SseEvent> {
        let mut p = SseParser::new(Cursor::new(input.to_vec()), 1024);
        let mut out = Vec::new();
        while let Some(ev) = p.next_event().unwrap() {
            out.push(ev);
        }
        out
    }

    fn datas(input: &[u8]) -> Vec<String> {
        parse_all(input).into_iter().map(|e| e.data).collect()
    }

    #[test]
    fn lf_cr_and_crlf_all_end_lines() {
        assert_eq!(
            datas(b"data: a\n\ndata: b\r\rdata: c\r\n\r\n"),
            ["a", "b", "c"]
        );
    }

    #[test]
    fn space_after_colon_is_optional_and_only_one_is_removed() {
        assert_eq!(datas(b"data:a\n\ndata:  b\n\n"), ["a", " b"]);
    }

    #[test]
    fn multi_line_data_joins_with_lf() {
        assert_eq!(
            datas(b"data: {\ndata: \"k\": 1\ndata: }\n\n"),
            ["{\n\"k\": 1\n}"]
        );
    }

    #[test]
    fn comments_and_events_without_data_are_skipped() {
        let evs = parse_all(b": keep-alive\n\nevent: ping\n\nid: 7\nevent: x\ndata: y\n\n");
        assert_eq!(evs.len(), 1);
        assert_eq!(evs[0].event, "x");
        assert_eq!(evs[0].id.as_deref(), Some("7"));
    }

    #[test]
    fn event_name_defaults_to_message_and_resets() {
        let evs = parse_all(b"event: a\ndata: 1\n\ndata: 2\n\n");
        assert_eq!(evs[0].event, "a");
        assert_eq!(evs[1].event, "message");
    }

    #[test]
    fn field_without_colon_and_unknown_fields() {
        assert_eq!(datas(b"data\nfoo: bar\n\n"), [""]);
    }

    #[test]
    fn retry_only_digits() {
        let evs = parse_all(b"retry: 1500\ndata: a\n\nretry: 1x\ndata: b\n\n");
        assert_eq!(evs[0].retry_ms, Some(1500));
        assert_eq!(evs[1].retry_ms, None);
    }

    #[test]
    fn bom_is_stripped_on_first_line_only() {
        assert_eq!(datas(b"\xEF\xBB\xBFdata: a\n\n"), ["a"]);
    }

    #[test]
    fn an_unfinished_last_event_is_discarded() {
        for tail in [
            &b"data: [DONE]"[..],
            b"data: [DONE]\n",
            b"data: [DONE]\r\n",
            b"data: [DO",
        ] {
            let stream = [&b"data: a\n\n"[..], tail].concat();
            assert_eq!(datas(&stream), ["a"], "{:?}", String::from_utf8_lossy(tail));
        }
        assert_eq!(datas(b"data: a\n\ndata: b\n\n"), ["a", "b"]);
    }

    /// A reader handing out one byte per read: CR and LF of one CRLF arrive apart.
    struct OneByte(Cursor<Vec<u8>>);
    impl Read for OneByte {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = buf.len().min(1);
            self.0.read(&mut buf[..n])
        }
    }

    #[test]
    fn crlf_split_across_reads_is_one_line_end() {
        let input = b"data: a\r\n\r\ndata: b\r\n\r\n".to_vec();
        let reader = BufReader::with_capacity(1, OneByte(Cursor::new(input)));
        let mut p = SseParser::new(reader, 1024);
        assert_eq!(p.next_event().unwrap().unwrap().data, "a");
        assert_eq!(p.next_event().unwrap().unwrap().data, "b");
        assert!(p.next_event().unwrap().is_none());
    }

    /// Hands out reads of pseudo-random sizes (1..=`most` bytes) from a seed.
    struct RaggedReads {
        data: Cursor<Vec<u8>>,
        state: u64,
        most: usize,
        /// Reads made so far.
        reads: usize,
    }
    impl Read for RaggedReads {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            self.state = self
                .state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            self.reads += 1;
            let n = buf.len().min(1 + (self.state >> 33) as usize % self.most);
            self.data.read(&mut buf[..n])
        }
    }

    /// A BOM, every line ending, a comment, `retry`, `id`, a data-less event, `[DONE]` and an
    /// unfinished last event: what the split-read tests feed.
    const MIXED_ENDINGS: &[u8] =
        b"\xEF\xBB\xBFretry: 10\r\n: c\r\nevent: a\rdata: 1\r\n\r\ndata:2\n\
data: 3\r\rid: x\ndata\n\nevent: e\n\ndata: [DONE]\r\n\r\ndata: unfinished";

    /// A parser over `input` read in ragged pieces (seeded) through a buffer of `capacity`.
    fn ragged_parser(
        input: &[u8],
        capacity: usize,
        seed: u64,
    ) -> SseParser<BufReader<RaggedReads>> {
        let reads = RaggedReads {
            data: Cursor::new(input.to_vec()),
            state: seed,
            most: capacity,
            reads: 0,
        };
        SseParser::new(BufReader::with_capacity(capacity, reads), 1024)
    }

    #[test]
    fn events_do_not_depend_on_where_reads_split_the_stream() {
        let input = MIXED_ENDINGS.to_vec();
        let whole = parse_all(&input);
        let datas: Vec<&str> = whole.iter().map(|e| e.data.as_str()).collect();
        assert_eq!(datas, ["1", "2\n3", "", "[DONE]"]);
        assert_eq!(whole[0].event, "a");
        assert_eq!(whole[2].id.as_deref(), Some("x"));
        // Small buffers put most lines together piece by piece; larger ones hold
        // many whole, read where they lie (`line_in_place`): both ways, mixed.
        for capacity in [3, 16, 64] {
            for seed in 0..500 {
                let mut p = ragged_parser(&input, capacity, seed);
                let mut got = Vec::new();
                while let Some(ev) = p.next_event().unwrap() {
                    got.push(ev);
                }
                assert_eq!(got, whole, "capacity {capacity}, seed {seed}");
            }
        }
    }

    /// `next_buffered` never reads, and mixed in any order with `next_into` gives the
    /// events `next_into` alone gives, wherever the reads split lines, CRLFs and the
    /// BOM: it stops where a read is needed and the next call goes on from there.
    #[test]
    fn buffered_steps_mixed_with_reading_ones_give_the_same_events() {
        let input = MIXED_ENDINGS.to_vec();
        let whole = parse_all(&input);
        let (mut from_buffer, mut stopped) = (0, 0);
        for capacity in [3, 16, 64] {
            for seed in 0..300u64 {
                let mut p = ragged_parser(&input, capacity, seed);
                let mut got = Vec::new();
                let mut pick = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
                loop {
                    let mut ev = SseEvent::default();
                    pick ^= pick << 13;
                    pick ^= pick >> 7;
                    pick ^= pick << 17;
                    if pick % 3 != 0 {
                        let reads = p.reader.get_ref().reads;
                        let got_one = p.next_buffered(&mut ev).unwrap();
                        assert_eq!(p.reader.get_ref().reads, reads, "a buffered step read");
                        match got_one {
                            Some(true) => {
                                from_buffer += 1;
                                got.push(ev);
                                continue;
                            }
                            Some(false) => panic!("the end is never told without a read"),
                            None => {
                                stopped += 1;
                                continue;
                            }
                        }
                    }
                    if !p.next_into(&mut ev).unwrap() {
                        break;
                    }
                    got.push(ev);
                }
                assert_eq!(got, whole, "capacity {capacity}, seed {seed}");
            }
        }
        assert!(
            from_buffer > 100 && stopped > 100,
            "{from_buffer} {stopped}"
        );
    }

    /// A buffered step stops without a read before the first byte and before the
    /// end (which only a read tells); errors of whole lines are the same errors.
    #[test]
    fn buffered_steps_stop_before_a_read_and_fail_as_reading_ones_do() {
        let reader = BufReader::new(Cursor::new(b"data: a\n\n".to_vec()));
        let mut p = SseParser::new(reader, 1024);
        let mut ev = SseEvent::default();
        assert!(
            p.next_buffered(&mut ev).unwrap().is_none(),
            "nothing read yet"
        );
        assert!(p.next_into(&mut ev).unwrap());
        assert!(
            p.next_buffered(&mut ev).unwrap().is_none(),
            "the end needs a read"
        );
        assert!(!p.next_into(&mut ev).unwrap());

        let mut input = b"data: a\n\ndata: ".to_vec();
        input.extend(std::iter::repeat_n(b'x', 2000));
        input.extend_from_slice(b"\n\n");
        let mut p = SseParser::new(BufReader::new(Cursor::new(input)), 1024);
        assert!(p.next_into(&mut ev).unwrap());
        assert!(matches!(
            p.next_buffered(&mut ev),
            Err(SseError::LineTooLong { limit: 1024 })
        ));
    }

    #[test]
    fn an_event_over_its_cap_is_an_error_however_short_its_lines() {
        // 100 lines of 50 bytes, no blank line: each line is fine, the event is not.
        let input: Vec<u8> = (0..100)
            .flat_map(|_| b"data: xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n".to_vec())
            .collect();
        let mut p = SseParser::new(Cursor::new(input), 1024).max_event_bytes(2048);
        assert!(matches!(
            p.next_event(),
            Err(SseError::EventTooLarge { limit: 2048 })
        ));
    }

    #[test]
    fn line_over_cap_is_an_error_when_read_whole_too() {
        // Not the first line: this one lies whole in the reader's buffer.
        let mut input = b"data: a\n\ndata: ".to_vec();
        input.extend(std::iter::repeat_n(b'x', 1019));
        input.extend_from_slice(b"\n\n");
        let mut at_cap = SseParser::new(Cursor::new(input.clone()), 1025);
        assert_eq!(at_cap.next_event().unwrap().unwrap().data, "a");
        let long = at_cap.next_event().unwrap().unwrap().data;
        assert_eq!(long.len(), 1019, "a line of exactly the cap is fine");
        let mut p = SseParser::new(Cursor::new(input), 1024);
        assert_eq!(p.next_event().unwrap().unwrap().data, "a");
        assert!(matches!(
            p.next_event(),
            Err(SseError::LineTooLong { limit: 1024 })
        ));
    }

    #[test]
    fn line_over_cap_is_an_error() {
        let mut input = b"data: ".to_vec();
        input.extend(std::iter::repeat_n(b'x', 5000));
        input.extend_from_slice(b"\n\n");
        let mut p = SseParser::new(Cursor::new(input), 1024);
        assert!(matches!(
            p.next_event(),
            Err(SseError::LineTooLong { limit: 1024 })
        ));
    }
}
