//! `multipart/form-data` bodies (RFC 7578) for the image edit upload: the
//! request's JSON fields as text parts, then the files. The body is read from
//! the caller's file bytes as it is sent, never copied into one buffer.

use std::borrow::Cow;
use std::collections::hash_map::RandomState;
use std::hash::BuildHasher;
use std::io::Read;
use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::{Map, Value};

use crate::error::Error;

/// One file part, bytes borrowed from the caller for the call's duration.
#[derive(Debug, Clone)]
pub struct FilePart<'a> {
    pub field: String,
    pub filename: String,
    pub content_type: String,
    pub bytes: &'a [u8],
}

#[derive(Debug, Clone)]
pub struct Form<'a> {
    fields: Map<String, Value>,
    files: Vec<FilePart<'a>>,
}

impl<'a> Form<'a> {
    /// Text parts from a JSON object: strings as they are, numbers and booleans
    /// in their JSON spelling, arrays and objects as JSON text.
    ///
    /// A null member means "not given", as in the JSON form, and a form has no
    /// spelling for null: it is left out, never sent as the text `null` (which
    /// an integer field such as `n` refuses). Nulls inside an array or object
    /// are kept: that part is JSON text the receiver reads as JSON, where a
    /// null item or member means what it means in the JSON form (dropping an
    /// item would move the ones after it), so both forms say the same.
    pub fn from_fields(fields: &Value) -> Result<Form<'a>, Error> {
        let fields = fields
            .as_object()
            .ok_or_else(|| Error::invalid_param("request", "request: must be a JSON object"))?
            .iter()
            .filter(|(_, value)| !value.is_null())
            .map(|(name, value)| (name.clone(), value.clone()))
            .collect();
        Ok(Form {
            fields,
            files: Vec::new(),
        })
    }

    pub fn add_file(&mut self, file: FilePart<'a>) -> Result<(), Error> {
        let bad = |why: &str| Error::invalid_param(&file.field, format!("{}: {why}", file.field));
        if file.bytes.is_empty() {
            return Err(bad("file is empty"));
        }
        for (what, text) in [
            ("file name", &file.filename),
            ("content type", &file.content_type),
        ] {
            if text.contains(['"', '\r', '\n']) {
                return Err(bad(&format!(
                    "{what} must not contain quotes or line breaks"
                )));
            }
        }
        if self.fields.contains_key(&file.field) {
            return Err(bad("is given both as a request field and as a file"));
        }
        self.files.push(file);
        Ok(())
    }

    /// The text fields as a JSON object for rule checks, with each file as a
    /// `"<file name>"` string under its field so a rule can require it.
    pub fn fields_json(&self) -> Value {
        let mut all = self.fields.clone();
        for f in &self.files {
            all.insert(f.field.clone(), Value::String(f.filename.clone()));
        }
        Value::Object(all)
    }

    /// The form as it goes on the wire: the text parts and the part heads are
    /// written out here, the files stay borrowed (no copy of the payload).
    pub fn encode(&self) -> EncodedForm<'_> {
        self.encode_with(random_boundary)
    }

    /// `encode`, taking boundary candidates from `candidate` (tests and the fuzzer force a clash).
    pub(crate) fn encode_with(&self, candidate: impl FnMut() -> String) -> EncodedForm<'_> {
        let texts: Vec<(&String, Cow<'_, str>)> = self
            .fields
            .iter()
            .map(|(name, value)| {
                let text = match value {
                    Value::String(s) => Cow::Borrowed(s.as_str()),
                    other => Cow::Owned(crate::api::json_text(other)),
                };
                (name, text)
            })
            .collect();
        let boundary = self.boundary(&texts, candidate);
        let mut pieces = Vec::with_capacity(2 * self.files.len() + 1);
        let mut owned = Vec::with_capacity(256 * (texts.len() + 1));
        for (name, text) in &texts {
            head(
                &mut owned,
                &boundary,
                &format!("form-data; name=\"{}\"", escape(name)),
                None,
            );
            owned.extend_from_slice(text.as_bytes());
            owned.extend_from_slice(b"\r\n");
        }
        for f in &self.files {
            let disposition = format!(
                "form-data; name=\"{}\"; filename=\"{}\"",
                escape(&f.field),
                escape(&f.filename)
            );
            head(&mut owned, &boundary, &disposition, Some(&f.content_type));
            pieces.push(Cow::Owned(std::mem::take(&mut owned)));
            pieces.push(Cow::Borrowed(f.bytes));
            owned.extend_from_slice(b"\r\n");
        }
        owned.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
        pieces.push(Cow::Owned(owned));
        EncodedForm {
            content_type: format!("multipart/form-data; boundary={boundary}"),
            len: pieces.iter().map(|p| p.len() as u64).sum(),
            pieces,
        }
    }

    /// The first candidate that occurs in no part. With 128 random bits a clash
    /// does not happen by chance, and the bytes were fixed before the boundary was
    /// drawn, so none can be made to order; the check (memchr's SIMD search, about
    /// 1 ms for 50 MiB) keeps the body well-formed even then.
    fn boundary(
        &self,
        texts: &[(&String, Cow<'_, str>)],
        mut candidate: impl FnMut() -> String,
    ) -> String {
        loop {
            let boundary = candidate();
            let finder = memchr::memmem::Finder::new(boundary.as_bytes());
            let clash = self.files.iter().any(|f| finder.find(f.bytes).is_some())
                || texts
                    .iter()
                    .any(|(_, text)| finder.find(text.as_bytes()).is_some());
            if !clash {
                return boundary;
            }
        }
    }
}

/// A form ready to send: the content type (with its boundary) and the body as
/// pieces, written text and borrowed file bytes, read in order.
#[derive(Debug)]
pub struct EncodedForm<'a> {
    content_type: String,
    pieces: Vec<Cow<'a, [u8]>>,
    len: u64,
}

