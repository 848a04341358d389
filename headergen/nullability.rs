//! Nullability annotations for include/gw.h, so Swift and Kotlin/Native show
//! which pointers may be NULL and clang can check callers.
//!
//! cbindgen writes `MARK` after every `*` it emits (the `[ptr]` attributes);
//! `annotate` replaces each mark by what the table below says for the
//! declaration the pointer belongs to. Inside the header's
//! `assume_nonnull` region a one-level pointer is non-null unless marked, so
//! only nullable ones get `GW_NULLABLE`; clang infers nothing for pointers to
//! pointers, so every level of those is spelled out. A pointer the table does
//! not cover stops the build: guessing would silently tell Swift a NULL is
//! impossible (or the reverse).

/// What cbindgen is told to write after each `*` (see build.rs).
pub const MARK: &str = "GW_PTR_MARK";

/// Goes right after the includes: the macros and the start of the region.
pub const PROLOGUE: &str = r#"/*
 * Nullability, for clang, Swift and Kotlin/Native: every pointer below is
 * non-NULL unless marked GW_NULLABLE (pointers to pointers are marked at each
 * level). Other compilers see empty macros.
 */
#if defined(__clang__)
#define GW_NULLABLE _Nullable
#define GW_NONNULL _Nonnull
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wnullability-extension"
#pragma clang assume_nonnull begin
#else
#define GW_NULLABLE
#define GW_NONNULL
#endif"#;

/// Goes right before the include guard's `#endif`.
pub const EPILOGUE: &str = r#"#if defined(__clang__)
#pragma clang assume_nonnull end
#pragma clang diagnostic pop
#endif
"#;

#[derive(Clone, Copy, PartialEq, Debug)]
pub enum Null {
    Nullable,
    Nonnull,
}
use Null::{Nonnull, Nullable};

/// One row: in `scope` (a function, callback type or struct name; `ANY` for
/// every scope; `RETURNS` for what a function returns, `name` being the
/// function), the pointer `name` has these levels, written as in C from the
/// innermost: `char *GW_NULLABLE *GW_NULLABLE out` is `[Nullable, Nullable]`.
struct Rule {
    scope: &'static str,
    name: &'static str,
    levels: &'static [Null],
}

const ANY: &str = "*";
const RETURNS: &str = "return";
/// Scope matching every function whose name ends in `_free` (they take NULL).
const FREE_FUNCTIONS: &str = "*_free";

const fn rule(scope: &'static str, name: &'static str, levels: &'static [Null]) -> Rule {
    Rule {
        scope,
        name,
        levels,
    }
}

