use super::*;
use std::io::Cursor;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

fn run(kind: StreamKind, text: &str) -> (Result<String, Error>, Vec<Option<String>>) {
    let parser = SseParser::new(Cursor::new(text.as_bytes().to_vec()), 1 << 16);
    let mut deltas = Vec::new();
    let result = drive(kind, parser, &mut |ev| {
        deltas.push(ev.text_delta.map(String::from));
        true
    });
    (result, deltas)
}

const CHAT: &str = concat!(
    "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\"},\"finish_reason\":null}]}\n\n",
    "data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel\"},\"finish_reason\":null}]}\n\n",
    "data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"lo\"},\"finish_reason\":null}]}\n\n",
    "data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n",
    "data: [DONE]\n\n"
);

#[test]
fn chat_chunks_assemble_into_a_completion() {
    let (result, deltas) = run(StreamKind::Chat, CHAT);
    let v: Value = serde_json::from_str(&result.unwrap()).unwrap();
    assert_eq!(v["object"], "chat.completion");
    assert_eq!(v["id"], "c1");
    assert_eq!(v["choices"][0]["message"]["content"], "Hello");
    assert_eq!(v["choices"][0]["message"]["role"], "assistant");
    assert_eq!(v["choices"][0]["finish_reason"], "stop");
    assert_eq!(deltas, [None, Some("Hel".into()), Some("lo".into()), None]);
}

#[test]
fn a_stream_cut_inside_an_event_is_a_stream_error_not_a_decode_error() {
    let cut = "data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel\"}}]}\n\ndata: {\"id\":\"c1\",\"cho";
    match run(StreamKind::Chat, cut).0 {
        Err(Error::Stream { message, .. }) => {
            assert!(message.contains("without data: [DONE]"), "{message}")
        }
        other => panic!("{other:?}"),
    }
    // [DONE] without its blank line is unfinished too (WHATWG): the stream ended early.
    for tail in ["data: [DONE]", "data: [DONE]\n"] {
        let (result, _) = run(StreamKind::Chat, &CHAT.replace("data: [DONE]\n\n", tail));
        assert!(matches!(result, Err(Error::Stream { .. })), "{result:?}");
    }
}

#[test]
fn one_event_per_choice_with_text() {
    let text = concat!(
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel\"}},{\"index\":1,\"delta\":{\"content\":\"Bon\"}}]}\n\n",
        "data: [DONE]\n\n"
    );
    let mut parser_events = Vec::new();
    let parser = SseParser::new(Cursor::new(text.as_bytes().to_vec()), 1 << 16);
    let done = drive(StreamKind::Chat, parser, &mut |ev| {
        parser_events.push((ev.choice_index, ev.text_delta.map(String::from), ev.index));
        true
    })
    .unwrap();
    assert_eq!(
        parser_events,
        [(0, Some("Hel".into()), 0), (1, Some("Bon".into()), 1)]
    );
    let v: Value = serde_json::from_str(&done).unwrap();
    assert_eq!(v["choices"][1]["message"]["content"], "Bon");
}

/// The general way alone: every chunk as a JSON tree into the assembler.
fn assembled_the_general_way(chunks: &[&str]) -> (Value, Vec<(usize, String)>) {
    let mut chat = ChatAssembler::default();
    let mut texts = Vec::new();
    for c in chunks {
        texts.extend(chat.absorb(&serde_json::from_str(c).unwrap()).unwrap());
    }
    (serde_json::from_str(&chat.finish()).unwrap(), texts)
}

fn driven(chunks: &[&str], assemble: bool) -> (Option<Value>, Vec<(usize, String)>, usize) {
    let mut text = String::new();
    for c in chunks {
        text.push_str(&format!("data: {c}\n\n"));
    }
    text.push_str("data: [DONE]\n\n");
    let parser = SseParser::new(Cursor::new(text.into_bytes()), 1 << 16);
    let mut driver = StreamDriver::new(StreamKind::Chat, parser).assemble(assemble);
    let mut texts = Vec::new();
    while driver.step().unwrap() == Step::Event {
        let ev = driver.current();
        if let Some(t) = ev.text_delta {
            texts.push((ev.choice_index, t.to_string()));
        }
    }
    let done = driver
        .take_final()
        .map(|f| serde_json::from_str(&f).unwrap());
    (done, texts, driver.read_fast())
}

