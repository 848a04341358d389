#![no_main]
// The body is gw::fuzzing::request_body, which tests/fuzz_corpus.rs replays over the corpus.
libfuzzer_sys::fuzz_target!(|data: &[u8]| gw::fuzzing::request_body(data));
