//! Any WWW-Authenticate values or metadata document: read without panicking, and a Bearer
//! challenge or a document read back as itself once written again.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| mcpspec_props::www_authenticate(data));
