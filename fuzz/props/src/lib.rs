//! The properties mcpspec's in-process fuzz targets check: what must hold for *any* input, each
//! a function that panics when its property breaks and returns quietly otherwise. They are
//! called from three places: the cargo-fuzz targets in `fuzz/fuzz_targets/` (one line each),
//! the replay of each target's committed seed corpus (`fuzz/corpus/<target>/`, ordinary tests
//! of this crate, so `cargo test` runs them without libFuzzer), and proptest.
//!
//! - [`framing`], [`reassembly`], [`sse`] ([`codecs`]): the stdio line decoder, the
//!   reassembler above it and the SSE decoder are split-invariant and bounded;
//! - [`decoded_value`], [`wire_value`] ([`wire`]): a decoded value encodes back to itself, and a
//!   message that round-trips through the wire model keeps its meaning;
//! - [`wire_checker`], [`schema`] ([`checker`]): the session checker and the schema validator
//!   never panic, and explain what they find;
//! - [`www_authenticate`] ([`auth`]): the authorization vocabulary's challenge and metadata
//!   readers never panic and read back what they format;
//! - [`server_session`] ([`session`]): a structure-aware client [`Script`] ([`script`]) played
//!   against the reference server at every revision it speaks keeps the session's invariants.
//!
//! Not a shipped library: nothing outside the tests and the fuzz targets depends on it.

pub mod auth;
pub mod checker;
pub mod codecs;
pub mod corpus;
pub mod script;
pub mod session;
pub mod wire;

pub use auth::www_authenticate;
pub use checker::{schema, wire_checker};
pub use codecs::{framing, reassembly, sse};
pub use script::Script;
pub use session::server_session;
pub use wire::{decoded_value, wire_value};

#[cfg(test)]
mod tests {
    mod codecs;
    mod seeds;
    mod session;
}
