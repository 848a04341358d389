//! The operation table: every endpoint of the API document as data.
//!
//! Adding a documented endpoint is one row here (plus its rules in `rules.rs`
//! and a mock handler), not a new code path: `Client::call` reads the row to
//! build the URL, place the key, check the body and judge the answer.

use crate::api::rules;
use crate::api::validate::Rule;
/// Named by an operation's row; defined where streams are read.
pub use crate::stream::driver::StreamKind;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    Get,
    Post,
}

impl Method {
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Post => "POST",
        }
    }
}

/// Where the API key goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Auth {
    /// `Authorization: Bearer <key>` (OpenAI-compatible and vendor paths).
    Bearer,
    /// `?key=<key>` (the native `/v1beta/...` format).
    QueryKey,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BodyKind {
    None,
    Json,
    Multipart,
}

/// How a 2xx answer is judged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reply {
    /// A JSON object that must hold these top-level fields.
    Json(&'static [&'static str]),
    /// A vendor-style body whose integer `code` is `ok` on success.
    VendorCode { ok: i64 },
}

#[derive(Debug)]
pub struct Operation {
    pub name: &'static str,
    pub method: Method,
    /// Path template; `{name}` is a path parameter, filled in order.
    pub path: &'static str,
    pub auth: Auth,
    pub body: BodyKind,
    pub reply: Reply,
    pub rules: &'static [Rule],
    pub stream: Option<StreamKind>,
}

const fn post(name: &'static str, path: &'static str, rules: &'static [Rule]) -> Operation {
    Operation {
        name,
        method: Method::Post,
        path,
        auth: Auth::Bearer,
        body: BodyKind::Json,
        reply: Reply::Json(&[]),
        rules,
        stream: None,
    }
}

const fn get(name: &'static str, path: &'static str) -> Operation {
    Operation {
        name,
        method: Method::Get,
        path,
        auth: Auth::Bearer,
        body: BodyKind::None,
        reply: Reply::Json(&[]),
        rules: &[],
        stream: None,
    }
}

const fn expecting(op: Operation, fields: &'static [&'static str]) -> Operation {
    Operation {
        reply: Reply::Json(fields),
        ..op
    }
}

pub static CHAT: Operation = Operation {
    stream: Some(StreamKind::Chat),
    ..expecting(
        post("chat", "/v1/chat/completions", rules::CHAT),
        &["choices"],
    )
};
pub static RESPONSES: Operation = Operation {
    stream: Some(StreamKind::Responses),
    ..expecting(
        post("responses", "/v1/responses", rules::RESPONSES),
        &["output"],
    )
};
pub static EMBEDDINGS: Operation = expecting(
    post("embeddings", "/v1/embeddings", rules::EMBEDDINGS),
    &["data"],
);
pub static IMAGE_GENERATE: Operation = expecting(
    post(
        "image_generate",
        "/v1/images/generations",
        rules::IMAGE_GENERATE,
    ),
    &["data"],
);
pub static IMAGE_EDIT: Operation = expecting(
    post("image_edit", "/v1/images/edits", rules::IMAGE_EDIT),
    &["data"],
);
pub static IMAGE_EDIT_UPLOAD: Operation = Operation {
    body: BodyKind::Multipart,
    ..expecting(
        post(
            "image_edit_upload",
            "/v1/images/edits",
            rules::IMAGE_EDIT_UPLOAD,
        ),
        &["data"],
    )
};
pub static VIDEO_CREATE: Operation = expecting(
    post("video_create", "/v1/video/create", rules::VIDEO_CREATE),
    &["task_id"],
);
pub static VIDEO_GENERATE: Operation = post(
    "video_generate",
    "/v1/video/generations",
    rules::VIDEO_GENERATE,
);
pub static VIDEO_GENERATION_STATUS: Operation =
    get("video_generation_status", "/v1/video/generations/{id}");
pub static VIDEO_CHARACTER: Operation = expecting(
    post("video_character", "/v1/videos", rules::VIDEO_CHARACTER),
    &["id"],
);
pub static VIDEO_CHARACTER_STATUS: Operation = get("video_character_status", "/v1/videos/{id}");
pub static VIDEO_REMIX: Operation =
    post("video_remix", "/v1/videos/{id}/remix", rules::VIDEO_REMIX);

