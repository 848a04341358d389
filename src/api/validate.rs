//! Applies declarative rules (`rules.rs`) to a request body before it is sent.
//!
//! A rule names a field by a path (`messages[].content[].video_url.fps`:
//! `[]` walks every item of an array) and one check. A broken rule gives
//! `GW_INVALID_ARGUMENT` whose message names the concrete field
//! (`messages[0].content[1].video_url.fps`) and the rule, and nothing is sent.
//!
//! The rules read the body's borrowed tree (`raw_json.rs`): a big string value
//! the rules never look at is never copied.
//!
//! A string set the upstream extends over time (`Check::Known`, and the image
//! `size` keywords) passes a value gw does not know: the type is still checked,
//! and a debug line through the logger (the `note` of `check_node_noting`) says
//! the value is unknown to gw. A closed set (`Check::OneOf`) refuses it.

use std::borrow::Cow;

use serde_json::Value;

use crate::api::raw_json::{JsonText, Kind, Node, Unscanned};
use crate::error::Error;

#[derive(Debug, Clone, Copy)]
pub enum Check {
    /// Present and not null.
    Required,
    /// Required when a sibling field has this value (a content part of
    /// `type: image_url` must carry `image_url`).
    RequiredWhen {
        field: &'static str,
        equals: &'static str,
    },
    /// Required unless this sibling field is given (image edit: `image` or `images`).
    RequiredUnless(&'static str),
    String,
    Bool,
    Array,
    Object,
    /// A string or an array (chat `content`, Responses `input`).
    StringOrArray,
    /// A string or an object (an image edit's `mask`: a URL, or OpenAI's `{"image_url"}`).
    StringOrObject,
    /// A number in `min..=max`.
    Range(f64, f64),
    /// An integer in `min..=max`.
    IntRange(i64, i64),
    MinItems(usize),
    MaxItems(usize),
    /// A closed set: a value outside it is refused.
    OneOf(&'static [&'static str]),
    /// An open set, one the upstream extends over time: a string outside the
    /// list is sent, with a debug note that gw does not know it; a value that is
    /// not a string is refused.
    Known(&'static [&'static str]),
    /// `<width>x<height>`, both positive integers.
    Size,
    /// An image size: `<width>x<height>` (a value that starts with a digit must
    /// be that), or a keyword: `auto`, or one the upstream adds later (sent, noted).
    SizeOrAuto,
    /// A `data:` URI is mp4/mov and at most this many decoded bytes; URLs pass.
    VideoDataUri {
        max_bytes: usize,
    },
    /// Every item of a token array (array of integers) list is at most this long.
    MaxTokensPerInput(usize),
}

#[derive(Debug, Clone, Copy)]
pub struct Rule {
    pub field: &'static str,
    pub check: Check,
}

impl Check {
    /// A check that can fail on an absent field.
    fn is_presence(self) -> bool {
        matches!(
            self,
            Check::Required | Check::RequiredWhen { .. } | Check::RequiredUnless(_)
        )
    }
}

pub const fn rule(field: &'static str, check: Check) -> Rule {
    Rule { field, check }
}

/// Where a check tells of a value it let through without knowing it: one line,
/// built only when the logger wants debug lines. The client logs it (redacted).
pub(crate) type Note<'n> = &'n mut dyn FnMut(&str);

/// Checks `body` against `rules`; the first broken rule is the error.
pub fn check(rules: &[Rule], body: &Value) -> Result<(), Error> {
    check_noting(rules, body, &mut |_| {})
}

/// `check`, telling `note` of the values of open sets gw does not know.
pub(crate) fn check_noting(rules: &[Rule], body: &Value, note: Note<'_>) -> Result<(), Error> {
    let text = crate::api::json_text(body);
    match JsonText::parse(&text) {
        Ok(parsed) => check_node_except(rules, parsed.root(), "", note),
        Err(Unscanned::Invalid(e)) => Err(Error::Internal(format!("body: {e}"))),
        Err(Unscanned::Valid(_)) => Err(Error::Internal("body: not scannable".into())),
    }
}

