//! mcpspec: conformance test suite and protocol fuzzer for the Model Context Protocol.
//!
//! The path of a message: [`session`] starts the implementation under test and sends and
//! receives through the reference transport (`mcpspec_reference::transport`), which frames
//! and decodes; the [`recorder`] runs every message through the sans-IO [`checker`] and the
//! JSON Schema validator (`mcpspec_schema`); scenario steps (in the binary) add their own
//! checks; [`report`] turns them into verdicts. Rules and levels live in [`rules`] and
//! [`verdict`]; the [`pool`] hands a session its scenario left untouched to the next scenario
//! that needs one like it.
//!
//! The reference peers live in `mcpspec_reference`: the reference client and the client
//! persona a [`session`] plays towards a server (`mcpspec_reference::client`), and the
//! protocol's rules the checker and the steps judge with (`mcpspec_reference::{capabilities,
//! sampling, elicitation}`, arguments from `mcpspec_protocol::arguments`).

pub mod baseline;
pub mod bounds;
pub mod checker;
pub mod client_session;
pub mod files;
pub mod fuzz;
pub mod http_target;
pub mod pool;
pub mod recorder;
pub mod redact;
pub mod report;
pub mod rules;
pub mod session;
pub mod starts;
pub mod verdict;