pub static VENDOR_K_TEXT2VIDEO: Operation = post(
    "vendor_k_text2video",
    "/vendorK/v1/videos/text2video",
    rules::VENDOR_K_TEXT2VIDEO,
);
pub static VENDOR_K_IMAGE2VIDEO: Operation = post(
    "vendor_k_image2video",
    "/vendorK/v1/videos/image2video",
    rules::VENDOR_K_IMAGE2VIDEO,
);
pub static VENDOR_K_MULTI_IMAGE2VIDEO: Operation = post(
    "vendor_k_multi_image2video",
    "/vendorK/v1/videos/multi-image2video",
    rules::VENDOR_K_MULTI_IMAGE2VIDEO,
);
pub static VENDOR_K_STATUS: Operation = get("vendor_k_status", "/vendorK/v1/videos/{id}");
pub static VENDOR_K_EFFECTS: Operation = post(
    "vendor_k_effects",
    "/vendorK/video/effects",
    rules::VENDOR_K_EFFECTS,
);
pub static VENDOR_K_EXTEND: Operation = post(
    "vendor_k_extend",
    "/vendorK/video/extend",
    rules::VENDOR_K_EXTEND,
);
pub static VENDOR_H_IMAGE_TO_VIDEO: Operation = Operation {
    reply: Reply::VendorCode { ok: 0 },
    ..post(
        "vendor_h_image_to_video",
        "/vendorH/image-to-video",
        rules::VENDOR_H_IMAGE_TO_VIDEO,
    )
};
pub static VENDOR_M_IMAGINE: Operation = Operation {
    reply: Reply::VendorCode { ok: 1 },
    ..post(
        "vendor_m_imagine",
        "/vendorM/submit/imagine",
        rules::VENDOR_M_IMAGINE,
    )
};
pub static VENDOR_I_DESCRIBE: Operation = expecting(
    post(
        "vendor_i_describe",
        "/vendorI/describe",
        rules::VENDOR_I_DESCRIBE,
    ),
    &["descriptions"],
);
pub static VENDOR_I_GENERATE: Operation = expecting(
    post(
        "vendor_i_generate",
        "/vendorI/generate",
        rules::VENDOR_I_GENERATE,
    ),
    &["data"],
);
pub static VENDOR_I_TEXT_TO_IMAGE: Operation = post(
    "vendor_i_text_to_image",
    "/vendorI/text-to-image",
    rules::VENDOR_I_TEXT_TO_IMAGE,
);
pub static VENDOR_R_TASK: Operation = get("vendor_r_task", "/vendorR/task/{taskId}");
pub static VENDOR_F_EDIT: Operation = post(
    "vendor_f_edit",
    "/vendorF/{model_slug}/edit",
    rules::VENDOR_F_EDIT,
);
pub static GENERATE_CONTENT: Operation = Operation {
    auth: Auth::QueryKey,
    ..expecting(
        post(
            "generate_content",
            "/v1beta/models/{model}:generateContent",
            rules::GENERATE_CONTENT,
        ),
        &["candidates"],
    )
};

/// Every operation, for `gw_request`'s lookup and for the table in docs/endpoints.md.
pub static ALL: &[&Operation] = &[
    &CHAT,
    &RESPONSES,
    &EMBEDDINGS,
    &IMAGE_GENERATE,
    &IMAGE_EDIT,
    &VIDEO_CREATE,
    &VIDEO_GENERATE,
    &VIDEO_GENERATION_STATUS,
    &VIDEO_CHARACTER,
    &VIDEO_CHARACTER_STATUS,
    &VIDEO_REMIX,
    &VENDOR_K_TEXT2VIDEO,
    &VENDOR_K_IMAGE2VIDEO,
    &VENDOR_K_MULTI_IMAGE2VIDEO,
    &VENDOR_K_STATUS,
    &VENDOR_K_EFFECTS,
    &VENDOR_K_EXTEND,
    &VENDOR_H_IMAGE_TO_VIDEO,
    &VENDOR_M_IMAGINE,
    &VENDOR_I_DESCRIBE,
    &VENDOR_I_GENERATE,
    &VENDOR_I_TEXT_TO_IMAGE,
    &VENDOR_R_TASK,
    &VENDOR_F_EDIT,
    &GENERATE_CONTENT,
];

