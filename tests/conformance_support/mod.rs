//! The Rust runner's reading of the corpus: case files, the skip list, the checks of
//! `expect` (conformance/README.md) and the printed line. Knows nothing of gw's API
//! (`exchange.rs` beside it runs a case through the exchange's C ABI).

pub mod exchange;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

pub struct Setup {
    pub operation: String,
    pub request: Value,
    pub id_path: String,
}

pub struct Cancel {
    pub after_ms: u64,
    pub bound_ms: u64,
}

pub struct Case {
    /// The file's path under `cases/` without `.json`: the case's name everywhere.
    pub name: String,
    pub operation: String,
    pub request: Option<Value>,
    pub request_text: Option<String>,
    pub args: Value,
    pub options: Value,
    pub faults: Option<Value>,
    pub setup: Option<Setup>,
    pub cancel: Option<Cancel>,
    pub expect: Value,
}

/// What one call gave, for the checks.
pub struct Ran {
    pub status: i32,
    /// The answer on success, the error object on failure.
    pub out: Value,
    pub events: Vec<(String, Option<String>, usize)>,
    pub attempts: Option<u64>,
    pub request_id: bool,
    pub meta_text: String,
    pub cancel_to_return_ms: Option<u64>,
    /// Requests the case's setup made (not counted in `sent`).
    pub setup_requests: usize,
}

pub enum Outcome {
    Pass,
    Fail(String),
    Skip(String),
}

/// What a runner saw of one call.
pub struct Observed<'a> {
    pub status: i32,
    pub out: &'a Value,
    /// (event name, text delta, choice index) in order.
    pub events: &'a [(String, Option<String>, usize)],
    pub attempts: Option<u64>,
    pub request_id: bool,
    /// The call's response metadata as JSON text ("" when none).
    pub meta_text: &'a str,
    pub cancel_to_return_ms: Option<u64>,
    pub sent: usize,
    /// The last recorded request's raw query string.
    pub last_query: Option<&'a str>,
    pub last_body: Option<&'a Value>,
    pub last_headers: &'a [(String, String)],
}

pub fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("conformance")
}

fn case_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            case_files(&path, out);
        } else if path.extension().is_some_and(|x| x == "json") {
            out.push(path);
        }
    }
}

fn parse_case(name: String, v: &Value) -> Result<Case, String> {
    let text = |key: &str| v.get(key).and_then(Value::as_str).map(str::to_string);
    let operation = text("operation").ok_or("operation: a string is required")?;
    let setup = match v.get("setup") {
        None => None,
        Some(s) => Some(Setup {
            operation: s
                .get("operation")
                .and_then(Value::as_str)
                .ok_or("setup.operation: required")?
                .to_string(),
            request: s.get("request").cloned().ok_or("setup.request: required")?,
            id_path: s
                .get("id_path")
                .and_then(Value::as_str)
                .unwrap_or("id")
                .to_string(),
        }),
    };
    let cancel = match v.get("cancel") {
        None => None,
        Some(c) => Some(Cancel {
            after_ms: c
                .get("after_ms")
                .and_then(Value::as_u64)
                .ok_or("cancel.after_ms: required")?,
            bound_ms: c
                .get("bound_ms")
                .and_then(Value::as_u64)
                .ok_or("cancel.bound_ms: required")?,
        }),
    };
    Ok(Case {
        name,
        operation,
        request: v.get("request").cloned(),
        request_text: text("request_text"),
        args: v.get("args").cloned().unwrap_or(Value::Null),
        options: v.get("options").cloned().unwrap_or(Value::Null),
        faults: v.get("faults").cloned(),
        setup,
        cancel,
        expect: v.get("expect").cloned().unwrap_or(Value::Null),
    })
}

/// Walks `doc` along a dotted path of keys and indexes (`choices.0.message.content`);
/// `""` is the document itself.
pub fn value_at<'a>(doc: &'a Value, path: &str) -> Option<&'a Value> {
    if path.is_empty() {
        return Some(doc);
    }
    path.split('.').try_fold(doc, |node, step| match node {
        Value::Object(map) => map.get(step),
        Value::Array(items) => step.parse::<usize>().ok().and_then(|i| items.get(i)),
        _ => None,
    })
}

/// JSON equality with numbers compared by value (1 == 1.0).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

fn check_pairs(what: &str, doc: Option<&Value>, pairs: &Value, problems: &mut Vec<String>) {
    for pair in pairs.as_array().into_iter().flatten() {
        let (Some(path), Some(want)) = (pair.get(0).and_then(Value::as_str), pair.get(1)) else {
            problems.push(format!("{what}: malformed pair {pair}"));
            continue;
        };
        let got = doc.and_then(|d| value_at(d, path));
        let ok = match (got, want) {
            (None | Some(Value::Null), Value::Null) => true,
            (Some(g), w) => same(g, w),
            (None, _) => false,
        };
        if !ok {
            problems.push(format!(
                "{what} {path}: got {}, expected {want}",
                got.map_or("nothing".to_string(), Value::to_string)
            ));
        }
    }
}

