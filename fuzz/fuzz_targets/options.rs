#![no_main]
// The body is gw::fuzzing::options, which tests/fuzz_corpus.rs replays over the corpus.
libfuzzer_sys::fuzz_target!(
    init: gw::fuzzing::forget_machine_ca_store(),
    |data: &[u8]| gw::fuzzing::options(data)
);
