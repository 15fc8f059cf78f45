//! Rules a client is judged by: [`modern`], what a client sends in the modern era; [`http`],
//! the HTTP transports' rules on every exchange the scenario server's endpoint saw; [`auth`],
//! the rules of its OAuth flow, judged on what the endpoint and the authorization server saw.

pub mod auth;
pub mod http;
pub mod modern;