impl Operation {
    /// The path with its parameters filled in (each percent-encoded, so an id
    /// cannot reach another path) in template order.
    pub fn path_with(&self, params: &[&str]) -> Result<String, crate::Error> {
        let mut out = String::with_capacity(self.path.len() + 32);
        let mut rest = self.path;
        let mut given = params.iter();
        while let Some(open) = rest.find('{') {
            let close = rest[open..]
                .find('}')
                .map(|c| open + c)
                .unwrap_or(rest.len());
            let name = &rest[open + 1..close];
            let value = given.next().ok_or_else(|| {
                crate::Error::invalid_param(
                    name,
                    format!("{}: path parameter '{name}' is missing", self.name),
                )
            })?;
            out.push_str(&rest[..open]);
            encode_param(name, value, &mut out)?;
            rest = &rest[(close + 1).min(rest.len())..];
        }
        out.push_str(rest);
        Ok(out)
    }

    /// Whether a concrete path (no query) is an instance of this template.
    /// Allocates nothing: it runs over the whole table for every `gw_request`.
    pub fn matches(&self, method: &str, path: &str) -> bool {
        if !method.eq_ignore_ascii_case(self.method.as_str()) {
            return false;
        }
        // Segments before the first parameter are literal, and so is the text
        // that starts the parameter's segment: a path must start with all of it. A
        // template without parameters is matched by itself alone.
        let Some(brace) = self.path.bytes().position(|b| b == b'{') else {
            return self.path == path;
        };
        if !path.starts_with(&self.path[..brace]) {
            return false;
        }
        let segments = |p: &str| p.bytes().filter(|&b| b == b'/').count() + 1;
        let (want, have) = (segments(self.path), segments(path));
        let pairs = || self.path.split('/').zip(path.split('/'));
        match self.path.split('/').position(is_multi_segment) {
            None => want == have && pairs().all(|(w, h)| segment_matches(w, h)),
            // A slug spans one or more segments: match what stands before and after it.
            Some(at) => {
                let after = want - at - 1;
                have > at + after
                    && pairs().take(at).all(|(w, h)| segment_matches(w, h))
                    && self
                        .path
                        .rsplit('/')
                        .zip(path.rsplit('/'))
                        .take(after)
                        .all(|(w, h)| segment_matches(w, h))
            }
        }
    }
}

/// Whether a template segment is a whole multi-segment parameter (`{model_slug}`).
fn is_multi_segment(segment: &str) -> bool {
    segment
        .strip_prefix('{')
        .and_then(|s| s.strip_suffix('}'))
        .is_some_and(|name| MULTI_SEGMENT_PARAMS.contains(&name))
}

/// Path parameters that may span segments: vendor F model slugs look like
/// `org/model/variant`.
const MULTI_SEGMENT_PARAMS: &[&str] = &["model_slug"];

/// Appends one path parameter, percent-encoded. A multi-segment parameter keeps
/// its `/` but may not hold empty, `.` or `..` segments (no path traversal).
fn encode_param(name: &str, value: &str, out: &mut String) -> Result<(), crate::Error> {
    let bad = |why: &str| crate::Error::invalid_param(name, format!("{name}: {why}"));
    if value.is_empty() {
        return Err(bad("must be a non-empty string"));
    }
    if !MULTI_SEGMENT_PARAMS.contains(&name) {
        // `.` and `..` stay as they are after encoding, and a normalising proxy
        // would turn /v1/videos/../remix into /v1/remix: another endpoint.
        if value == "." || value == ".." {
            return Err(bad("must not be '.' or '..'"));
        }
        percent_encode_segment(value, out);
        return Ok(());
    }
    for (i, segment) in value.split('/').enumerate() {
        if segment.is_empty() || segment == "." || segment == ".." {
            return Err(bad(
                "must be segments separated by single '/', without '.' or '..'",
            ));
        }
        if i > 0 {
            out.push('/');
        }
        percent_encode_segment(segment, out);
    }
    Ok(())
}

