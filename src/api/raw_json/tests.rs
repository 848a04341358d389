#[cfg(target_arch = "x86_64")]
use super::c_source::UTF8_CHUNK;
use super::simd::next_special;
use super::*;

/// `parse_c` both ways where the CPU has AVX2 (with and without the 64-byte
/// blocks), which must agree; the one way elsewhere.
unsafe fn parse_c_both<'a>(p: *const u8) -> Option<JsonText<'a>> {
    #[cfg(target_arch = "x86_64")]
    {
        let narrow = JsonText::parse_c_as(p, false);
        if std::is_x86_feature_detected!("avx2") {
            let wide = JsonText::parse_c_as(p, true);
            assert_eq!(
                format!("{narrow:?}"),
                format!("{wide:?}"),
                "the AVX2 and SSE2 scans differ"
            );
        }
        narrow
    }
    #[cfg(not(target_arch = "x86_64"))]
    JsonText::parse_c(p)
}

fn same_verdict(text: &str) {
    let ours = JsonText::parse(text);
    let serde = serde_json::from_str::<Value>(text);
    match (&ours, &serde) {
        (Ok(_), Ok(_)) => {}
        (Err(Unscanned::Invalid(a)), Err(b)) => {
            assert_eq!(a.to_string(), b.to_string(), "{text:?}")
        }
        _ => panic!("{text:?}: ours {ours:?}, serde {serde:?}"),
    }
}

#[test]
fn serde_jsons_private_number_token_is_an_ordinary_key_to_gw() {
    // Found by the request_body fuzz target: valid JSON that serde_json's
    // arbitrary_precision refuses. gw sends it as written.
    let text = r#"{ "$serde_json::private::Number":1812}"#;
    assert!(serde_json::from_str::<Value>(text).is_err());
    let parsed = JsonText::parse(text).expect("valid JSON");
    assert!(parsed.root().is_object());
    assert!(parsed.root().get("$serde_json::private::Number").is_some());
}

#[test]
fn accepts_and_refuses_as_serde_json_does() {
    for text in [
        r#"{"a":1}"#,
        r#" { "a" : [ 1 , -0.5e+3 , true , false , null , "x" ] } "#,
        r#"{}"#,
        r#"[]"#,
        r#""s""#,
        r#"12345678901234567890123456789012345678901234567890"#,
        r#"{"a":"\ud83d\ude00 \" \\ \/ \b \f \n \r \t \u00e9"}"#,
        r#"{"a":"\ud800"}"#,
        r#"{"a":"\udc00"}"#,
        r#"{"a":"\ud800\u0041"}"#,
        r#"{"a":"\ud800x"}"#,
        r#"{"\ud800":1}"#,
        "{\"a\":\"tab\there\"}",
        r#"{"a":"\x"}"#,
        r#"{"a":"\u12"}"#,
        r#"{"a":01}"#,
        r#"{"a":1.}"#,
        r#"{"a":.5}"#,
        r#"{"a":-}"#,
        r#"{"a":1e}"#,
        r#"{"a":+1}"#,
        r#"{"a":1,}"#,
        r#"[1,]"#,
        r#"{"a" 1}"#,
        r#"{"a":1} x"#,
        r#"{"a":tru}"#,
        r#"{"a":nul}"#,
        "",
        "   ",
        r#"{"a":"unterminated"#,
        r#"{"a":1"#,
        r#"{"a":NaN}"#,
        "{\"a\":\"\u{7f}\u{e9}\"}",
    ] {
        same_verdict(text);
    }
    for depth in [126, 127, 128, 129] {
        same_verdict(&format!("{}{}", "[".repeat(depth), "]".repeat(depth)));
        let objects = format!("{}1{}", "{\"a\":".repeat(depth), "}".repeat(depth));
        same_verdict(&objects);
    }
}

#[test]
fn the_plain_run_ends_at_the_first_special_byte() {
    let mut text = vec![b'a'; 100];
    assert_eq!(next_special(&text, 0), 100);
    for (at, b) in [
        (0, b'"'),
        (15, b'\\'),
        (16, 0x1F),
        (17, 0x00),
        (63, b'\n'),
        (99, b'"'),
    ] {
        text[at] = b;
        assert_eq!(next_special(&text, 0), at, "{b:#x} at {at}");
        assert_eq!(next_special(&text, at + 1), 100, "after {at}");
        text[at] = b'a';
    }
    for b in [0x20, 0x7F, 0x80, 0xFF, b'\''] {
        text[40] = b;
        assert_eq!(next_special(&text, 0), 100, "{b:#x}");
    }
}