#[test]
fn the_fast_way_assembles_what_the_general_way_does() {
    let role = r#"{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}"#;
    let word = |w: &str| {
        format!(
            r#"{{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{{"index":0,"delta":{{"content":"{w}"}},"finish_reason":null,"logprobs":null}}]}}"#
        )
    };
    let (a, b, esc) = (word("Hel"), word("lo "), word("\\u00e9\\n\\\""));
    let spaced = r#"{"id": "c1", "created": 1, "model": "m", "choices": [{"index": 0, "delta": {"content": "x"}}]}"#;
    let model_change = a.replace("\"m\"", "\"m2\"");
    let stop = r#"{"id":"c1","choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"total_tokens":3}}"#;
    let usage_only = r#"{"id":"c1","choices":[],"usage":{"total_tokens":4,"x":1}}"#;
    let no_choices = r#"{"usage":{"prompt_tokens":1}}"#;
    let two = r#"{"id":"c1","created":1,"model":"m","choices":[{"index":1,"delta":{"content":"B"}},{"index":0,"delta":{"content":"A"}}]}"#;
    let tool = r#"{"id":"c1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"t","type":"function","function":{"name":"f","arguments":"{}"}}]}}]}"#;
    let streams: Vec<Vec<&str>> = vec![
        vec![role, &a, &b, &a, stop],
        vec![role, &a, &esc, spaced, spaced, &b],
        vec![role, &a, &model_change, &a, &b],
        vec![role, &a, usage_only, &a, no_choices, &b, stop],
        vec![&a, &b],
        vec![role, two, two, &a],
        vec![role, &a, tool, &b, stop],
    ];
    for chunks in &streams {
        let (expected, expected_texts) = assembled_the_general_way(chunks);
        let (done, texts, _) = driven(chunks, true);
        assert_eq!(done.as_ref(), Some(&expected), "{chunks:?}");
        assert_eq!(texts, expected_texts, "{chunks:?}");
        let (done, texts, _) = driven(chunks, false);
        assert_eq!(done, None);
        assert_eq!(texts, expected_texts, "{chunks:?}");
    }
    // And the fast way is taken: the first chunk (its fields, its role) and every
    // chunk after it that only adds text (spaces between fields are no news; a new
    // model is).
    let (_, _, fast) = driven(&[role, &a, &b, &a, &b, spaced, spaced], true);
    assert_eq!(fast, 7);
    let (_, _, fast) = driven(&[role, &a, &model_change, &b], true);
    assert_eq!(fast, 2);
    let (_, _, fast) = driven(&[role, &a, &b, tool], false);
    assert_eq!(fast, 4);
}

#[test]
fn chat_without_done_is_a_stream_error() {
    let cut = CHAT.replace("data: [DONE]\n\n", "");
    let (result, _) = run(StreamKind::Chat, &cut);
    assert!(matches!(result, Err(Error::Stream { .. })));
}

#[test]
fn tool_call_fragments_are_joined() {
    let text = concat!(
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"t1\",\"type\":\"function\",\"function\":{\"name\":\"get\",\"arguments\":\"{\\\"a\\\"\"}}]}}]}\n\n",
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\":1}\"}}]},\"finish_reason\":\"tool_calls\"}]}\n\n",
        "data: [DONE]\n\n"
    );
    let v: Value = serde_json::from_str(&run(StreamKind::Chat, text).0.unwrap()).unwrap();
    let call = &v["choices"][0]["message"]["tool_calls"][0];
    assert_eq!(call["id"], "t1");
    assert_eq!(call["function"]["arguments"], "{\"a\":1}");
    assert_eq!(v["choices"][0]["finish_reason"], "tool_calls");
}

#[test]
fn responses_stream_returns_the_completed_response() {
    let text = concat!(
        "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"delta\":\"Hi\"}\n\n",
        "event: response.completed\ndata: {\"type\":\"response.completed\",\"response\":{\"id\":\"r1\",\"status\":\"completed\"}}\n\n"
    );
    let (result, deltas) = run(StreamKind::Responses, text);
    let v: Value = serde_json::from_str(&result.unwrap()).unwrap();
    assert_eq!(v["id"], "r1");
    assert_eq!(deltas, [Some("Hi".into()), None]);
}

