//! mcpspec's integration tests: the `mcpspec` binary, run as a user runs it, against the
//! reference server and against fault-injecting test peers (`mcpspec reference server --fault`).

mod action;
mod auth;
mod authorization_server;
mod client;
mod client_auth;
mod dist;
mod faults;
mod fuzz;
mod fuzz_client;
mod fuzz_coverage;
mod fuzz_faults;
mod fuzz_http;
mod http;
mod init;
mod interop;
mod official;
mod reference;
mod report;
mod report_html;
mod robustness;
mod security;
mod shard;
mod support;
mod usage;
mod verdicts;
