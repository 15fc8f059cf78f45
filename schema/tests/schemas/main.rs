//! Tests of mcpspec's own schema files: they are generated from `schema/defs` and fresh, they
//! compile, and they judge a corpus exactly as the official files in `../shared/schemas` do.

mod corpus;
mod differential;
mod examples;
mod generated;
mod messages;
mod reference;

use mcpspec_schema::SchemaSet;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Our built-in schemas, compiled once for every test here.
pub fn ours() -> &'static SchemaSet {
    static SET: OnceLock<SchemaSet> = OnceLock::new();
    SET.get_or_init(SchemaSet::builtin)
}

/// The official schemas, compiled once, when this checkout has them beside it.
pub fn official() -> Option<&'static SchemaSet> {
    static SET: OnceLock<Option<SchemaSet>> = OnceLock::new();
    SET.get_or_init(|| official_dir().map(|dir| SchemaSet::from_dir(&dir).expect("official schemas compile")))
        .as_ref()
}

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
