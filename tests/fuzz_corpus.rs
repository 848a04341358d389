//! Replays what the fuzzers keep (fuzz/corpus: minimized seeds; fuzz/regressions:
//! every input that ever found a defect) through the targets' own bodies
//! (gw::fuzzing), with stable Rust and no fuzzer: a defect once found stays fixed.

use std::path::Path;

type Body = fn(&[u8]);

const TARGETS: &[(&str, Body)] = &[
    ("sse_parser", gw::fuzzing::sse_parser),
    ("event_stream", gw::fuzzing::event_stream),
    ("request_body", gw::fuzzing::request_body),
    ("validation", gw::fuzzing::validation),
    ("options", gw::fuzzing::options),
    ("multipart", gw::fuzzing::multipart),
    ("response", gw::fuzzing::response),
    ("exchange", gw::fuzzing::exchange),
];

fn replay(folder: &str) -> usize {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz")
        .join(folder);
    let mut count = 0;
    for (name, body) in TARGETS {
        let Ok(entries) = std::fs::read_dir(root.join(name)) else {
            continue;
        };
        let mut files: Vec<_> = entries.flatten().map(|e| e.path()).collect();
        files.sort();
        for file in files {
            let bytes = std::fs::read(&file).unwrap();
            let outcome = std::panic::catch_unwind(|| body(&bytes));
            assert!(outcome.is_ok(), "{name}: {} fails", file.display());
            count += 1;
        }
    }
    count
}

#[test]
fn every_target_has_seeds_and_they_all_pass() {
    for (name, _) in TARGETS {
        let folder = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fuzz/corpus")
            .join(name);
        let seeds = std::fs::read_dir(&folder).map_or(0, |d| d.count());
        assert!(seeds > 0, "{name}: no seeds in {}", folder.display());
    }
    assert!(replay("corpus") >= TARGETS.len());
}

#[test]
fn every_input_that_found_a_defect_passes() {
    replay("regressions");
}