/// Checks what a call gave, with the mock's recordings (`recorded`, read once:
/// each read copies them all).
pub fn judge(case: &Case, ran: &Ran, recorded: &[gw_mock::RecordedRequest]) -> Outcome {
    let sent = recorded.len() - ran.setup_requests;
    let last = recorded.last();
    check(
        case,
        &Observed {
            status: ran.status,
            out: &ran.out,
            events: &ran.events,
            attempts: ran.attempts,
            request_id: ran.request_id,
            meta_text: &ran.meta_text,
            cancel_to_return_ms: ran.cancel_to_return_ms,
            sent,
            last_body: last.and_then(|r| r.json.as_ref()),
            last_query: last.and_then(|r| r.query.as_deref()),
            last_headers: last.map_or(&[][..], |r| r.headers.as_slice()),
        },
    )
}

/// Every difference between `expect` and what was observed.
pub fn check(case: &Case, seen: &Observed<'_>) -> Outcome {
    let e = &case.expect;
    let mut problems = Vec::new();
    if let Some(want) = e.get("status").and_then(Value::as_i64) {
        if i64::from(seen.status) != want {
            problems.push(format!(
                "status {} ({}), expected {want}; out: {}",
                seen.status,
                gw::status_str(seen.status),
                truncated(&seen.out.to_string())
            ));
        }
    }
    if let Some(err) = e.get("error").and_then(Value::as_object) {
        let got = seen.out.get("error");
        for (k, want) in err {
            let field = got.and_then(|g| g.get(k.as_str()));
            match k.as_str() {
                "message_contains" | "message_lacks" => {
                    let message = got
                        .and_then(|g| g.get("message"))
                        .and_then(Value::as_str)
                        .unwrap_or("");
                    let needle = want.as_str().unwrap_or("");
                    let holds = message.contains(needle);
                    if holds != (k == "message_contains") {
                        problems.push(format!("error.message {k} {needle:?}: {message:?}"));
                    }
                }
                _ if field.is_some_and(|f| same(f, want)) => {}
                _ => problems.push(format!(
                    "error.{k}: got {}, expected {want}",
                    field.map_or("nothing".into(), Value::to_string)
                )),
            }
        }
    }
    if let Some(pairs) = e.get("answer") {
        check_pairs("answer", Some(seen.out), pairs, &mut problems);
    }
    for path in e
        .get("answer_lacks")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let path = path.as_str().unwrap_or("");
        if value_at(seen.out, path).is_some_and(|v| !v.is_null()) {
            problems.push(format!("answer {path}: expected absent"));
        }
    }
    if let Some(ev) = e.get("events") {
        check_events(ev, seen.events, &mut problems);
    }
    if let Some(meta) = e.get("meta") {
        if let Some(want) = meta.get("attempts").and_then(Value::as_u64) {
            if seen.attempts != Some(want) {
                problems.push(format!(
                    "meta.attempts {:?}, expected {want}",
                    seen.attempts
                ));
            }
        }
        if meta.get("request_id") == Some(&Value::Bool(true)) && !seen.request_id {
            problems.push("meta.request_id: absent".into());
        }
        if let Some(secret) = meta.get("text_lacks").and_then(Value::as_str) {
            if seen
                .meta_text
                .to_ascii_lowercase()
                .contains(&secret.to_ascii_lowercase())
            {
                problems.push(format!("metadata holds {secret:?} (any case)"));
            }
        }
    }
    if let Some(want) = e.get("sent").and_then(Value::as_u64) {
        if seen.sent as u64 != want {
            problems.push(format!("sent {} requests, expected {want}", seen.sent));
        }
    }
    if let Some(want) = e.get("sent_query").and_then(Value::as_str) {
        if seen.last_query != Some(want) {
            problems.push(format!(
                "sent query {:?}, expected {want:?}",
                seen.last_query
            ));
        }
    }
    if let Some(pairs) = e.get("sent_body") {
        check_pairs("sent_body", seen.last_body, pairs, &mut problems);
    }
    if let Some(headers) = e.get("sent_header").and_then(Value::as_object) {
        for (name, want) in headers {
            let got = seen
                .last_headers
                .iter()
                .find(|(n, _)| n.eq_ignore_ascii_case(name))
                .map(|(_, v)| v.as_str());
            let ok = match want {
                Value::Null => got.is_none(),
                Value::String(w) => got == Some(w.as_str()),
                _ => false,
            };
            if !ok {
                problems.push(format!("sent header {name}: got {got:?}, expected {want}"));
            }
        }
    }
    if let Some(cancel) = &case.cancel {
        match seen.cancel_to_return_ms {
            Some(ms) if ms <= cancel.bound_ms => {}
            other => problems.push(format!(
                "cancel to return: {other:?} ms, bound {} ms",
                cancel.bound_ms
            )),
        }
    }
    if problems.is_empty() {
        Outcome::Pass
    } else {
        Outcome::Fail(problems.join("; "))
    }
}

