//! Rules a client is judged by: [`modern`], what a client sends in the modern era; [`http`],
//! the HTTP transports' rules on every exchange the scenario server's endpoint saw.

pub mod http;
pub mod modern;
