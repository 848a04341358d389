#![no_main]
// The body is gw::fuzzing::sse_parser, which tests/fuzz_corpus.rs replays over the corpus.
libfuzzer_sys::fuzz_target!(|data: &[u8]| gw::fuzzing::sse_parser(data));
