#![no_main]
// The body is gw::fuzzing::exchange, which tests/fuzz_corpus.rs replays over the corpus.
libfuzzer_sys::fuzz_target!(|data: &[u8]| gw::fuzzing::exchange(data));