/// `check` on a body's borrowed tree.
pub(crate) fn check_node(rules: &[Rule], body: &Node<'_>) -> Result<(), Error> {
    check_node_except(rules, body, "", &mut |_| {})
}

/// `check_node`, telling `note` of the values of open sets gw does not know.
pub(crate) fn check_node_noting(
    rules: &[Rule],
    body: &Node<'_>,
    note: Note<'_>,
) -> Result<(), Error> {
    check_node_except(rules, body, "", note)
}

/// `check_node_noting` without the rules on the top-level member `set` (one gw
/// sets itself, e.g. a stream's `"stream": true`, so the caller's value is not sent).
pub(crate) fn check_node_except(
    rules: &[Rule],
    body: &Node<'_>,
    set: &str,
    note: Note<'_>,
) -> Result<(), Error> {
    let mut empty_container: Option<&str> = None;
    for r in rules {
        // Each test below only skips a rule, so their order is free: the cheapest first.
        // Rules come in runs under one container (`messages[].content[]`); once a
        // walk showed a container holds no node, the rules below it visit nothing.
        if let Some(empty) = empty_container {
            if r.field.len() > empty.len()
                && r.field.starts_with(empty)
                && r.field.as_bytes()[empty.len()] == b'.'
            {
                continue;
            }
        }
        // The top-level member the rule is on, and its node (None: absent or null).
        // Most rules are about fields a request leaves out: under an absent member
        // only a presence rule can fail, so only then is the member's name needed.
        let (top, node) = match member_of(body, r.field) {
            Some((len, node)) => (&r.field[..len], Some(node).filter(|n| !n.is_null())),
            None if r.check.is_presence() => {
                let end = r
                    .field
                    .bytes()
                    .position(|b| b == b'.' || b == b'[')
                    .unwrap_or(r.field.len());
                (&r.field[..end], None)
            }
            None => continue,
        };
        if !set.is_empty() && top == set {
            continue;
        }
        let whole = top.len() == r.field.len();
        // Most rules are about fields a request leaves out: under an absent (or
        // null) top-level member a rule visits nothing, and on it only a presence
        // rule can fail. Skipping them here is what `walk` would conclude.
        if node.is_none() && (!whole || !r.check.is_presence()) {
            continue;
        }
        if whole {
            // A top-level member, already looked up: the one visit `walk` would
            // make (value, holder: the body), without walking.
            match apply(r.check, node, body) {
                Ok(Seen::Known) => {}
                Ok(Seen::Unknown) => note_unknown(&mut *note, r.field, None, node),
                Err(why) => {
                    return Err(Error::invalid_param(r.field, format!("{}: {why}", r.field)))
                }
            }
            continue;
        }
        let mut failure = None;
        let mut visits = 0usize;
        let mut visit = |under: Under<'_>, value, holder| {
            visits += 1;
            if failure.is_none() {
                match apply(r.check, value, holder) {
                    Ok(Seen::Known) => {}
                    Ok(Seen::Unknown) => note_unknown(&mut *note, r.field, under, value),
                    Err(why) => failure = Some((render(r.field, under), why)),
                }
            }
        };
        // Its first step is the member already found, where the path's first name
        // is that member's (`messages[].role`), as `walk` would take it.
        let after = &r.field[top.len()..];
        let (each, after) = match after.strip_prefix("[]") {
            Some(rest) => (true, rest),
            None => (false, after),
        };
        match after.strip_prefix('.') {
            Some(rest) => step(body, node, each, Some(rest), None, &mut visit),
            None if each && after.is_empty() => step(body, node, true, None, None, &mut visit),
            None => walk(body, r.field, None, &mut visit),
        }
        if let Some((path, why)) = failure {
            return Err(Error::invalid_param(&path, format!("{path}: {why}")));
        }
        // A last field that is not `[]` is visited once per node of its container
        // (absent or not), so no visit means the container holds no node.
        if visits == 0 {
            if let Some(dot) = r.field.bytes().rposition(|b| b == b'.').filter(|&d| d > 0) {
                let (container, last) = (&r.field[..dot], &r.field[dot + 1..]);
                if !last.ends_with("[]") {
                    empty_container = Some(container);
                }
            }
        }
    }
    Ok(())
}

