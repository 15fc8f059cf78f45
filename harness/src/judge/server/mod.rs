//! Rules a server is judged by beyond its messages: [`http`], the HTTP transports' rules on
//! every exchange of a session with a server.

pub mod http;
