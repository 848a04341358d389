//! A small `multipart/form-data` reader over the whole body. The mock needs the parts both to
//! record them (before any fault) and to answer image edits, so it parses once from bytes
//! instead of consuming the body through a streaming extractor.

use crate::record::RecordedPart;

/// The boundary from a `multipart/form-data; boundary=...` content type.
pub fn boundary(content_type: &str) -> Option<String> {
    let mut params = content_type.split(';');
    let mime = params.next()?.trim();
    if !mime.eq_ignore_ascii_case("multipart/form-data") {
        return None;
    }
    params.find_map(|p| {
        let (k, v) = p.trim().split_once('=')?;
        k.trim()
            .eq_ignore_ascii_case("boundary")
            .then(|| v.trim().trim_matches('"').to_string())
    })
}

/// The parts of `body`, or None when it is not well-formed multipart for `boundary`.
pub fn parse(body: &[u8], boundary: &str) -> Option<Vec<RecordedPart>> {
    let delim = format!("--{boundary}").into_bytes();
    let next_delim = format!("\r\n--{boundary}").into_bytes();
    let mut pos = find(body, &delim, 0)? + delim.len();
    let mut parts = Vec::new();
    loop {
        if body[pos..].starts_with(b"--") {
            return Some(parts);
        }
        pos = skip_crlf(body, pos)?;
        let head_end = find(body, b"\r\n\r\n", pos)?;
        let head = std::str::from_utf8(&body[pos..head_end]).ok()?;
        let data_start = head_end + 4;
        let data_end = find(body, &next_delim, data_start)?;
        parts.push(part(head, &body[data_start..data_end])?);
        pos = data_end + next_delim.len();
    }
}

fn part(head: &str, data: &[u8]) -> Option<RecordedPart> {
    let mut name = None;
    let mut filename = None;
    let mut content_type = None;
    for line in head.split("\r\n") {
        let (k, v) = line.split_once(':')?;
        if k.trim().eq_ignore_ascii_case("content-disposition") {
            for p in v.split(';').skip(1) {
                if let Some((pk, pv)) = p.trim().split_once('=') {
                    let pv = pv.trim().trim_matches('"').to_string();
                    match pk.trim().to_ascii_lowercase().as_str() {
                        "name" => name = Some(pv),
                        "filename" => filename = Some(pv),
                        _ => {}
                    }
                }
            }
        } else if k.trim().eq_ignore_ascii_case("content-type") {
            content_type = Some(v.trim().to_string());
        }
    }
    Some(RecordedPart::new(name?, filename, content_type, data))
}

fn skip_crlf(body: &[u8], pos: usize) -> Option<usize> {
    body[pos..].starts_with(b"\r\n").then_some(pos + 2)
}

fn find(hay: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    if from > hay.len() {
        return None;
    }
    hay[from..]
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|i| i + from)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_text_and_file_parts() {
        let body = b"--XyZ\r\nContent-Disposition: form-data; name=\"prompt\"\r\n\r\nmake it blue\r\n\
--XyZ\r\nContent-Disposition: form-data; name=\"image\"; filename=\"a.png\"\r\nContent-Type: image/png\r\n\r\n\x89PNG\r\n\x00\xff\r\n--XyZ--\r\n";
        let ct = "multipart/form-data; boundary=\"XyZ\"";
        let parts = parse(body, &boundary(ct).unwrap()).unwrap();
        assert_eq!(parts.len(), 2);
        assert_eq!(parts[0].name, "prompt");
        assert_eq!(parts[0].text.as_deref(), Some("make it blue"));
        assert_eq!(parts[1].filename.as_deref(), Some("a.png"));
        assert_eq!(parts[1].content_type.as_deref(), Some("image/png"));
        assert_eq!(parts[1].bytes(), b"\x89PNG\r\n\x00\xff");
        assert_eq!(parts[1].text, None);
    }

    #[test]
    fn rejects_non_multipart() {
        assert_eq!(boundary("application/json"), None);
        assert_eq!(parse(b"garbage", "b"), None);
    }
}