/// The body's member a rule path starts with (the last of that name, as `get`
/// finds it) and the length of its name: each key is tried against the path's
/// start, so an absent member costs no scan of the path.
fn member_of<'n, 'a>(body: &'n Node<'a>, field: &str) -> Option<(usize, &'n Node<'a>)> {
    let Kind::Object(members) = &body.kind else {
        return None;
    };
    let field = field.as_bytes();
    members.iter().rev().find_map(|(key, node)| {
        let key = key.as_bytes();
        let ends_there = matches!(field.get(key.len()), None | Some(b'.' | b'['));
        (ends_there && field.starts_with(key) && !key.iter().any(|&b| b == b'.' || b == b'['))
            .then_some((key.len(), node))
    })
}

/// Sees (the indices it is under, value if present, the object or array holding it).
type Visitor<'v, 'f, 'a> = dyn FnMut(Under<'_>, Option<&'v Node<'a>>, &'v Node<'a>) + 'f;

/// The array indices a walk is under, innermost first, as a chain on the stack:
/// with the rule's path they make the concrete path, built only when a rule
/// fails (or notes), so a walk allocates nothing.
type Under<'u> = Option<&'u Index<'u>>;

struct Index<'u> {
    at: usize,
    outer: Under<'u>,
}

/// `messages[1].content[0].type` for the rule path `messages[].content[].type`:
/// each `[]` gets its index, outermost first.
fn render(field: &str, under: Under<'_>) -> String {
    let mut indices = Vec::new();
    let mut link = under;
    while let Some(index) = link {
        indices.push(index.at);
        link = index.outer;
    }
    let mut out = String::new();
    for segment in field.split('.') {
        let (name, each) = match segment.strip_suffix("[]") {
            Some(n) => (n, true),
            None => (segment, false),
        };
        if !out.is_empty() {
            out.push('.');
        }
        out.push_str(name);
        if each {
            if let Some(i) = indices.pop() {
                out.push_str(&format!("[{i}]"));
            }
        }
    }
    out
}

/// Visits (indices, value, the object or array holding it) for a rule path. A
/// missing last field is visited with None (so `Required` can fire); a missing
/// container above it is not visited at all.
fn walk<'v, 'a>(
    value: &'v Node<'a>,
    path: &str,
    under: Under<'_>,
    visit: &mut Visitor<'v, '_, 'a>,
) {
    // A byte search: rule paths are short ASCII, where `split_once(char)`'s
    // searcher costs more than the search.
    let (head, rest) = match path.bytes().position(|b| b == b'.') {
        Some(dot) => (&path[..dot], Some(&path[dot + 1..])),
        None => (path, None),
    };
    let (name, each) = match head.strip_suffix("[]") {
        Some(n) => (n, true),
        None => (head, false),
    };
    let child = value.get(name).filter(|c| !c.is_null());
    step(value, child, each, rest, under, visit);
}

/// `walk` past the lookup of a path's first name in `value`: `child` is its
/// node (None: absent or null), `each` whether the name ends in `[]`, `rest` the
/// path after its '.'.
fn step<'v, 'a>(
    value: &'v Node<'a>,
    child: Option<&'v Node<'a>>,
    each: bool,
    rest: Option<&str>,
    under: Under<'_>,
    visit: &mut Visitor<'v, '_, 'a>,
) {
    match child {
        None if rest.is_none() && !each => visit(under, None, value),
        None => {}
        Some(child) if each => {
            for (i, item) in child.as_array().into_iter().flatten().enumerate() {
                let here = Index {
                    at: i,
                    outer: under,
                };
                match rest {
                    Some(r) => walk(item, r, Some(&here), visit),
                    None => visit(Some(&here), Some(item), child),
                }
            }
        }
        Some(child) => match rest {
            Some(r) => walk(child, r, under, visit),
            None => visit(under, Some(child), value),
        },
    }
}

/// What a passing check saw: a value it knows, or one of an open set it does
/// not (sent all the same, and noted).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Seen {
    Known,
    Unknown,
}

