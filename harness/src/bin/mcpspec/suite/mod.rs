//! The Gherkin suites: the server suite (mcpspec plays the client), the client suite (mcpspec
//! plays the server) and the authorization-server suite (mcpspec plays an OAuth client), loaded from `scenarios/`, planned per revision and transport,
//! run under cucumber, each scenario ending in one report entry.

pub mod authorization;
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