/// The table. Add a row when the build names an uncovered pointer.
const RULES: &[Rule] = &[
    // Optional by meaning, wherever they appear.
    rule(ANY, "out", &[Nullable, Nullable]),
    rule(ANY, "err_json", &[Nullable, Nullable]),
    rule(ANY, "user_data", &[Nullable]),
    rule(ANY, "callback", &[Nullable]),
    rule(ANY, "progress", &[Nullable]),
    rule(ANY, "cb", &[Nullable]),
    rule(ANY, "options_json", &[Nullable]),
    rule(ANY, "wait_options_json", &[Nullable]),
    // Required wherever they appear.
    rule(ANY, "client", &[Nonnull]),
    rule(ANY, "base", &[Nonnull]),
    rule(ANY, "stream", &[Nonnull]),
    rule(ANY, "request_json", &[Nonnull]),
    rule(ANY, "method", &[Nonnull]),
    rule(ANY, "path", &[Nonnull]),
    rule(ANY, "model", &[Nonnull]),
    rule(ANY, "model_slug", &[Nonnull]),
    rule(ANY, "video_id", &[Nonnull]),
    rule(ANY, "task_id", &[Nonnull]),
    rule(ANY, "image", &[Nonnull]),
    rule(ANY, "base64", &[Nonnull]),
    rule(ANY, "out_floats", &[Nullable, Nonnull]),
    rule(ANY, "out_len", &[Nonnull]),
    // Callback arguments and struct fields gw fills.
    rule(ANY, "event", &[Nonnull]),
    rule(ANY, "data", &[Nonnull]),
    rule(ANY, "status", &[Nonnull]),
    rule(ANY, "task_json", &[Nonnull]),
    rule(ANY, "message", &[Nonnull]),
    rule("gw_event", "text_delta", &[Nullable]),
    rule("gw_file", "filename", &[Nullable]),
    rule("gw_file", "content_type", &[Nullable]),
    rule("gw_attempt", "request_id", &[Nullable]),
    rule("gw_attempt_cb", "attempt", &[Nonnull]),
    // Arguments optional in one function only.
    rule("gw_client_new", "base_url", &[Nullable]),
    rule("gw_client_new", "api_key", &[Nullable]),
    rule("gw_request", "body_json", &[Nullable]),
    rule("gw_image_edit_upload", "mask", &[Nullable]),
    // Cancelling NULL is fine (nothing happens), as documented.
    rule("gw_client_cancel", "client", &[Nullable]),
    // The JSON helpers' inputs.
    rule("gw_json_quote", "text", &[Nonnull]),
    rule("gw_json_get", "json", &[Nonnull]),
    // Out-parameters receiving a handle: required, set to NULL on failure.
    rule("gw_client_create", "client", &[Nullable, Nonnull]),
    rule("gw_client_create_derived", "client", &[Nullable, Nonnull]),
    rule("gw_client_create_observed", "client", &[Nullable, Nonnull]),
    rule("gw_chat_stream_open", "stream", &[Nullable, Nonnull]),
    rule("gw_responses_stream_open", "stream", &[Nullable, Nonnull]),
    rule("gw_stream_next", "event", &[Nullable, Nonnull]),
    rule("gw_stream_next_buffered", "event", &[Nullable, Nonnull]),
    // The exchange: its handle, what it fills, what a driver feeds.
    rule(ANY, "ex", &[Nonnull]),
    rule("gw_exchange_new", "request_json", &[Nullable]),
    rule("gw_exchange_new", "out_exchange", &[Nullable, Nonnull]),
    rule("gw_exchange_new", "err_out", &[Nullable, Nullable]),
    rule("gw_exchange_step", "wait_ms", &[Nullable]),
    rule("gw_exchange_new_image_edit_upload", "mask", &[Nullable]),
    rule(
        "gw_exchange_new_image_edit_upload",
        "out_exchange",
        &[Nullable, Nonnull],
    ),
    rule(
        "gw_exchange_new_image_edit_upload",
        "err_out",
        &[Nullable, Nullable],
    ),
    rule(
        "gw_exchange_new_video_wait",
        "out_exchange",
        &[Nullable, Nonnull],
    ),
    rule(
        "gw_exchange_new_video_wait",
        "err_out",
        &[Nullable, Nullable],
    ),
    rule("gw_exchange_request", "out", &[Nonnull]),
    rule("gw_exchange_event", "out", &[Nonnull]),
    rule("gw_exchange_feed_head", "headers", &[Nullable]),
    rule("gw_exchange_feed_body", "bytes", &[Nullable]),
    rule("gw_exchange_feed_body", "taken", &[Nullable]),
    rule("gw_exchange_feed_error", "message", &[Nullable]),
    rule("gw_header", "name", &[Nonnull]),
    rule("gw_header", "value", &[Nonnull]),
    rule("gw_request_view", "url", &[Nonnull]),
    rule("gw_request_view", "headers", &[Nonnull]),
    rule("gw_request_view", "body", &[Nonnull]),
    // Freeing NULL is fine.
    rule(FREE_FUNCTIONS, "ex", &[Nullable]),
    rule(FREE_FUNCTIONS, "client", &[Nullable]),
    rule(FREE_FUNCTIONS, "stream", &[Nullable]),
    rule(FREE_FUNCTIONS, "ptr", &[Nullable]),
    // Returned pointers.
    rule(RETURNS, "gw_client_new", &[Nullable]),
    rule(RETURNS, "gw_client_new_with_options", &[Nullable]),
    rule(RETURNS, "gw_client_derive", &[Nullable]),
    rule(RETURNS, "gw_last_error", &[Nonnull]),
    rule(RETURNS, "gw_status_str", &[Nonnull]),
    rule(RETURNS, "gw_version", &[Nonnull]),
];