/// The debug line for a value of an open set that gw does not know. A long
/// value is cut: the line says which field, not the whole text.
fn note_unknown(note: Note<'_>, field: &str, under: Under<'_>, value: Option<&Node<'_>>) {
    if !crate::log::enabled(crate::log::Level::Debug) {
        return;
    }
    let Some(shown) = value.map(|v| crate::api::json_text(&v.to_value())) else {
        return;
    };
    let shown = match shown.char_indices().nth(64) {
        Some((cut, _)) => format!("{}...", &shown[..cut]),
        None => shown,
    };
    note(&format!(
        "gw: {}: {shown} is a value unknown to gw; sent as given (the upstream may define it)",
        render(field, under)
    ));
}

fn apply(check: Check, value: Option<&Node<'_>>, holder: &Node<'_>) -> Result<Seen, String> {
    let Some(v) = value else {
        return match check {
            Check::Required => Err("is required".into()),
            Check::RequiredWhen { field, equals }
                if holder.get(field).and_then(Node::as_str).as_deref() == Some(equals) =>
            {
                Err(format!("is required when {field} is {equals}"))
            }
            Check::RequiredUnless(other) if holder.get(other).is_none_or(Node::is_null) => {
                Err(format!("is required unless {other} is given"))
            }
            _ => Ok(Seen::Known),
        };
    };
    match check {
        Check::Known(known) => match v.as_str() {
            Some(s) if known.contains(&&*s) => Ok(Seen::Known),
            Some(_) => Ok(Seen::Unknown),
            None => Err(format!(
                "must be a string, e.g. one of {} (got {})",
                known.join(", "),
                crate::api::json_text(&v.to_value())
            )),
        },
        Check::SizeOrAuto => match v.as_str() {
            Some(s) if s == "auto" || parse_size(&s).is_some() => Ok(Seen::Known),
            // A keyword gw does not know (OpenAI's sizes have grown: `auto` came
            // with its newer models); a digit starts a `<width>x<height>`.
            Some(s) if !s.starts_with(|c: char| c.is_ascii_digit()) && !s.is_empty() => {
                Ok(Seen::Unknown)
            }
            _ => Err(format!(
                "must be <width>x<height> or auto, e.g. 1024x1024 (got {})",
                crate::api::json_text(&v.to_value())
            )),
        },
        _ => apply_closed(check, v).map(|()| Seen::Known),
    }
}

/// The checks that know every value they pass.
fn apply_closed(check: Check, v: &Node<'_>) -> Result<(), String> {
    match check {
        Check::Required
        | Check::RequiredWhen { .. }
        | Check::RequiredUnless(_)
        | Check::Known(_)
        | Check::SizeOrAuto => Ok(()),
        Check::String => expect(v.is_string(), "must be a string"),
        Check::Bool => expect(v.as_bool().is_some(), "must be a boolean"),
        Check::Array => expect(v.is_array(), "must be an array"),
        Check::Object => expect(v.is_object(), "must be an object"),
        Check::StringOrArray => expect(
            v.is_string() || v.is_array(),
            "must be a string or an array",
        ),
        Check::StringOrObject => expect(
            v.is_string() || v.is_object(),
            "must be a string or an object",
        ),
        Check::Range(min, max) => match number(v).and_then(|n| n.as_f64()) {
            Some(n) if (min..=max).contains(&n) => Ok(()),
            Some(n) => Err(format!("must be between {min} and {max} (got {n})")),
            None => Err(format!("must be a number between {min} and {max}")),
        },
        Check::IntRange(min, max) => match v.as_i64() {
            Some(n) if (min..=max).contains(&n) => Ok(()),
            Some(n) => Err(int_range_text(min, max, n)),
            None => Err(format!("must be an integer {}", int_bounds(min, max))),
        },
        Check::MinItems(n) => match v.as_array() {
            Some(a) if a.len() >= n => Ok(()),
            Some(a) => Err(format!("must have at least {n} item(s) (got {})", a.len())),
            None => Err("must be an array".into()),
        },
        Check::MaxItems(n) => match v.as_array() {
            Some(a) if a.len() > n => Err(format!("must have at most {n} items (got {})", a.len())),
            _ => Ok(()),
        },
        Check::OneOf(allowed) => match v.as_str() {
            Some(s) if allowed.contains(&&*s) => Ok(()),
            _ => Err(format!(
                "must be one of {} (got {})",
                allowed.join(", "),
                crate::api::json_text(&v.to_value())
            )),
        },
        Check::Size => match v.as_str().as_deref().and_then(parse_size) {
            Some(_) => Ok(()),
            None => Err(format!(
                "must be <width>x<height>, e.g. 1024x1024 (got {})",
                crate::api::json_text(&v.to_value())
            )),
        },
        Check::VideoDataUri { max_bytes } => check_video_uri(v.as_str(), max_bytes),
        Check::MaxTokensPerInput(max) => check_token_arrays(v, max),
    }
}

