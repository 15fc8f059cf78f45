//! The schema validator of every revision on any JSON: no panic, every `Invalid` explained.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| mcpspec_props::schema(data));