/// The most specific row: this scope's, then the `*_free` one, then `ANY`.
fn lookup(scope: &str, name: &str) -> Option<&'static Rule> {
    let scopes: &[&str] = if scope == RETURNS {
        &[RETURNS]
    } else if scope.ends_with("_free") {
        &[scope, FREE_FUNCTIONS, ANY]
    } else {
        &[scope, ANY]
    };
    scopes
        .iter()
        .find_map(|s| RULES.iter().find(|r| r.scope == *s && r.name == name))
}

/// Replaces every `MARK` in `header` (cbindgen's output) by its annotation and
/// annotates arguments of function-pointer typedefs (`gw_event_cb callback`),
/// which cbindgen writes without a `*`. Errs with one line per pointer the
/// table does not cover.
pub fn annotate(header: &str) -> Result<String, String> {
    let tokens = tokenize(&code_only(header));
    let mut edits: Vec<(usize, usize, &'static str)> = Vec::new();
    let mut problems = Vec::new();
    let mut stack: Vec<Frame> = Vec::new();
    let mut fn_typedefs: Vec<String> = Vec::new();
    // Marks (position, length) waiting for the name they belong to.
    let mut pending: Vec<(usize, usize)> = Vec::new();
    let mut last_name = String::new();
    let mut group_name = String::new();

    for (i, tok) in tokens.iter().enumerate() {
        let next = tokens.get(i + 1).map(|t| t.text.as_str());
        let t = tok.text.as_str();
        let continues_declarator = is_ident(t) || t == "*";
        if !pending.is_empty() && !continues_declarator {
            problems.push(format!(
                "a pointer is followed by `{t}`: a declaration shape headergen/nullability.rs does not know"
            ));
            pending.clear();
        }
        match t {
            t if t == MARK => pending.push((tok.pos, MARK.len() + 1)),
            "const" | "struct" | "typedef" | "extern" => {}
            "(" if next == Some("*") => stack.push(Frame::Group),
            "(" => {
                let owner = if i > 0 && tokens[i - 1].text == ")" {
                    group_name.clone()
                } else {
                    last_name.clone()
                };
                stack.push(Frame::Params(owner));
            }
            ")" => {
                if let Some(Frame::Group) = stack.pop() {
                    group_name = last_name.clone();
                }
            }
            "{" => {
                let is_struct = i >= 2 && tokens[i - 2].text == "struct";
                stack.push(if is_struct {
                    Frame::Struct(last_name.clone())
                } else {
                    Frame::Block
                });
            }
            "}" => {
                stack.pop();
            }
            t if is_ident(t) => {
                last_name = t.to_string();
                if !pending.is_empty() {
                    let in_group = matches!(stack.last(), Some(Frame::Group));
                    let scope = scope_of(&stack);
                    if in_group && scope.is_none() {
                        // `typedef int (*GW_PTR_MARK gw_event_cb)(...)`: the
                        // typedef stays plain; each use is annotated.
                        fn_typedefs.push(t.to_string());
                        edits.extend(pending.iter().map(|&(p, l)| (p, l, "")));
                    } else {
                        let scope = scope.unwrap_or(RETURNS);
                        annotate_one(scope, t, &pending, &mut edits, &mut problems);
                    }
                    pending.clear();
                } else if fn_typedefs.iter().any(|f| f == t) && next.is_some_and(is_ident) {
                    // `gw_event_cb callback`: the name gets the annotation.
                    pending.push((tokens[i + 1].pos, 0));
                }
            }
            _ => {}
        }
    }
    if !problems.is_empty() {
        return Err(problems.join("\n"));
    }
    edits.sort_by_key(|e| e.0);
    let mut text = String::with_capacity(header.len() + 2048);
    let mut at = 0;
    for (pos, len, replacement) in edits {
        text.push_str(&header[at..pos]);
        text.push_str(replacement);
        at = pos + len;
    }
    text.push_str(&header[at..]);
    Ok(realign_arguments(&text))
}

/// cbindgen lined wrapped arguments up with the marks still in; line them up
/// again under the `(` they follow.
fn realign_arguments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut column: Option<usize> = None;
    for line in text.split_inclusive('\n') {
        let body = line.trim_end();
        match column {
            Some(col) => {
                out.push_str(&" ".repeat(col));
                out.push_str(line.trim_start());
                if body.ends_with(';') {
                    column = None;
                }
            }
            None => {
                out.push_str(line);
                let declaration = !line.starts_with([' ', '#', '/', '}']);
                if declaration && body.ends_with(',') {
                    column = body.rfind('(').map(|p| p + 1);
                }
            }
        }
    }
    out
}

