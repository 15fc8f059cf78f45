//! The protocol vocabulary of mcpspec: what every part of it (the schema validator, the
//! reference peers, the harness, the fuzz properties) needs to speak MCP, and nothing that does
//! I/O. Every type here is a plain value or a sans-IO state machine, so the same code runs
//! behind stdio, HTTP, a recorded transcript and a fuzz target.
//!
//! - [`wire`]: the JSON-RPC / MCP message model;
//! - [`revision`]: protocol revisions and their two eras (legacy and modern,
//!   2026-07-28 `basic/versioning.mdx`);
//! - [`framing`]: the stdio newline codec; [`reassembly`] above it, messages split over several
//!   lines made whole again (and flagged); [`sse`]: the Server-Sent Events codec of the HTTP
//!   transports;
//! - [`modern`]: the vocabulary of the modern era (request `_meta`, its errors, MRTR and
//!   cacheable methods, mirrored HTTP headers);
//! - [`capabilities`], [`sampling`], [`elicitation`], [`roots`]: rules of the protocol as pure
//!   functions (what a `capabilities` object declares, the tool-use balance of a sampling
//!   conversation and what a sampling result holds, elicitation modes and results, what a
//!   client's roots may be), shared by the reference peers and the harness's checks;
//!   [`resources`]: the `file://` URI that would climb out of a listed resource's directory;
//! - [`meta`]: the format of `_meta` keys and of the trace context values under them;
//!   [`param_headers`]: the constraints on a tool's `x-mcp-header` annotations; [`dialect`]:
//!   a schema on the wire valid under its declared or default JSON Schema dialect, the dialects
//!   supported, and arguments that tell a schema's dialect from another;
//! - [`tasks`]: task statuses and their lifecycle, the related-task `_meta` key, a tool's task
//!   support and what a task object holds (2025-11-25's experimental tasks);
//! - [`arguments`]: values generated from a JSON Schema (tool arguments, elicitation content);
//! - [`auth`]: the vocabulary of authorization (challenges, protected resource and
//!   authorization server metadata, discovery URLs per revision, PKCE, canonical URIs);
//! - `testing` (feature `testing`): proptest strategies for the workspace's tests.

pub mod arguments;
pub mod auth;
pub mod capabilities;
pub mod dialect;
pub mod elicitation;
pub mod framing;
pub mod meta;
pub mod modern;
pub mod param_headers;
pub mod reassembly;
pub mod resources;
pub mod revision;
pub mod roots;
pub mod sampling;
pub mod sse;
pub mod tasks;
#[cfg(any(test, feature = "testing"))]
pub mod testing;
pub mod wire;

pub use revision::{Era, Revision, UnknownRevision};
pub use wire::{Direction, ErrorObject, Message, RequestId};
