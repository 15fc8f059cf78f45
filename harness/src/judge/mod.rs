//! Judging: what every message that crosses the wire is held to, whatever the scenario.
//!
//! - [`recorder`]: the wire recorder; every message of a session, both directions, through the
//!   [`checker`] and (for the implementation under test) the JSON Schema of the revision in
//!   force, becoming checks of the scenario in which it happened;
//! - [`checker`]: the session checker, a sans-IO state machine over both directions: the
//!   envelope, ids, negotiation, progress and the modern era's rules for what a server sends;
//! - [`server`]: the rules only a server is judged by outside the message stream (its HTTP
//!   transport); [`client`]: the rules only a client is judged by (its modern-era messages, its
//!   HTTP transport);
//! - [`rules`]: the catalogue of wire rules, each with its id, level and clause;
//!   [`clauses`]: the clause inventory, each normative statement with the checks that test it;
//!   [`verdict`]: levels, verdicts and checks, the vocabulary of every result.

pub mod checker;
pub mod clauses;
pub mod client;
pub mod recorder;
pub mod rules;
pub mod server;
pub mod verdict;
