#![no_main]
// The body is gw::fuzzing::response, which tests/fuzz_corpus.rs replays over the corpus.
libfuzzer_sys::fuzz_target!(|data: &[u8]| gw::fuzzing::response(data));