fn annotate_one(
    scope: &str,
    name: &str,
    marks: &[(usize, usize)],
    edits: &mut Vec<(usize, usize, &'static str)>,
    problems: &mut Vec<String>,
) {
    let what = if scope == RETURNS {
        format!("the pointer {name} returns")
    } else {
        format!("`{name}` in {scope}")
    };
    let Some(rule) = lookup(scope, name) else {
        problems.push(format!(
            "{what} ({} pointer level(s)) has no row in headergen/nullability.rs",
            marks.len()
        ));
        return;
    };
    if rule.levels.len() != marks.len() {
        problems.push(format!(
            "{what} has {} pointer level(s) but its row in headergen/nullability.rs gives {}",
            marks.len(),
            rule.levels.len()
        ));
        return;
    }
    // One level inside assume_nonnull needs no word when non-null.
    let single = marks.len() == 1;
    for (&(pos, len), level) in marks.iter().zip(rule.levels) {
        let text = match (level, single) {
            (Nullable, _) => "GW_NULLABLE ",
            (Nonnull, true) => "",
            (Nonnull, false) => "GW_NONNULL ",
        };
        edits.push((pos, len, text));
    }
}

enum Frame {
    /// `( * ... )` in a function-pointer declarator.
    Group,
    /// The argument list of the named function or function pointer.
    Params(String),
    Struct(String),
    /// `extern "C" { ... }`
    Block,
}

/// The innermost function or struct a declaration sits in; None at top level.
fn scope_of(stack: &[Frame]) -> Option<&str> {
    stack.iter().rev().find_map(|f| match f {
        Frame::Params(name) | Frame::Struct(name) => Some(name.as_str()),
        Frame::Group | Frame::Block => None,
    })
}

struct Token {
    pos: usize,
    text: String,
}

fn is_ident(t: &str) -> bool {
    t.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
}

/// The header with comments, preprocessor lines and string literals blanked
/// (same length, so positions still index the original text).
fn code_only(header: &str) -> String {
    let bytes = header.as_bytes();
    let mut out = bytes.to_vec();
    let (mut i, mut line_start) = (0, true);
    while i < bytes.len() {
        let rest = &bytes[i..];
        let end = if rest.starts_with(b"/*") {
            i + header[i..].find("*/").map_or(rest.len(), |e| e + 2)
        } else if rest.starts_with(b"//") || (line_start && rest[0] == b'#') {
            i + header[i..].find('\n').unwrap_or(rest.len())
        } else if rest[0] == b'"' {
            i + 1 + header[i + 1..].find('"').map_or(rest.len() - 1, |e| e + 1)
        } else {
            line_start = rest[0] == b'\n' || (line_start && rest[0] == b' ');
            i += 1;
            continue;
        };
        for b in &mut out[i..end] {
            if *b != b'\n' {
                *b = b' ';
            }
        }
        i = end;
    }
    String::from_utf8(out).expect("only ASCII bytes were replaced")
}

fn tokenize(code: &str) -> Vec<Token> {
    let mut tokens = Vec::new();
    let mut chars = code.char_indices().peekable();
    while let Some((pos, c)) = chars.next() {
        if c.is_ascii_alphanumeric() || c == '_' {
            let mut text = c.to_string();
            while let Some(&(_, d)) = chars.peek() {
                if !(d.is_ascii_alphanumeric() || d == '_') {
                    break;
                }
                text.push(d);
                chars.next();
            }
            tokens.push(Token { pos, text });
        } else if !c.is_whitespace() {
            tokens.push(Token {
                pos,
                text: c.to_string(),
            });
        }
    }
    tokens
}