/// The C-string scan takes what the slice scan takes, and gives up (for the
/// long way to report) on whatever is not UTF-8 and JSON.
#[test]
fn a_c_string_scans_as_its_text_does() {
    let mut texts: Vec<Vec<u8>> = [
        r#"{"a":"caf\u00e9 é 中文 😀 \ud83d\ude00","b":[1,-2.5e3,true,null]}"#,
        r#"  {"k" : "v"}  "#,
        r#"{"a":1} x"#,
        r#"{"a":"\ud800"}"#,
        "{\"a\":\"tab\there\"}",
        r#"{"a":"unterminated"#,
        r#"{"a":tru"#,
        r#"{"a":1"#,
        "",
    ]
    .iter()
    .map(|t| t.as_bytes().to_vec())
    .collect();
    // Invalid UTF-8 inside and outside a string, and a cut character.
    texts.push(b"{\"a\":\"\xff\"}".to_vec());
    texts.push(b"{\"a\":\"\xe4\xb8\"}".to_vec());
    texts.push(b"{\"a\":\"\xed\xa0\x80\"}".to_vec());
    texts.push(b"{\"a\":\"\xc0\xaf\"}".to_vec());
    texts.push(b"{\xc3\xa9:1}".to_vec());
    // Strings long enough for several blocks, specials at every offset.
    for at in 0..160 {
        let mut long = vec![b'x'; 200];
        long[at] = b'\n';
        let mut t = b"{\"a\":\"".to_vec();
        t.extend_from_slice(&long);
        t.extend_from_slice(b"\"}");
        texts.push(t.clone());
        long[at] = b'"';
        let mut t = b"{\"a\":\"".to_vec();
        t.extend_from_slice(&long);
        t.extend_from_slice(b"\"}");
        texts.push(t);
    }
    for text in texts {
        let c = std::ffi::CString::new(text.clone()).unwrap();
        let ours = unsafe { parse_c_both(c.as_ptr().cast()) };
        let in_passes = unsafe { parse_c_in_passes(c.as_ptr().cast()) };
        assert_eq!(
            format!("{ours:?}"),
            format!("{in_passes:?}"),
            "{:?}: the one-pass and three-pass C scans differ",
            String::from_utf8_lossy(&text)
        );
        let expected = std::str::from_utf8(&text)
            .ok()
            .and_then(|t| JsonText::parse(t).ok());
        match (ours, expected) {
            (Some(a), Some(b)) => {
                assert_eq!(a.text(), b.text());
                assert_eq!(format!("{:?}", a.root()), format!("{:?}", b.root()));
            }
            (None, None) => {}
            (a, b) => panic!(
                "{:?}: C scan {a:?}, text scan {b:?}",
                String::from_utf8_lossy(&text)
            ),
        }
    }
}

/// Strings past ASCII longer than a UTF-8 chunk (64 KiB), with escapes or
/// without, a character across every chunk edge, and one bad byte anywhere:
/// the C scan takes and refuses what std's UTF-8 check and the text scan do.
#[test]
fn long_strings_past_ascii_are_checked_whole() {
    let line = "网关回答每一个请求 é 😀 ";
    let mut long = String::new();
    while long.len() < 3 * UTF8_CHUNK + 100 {
        long.push_str(line);
    }
    let escaped = long.replace(' ', "\\n");
    for body in [&long, &escaped] {
        for shift in 0..4 {
            let text = format!("{{\"a\":\"{}{body}\",\"b\":1}}", "x".repeat(shift));
            let c = std::ffi::CString::new(text.clone()).unwrap();
            let ours = unsafe { parse_c_both(c.as_ptr().cast()) };
            assert_eq!(
                ours.map(|t| t.text().len()),
                Some(text.len()),
                "shift {shift}"
            );
            // One byte broken: a continuation made ASCII, a lead made a stray
            // continuation, a byte past any character.
            for at in [
                7,
                1000,
                UTF8_CHUNK - 1,
                UTF8_CHUNK,
                UTF8_CHUNK + 2,
                text.len() - 12,
            ] {
                for bad in [b'A', 0x80, 0xFF] {
                    let mut bytes = text.clone().into_bytes();
                    if bytes[at] < 0x80 {
                        continue;
                    }
                    bytes[at] = bad;
                    let expected = std::str::from_utf8(&bytes)
                        .ok()
                        .and_then(|t| JsonText::parse(t).ok())
                        .map(|t| t.text().len());
                    let c = std::ffi::CString::new(bytes).unwrap();
                    let ours = unsafe { parse_c_both(c.as_ptr().cast()) };
                    assert_eq!(ours.map(|t| t.text().len()), expected, "{at} {bad:#x}");
                }
            }
        }
    }
}