impl<'a> EncodedForm<'a> {
    /// `multipart/form-data; boundary=...`
    pub fn content_type(&self) -> &str {
        &self.content_type
    }

    /// The body's length in bytes (its Content-Length).
    pub fn len(&self) -> u64 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The content type and the body's pieces (an exchange sends them as they are).
    pub(crate) fn into_parts(self) -> (String, Vec<Cow<'a, [u8]>>) {
        (self.content_type, self.pieces)
    }

    /// The body from its start: each attempt of a call reads a fresh one.
    pub fn reader(&self) -> FormReader<'_> {
        FormReader {
            pieces: &self.pieces,
            at: 0,
        }
    }
}

/// Reads an encoded form's pieces one after the other, copying straight from
/// the caller's bytes into the buffer it is given.
#[derive(Debug)]
pub struct FormReader<'a> {
    pieces: &'a [Cow<'a, [u8]>],
    /// The read position in `pieces[0]`.
    at: usize,
}

impl Read for FormReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let mut filled = 0;
        while filled < buf.len() {
            let Some((piece, rest)) = self.pieces.split_first() else {
                break;
            };
            let left = &piece[self.at..];
            let n = left.len().min(buf.len() - filled);
            buf[filled..filled + n].copy_from_slice(&left[..n]);
            filled += n;
            self.at += n;
            if self.at == piece.len() {
                self.pieces = rest;
                self.at = 0;
            }
        }
        Ok(filled)
    }
}

/// 32 hex digits from std's per-process random SipHash keys (seeded from the
/// OS) over a counter: unpredictable, distinct per call, no extra crate.
pub(crate) fn random_boundary() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let keys = RandomState::new();
    let a = keys.hash_one((n, 0u8));
    let b = keys.hash_one((n, 1u8));
    format!("gw-{a:016x}{b:016x}")
}

fn head(body: &mut Vec<u8>, boundary: &str, disposition: &str, content_type: Option<&str>) {
    body.extend_from_slice(
        format!("--{boundary}\r\nContent-Disposition: {disposition}\r\n").as_bytes(),
    );
    if let Some(ct) = content_type {
        body.extend_from_slice(format!("Content-Type: {ct}\r\n").as_bytes());
    }
    body.extend_from_slice(b"\r\n");
}

