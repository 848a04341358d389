//! `multipart/form-data` bodies (RFC 7578), built in memory for the image edit
//! upload: the request's JSON fields as text parts, then the files.

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
    pub fn from_fields(fields: &Value) -> Result<Form<'a>, Error> {
        let fields = fields
            .as_object()
            .ok_or_else(|| Error::invalid_param("request", "request: must be a JSON object"))?
            .clone();
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

    /// (Content-Type header, body bytes).
    pub fn encode(&self) -> (String, Vec<u8>) {
        let boundary = self.boundary();
        let mut body = Vec::with_capacity(
            self.files
                .iter()
                .map(|f| f.bytes.len() + 256)
                .sum::<usize>()
                + 1024,
        );
        for (name, value) in &self.fields {
            let text = match value {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            head(
                &mut body,
                &boundary,
                &format!("form-data; name=\"{}\"", escape(name)),
                None,
            );
            body.extend_from_slice(text.as_bytes());
            body.extend_from_slice(b"\r\n");
        }
        for f in &self.files {
            let disposition = format!(
                "form-data; name=\"{}\"; filename=\"{}\"",
                escape(&f.field),
                escape(&f.filename)
            );
            head(&mut body, &boundary, &disposition, Some(&f.content_type));
            body.extend_from_slice(f.bytes);
            body.extend_from_slice(b"\r\n");
        }
        body.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
        (format!("multipart/form-data; boundary={boundary}"), body)
    }

    /// A boundary that occurs in no part.
    fn boundary(&self) -> String {
        static COUNTER: AtomicU64 = AtomicU64::new(0x5eed);
        loop {
            let n = COUNTER.fetch_add(0x9E37_79B9_7F4A_7C15, Ordering::Relaxed);
            let candidate = format!("gw-boundary-{n:016x}");
            let needle = candidate.as_bytes();
            let clash = self
                .files
                .iter()
                .any(|f| f.bytes.windows(needle.len()).any(|w| w == needle))
                || self
                    .fields
                    .values()
                    .any(|v| v.to_string().contains(&candidate));
            if !clash {
                return candidate;
            }
        }
    }
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

    #[test]
    fn encodes_fields_then_files() {
        let mut form = Form::from_fields(&json!({"prompt": "make it blue", "n": 2})).unwrap();
        form.add_file(FilePart {
            field: "image".into(),
            filename: "in.png".into(),
            content_type: "image/png".into(),
            bytes: b"\x89PNG\r\n",
        })
        .unwrap();
        let (ct, body) = form.encode();
        let boundary = ct.split("boundary=").nth(1).unwrap();
        let text = String::from_utf8_lossy(&body);
        assert!(text.contains("name=\"prompt\"\r\n\r\nmake it blue\r\n"));
        assert!(text.contains("name=\"n\"\r\n\r\n2\r\n"));
        assert!(text.contains("name=\"image\"; filename=\"in.png\"\r\nContent-Type: image/png\r\n\r\n\u{fffd}PNG\r\n\r\n"));
        assert!(text.ends_with(&format!("--{boundary}--\r\n")));
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
