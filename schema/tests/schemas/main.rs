//! Tests of mcpspec's own schema files: they are generated from `schema/defs` and fresh, they
//! compile, and they judge a corpus exactly as the official files in `../shared/schemas` do.

mod corpus;
mod differential;
mod examples;
mod generated;
mod messages;
mod reference;

use std::path::{Path, PathBuf};

/// The official schema files, when this checkout has them beside it.
pub fn official_dir() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/schemas");
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!("note: {} not found; skipping comparisons with the official schemas", dir.display());
        None
    }
}
