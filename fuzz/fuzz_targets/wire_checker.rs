//! The wire model and the session checker on any stream, both directions: no panic, and a
//! message that round-trips through the model keeps its meaning (ids keep their JSON type).
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| mcpspec_props::wire_checker(data));
