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
const MIXED_ENDINGS: &[u8] = b"\xEF\xBB\xBFretry: 10\r\n: c\r\nevent: a\rdata: 1\r\n\r\ndata:2\n\
data: 3\r\rid: x\ndata\n\nevent: e\n\ndata: [DONE]\r\n\r\ndata: unfinished";

/// A parser over `input` read in ragged pieces (seeded) through a buffer of `capacity`.
fn ragged_parser(input: &[u8], capacity: usize, seed: u64) -> SseParser<BufReader<RaggedReads>> {
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