/// Checks a caller-written path (`gw_request`): one leading `/`, no spaces,
/// CR/LF or fragment, and no empty, `.` or `..` segment, percent-encoded ones
/// (`%2e%2E`) included: a proxy that normalises paths would send the request
/// somewhere else than it reads.
pub(crate) fn check_raw_path(path: &str) -> Result<(), crate::Error> {
    let bad =
        |why: &str| crate::Error::invalid_param("path", format!("path: {why} (got '{path}')"));
    if !path.starts_with('/') || path.starts_with("//") {
        return Err(bad("must start with a single '/'"));
    }
    // One pass over the bytes: the refused ones (whitespace and control characters
    // are the bytes up to the space, and DEL), where the query starts, and the
    // first fault of a segment before it, reported after the tests that go first.
    let bytes = path.as_bytes();
    let mut refused = false;
    let mut query_at = None;
    let mut fault = None;
    let mut start = 1;
    for (i, &b) in bytes.iter().enumerate().skip(1) {
        if b <= b' ' || b == 0x7f || b == b'#' {
            refused = true;
            break;
        }
        if query_at.is_none() && (b == b'/' || b == b'?') {
            fault = fault.or_else(|| segment_fault(&bytes[start..i], b == b'?'));
            start = i + 1;
            if b == b'?' {
                query_at = Some(i);
            }
        }
    }
    if !refused && query_at.is_none() {
        fault = fault.or_else(|| segment_fault(&bytes[start..], true));
    }
    // Past ASCII, the characters of any script (a '/' or '?' byte is always itself).
    if !refused && !path.is_ascii() {
        refused = path.contains(|c: char| c.is_whitespace() || c.is_control() || c == '#');
    }
    if refused {
        return Err(bad("must hold no spaces, control characters or fragment"));
    }
    // The client's key goes where the API wants it; a caller's own `key=` would be
    // a second one, and a secret redaction does not know. The path is not echoed.
    // Any spelling the gateway decodes to `key` (`KEY`, `%6bey`): the same test that
    // strips it from URLs gw shows or follows (redact::names_key).
    let query = query_at.map_or("", |q| &path[q + 1..]);
    if !query.is_empty()
        && query
            .split('&')
            .any(|pair| crate::redact::names_key(pair.split('=').next().unwrap_or("")))
    {
        return Err(crate::Error::invalid_param(
            "path",
            "path: must not carry a key= query parameter (gw adds the client's api_key where the API wants it)",
        ));
    }
    match fault {
        Some(why) => Err(bad(why)),
        None => Ok(()),
    }
}

/// What is wrong with a segment of a raw path, if anything.
fn segment_fault(segment: &[u8], last: bool) -> Option<&'static str> {
    // A trailing '/' is a path's own business; an empty segment inside is not.
    if segment.is_empty() && !last {
        return Some("must not hold an empty segment ('//')");
    }
    is_dot_segment(segment).then_some("must not hold a '.' or '..' segment")
}

/// Whether a segment decodes to `.` or `..`: one or two dots, each written as
/// itself or as `%2e` in either case (no allocation: every raw path is checked).
fn is_dot_segment(segment: &[u8]) -> bool {
    let mut rest = segment;
    let mut dots = 0;
    while !rest.is_empty() {
        rest = match rest {
            [b'.', tail @ ..] => tail,
            [b'%', b'2', e, tail @ ..] if e.eq_ignore_ascii_case(&b'e') => tail,
            _ => return false,
        };
        dots += 1;
    }
    dots == 1 || dots == 2
}

/// A caller-written path with every byte past ASCII percent-encoded (UTF-8, `%C3%A9`):
/// a request line carries ASCII only. `%` escapes already there are kept as written.
/// Run after `check_raw_path`, which refuses spaces and control characters of any script.
pub(crate) fn encode_past_ascii(path: &str) -> std::borrow::Cow<'_, str> {
    if path.is_ascii() {
        return path.into();
    }
    let mut out = String::with_capacity(path.len() + 16);
    for b in path.bytes() {
        if b.is_ascii() {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out.into()
}

/// Finds the row for a method and path (query ignored), for `gw_request`.
pub fn lookup(method: &str, path: &str) -> Option<&'static Operation> {
    let end = path.bytes().position(|b| b == b'?' || b == b'#');
    let path = end.map_or(path, |end| &path[..end]);
    ALL.iter().copied().find(|op| op.matches(method, path))
}

