//! The Gherkin suites: the server suite (mcpspec plays the client) and the client suite
//! (mcpspec plays the server), loaded from `scenarios/`, planned per revision and transport,
//! run under cucumber, each scenario ending in one report entry.

pub mod bounds;
pub mod client;
pub mod context;
pub mod load;
pub mod plan;
pub mod probe;
pub mod run;
pub mod scenario;
pub mod server;
pub mod world;