/// A character left unfinished right where the first UTF-8 chunk ends (the
/// scan reads 32-byte blocks from a 32-aligned address, so the text is placed
/// on one), then the closing quote: refused, as std refuses it.
#[test]
fn a_character_cut_at_a_chunk_edge_is_refused() {
    // The string's bytes start at 6; the first chunk ends at the first block
    // end at least UTF8_CHUNK bytes later.
    let edge = (6 + UTF8_CHUNK).div_ceil(32) * 32;
    for cut in [&[0xC3u8][..], &[0xE4], &[0xE4, 0xB8], &[0xF0, 0x9F, 0x98]] {
        for complete in [false, true] {
            let mut text = b"{\"a\":\"".to_vec();
            while text.len() + 3 <= edge - cut.len() {
                text.extend_from_slice("网".as_bytes());
            }
            text.resize(edge - cut.len(), b'x');
            text.extend_from_slice(cut);
            if complete {
                // The rest of the character after the edge: valid.
                let whole: &[u8] = match cut[0] {
                    0xC3 => "é".as_bytes(),
                    0xE4 => "丸".as_bytes(),
                    _ => "😘".as_bytes(),
                };
                text.extend_from_slice(&whole[cut.len()..]);
            }
            text.extend_from_slice(b"\"}\0");
            let mut block = vec![0u8; text.len() + 32];
            let at = block.as_ptr().align_offset(32);
            block[at..at + text.len()].copy_from_slice(&text);
            let ours = unsafe { parse_c_both(block[at..].as_ptr()) };
            let body = &text[..text.len() - 1];
            assert_eq!(
                ours.is_some(),
                std::str::from_utf8(body).is_ok(),
                "{cut:02x?} complete: {complete}"
            );
            assert_eq!(ours.is_some(), complete);
        }
    }
}

/// Every kind of special byte at every position of two 64-byte blocks, the
/// text at every offset from a 64-aligned address: the C scan (both ways)
/// takes and refuses what the text scan does.
#[test]
fn specials_anywhere_in_a_block_scan_as_the_text_does() {
    let specials: [&[u8]; 12] = [
        b"\\n",
        b"\\\"",
        b"\\\\",
        b"\\u00e9",
        b"\\x",
        b"\\/",
        b"\"",
        b"\x01",
        "é".as_bytes(),
        b"\\n\\t\\\"",
        b"\\",
        b"\\\\\\\"",
    ];
    let mut buffer = vec![0u8; 512];
    let base = buffer.as_ptr().align_offset(64);
    for special in specials {
        for at in 0..130 {
            let mut text = b"{\"a\":\"".to_vec();
            text.extend(std::iter::repeat_n(b'x', at));
            text.extend_from_slice(special);
            text.extend(std::iter::repeat_n(b'y', 150 - at));
            text.extend_from_slice(b"\"}");
            let expected = std::str::from_utf8(&text)
                .ok()
                .and_then(|t| JsonText::parse(t).ok())
                .map(|t| format!("{:?}", t.root()));
            for shift in [0, 1, 7, 31, 32, 57, 63] {
                let start = base + shift;
                buffer[start..start + text.len()].copy_from_slice(&text);
                buffer[start + text.len()] = 0;
                let ours = unsafe { parse_c_both(buffer[start..].as_ptr()) };
                assert_eq!(
                    ours.map(|t| format!("{:?}", t.root())),
                    expected,
                    "{:?} at {at}, shift {shift}",
                    String::from_utf8_lossy(special)
                );
            }
        }
    }
}

/// A backslash followed by every printable ASCII byte, in the first block,
/// the second, and at a block's end: only `"\\/bfnrt` (and `u` with four hex
/// digits) make an escape, both ways of the C scan.
#[test]
fn every_escape_byte_is_judged_as_the_text_scan_judges_it() {
    let mut buffer = vec![0u8; 512];
    let base = buffer.as_ptr().align_offset(64);
    for byte in 0x20u8..0x80 {
        for at in [6, 40, 61, 62, 63, 100] {
            let mut text = b"{\"a\":\"".to_vec();
            text.extend(std::iter::repeat_n(b'x', at - 6));
            text.extend_from_slice(&[b'\\', byte]);
            text.extend_from_slice(b"0041 and more text after it\"}");
            let expected = JsonText::parse(std::str::from_utf8(&text).unwrap())
                .ok()
                .map(|t| format!("{:?}", t.root()));
            buffer[base..base + text.len()].copy_from_slice(&text);
            buffer[base + text.len()] = 0;
            let ours = unsafe { parse_c_both(buffer[base..].as_ptr()) };
            assert_eq!(
                ours.map(|t| format!("{:?}", t.root())),
                expected,
                "\\{} at {at}",
                byte as char
            );
        }
    }
}