#[test]
fn responses_events_without_names_are_named_by_type_and_incomplete_ends_them() {
    let text = concat!(
        "data: {\"type\":\"response.output_text.delta\",\"delta\":\"Hi\"}\n\n",
        "data: {\"type\":\"response.incomplete\",\"response\":{\"id\":\"r1\",\"status\":\"incomplete\"}}\n\n",
        "data: [DONE]\n\n"
    );
    let parser = SseParser::new(Cursor::new(text.as_bytes().to_vec()), 1 << 16);
    let mut names = Vec::new();
    let result = drive(StreamKind::Responses, parser, &mut |ev| {
        names.push(ev.event.to_string());
        true
    });
    let v: Value = serde_json::from_str(&result.unwrap()).unwrap();
    assert_eq!(v["status"], "incomplete");
    assert_eq!(names, ["response.output_text.delta", "response.incomplete"]);
}

#[test]
fn responses_done_before_the_terminal_event_is_an_early_end() {
    let text = "data: {\"type\":\"response.created\"}\n\ndata: [DONE]\n\n";
    match run(StreamKind::Responses, text).0 {
        Err(Error::Stream { message, .. }) => {
            assert!(message.contains("without response.completed"), "{message}")
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn responses_failed_event_is_a_stream_error() {
    let text = "event: response.failed\ndata: {\"type\":\"response.failed\",\"response\":{\"error\":{\"message\":\"boom\"}}}\n\n";
    match run(StreamKind::Responses, text).0 {
        Err(Error::Stream { message, .. }) => assert_eq!(message, "boom"),
        other => panic!("{other:?}"),
    }
}

/// The cancel and deadline check is made inside the loops over one chunk's
/// choices (merging them) and events (handing them out), not only between reads:
/// a chunk naming 100,000 choices is seconds of CPU in a debug build.
#[test]
fn one_chunk_with_many_choices_is_interrupted_inside_its_loops() {
    let n = 3 * CHECK_EVERY;
    let choices: Vec<String> = (0..n)
        .map(|i| format!("{{\"index\":{i},\"delta\":{{\"content\":\"t\"}}}}"))
        .collect();
    let text = format!(
        "data: {{\"choices\":[{}]}}\n\ndata: [DONE]\n\n",
        choices.join(",")
    );
    for assemble in [true, false] {
        let checks = Arc::new(AtomicUsize::new(0));
        let counted = checks.clone();
        // Passes its first check, fails the second: a deadline passing mid-chunk.
        let interrupt: Interrupt =
            Arc::new(move || match counted.fetch_add(1, Ordering::Relaxed) {
                0 => Ok(()),
                _ => Err(Error::Timeout("total deadline passed".into())),
            });
        let parser = SseParser::new(Cursor::new(text.clone().into_bytes()), 1 << 22);
        let mut driver = StreamDriver::new(StreamKind::Chat, parser)
            .assemble(assemble)
            .interrupt(interrupt);
        let mut events = 0;
        let end = loop {
            match driver.step() {
                Ok(Step::Event) => events += 1,
                other => break other,
            }
        };
        assert!(matches!(end, Err(Error::Timeout(_))), "{assemble}: {end:?}");
        assert!(
            events < n,
            "{assemble}: stopped inside the chunk, after {events} events"
        );
        assert_eq!(checks.load(Ordering::Relaxed), 2, "{assemble}");
    }
}

/// A small deterministic generator (xorshift64*): no crate, same cases every run.
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len() as u64) as usize]
    }

    /// A JSON string literal: plain, escaped, or broken (lone surrogates).
    fn string(&mut self) -> String {
        self.pick(&[
            r#""Hel""#,
            r#""lo ""#,
            r#""""#,
            r#""\u00e9\n\"""#,
            r#""\ud83d\ude00""#,
            r#""\ud800""#,
            r#""x\udc00y""#,
            r#""\/ok""#,
        ])
        .to_string()
    }

    /// Any JSON value, sometimes nested past serde_json's recursion limit (128).
    fn value(&mut self, depth: u32) -> String {
        match self.below(if depth > 2 { 5 } else { 9 }) {
            0 => "null".into(),
            1 => self
                .pick(&["0", "1", "-1", "1.5", "1e400", "12345678901234567890123"])
                .into(),
            2 => self.pick(&["true", "false"]).into(),
            3 | 4 => self.string(),
            5 => format!("[{}, {}]", self.value(depth + 1), self.value(depth + 1)),
            6 => format!(
                "{{\"a\": {}, \"a\": {}}}",
                self.value(depth + 1),
                self.value(depth + 1)
            ),
            7 => {
                let n = self
                    .pick(&["3", "126", "127", "128", "300"])
                    .parse()
                    .unwrap();
                format!("{}1{}", "[".repeat(n), "]".repeat(n))
            }
            _ => format!("{{\"k\": {}}}", self.value(depth + 1)),
        }
    }

    fn delta(&mut self) -> String {
        let mut fields = Vec::new();
        for _ in 0..self.below(3) {
            fields.push(match self.below(8) {
                0..=3 => format!("\"content\": {}", self.string()),
                4 => "\"content\": null".into(),
                5 => "\"role\": \"assistant\"".into(),
                6 => format!("\"reasoning\": {}", self.string()),
                _ => format!("\"x\": {}", self.value(0)),
            });
        }
        format!("{{{}}}", fields.join(", "))
    }

    fn choice(&mut self) -> String {
        let mut fields = Vec::new();
        for _ in 0..1 + self.below(4) {
            fields.push(match self.below(9) {
                0..=2 => format!("\"delta\": {}", self.delta()),
                3 | 4 => format!(
                    "\"index\": {}",
                    self.pick(&["0", "1", "2", "1.5", "-1", "\"0\""])
                ),
                5 => "\"finish_reason\": null".into(),
                6 => format!(
                    "\"finish_reason\": {}",
                    self.pick(&["\"stop\"", "null", "\"length\"", "\"st\\u006fp\\n\"", "1"])
                ),
                7 => "\"logprobs\": null".into(),
                _ => format!("\"extra\": {}", self.value(0)),
            });
        }
        if self.below(8) == 0 {
            return self.value(0);
        }
        format!("{{{}}}", fields.join(", "))
    }

    fn chunk(&mut self) -> String {
        let mut fields = Vec::new();
        for _ in 0..1 + self.below(5) {
            fields.push(match self.below(10) {
                0..=3 => {
                    let choices: Vec<String> = (0..self.below(3)).map(|_| self.choice()).collect();
                    format!("\"choices\": [{}]", choices.join(", "))
                }
                4 => format!(
                    "\"id\": {}",
                    self.pick(&["\"c1\"", "\"c1\"", "\"c2\"", "\"\\ud800\""])
                ),
                5 => "\"model\": \"m\"".into(),
                6 => "\"object\": \"chat.completion.chunk\"".into(),
                7 => format!("\"usage\": {{\"total_tokens\": {}}}", self.below(3)),
                8 => format!("\"meta\": {}", self.value(0)),
                _ => format!("\"choices\": {}", self.pick(&["null", "{}", "[]", "1"])),
            });
        }
        if self.below(30) == 0 {
            return self
                .pick(&[
                    "[1]",
                    "{\"error\": {\"message\": \"boom\"}}",
                    "{\"choices\": [}",
                ])
                .into();
        }
        format!("{{{}}}", fields.join(", "))
    }
}

