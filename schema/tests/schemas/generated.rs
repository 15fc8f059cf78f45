//! The files in `schema/generated` are exactly what `schema/defs` generates.
//!
//! After editing `schema/defs`, regenerate with
//! `MCPSPEC_REGENERATE=1 cargo test -p mcpspec-schema --test schemas generated`.

use mcpspec_schema::own;
use std::path::Path;

#[test]
fn generated_files_are_fresh() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("generated");
    let regenerate = std::env::var_os("MCPSPEC_REGENERATE").is_some();
    let mut stale = Vec::new();
    for &rev in own::REVISIONS {
        let text = own::render(rev).unwrap_or_else(|e| panic!("schema/defs: {e}"));
        let path = root.join(rev.as_str()).join("schema.json");
        let current = std::fs::read_to_string(&path).unwrap_or_default();
        if current != text {
            if regenerate {
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                std::fs::write(&path, &text).unwrap();
                eprintln!("regenerated {}", path.display());
            } else {
                stale.push(path.display().to_string());
            }
        }
    }
    assert!(
        stale.is_empty(),
        "stale generated schemas: {stale:?}; run \
         `MCPSPEC_REGENERATE=1 cargo test -p mcpspec-schema --test schemas generated`"
    );
}

#[test]
fn every_embedded_revision_compiles() {
    let set = mcpspec_schema::SchemaSet::builtin();
    assert_eq!(set.revisions(), own::REVISIONS.to_vec());
    for (rev, _) in own::GENERATED {
        let schema = set.get(*rev).unwrap();
        assert!(schema.definitions().any(|d| d == "JSONRPCMessage"));
    }
}
