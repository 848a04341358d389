use super::*;
use serde_json::json;

const RULES: &[Rule] = &[
    rule("model", Check::Required),
    rule("messages", Check::MinItems(1)),
    rule("messages[].content[].video_url.fps", Check::Range(0.2, 5.0)),
    rule("size", Check::Size),
    rule("seed", Check::IntRange(-1, 2_147_483_647)),
];

/// The rule loop as it was before it learned to skip: every rule walked.
fn check_plainly(rules: &[Rule], body: &Node<'_>) -> Result<(), String> {
    for r in rules {
        let mut failure = None;
        walk(body, r.field, None, &mut |under, value, holder| {
            if failure.is_none() {
                if let Err(why) = apply(r.check, value, holder) {
                    failure = Some(format!("{}: {why}", render(r.field, under)));
                }
            }
        });
        if let Some(f) = failure {
            return Err(f);
        }
    }
    Ok(())
}

/// A random JSON value built from the names the rules use, so paths hit.
fn arbitrary_value(next: &mut dyn FnMut(usize) -> usize, depth: usize) -> Value {
    const NAMES: &[&str] = &[
        "model",
        "messages",
        "role",
        "content",
        "type",
        "text",
        "image_url",
        "url",
        "video_url",
        "fps",
        "stop",
        "temperature",
        "max_tokens",
        "input",
        "prompt",
        "size",
        "n",
        "contents",
        "parts",
        "file",
        "refusal",
        "user",
        "image",
        "images",
        "mask",
    ];
    match next(if depth > 3 { 5 } else { 8 }) {
        0 => Value::Null,
        1 => json!(next(3) as f64 * 0.7),
        2 => json!(
            [
                "user",
                "text",
                "image_url",
                "system",
                "assistant",
                "1024x1024"
            ][next(6)]
        ),
        3 => json!(next(2) == 0),
        4 => json!(next(100)),
        5 | 6 => Value::Array(
            (0..next(3))
                .map(|_| arbitrary_value(next, depth + 1))
                .collect(),
        ),
        _ => Value::Object(
            (0..next(5))
                .map(|_| {
                    (
                        NAMES[next(NAMES.len())].to_string(),
                        arbitrary_value(next, depth + 1),
                    )
                })
                .collect(),
        ),
    }
}

#[test]
fn skipping_rules_gives_what_walking_every_rule_gives() {
    use crate::api::rules::*;
    // Rules whose last field is `[]` beside rules on the same container: none of
    // the tables has them today, the skipping must hold for them all the same.
    const EACH_THEN_FIELD: &[Rule] = &[
        rule("messages[].content[]", Check::String),
        rule("messages[].role", Check::Required),
        rule("image.url[]", Check::String),
        rule("image.type", Check::Required),
    ];
    let sets: &[&[Rule]] = &[
        CHAT,
        RESPONSES,
        EMBEDDINGS,
        IMAGE_GENERATE,
        IMAGE_EDIT,
        VIDEO_CREATE,
        GENERATE_CONTENT,
        EACH_THEN_FIELD,
    ];
    let mut rng = crate::test_rng::XorShift(0x9e37_79b9_7f4a_7c15u64);
    let mut next = |n: usize| rng.below(n);
    let mut failures = 0;
    for _ in 0..20_000 {
        let body = arbitrary_value(&mut next, 0);
        let text = body.to_string();
        let parsed = JsonText::parse(&text).expect("serde_json's text scans");
        for rules in sets {
            let fast = check_node(rules, parsed.root()).map_err(|e| e.to_string());
            let plain = check_plainly(rules, parsed.root());
            assert_eq!(fast.is_ok(), plain.is_ok(), "{text}");
            if let (Err(f), Err(p)) = (&fast, &plain) {
                assert!(f.contains(p.as_str()), "{text}: {f} vs {p}");
                failures += 1;
            }
        }
    }
    // The generated bodies reach the failing rules, not only the passing ones.
    assert!(failures > 1_000, "{failures}");
}

fn err(body: Value) -> String {
    check(RULES, &body).unwrap_err().to_string()
}

#[test]
fn names_the_concrete_field() {
    let body = json!({"model":"m","messages":[{"content":"x"},{"content":[{"type":"text"},{"type":"video_url","video_url":{"url":"u","fps":9}}]}]});
    assert_eq!(
        err(body),
        "messages[1].content[1].video_url.fps: must be between 0.2 and 5 (got 9)"
    );
}

#[test]
fn required_when_a_sibling_says_so() {
    const PART: &[Rule] = &[rule(
        "parts[].image_url",
        Check::RequiredWhen {
            field: "type",
            equals: "image_url",
        },
    )];
    let e = check(
        PART,
        &json!({"parts": [{"type": "text"}, {"type": "image_url"}]}),
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "parts[1].image_url: is required when type is image_url"
    );
    assert!(check(
        PART,
        &json!({"parts": [{"type": "image_url", "image_url": {"url": "u"}}]})
    )
    .is_ok());
}

#[test]
fn required_and_min_items() {
    assert_eq!(err(json!({"messages":[{}]})), "model: is required");
    assert_eq!(
        err(json!({"model":"m","messages":[]})),
        "messages: must have at least 1 item(s) (got 0)"
    );
    assert!(check(RULES, &json!({"model":"m","messages":[{"content":"hi"}]})).is_ok());
}

#[test]
fn size_and_int_range() {
    assert!(
        err(json!({"model":"m","size":"1024*1024"})).starts_with("size: must be <width>x<height>")
    );
    assert!(
        err(json!({"model":"m","seed":2_147_483_648_i64})).starts_with("seed: must be between -1")
    );
    assert!(err(json!({"model":"m","seed":1.5})).starts_with("seed: must be an integer"));
    assert!(check(RULES, &json!({"model":"m","size":"512x768","seed":-1})).is_ok());
}

#[test]
fn video_data_uri() {
    let uri = |s: &str| Some(Cow::Owned(s.to_string()));
    assert!(check_video_uri(uri("data:video/mp4;base64,AAAA"), 50_000_000).is_ok());
    assert!(
        check_video_uri(uri("data:video/webm;base64,AAAA"), 50_000_000)
            .unwrap_err()
            .contains("video/mp4")
    );
    let big = format!("data:video/mp4;base64,{}", "A".repeat(80));
    assert!(check_video_uri(uri(&big), 50)
        .unwrap_err()
        .contains("at most"));
    assert!(check_video_uri(uri("https://v.example/a.webm"), 1).is_ok());
}

#[test]
fn token_arrays() {
    let tokens = |text: &str, max| {
        let parsed = JsonText::parse(text).unwrap();
        check_token_arrays(parsed.root(), max)
    };
    assert!(tokens("[1, 2, 3]", 2).is_err());
    assert!(tokens("[[1, 2], [1, 2, 3]]", 2).is_err());
    assert!(tokens(r#"["long text"]"#, 2).is_ok());
}

#[test]
fn paths_render_with_each_index_in_its_place() {
    let outer = Index { at: 0, outer: None };
    let inner = Index {
        at: 12,
        outer: Some(&outer),
    };
    assert_eq!(
        render("messages[].content[].type", Some(&inner)),
        "messages[0].content[12].type"
    );
    assert_eq!(render("stop[]", Some(&outer)), "stop[0]");
    assert_eq!(render("model", None), "model");
}
