//! Any `text/event-stream` body, cut at any points, decodes to the same events; the decoder never
//! buffers past its limit, and every event it yields survives encoding.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| mcpspec_props::sse(data));
