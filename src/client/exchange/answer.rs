//! Reading a whole answer: the body gathered under its cap, then judged
//! against what the operation promises (a 2xx), read for its message (an error
//! status), or taken for what it is (a 2xx where an event stream was asked for).

use serde_json::Value;

use crate::api::ops::Reply;
use crate::error::{http_error_message, Error};

/// An error body is only read for its message: no need to take a huge one in.
pub(super) const MAX_ERROR_BODY: u64 = 1024 * 1024;

/// What a body being gathered is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Purpose {
    /// A 2xx answer to a plain call.
    Answer,
    /// The answer of a status no retry follows: its text is the error's.
    Failure { status: u16 },
    /// A 2xx answer to a stream that is no event stream.
    NotAStream,
}

/// A body being gathered under its cap.
pub(super) struct Gathered {
    pub purpose: Purpose,
    pub bytes: Vec<u8>,
    pub limit: u64,
}

impl Gathered {
    pub(super) fn new(purpose: Purpose, limit: u64, expected: Option<u64>) -> Gathered {
        // Sized from Content-Length (within the cap): the body is read without regrowing.
        let expected = expected.map_or(0, |n| n.min(limit.min(1 << 20)) as usize);
        Gathered {
            purpose,
            bytes: Vec::with_capacity(expected),
            limit,
        }
    }

    /// How many more bytes fit before the cap is passed (one more tells it was).
    pub(super) fn room(&self) -> usize {
        usize::try_from((self.limit + 1).saturating_sub(self.bytes.len() as u64))
            .unwrap_or(usize::MAX)
    }

    pub(super) fn over_limit(&self) -> bool {
        self.bytes.len() as u64 > self.limit
    }

    pub(super) fn too_large(&self) -> Error {
        Error::TooLarge(format!(
            "answer is over max_response_bytes ({} bytes)",
            self.limit
        ))
    }

    /// The text, or why it is none.
    fn text(self) -> Result<String, Error> {
        if self.over_limit() {
            return Err(self.too_large());
        }
        String::from_utf8(self.bytes).map_err(|_| Error::Decode("answer is not valid UTF-8".into()))
    }

    /// The outcome of the whole body.
    pub(super) fn outcome(self, reply: Reply) -> Result<String, Error> {
        match self.purpose {
            Purpose::Answer => judge(reply, self.text()?),
            Purpose::Failure { status } => Err(http_error(status, self.text())),
            Purpose::NotAStream => Err(crate::stream::driver::non_stream_answer(&self.text()?)),
        }
    }
}

/// The error of a status no retry follows, from its body (or why it could not be read).
pub(super) fn http_error(status: u16, body: Result<String, Error>) -> Error {
    match body {
        Ok(body) => Error::Http {
            status,
            message: http_error_message(status, &body),
            body: (!body.trim().is_empty()).then_some(body),
        },
        Err(e) => Error::Http {
            status,
            message: format!("the gateway answered {status}; its body could not be read: {e}"),
            body: None,
        },
    }
}

/// Checks a 2xx answer against what the operation promises.
pub(crate) fn judge(reply: Reply, text: String) -> Result<String, Error> {
    if let Reply::Json(fields) = reply {
        if crate::stream::chunk_scan::object_has_fields(&text, fields) {
            return Ok(text);
        }
        // Not JSON, not an object, a field missing: the general way below says which.
    }
    let value: Value = serde_json::from_str(&text)
        .map_err(|e| Error::Decode(format!("answer is not valid JSON ({e})")))?;
    match reply {
        // An operation with no promised fields (or a path outside the table) takes any JSON.
        Reply::Json([]) => {}
        Reply::Json(fields) => {
            let obj = value
                .as_object()
                .ok_or_else(|| Error::Decode("answer is not a JSON object".into()))?;
            if let Some(missing) = fields.iter().find(|f| !obj.contains_key(**f)) {
                return Err(Error::Decode(format!("answer lacks the field '{missing}'")));
            }
        }
        Reply::VendorCode { ok } => {
            let code = value
                .get("code")
                .and_then(Value::as_i64)
                .ok_or_else(|| Error::Decode("vendor answer lacks an integer 'code'".into()))?;
            if code != ok {
                let said = ["message", "description"]
                    .iter()
                    .find_map(|k| value.get(*k).and_then(Value::as_str))
                    .unwrap_or("no message");
                return Err(Error::Vendor {
                    message: format!("code {code}: {said}"),
                    body: text,
                });
            }
        }
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn judge_checks_shape_and_vendor_codes() {
        assert!(judge(Reply::Json(&["choices"]), r#"{"choices":[]}"#.into()).is_ok());
        assert!(matches!(
            judge(Reply::Json(&["choices"]), "{}".into()),
            Err(Error::Decode(_))
        ));
        assert!(matches!(
            judge(Reply::Json(&[]), "{oops".into()),
            Err(Error::Decode(_))
        ));
        let e = judge(
            Reply::VendorCode { ok: 1 },
            r#"{"code":4,"description":"banned"}"#.into(),
        )
        .unwrap_err();
        assert_eq!(e.to_string(), "vendor reported failure: code 4: banned");
        assert!(judge(Reply::VendorCode { ok: 0 }, r#"{"code":0}"#.into()).is_ok());
    }

    #[test]
    fn a_gathered_body_over_its_cap_is_too_large() {
        let mut body = Gathered::new(Purpose::Answer, 4, Some(100));
        assert_eq!(body.room(), 5);
        body.bytes.extend_from_slice(b"{}{}{");
        assert!(body.over_limit());
        assert!(matches!(
            body.outcome(Reply::Json(&[])),
            Err(Error::TooLarge(_))
        ));
    }
}
