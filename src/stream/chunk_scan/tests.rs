use super::*;
use std::borrow::Cow;

fn texts(scan: &ChatScan) -> Vec<(usize, String)> {
    (0..scan.texts.len())
        .map(|i| {
            let (c, t) = scan.texts.get(i);
            (c, t.to_string())
        })
        .collect()
}

const CHUNK: &str = r#"{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"Hel\nlo"},"finish_reason":null,"logprobs":null}]}"#;

#[test]
fn texts_only_reads_the_content_of_each_choice() {
    let mut scan = ChatScan::default();
    assert!(scan_chat(CHUNK, &ChatMode::TextsOnly, &mut scan));
    assert_eq!(texts(&scan), [(0, "Hel\nlo".to_string())]);
    let two = r#"{"choices":[{"index":1,"delta":{"content":"b","role":"assistant"}},{"index":0,"delta":{"content":"a"}}]}"#;
    assert!(scan_chat(two, &ChatMode::TextsOnly, &mut scan));
    assert_eq!(texts(&scan), [(0, "a".into()), (1, "b".into())]);
}

#[test]
fn assembling_is_simple_only_when_nothing_but_text_changes() {
    let top: Vec<(String, String)> = [("id", "\"c1\""), ("created", "1"), ("model", "\"m\"")]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let mode = ChatMode::Assembling { top: &top };
    let mut scan = ChatScan::default();
    assert!(scan_chat(CHUNK, &mode, &mut scan));
    assert_eq!(scan.choices, [0]);
    assert_eq!(scan.retained, "content".len() + "Hel\nlo".len() + 8);
    for news in [
        CHUNK.replace("\"m\"", "\"m2\""),
        CHUNK.replace("\"created\":1", "\"created\":1,\"usage\":{}"),
        r#"{"error":{"message":"x"}}"#.to_string(),
        r#"{"usage":{"total_tokens":1}}"#.to_string(),
    ] {
        assert!(!scan_chat(&news, &mode, &mut scan), "{news}");
    }
    // A choice's first chunk is simple too: its role goes with the scan, and so
    // do the fields of the stream's first chunk (scalars, each named once).
    let role = CHUNK.replace("{\"content\"", "{\"role\":\"assistant\",\"content\"");
    assert!(scan_chat(&role, &mode, &mut scan), "{role}");
    let news = scan.news().unwrap();
    assert_eq!((news.role_of, news.role.as_str()), (Some(0), "assistant"));
    let first = ChatMode::Assembling { top: &[] };
    assert!(scan_chat(CHUNK, &first, &mut scan));
    let fields: Vec<(&str, &str)> = scan
        .news()
        .unwrap()
        .new_top
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    assert_eq!(
        fields,
        [("id", "\"c1\""), ("created", "1"), ("model", "\"m\"")]
    );
    for news in [
        CHUNK.replace("\"created\":1", "\"created\":1,\"usage\":{}"),
        CHUNK.replace("\"created\":1", "\"created\":1,\"id\":null"),
    ] {
        assert!(!scan_chat(&news, &first, &mut scan), "{news}");
    }
    // A choice's last chunk is simple too: its finish_reason goes with the scan.
    let stop = CHUNK.replace("\"finish_reason\":null", "\"finish_reason\":\"st\\u006fp\"");
    assert!(scan_chat(&stop, &mode, &mut scan), "{stop}");
    let news = scan.news().unwrap();
    assert_eq!(
        (news.finish, news.finish_reason.as_str()),
        (Some(0), "stop")
    );
    assert!(scan_chat(CHUNK, &mode, &mut scan));
    assert!(scan.news().is_none());
    let two = r#"{"choices":[{"index":0,"delta":{},"finish_reason":"stop"},{"index":1,"delta":{},"finish_reason":"stop"}]}"#;
    assert!(
        !scan_chat(two, &mode, &mut scan),
        "one finish_reason a chunk"
    );
}

/// What one scan of `data` gives: (simple, texts, choices, retained).
type Scanned = (bool, Vec<(usize, String)>, Vec<u64>, usize);

fn scanned(scan: &mut ChatScan, data: &str, mode: &ChatMode<'_>) -> Scanned {
    let simple = scan_chat(data, mode, scan);
    (simple, texts(scan), scan.choices.clone(), scan.retained)
}