/// Field names come from JSON keys: keep them from breaking the header.
fn escape(s: &str) -> String {
    s.replace('"', "%22")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn body_of(encoded: &EncodedForm<'_>) -> Vec<u8> {
        let mut body = Vec::new();
        encoded.reader().read_to_end(&mut body).unwrap();
        body
    }

    fn image(bytes: &[u8]) -> FilePart<'_> {
        FilePart {
            field: "image".into(),
            filename: "in.png".into(),
            content_type: "image/png".into(),
            bytes,
        }
    }

    #[test]
    fn encodes_fields_then_files() {
        let mut form = Form::from_fields(&json!({"prompt": "make it blue", "n": 2})).unwrap();
        form.add_file(image(b"\x89PNG\r\n")).unwrap();
        let encoded = form.encode();
        let ct = encoded.content_type();
        let boundary = ct.split("boundary=").nth(1).unwrap();
        let body = body_of(&encoded);
        assert_eq!(body.len() as u64, encoded.len());
        let text = String::from_utf8_lossy(&body);
        assert!(text.starts_with(&format!("--{boundary}\r\n")));
        assert!(text.contains("name=\"prompt\"\r\n\r\nmake it blue\r\n"));
        assert!(text.contains("name=\"n\"\r\n\r\n2\r\n"));
        assert!(text.contains("name=\"image\"; filename=\"in.png\"\r\nContent-Type: image/png\r\n\r\n\u{fffd}PNG\r\n\r\n"));
        assert!(text.ends_with(&format!("--{boundary}--\r\n")));
    }

    #[test]
    fn a_null_member_is_left_out_and_nulls_inside_json_text_are_kept() {
        let mut form = Form::from_fields(&json!({
            "prompt": "p", "n": null, "image": null,
            "tags": ["a", null], "meta": {"k": null},
        }))
        .unwrap();
        // `image: null` is not given, so the file may take the name.
        form.add_file(image(b"PNG")).unwrap();
        let text = String::from_utf8(body_of(&form.encode())).unwrap();
        assert!(!text.contains("name=\"n\""), "{text}");
        assert!(!text.contains("\r\n\r\nnull\r\n"), "{text}");
        assert!(
            text.contains("name=\"tags\"\r\n\r\n[\"a\",null]\r\n"),
            "{text}"
        );
        assert!(
            text.contains("name=\"meta\"\r\n\r\n{\"k\":null}\r\n"),
            "{text}"
        );
        assert_eq!(
            form.fields_json(),
            json!({"prompt": "p", "tags": ["a", null], "meta": {"k": null}, "image": "in.png"})
        );
    }

    #[test]
    fn the_reader_gives_the_body_in_any_slices_and_again_from_the_start() {
        let big: Vec<u8> = (0..100_000u32).map(|i| (i % 251) as u8).collect();
        let mut form = Form::from_fields(&json!({"prompt": "p"})).unwrap();
        form.add_file(image(&big)).unwrap();
        form.add_file(FilePart {
            field: "mask".into(),
            filename: "m.png".into(),
            content_type: "image/png".into(),
            bytes: b"MASK",
        })
        .unwrap();
        let encoded = form.encode();
        let whole = body_of(&encoded);
        assert_eq!(whole.len() as u64, encoded.len());
        for size in [1, 7, 4096, 1 << 20] {
            let mut reader = encoded.reader();
            let mut got = Vec::new();
            let mut buf = vec![0u8; size];
            loop {
                let n = reader.read(&mut buf).unwrap();
                if n == 0 {
                    break;
                }
                got.extend_from_slice(&buf[..n]);
            }
            assert_eq!(got, whole, "read in slices of {size}");
        }
        let at = memchr::memmem::find(&whole, &big).expect("the file is in the body");
        assert!(whole[..at].ends_with(b"Content-Type: image/png\r\n\r\n"));
    }

    #[test]
    fn a_boundary_found_in_a_part_is_never_used() {
        // The first candidate is in the file, the second in a text field.
        let file = b"\x89PNG\r\n--gw-first\r\n".to_vec();
        let mut form = Form::from_fields(&json!({"prompt": "say gw-second"})).unwrap();
        form.add_file(image(&file)).unwrap();
        let mut candidates = ["gw-first", "gw-second", "gw-third"].into_iter();
        let encoded = form.encode_with(|| candidates.next().unwrap().to_string());
        assert_eq!(
            encoded.content_type(),
            "multipart/form-data; boundary=gw-third"
        );
        let body = body_of(&encoded);
        // Two parts: two delimiters and the closing one, nothing else.
        assert_eq!(memchr::memmem::find_iter(&body, b"--gw-third").count(), 3);
        assert!(memchr::memmem::find(&body, &file).is_some());
    }

    #[test]
    fn boundaries_are_random_and_distinct() {
        let all: std::collections::HashSet<String> = (0..1000).map(|_| random_boundary()).collect();
        assert_eq!(all.len(), 1000);
        assert!(all.iter().all(|b| b.len() == 35
            && b.starts_with("gw-")
            && b[3..].bytes().all(|c| c.is_ascii_hexdigit())));
    }

    #[test]
    fn bad_files_are_refused() {
        let mut form = Form::from_fields(&json!({"image": "x"})).unwrap();
        let file = |field: &str, name: &str, bytes: &'static [u8]| FilePart {
            field: field.into(),
            filename: name.into(),
            content_type: "image/png".into(),
            bytes,
        };
        assert!(form.add_file(file("mask", "m.png", b"")).is_err());
        assert!(form.add_file(file("mask", "a\"b.png", b"x")).is_err());
        assert!(form.add_file(file("image", "i.png", b"x")).is_err());
    }
}
