//! C89 knows only `/* */` comments. cbindgen writes doc comments that way when
//! told to, but still ends a few lines with its own `// ...` (`}  // extern
//! "C"`, `#endif  // __cplusplus`): this rewrites those as `/* ... */`.

pub fn block_comments_only(header: &str) -> String {
    let mut out = String::with_capacity(header.len());
    let mut in_block = false;
    for line in header.split_inclusive('\n') {
        let bytes = line.as_bytes();
        let mut i = 0;
        let mut in_string = false;
        let mut cut = None;
        while i < bytes.len() {
            let pair = &bytes[i..bytes.len().min(i + 2)];
            if in_block {
                if pair == b"*/" {
                    in_block = false;
                    i += 1;
                }
            } else if in_string {
                in_string = bytes[i] != b'"';
            } else if pair == b"/*" {
                in_block = true;
                i += 1;
            } else if pair == b"//" {
                cut = Some(i);
                break;
            } else {
                in_string = bytes[i] == b'"';
            }
            i += 1;
        }
        match cut {
            Some(at) => {
                let text = line[at + 2..].trim_end_matches(['\n', '\r']).trim();
                out.push_str(&line[..at]);
                out.push_str(&format!("/* {text} */"));
                out.push_str(&line[line.trim_end_matches(['\n', '\r']).len()..]);
            }
            None => out.push_str(line),
        }
    }
    out
}