/// What a stream gave: its status and, on success, the texts handed out and the
/// final object.
fn outcome(
    chunks: &[String],
    assemble: bool,
    general_only: bool,
) -> (i32, Vec<(usize, String)>, Option<String>) {
    let mut text = String::new();
    for c in chunks {
        text.push_str("data: ");
        text.push_str(c);
        text.push_str("\n\n");
    }
    text.push_str("data: [DONE]\n\n");
    let parser = SseParser::new(Cursor::new(text.into_bytes()), 1 << 20);
    let mut driver = StreamDriver::new(StreamKind::Chat, parser).assemble(assemble);
    driver.general_only = general_only;
    let mut texts = Vec::new();
    loop {
        match driver.step() {
            Ok(Step::Event) => {
                let ev = driver.current();
                if let Some(t) = ev.text_delta {
                    texts.push((ev.choice_index, t.to_string()));
                }
            }
            Ok(Step::Done) => return (0, texts, driver.take_final()),
            Err(e) => return (e.status(), Vec::new(), None),
        }
    }
}

/// One input, one answer: the fast way and the general way agree on the status,
/// the texts handed out and the final object, for generated streams of generated
/// chunks (broken strings, deep nesting, repeated keys and fields of every kind).
#[test]
fn the_fast_way_and_the_general_way_agree_on_generated_chunks() {
    let mut g = Gen(0x9e37_79b9_7f4a_7c15);
    let mut ended_well = 0;
    for case in 0..3000 {
        let chunks: Vec<String> = (0..1 + g.below(4)).map(|_| g.chunk()).collect();
        for assemble in [true, false] {
            let general = outcome(&chunks, assemble, true);
            let fast = outcome(&chunks, assemble, false);
            assert_eq!(
                fast, general,
                "case {case}, assemble {assemble}: fast (left) and general (right) differ on {chunks:#?}"
            );
            ended_well += usize::from(general.0 == 0);
        }
    }
    assert!(ended_well > 1000, "many cases end well: {ended_well}");
}