/// Texts made of JSON's own pieces (and some that break it): the scan takes
/// what serde_json takes and refuses the rest with serde_json's words, and the
/// C-string scan agrees with both.
fn pieces() -> impl proptest::strategy::Strategy<Value = String> {
    const PIECES: &[&str] = &[
        "{",
        "}",
        "[",
        "]",
        ",",
        ":",
        " ",
        "\n",
        "\"",
        "\"k\"",
        "\"v\"",
        "1",
        "-",
        "0",
        "01",
        ".5",
        "e3",
        "E-2",
        "true",
        "false",
        "null",
        "tru",
        "\\",
        "\\n",
        "\\u00e9",
        "\\ud83d",
        "\\ude00",
        "\\ud800\\u0041",
        "\\x",
        "\\u12",
        "é",
        "中",
        "😀",
        "\u{1}",
        "\t",
        "\u{7f}",
        "123456789012345678901234567890",
    ];
    proptest::collection::vec(proptest::sample::select(PIECES), 0..24)
        .prop_map(|parts| parts.concat())
}

use proptest::strategy::Strategy as _;

proptest::proptest! {
    #[test]
    fn arbitrary_texts_scan_as_serde_json_reads_them(text in pieces()) {
        same_verdict(&text);
        // Wrapped in an object, so most texts reach the string and number rules.
        same_verdict(&format!("{{\"a\":{text}}}"));
        same_verdict(&format!("{{\"a\":\"{text}\"}}"));
        for t in [text.clone(), format!("{{\"a\":\"{text}\"}}")] {
            if t.contains('\0') {
                continue;
            }
            let c = std::ffi::CString::new(t.clone()).unwrap();
            let ours = unsafe { parse_c_both(c.as_ptr().cast()) };
            let theirs = JsonText::parse(&t).ok();
            proptest::prop_assert_eq!(
                ours.as_ref().map(|j| format!("{:?}", j.root())),
                theirs.as_ref().map(|j| format!("{:?}", j.root()))
            );
        }
    }
}

#[test]
fn strings_are_borrowed_and_decoded_on_demand() {
    let t = JsonText::parse(r#"{"a":"plain","b":"x\u0041","a\u0062c":1}"#).unwrap();
    let root = t.root();
    assert!(matches!(
        root.get("a").unwrap().as_str(),
        Some(Cow::Borrowed("plain"))
    ));
    assert_eq!(root.get("b").unwrap().as_str().unwrap(), "xA");
    assert_eq!(root.get("abc").unwrap().raw, "1");
}

#[test]
fn repeated_keys_read_the_last() {
    let t = JsonText::parse(r#"{"a":1,"a":2}"#).unwrap();
    assert_eq!(t.root().get("a").unwrap().raw, "2");
}

#[test]
fn integers_read_as_serde_json_reads_them() {
    for n in [
        "0",
        "-0",
        "12",
        "-12",
        "1.0",
        "1e3",
        "9223372036854775807",
        "9223372036854775808",
    ] {
        let t = JsonText::parse(n).unwrap();
        let v: Value = serde_json::from_str(n).unwrap();
        assert_eq!(t.root().as_i64(), v.as_i64(), "{n}");
    }
}

#[test]
fn a_member_is_set_in_place_or_appended() {
    let set = |text: &str| {
        JsonText::parse(text)
            .unwrap()
            .with_member("stream", "true")
            .map(|pieces| String::from_utf8(pieces.concat()).unwrap())
    };
    assert_eq!(set(r#"{"a":1}"#).unwrap(), r#"{"a":1,"stream":true}"#);
    assert_eq!(set(r#" { } "#).unwrap(), r#" {"stream":true } "#);
    assert_eq!(set("{\"a\":1 }").unwrap(), "{\"a\":1,\"stream\":true }");
    assert_eq!(
        set(r#"{"stream": false, "a":1}"#).unwrap(),
        r#"{"stream": true, "a":1}"#
    );
    assert_eq!(
        set(r#"{"stream":1,"stream":null}"#).unwrap(),
        r#"{"stream":true,"stream":true}"#
    );
    assert_eq!(set(r#"{"stream":true}"#), None);
    assert_eq!(
        set(r#"{"a":{"stream":false}}"#).unwrap(),
        r#"{"a":{"stream":false},"stream":true}"#
    );
}
