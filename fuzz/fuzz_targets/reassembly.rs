//! Messages split over lines are made whole again: split-invariant, bounded, exactly the line
//! decoder's frames where nothing was split, and any pretty-printed value back, flagged.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| mcpspec_props::reassembly(data));
