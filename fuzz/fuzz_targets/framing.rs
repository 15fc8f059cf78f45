//! Any byte stream, cut at any points, decodes to the same frames as in one piece, and the
//! decoder never buffers past its limit.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| mcpspec_reference::framing::fuzz::split_invariance(data));
