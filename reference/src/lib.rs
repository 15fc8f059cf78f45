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
//! - [`revision`]: protocol revisions and eras.

pub mod faults;
pub mod framing;
pub mod props;
pub mod reassembly;
pub mod revision;
pub mod server;
pub mod sse;
pub mod transport;
pub mod wire;

pub use revision::{Era, Revision, UnknownRevision};
pub use wire::{Direction, ErrorObject, Message, RequestId};
