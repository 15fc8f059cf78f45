//! Structure-aware client sessions against the reference server at every revision it speaks:
//! every request answered at most once, every answer schema-valid, none after its cancellation.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| mcpspec_props::server_session(data));