fn check_events(
    ev: &Value,
    events: &[(String, Option<String>, usize)],
    problems: &mut Vec<String>,
) {
    let n = events.len() as u64;
    if let Some(want) = ev.get("count").and_then(Value::as_u64) {
        if n != want {
            problems.push(format!("events: {n}, expected {want}"));
        }
    }
    if let Some(want) = ev.get("min_count").and_then(Value::as_u64) {
        if n < want {
            problems.push(format!("events: {n}, expected at least {want}"));
        }
    }
    if let Some(want) = ev.get("text").and_then(Value::as_str) {
        let text: String = events
            .iter()
            .filter(|(_, _, choice)| *choice == 0)
            .filter_map(|(_, d, _)| d.as_deref())
            .collect();
        if text != want {
            problems.push(format!("event text {text:?}, expected {want:?}"));
        }
    }
    let names: Vec<&str> = events.iter().map(|(n, _, _)| n.as_str()).collect();
    if let Some(want) = ev.get("names").and_then(Value::as_array) {
        let want: Vec<&str> = want.iter().filter_map(Value::as_str).collect();
        if names != want {
            problems.push(format!("event names {names:?}, expected {want:?}"));
        }
    }
    for (key, got) in [("first_name", names.first()), ("last_name", names.last())] {
        if let Some(want) = ev.get(key).and_then(Value::as_str) {
            if got.copied() != Some(want) {
                problems.push(format!("{key}: {got:?}, expected {want:?}"));
            }
        }
    }
}

fn truncated(s: &str) -> String {
    match s.char_indices().nth(300) {
        Some((i, _)) => format!("{}...", &s[..i]),
        None => s.to_string(),
    }
}

/// Loads the corpus and the language's skips; records outcomes; prints the line.
pub struct Runner {
    language: &'static str,
    cases: Vec<Case>,
    skips: BTreeMap<String, String>,
    results: Vec<(String, Outcome)>,
}

impl Runner {
    pub fn load(language: &'static str) -> Runner {
        let dir = corpus_dir();
        let mut files = Vec::new();
        case_files(&dir.join("cases"), &mut files);
        let cases = files
            .iter()
            .map(|path| {
                let name = path
                    .strip_prefix(dir.join("cases"))
                    .expect("under cases/")
                    .with_extension("")
                    .to_string_lossy()
                    .replace('\\', "/");
                let text = std::fs::read_to_string(path).expect("case file reads");
                let v: Value = serde_json::from_str(&text)
                    .unwrap_or_else(|e| panic!("{}: not JSON: {e}", path.display()));
                parse_case(name, &v).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
            })
            .collect();
        let skip_text = std::fs::read_to_string(dir.join("skip.json")).expect("skip.json reads");
        let skip_doc: Value = serde_json::from_str(&skip_text).expect("skip.json is JSON");
        let skips = skip_doc
            .get(language)
            .and_then(Value::as_object)
            .map(|m| {
                m.iter()
                    .map(|(k, v)| (k.clone(), v.as_str().unwrap_or("").to_string()))
                    .collect()
            })
            .unwrap_or_default();
        Runner {
            language,
            cases,
            skips,
            results: Vec::new(),
        }
    }

    /// The cases to run; skipped ones are recorded as such and not returned.
    pub fn cases(&mut self) -> Vec<Case> {
        let mut run = Vec::new();
        for case in std::mem::take(&mut self.cases) {
            match self.skips.get(&case.name) {
                Some(why) => self.results.push((case.name, Outcome::Skip(why.clone()))),
                None => run.push(case),
            }
        }
        run
    }

    pub fn record(&mut self, case: &Case, outcome: Outcome) {
        self.results.push((case.name.clone(), outcome));
    }

    /// Prints the line and the failures, writes the TSV, and fails the test on a failure.
    pub fn finish(mut self) {
        self.results.sort_by(|a, b| a.0.cmp(&b.0));
        let mut tsv = String::new();
        let (mut passed, mut failed, mut skipped) = (0, 0, 0);
        for (name, outcome) in &self.results {
            let (word, why) = match outcome {
                Outcome::Pass => {
                    passed += 1;
                    ("pass", "")
                }
                Outcome::Fail(why) => {
                    failed += 1;
                    println!("conformance {} FAIL {name}: {why}", self.language);
                    ("fail", why.as_str())
                }
                Outcome::Skip(why) => {
                    skipped += 1;
                    ("skip", why.as_str())
                }
            };
            tsv.push_str(&format!(
                "{name}\t{word}\t{}\n",
                why.replace(['\t', '\n'], " ")
            ));
        }
        let out_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("build/conformance");
        std::fs::create_dir_all(&out_dir).expect("build/conformance");
        std::fs::write(out_dir.join(format!("{}.tsv", self.language)), tsv).expect("tsv");
        println!(
            "conformance {}: {passed} passed, {failed} failed, {skipped} skipped",
            self.language
        );
        assert_eq!(
            failed, 0,
            "conformance {}: {failed} cases failed",
            self.language
        );
    }
}
