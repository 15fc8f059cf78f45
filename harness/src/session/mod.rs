//! Live sessions with the implementation under test.
//!
//! - [`target`]: where the implementation is and how to reach it (a command over stdio, a URL,
//!   a command serving HTTP on a port, a client reaching mcpspec over HTTP);
//! - [`server`]: mcpspec as the client of a server under test;
//!   [`authorization`]: mcpspec as the OAuth client of an authorization server under test;
//!   [`client`]: mcpspec as the server of a client under test (the scenario server);
//! - [`pool`]: a server session its scenario left untouched, handed to the next scenario that
//!   needs one like it; [`footprint`]: what a scenario did that the next one could notice;
//! - [`starts`]: turns to start an implementation (starting is where a scenario spends its CPU).

pub mod authorization;
pub mod client;
pub mod footprint;
pub mod pool;
pub mod server;
pub mod starts;
pub mod target;
