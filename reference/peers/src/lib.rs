//! The reference MCP peers of mcpspec, and the real I/O around the protocol's sans-IO codecs
//! (`mcpspec_protocol`):
//!
//! - [`transport`]: a child process over pipes, and both sides of MCP's HTTP transports
//!   (Streamable HTTP and the legacy HTTP+SSE);
//! - [`server`]: the reference server, a sans-IO handler plus one serving loop, over stdio or
//!   HTTP;
//! - [`client`]: the reference client, a sans-IO state machine plus its driver over stdio or
//!   HTTP, and the client persona that answers a server's sampling, elicitation and roots
//!   requests (the harness plays it towards servers under test too);
//! - [`auth`]: the reference OAuth 2.1 authorization server (discovery, JWKS, the headless
//!   authorization endpoint, tokens, registration) and the access tokens it mints;
//! - [`faults`]: the reference server with one deliberate defect (`--fault NAME`), so that
//!   mcpspec's own tests prove each check can fail.

pub mod auth;
pub mod client;
pub mod faults;
pub mod server;
pub mod transport;