/// `data` read after `before` (so through its shape when it fits) gives what a
/// fresh scan of `data` gives.
fn same_as_fresh(before: &str, data: &str, mode: &ChatMode<'_>) -> Scanned {
    let mut warm = ChatScan::default();
    scan_chat(before, mode, &mut warm);
    let got = scanned(&mut warm, data, mode);
    assert_eq!(got, scanned(&mut ChatScan::default(), data, mode), "{data}");
    got
}

fn merged(model: &str) -> Vec<(String, String)> {
    [("id", "\"c1\""), ("created", "1"), ("model", model)]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

#[test]
fn a_chunk_of_the_last_shape_reads_as_a_full_scan_would() {
    let top = merged("\"m\"");
    let assembling = ChatMode::Assembling { top: &top };
    let with = |text: &str| CHUNK.replace(r"Hel\nlo", text);
    for mode in [&ChatMode::TextsOnly, &assembling] {
        for text in [
            "word ",
            "",
            r#"a\"b\\c\n"#,
            r"\u00e9\ud83d\ude00",
            "\u{e9}t\u{e9}",
        ] {
            let (simple, ..) = same_as_fresh(CHUNK, &with(text), mode);
            assert!(simple, "{text}");
        }
        // A quote in the middle makes another structure with the same ends.
        let two = with(r#"a"}},{"index":1,"delta":{"content":"b"#);
        let (simple, texts, ..) = same_as_fresh(CHUNK, &two, mode);
        if simple {
            assert_eq!(texts, [(0, "a".into()), (1, "b".into())]);
        }
        // What serde_json refuses is refused through a shape too.
        for bad in [r"\ud800", "a\u{1}b", r"\x"] {
            let (simple, ..) = same_as_fresh(CHUNK, &with(bad), mode);
            assert!(!simple, "{bad}");
        }
    }
    // A shape taken while only texts mattered says nothing of the other fields.
    let mut scan = ChatScan::default();
    assert!(scan_chat(CHUNK, &ChatMode::TextsOnly, &mut scan));
    let renamed = CHUNK.replace("\"m\"", "\"m2\"");
    assert!(!scan_chat(&renamed, &assembling, &mut scan));
}

#[test]
fn a_forgotten_shape_is_not_used() {
    let top = merged("\"m\"");
    let mut scan = ChatScan::default();
    assert!(scan_chat(
        CHUNK,
        &ChatMode::Assembling { top: &top },
        &mut scan
    ));
    assert!(scan.shape.is_some());
    scan.forget_shape();
    assert!(scan.shape.is_none());
    // With `model` merged as "m2" since, the same bytes are news.
    let changed = merged("\"m2\"");
    assert!(!scan_chat(
        CHUNK,
        &ChatMode::Assembling { top: &changed },
        &mut scan
    ));
}

#[test]
fn broken_json_is_not_simple() {
    let mut scan = ChatScan::default();
    for bad in [
        "{\"choices\":[",
        "[1]",
        "{\"choices\":[]} x",
        "{\"choices\":{}}",
    ] {
        assert!(!scan_chat(bad, &ChatMode::TextsOnly, &mut scan), "{bad}");
    }
}

#[test]
fn object_fields_are_found_without_a_tree() {
    let fields = ["id", "choices"];
    assert!(object_has_fields(
        r#" {"id":"x","n":[1,{"a":2}],"choices":[]}"#,
        &fields
    ));
    // An escaped key is left to the full parse.
    assert!(!object_has_fields(
        r#"{"choices":null,"i\u0064":1}"#,
        &fields
    ));
    for no in [
        r#"{"id":"x"}"#,
        r#"{"id":"x","choices":[]"#,
        r#"{"id":"x","choices":[]} {}"#,
        "42",
        "[]",
        "",
    ] {
        assert!(!object_has_fields(no, &fields), "{no}");
    }
    assert!(object_has_fields("{}", &[]));
}

#[test]
fn responses_fields_are_read_borrowed() {
    let scan =
        scan_responses(r#"{"type":"response.output_text.delta","delta":"Hi","x":[1]}"#).unwrap();
    assert_eq!(scan.kind.unwrap().0, "response.output_text.delta");
    assert!(matches!(scan.delta.unwrap().0, Cow::Borrowed("Hi")));
}
