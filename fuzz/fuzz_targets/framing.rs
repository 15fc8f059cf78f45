//! Any byte stream, cut at any points, decodes to the same frames as in one piece; the decoder
//! never buffers past its limit and yields one frame per line.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| mcpspec_props::framing(data));
