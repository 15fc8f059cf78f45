//! The reference MCP peer of mcpspec.
//!
//! - [`wire`]: the JSON-RPC / MCP message model, shared by every part of mcpspec;
//! - [`framing`]: the stdio newline codec, a sans-IO state machine;
//! - [`reassembly`]: above it, messages split over several lines made whole again, flagged;
//! - [`sse`]: the Server-Sent Events codec of the HTTP transports;
//! - [`transport`]: real I/O around the codecs (a child process over pipes; the HTTP endpoint of
//!   Streamable HTTP and legacy HTTP+SSE);
//! - [`server`]: the reference server, a sans-IO handler plus one serving loop, over stdio or
//!   HTTP;
//! - [`client`]: the reference client, a sans-IO state machine plus its driver over stdio or
//!   HTTP, and the client persona that answers a server's sampling, elicitation and roots
//!   requests (the harness plays it towards servers under test too);
//! - [`revision`]: protocol revisions and eras; [`modern`]: the vocabulary of the stateless era
//!   (request `_meta`, its errors, MRTR and cacheable methods, mirrored HTTP headers);
//! - [`capabilities`], [`sampling`], [`elicitation`]: rules of the protocol as pure functions —
//!   what a `capabilities` object declares, the tool-use balance of a sampling conversation and
//!   what a sampling result holds, elicitation modes and results — shared by the reference peers
//!   and the harness's checks;
//! - [`arguments`]: values generated from a JSON Schema (tool arguments, elicitation content).

pub mod arguments;
pub mod capabilities;
pub mod client;
pub mod elicitation;
pub mod faults;
pub mod framing;
pub mod modern;
pub mod props;
pub mod reassembly;
pub mod revision;
pub mod sampling;
pub mod server;
pub mod sse;
pub mod transport;
pub mod wire;

pub use revision::{Era, Revision, UnknownRevision};
pub use wire::{Direction, ErrorObject, Message, RequestId};