/// A Responses event the general way refuses (a lone surrogate in a field gw
/// does not read, nesting past the limit) is refused the fast way too.
#[test]
fn a_responses_event_the_general_way_refuses_is_refused_the_fast_way_too() {
    let deep = format!("{}1{}", "[".repeat(200_000), "]".repeat(200_000));
    for junk in [r#""\ud800""#.to_string(), deep] {
        let text = format!(
            "data: {{\"type\":\"response.output_text.delta\",\"delta\":\"Hi\",\"junk\":{junk}}}\n\n"
        );
        let parser = SseParser::new(Cursor::new(text.into_bytes()), 1 << 20);
        let e = drive(StreamKind::Responses, parser, &mut |_| true).unwrap_err();
        assert!(matches!(e, Error::Decode(_)), "{e:?}");
    }
}

/// The three disagreements issue 19 (item 8) reported, each on both ways.
#[test]
fn a_lone_surrogate_deep_nesting_and_repeated_choices_get_one_answer() {
    let deep = format!(
        "{{\"x\":{}1{},\"choices\":[]}}",
        "[".repeat(200_000),
        "]".repeat(200_000)
    );
    /// A chunk, the status both ways give, and the texts handed out.
    type Case<'a> = (&'a str, i32, &'a [(usize, &'a str)]);
    let cases: [Case<'_>; 3] = [
        (r#"{"id":"\ud800","choices":[]}"#, crate::GW_DECODE, &[]),
        (&deep, crate::GW_DECODE, &[]),
        (
            r#"{"choices":[{"index":0,"delta":{"content":"A"}}],"choices":[{"index":0,"delta":{"content":"B"}}]}"#,
            0,
            &[(0, "B")],
        ),
    ];
    for (chunk, status, texts) in cases {
        let chunks = [chunk.to_string()];
        for assemble in [true, false] {
            for general_only in [true, false] {
                let (got, got_texts, _) = outcome(&chunks, assemble, general_only);
                let want: Vec<(usize, String)> =
                    texts.iter().map(|(i, t)| (*i, t.to_string())).collect();
                assert_eq!(
                    (got, got_texts),
                    (status, want),
                    "{assemble} {general_only}: {:.80}",
                    chunk
                );
            }
        }
    }
}

/// A chunk whose only text is empty sets the content the general way sets (a
/// `""` that stays beside tool calls, where an absent content is null).
#[test]
fn an_empty_text_chunk_sets_the_content_the_general_way_sets() {
    let role = r#"{"choices":[{"index":0,"delta":{"role":"assistant"},"finish_reason":null}]}"#;
    let text = |t: &str| {
        format!(r#"{{"choices":[{{"index":0,"delta":{{"content":"{t}"}},"finish_reason":null}}]}}"#)
    };
    let calls = r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"f","arguments":"{}"}}]}}]}"#;
    for middle in [
        vec![text("")],
        vec![text("a"), text("")],
        vec![text(""), text("")],
    ] {
        let mut chunks = vec![role.to_string()];
        chunks.extend(middle);
        chunks.push(calls.to_string());
        let general = outcome(&chunks, true, true);
        assert_eq!(outcome(&chunks, true, false), general, "{chunks:?}");
        assert!(general
            .2
            .is_some_and(|f| f.contains(r#""content":"""#) || f.contains(r#""content":"a""#)));
    }
}
