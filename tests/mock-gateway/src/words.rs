//! Word handling shared by the text endpoints: the mock counts words as tokens and streams
//! one word per event, so answers stay deterministic and easy to assert on.

/// Words of `text`, split on any whitespace.
pub fn words(text: &str) -> Vec<&str> {
    text.split_whitespace().collect()
}

/// Token count of `text` as the mock reports it in `usage`.
pub fn count(text: &str) -> u64 {
    text.split_whitespace().count() as u64
}

/// Stream fragments: each word followed by a space except the last, so that
/// concatenating the fragments gives `words.join(" ")`.
pub fn fragments(words: &[&str]) -> Vec<String> {
    let last = words.len().saturating_sub(1);
    words
        .iter()
        .enumerate()
        .map(|(i, w)| {
            if i < last {
                format!("{w} ")
            } else {
                (*w).to_string()
            }
        })
        .collect()
}

/// "1 image", "2 images": the suffix the chat echo adds for media parts.
pub fn plural(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("{n} {noun}")
    } else {
        format!("{n} {noun}s")
    }
}