/// A number as serde_json reads it (`Value::as_f64` with arbitrary_precision).
fn number(v: &Node<'_>) -> Option<serde_json::Number> {
    match v.kind {
        Kind::Number => match v.to_value() {
            Value::Number(n) => Some(n),
            _ => None,
        },
        _ => None,
    }
}

fn expect(ok: bool, why: &str) -> Result<(), String> {
    if ok {
        Ok(())
    } else {
        Err(why.into())
    }
}

fn int_bounds(min: i64, max: i64) -> String {
    if max == i64::MAX {
        format!(">= {min}")
    } else {
        format!("between {min} and {max}")
    }
}

fn int_range_text(min: i64, max: i64, got: i64) -> String {
    format!("must be {} (got {got})", int_bounds(min, max))
}

fn parse_size(s: &str) -> Option<(u32, u32)> {
    let (w, h) = s.split_once(['x', 'X'])?;
    let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
    if !digits(w) || !digits(h) {
        return None;
    }
    let (w, h) = (w.parse().ok()?, h.parse().ok()?);
    (w > 0 && h > 0).then_some((w, h))
}

/// Video parts: a data URI must be mp4 or mov and at most `max_bytes` once decoded.
fn check_video_uri(v: Option<Cow<'_, str>>, max_bytes: usize) -> Result<(), String> {
    let Some(url) = v else {
        return Err("must be a string (a URL or a data URI)".into());
    };
    let Some(rest) = url.strip_prefix("data:") else {
        return Ok(());
    };
    let (meta, payload) = rest
        .split_once(',')
        .ok_or("is a data URI without a ',' before its data")?;
    let mime = meta.split(';').next().unwrap_or("").to_ascii_lowercase();
    if !matches!(mime.as_str(), "video/mp4" | "video/quicktime" | "video/mov") {
        return Err(format!(
            "data URI must be video/mp4 or video/quicktime (mov) (got '{mime}')"
        ));
    }
    let decoded = if meta.ends_with(";base64") {
        payload.trim_end_matches('=').len() * 3 / 4
    } else {
        payload.len()
    };
    if decoded > max_bytes {
        return Err(format!(
            "video data must be at most {} MB (got {:.1} MB)",
            max_bytes / MIB,
            decoded as f64 / MIB as f64
        ));
    }
    Ok(())
}

const MIB: usize = 1024 * 1024;

/// Embedding input given as token arrays: each array's length is its token count.
fn check_token_arrays(v: &Node<'_>, max: usize) -> Result<(), String> {
    let is_tokens = |a: &[Node<'_>]| !a.is_empty() && a.iter().all(|n| n.as_i64().is_some());
    let too_long = |a: &[Node<'_>]| is_tokens(a) && a.len() > max;
    match v.as_array() {
        Some(items) if too_long(items) => Err(format!(
            "each input must be at most {max} tokens (got {})",
            items.len()
        )),
        Some(items) => match items
            .iter()
            .filter_map(Node::as_array)
            .find(|a| too_long(a))
        {
            Some(a) => Err(format!(
                "each input must be at most {max} tokens (got {})",
                a.len()
            )),
            None => Ok(()),
        },
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests;
