//! mcpspec: conformance test suite and protocol fuzzer for the Model Context Protocol.
//!
//! The library holds the stages a message passes once the binary (`bin/mcpspec/`: the command
//! line and the Gherkin suites) has decided what to send:
//!
//! - [`session`]: a live session with the implementation under test, one module per role and
//!   transport (`session::server::{stdio, http}`, `session::client::{stdio, http}`), the pool
//!   that hands a session on to the next scenario and the start turns;
//! - [`judge`]: every message through the sans-IO session checker and the JSON Schema of the
//!   revision in force ([`judge::recorder`]), the rules a server and a client are judged by, the
//!   catalogue of wire rules and the vocabulary of verdicts;
//! - [`report`]: checks into verdicts, a certification per revision, and every report format,
//!   with baselines of known failures and secrets kept out;
//! - [`fuzz`]: black-box fuzzing of a running implementation over its real transport.
//!
//! The protocol's vocabulary is `mcpspec_protocol`; the reference peers and the real transports
//! are `mcpspec_reference`; the schemas are `mcpspec_schema`. ARCHITECTURE.md walks a message
//! from a peer's bytes to a verdict in a report.

pub mod files;
pub mod fuzz;
pub mod judge;
pub mod report;
pub mod session;