/// `{model}:generateContent` matches `gemini-x:generateContent`: a parameter
/// with literal text before or after it in one segment.
fn segment_matches(template: &str, segment: &str) -> bool {
    match (template.find('{'), template.find('}')) {
        (Some(open), Some(close)) => {
            let (prefix, suffix) = (&template[..open], &template[close + 1..]);
            segment.len() > prefix.len() + suffix.len()
                && segment.starts_with(prefix)
                && segment.ends_with(suffix)
        }
        _ => template == segment,
    }
}

/// Keeps RFC 3986 unreserved characters (and `:` `@`, legal in a segment); encodes the rest.
pub(crate) fn percent_encode_segment(value: &str, out: &mut String) {
    for b in value.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b':' | b'@') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
}

/// Percent-encodes a query value (the `?key=` API key).
pub(crate) fn percent_encode_query(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for b in value.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_params_are_filled_and_encoded() {
        assert_eq!(
            VIDEO_CHARACTER_STATUS.path_with(&["abc/../x?y"]).unwrap(),
            "/v1/videos/abc%2F..%2Fx%3Fy"
        );
        assert_eq!(
            GENERATE_CONTENT.path_with(&["model-a"]).unwrap(),
            "/v1beta/models/model-a:generateContent"
        );
        assert!(VIDEO_REMIX.path_with(&[]).is_err());
        assert!(VIDEO_REMIX.path_with(&[""]).is_err());
        assert_eq!(
            VENDOR_F_EDIT.path_with(&["org/model v2"]).unwrap(),
            "/vendorF/org/model%20v2/edit"
        );
        assert!(VENDOR_F_EDIT.path_with(&["org/../x"]).is_err());
        for dots in [".", ".."] {
            let e = VIDEO_CHARACTER_STATUS.path_with(&[dots]).unwrap_err();
            assert!(e.to_string().contains("'.' or '..'"), "{e}");
            assert!(VIDEO_REMIX.path_with(&[dots]).is_err());
            assert!(VENDOR_F_EDIT.path_with(&[dots]).is_err());
            assert!(GENERATE_CONTENT.path_with(&[dots]).is_err());
        }
        // Dots inside a value are plain text.
        assert_eq!(
            VIDEO_CHARACTER_STATUS.path_with(&["..x"]).unwrap(),
            "/v1/videos/..x"
        );
        assert!(VENDOR_F_EDIT.path_with(&["org//x"]).is_err());
    }

    #[test]
    fn raw_paths_without_dot_segments_pass() {
        for ok in [
            "/v1/chat/completions",
            "/vendorR/task/t1?x=1",
            "/v1/videos/a.b/remix",
            "/v1/x/",
            "/v1/videos/..x",
        ] {
            assert!(check_raw_path(ok).is_ok(), "{ok}");
        }
        for bad in [
            "/v1/videos/../remix",
            "/v1/videos/./x",
            "/v1/videos/%2e%2E/remix",
            "/v1/videos/.%2e",
            "/v1//videos",
            "//evil.example/x",
            "v1/chat",
            "/v1/chat completions",
            "/v1/chat\r\n",
            "/v1/chat#frag",
            "/..",
        ] {
            assert!(check_raw_path(bad).is_err(), "{bad}");
        }
    }

    /// `Operation::matches` as it was written before it stopped allocating.
    fn matches_plainly(op: &Operation, method: &str, path: &str) -> bool {
        if !method.eq_ignore_ascii_case(op.method.as_str()) {
            return false;
        }
        let want: Vec<&str> = op.path.split('/').collect();
        let have: Vec<&str> = path.split('/').collect();
        let pairs_match = |w: &[&str], h: &[&str]| {
            w.len() == h.len() && w.iter().zip(h).all(|(w, h)| segment_matches(w, h))
        };
        match want.iter().position(|w| {
            MULTI_SEGMENT_PARAMS
                .iter()
                .any(|p| w == &format!("{{{p}}}"))
        }) {
            None => pairs_match(&want, &have),
            Some(at) => {
                let after = want.len() - at - 1;
                have.len() > at + after
                    && pairs_match(&want[..at], &have[..at])
                    && pairs_match(&want[at + 1..], &have[have.len() - after..])
            }
        }
    }

    #[test]
    fn matching_agrees_with_its_plain_definition() {
        // Paths made of the table's own segments, cut and shuffled.
        let mut pieces: Vec<&str> = ALL.iter().flat_map(|op| op.path.split('/')).collect();
        pieces.extend(["", "x", "m1:generateContent", "org", "a:b"]);
        let mut rng = crate::test_rng::XorShift(0x9e37_79b9_7f4a_7c15);
        let mut paths: Vec<String> = ALL.iter().map(|op| op.path.to_string()).collect();
        for _ in 0..3000 {
            let n = 1 + rng.below(6);
            let path: Vec<&str> = (0..n).map(|_| pieces[rng.below(pieces.len())]).collect();
            paths.push(format!("/{}", path.join("/")));
        }
        for op in ALL {
            let concrete = op
                .path
                .replace("{model_slug}", "o/m")
                .replace('{', "p")
                .replace('}', "");
            paths.push(concrete);
        }
        for path in &paths {
            for op in ALL {
                for method in ["POST", "get"] {
                    assert_eq!(
                        op.matches(method, path),
                        matches_plainly(op, method, path),
                        "{} {method} {path}",
                        op.name
                    );
                }
            }
        }
    }

    #[test]
    fn ascii_bytes_refused_in_a_path_are_its_whitespace_and_control_characters() {
        for b in 0u8..0x80 {
            let c = char::from(b);
            let refused = c.is_whitespace() || c.is_control() || c == '#';
            assert_eq!(
                check_raw_path(&format!("/v1/a{c}b")).is_err(),
                refused,
                "{b:#x}"
            );
        }
    }

    #[test]
    fn dot_segments_agree_with_their_plain_definition() {
        let alphabet = [".", "%", "2", "e", "E", "%2e", "%2E", "a", "%2"];
        let mut rng = crate::test_rng::XorShift(0x2545_f491_4f6c_dd1d);
        for _ in 0..20_000 {
            let segment: String = (0..rng.below(5))
                .map(|_| alphabet[rng.below(alphabet.len())])
                .collect();
            let decoded = segment.to_ascii_lowercase().replace("%2e", ".");
            assert_eq!(
                is_dot_segment(segment.as_bytes()),
                decoded == "." || decoded == "..",
                "{segment:?}"
            );
        }
    }

    #[test]
    fn lookup_finds_rows_by_concrete_path() {
        assert_eq!(lookup("POST", "/v1/chat/completions").unwrap().name, "chat");
        assert_eq!(
            lookup("get", "/vendorR/task/t1?x=1").unwrap().name,
            "vendor_r_task"
        );
        assert_eq!(
            lookup("POST", "/v1beta/models/m1:generateContent")
                .unwrap()
                .name,
            "generate_content"
        );
        assert_eq!(
            lookup("POST", "/v1/videos/v1/remix").unwrap().name,
            "video_remix"
        );
        assert_eq!(
            lookup("POST", "/vendorF/org/model/edit").unwrap().name,
            "vendor_f_edit"
        );
        assert_eq!(
            lookup("POST", "/vendorF/model/edit").unwrap().name,
            "vendor_f_edit"
        );
        assert!(lookup("POST", "/vendorF/edit").is_none());
        assert!(lookup("POST", "/v1/unknown").is_none());
        assert!(lookup("GET", "/v1/chat/completions").is_none());
    }

    #[test]
    fn every_path_is_unique_per_method() {
        for (i, a) in ALL.iter().enumerate() {
            for b in &ALL[i + 1..] {
                assert!(
                    !(a.method == b.method && a.path == b.path),
                    "{} vs {}",
                    a.name,
                    b.name
                );
            }
        }
    }
}
