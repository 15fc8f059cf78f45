//! What can go wrong while loading and compiling schema files.

use std::path::PathBuf;

/// Why a schema directory or file could not be turned into validators.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SchemaError {
    /// The schema directory does not exist or is not a directory.
    #[error(
        "schema directory {} does not exist or is not a directory; pass a directory that holds \
         <revision>/schema.json (e.g. 2025-06-18/schema.json)",
        dir.display()
    )]
    DirNotFound { dir: PathBuf },

    /// The schema directory exists but could not be listed.
    #[error("cannot list schema directory {}: {source}; check its permissions", dir.display())]
    ReadDir {
        dir: PathBuf,
        #[source]
        source: std::io::Error,
    },

    /// The schema directory holds no folder named after a known revision.
    #[error(
        "schema directory {} holds no revision folder; expected at least one of {known} \
         with a schema.json inside",
        dir.display()
    )]
    NoRevisions { dir: PathBuf, known: String },

    /// A revision folder has no readable `schema.json`.
    #[error("cannot read {}: {source}; every revision folder needs a readable schema.json", path.display())]
    ReadFile {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    /// A schema file is not valid JSON.
    #[error("{} is not valid JSON: {source}; fix or replace the file", path.display())]
    Json {
        path: PathBuf,
        #[source]
        source: serde_json::Error,
    },

    /// A schema file has neither `definitions` nor `$defs` at its top level.
    #[error(
        "{} has no top-level `definitions` or `$defs` object; an MCP schema file names every \
         message type there",
        path.display()
    )]
    NoDefinitions { path: PathBuf },

    /// A schema file does not compile as a JSON Schema (bad keyword value, broken `$ref`, …).
    #[error("{} does not compile as a JSON Schema: {message}; fix the schema at that location", path.display())]
    Compile { path: PathBuf, message: String },

    /// A definition the validator needs (e.g. `JSONRPCRequest`) is missing from a schema file.
    #[error(
        "{} lacks the definition `{name}`, which the validator needs to check {purpose}; \
         add it or use a complete schema file",
        path.display()
    )]
    MissingDefinition { path: PathBuf, name: String, purpose: &'static str },
}
