//! Inputs for a campaign. (Contract; the implementation lands with issue #15.)
//!
//! [`Generator::input`] is a pure function of `(seed, index, corpus)` and the catalog: the
//! same arguments give the same bytes, whichever worker or shard asks, so a campaign replays
//! from its seed and `--shard I/N` needs no coordination.
//!
//! Ids: a request the generator does not mean to collide gets an id no other input uses
//! (derived from `index`); ids that collide, are reused, or sit at the edges of what an id may
//! hold are the point of the inputs that send them. Ids starting with `mcpspec-` are the
//! driver's (its barriers and handshake) and never generated.

use super::{Catalog, Input};
use mcpspec_schema::SchemaSet;
use std::sync::Arc;

/// Builds inputs from what the implementation advertised.
pub struct Generator {
    catalog: Catalog,
    schemas: Arc<SchemaSet>,
}

impl Generator {
    pub fn new(catalog: Catalog, schemas: Arc<SchemaSet>) -> Generator {
        Generator { catalog, schemas }
    }

    /// Whether tools that say `destructiveHint: true` may be called.
    pub fn with_destructive(self, destructive: bool) -> Generator {
        let _ = destructive;
        self
    }

    pub fn catalog(&self) -> &Catalog {
        &self.catalog
    }

    /// Input number `index` of the campaign seeded with `seed`, drawing on `corpus` (inputs
    /// kept from earlier runs, mutated as seeds) as well as on the catalog and the schemas.
    pub fn input(&self, seed: u64, index: u64, corpus: &[Input]) -> Input {
        let _ = (&self.schemas, seed, corpus);
        Input::messages(
            format!("ping {index}"),
            &[serde_json::json!({"jsonrpc": "2.0", "id": index, "method": "ping"})],
        )
    }
}
