//! The modern era (2026-07-28) of the reference server: every request stands alone, with its
//! version and the client's capabilities in `params._meta` (`basic/index.mdx#_meta`), and every
//! result says what it is (`resultType`) and who answered (`_meta` serverInfo).
//!
//! A dual-era server picks the rules per request (`basic/versioning.mdx#backward-compatibility-
//! with-initialization-based-versions`): a request whose `_meta` names a protocol version, and
//! `server/discover`, are served here whether or not the connection did `initialize`; a server
//! configured with modern revisions only serves everything here. The catalog, the lists and the
//! plain tools are the legacy server's own (`mod.rs`, `catalog.rs`); this module adds what the
//! era changes: the checks every request passes, discovery, caching hints, `subscriptions/listen`
//! and, through `mrtr.rs`, input from the client without requests to it.
//!
//! Choices the spec leaves open, made here:
//! - `data.supported` of -32022 and `supportedVersions` list every version the server speaks,
//!   legacy ones too (reachable with `initialize`), newest first; a legacy version named in
//!   `_meta` is nevertheless unsupported *statelessly* and gets -32022.
//! - An `initialize` to a modern-only server is -32601 naming the supported versions in its
//!   message and `data.supported` (versioning.mdx: SHOULD name them; the code is left open).
//! - Caching: lists and `server/discover` are `public` for 60 s; `resources/read` is `public` for
//!   60 s, but 0 for `test://watched-resource` (it changes); a result reached through MRTR
//!   (the request carried `inputResponses` or `requestState`) is `ttlMs: 0`, `private`
//!   (caching.mdx: MRTR retries MUST NOT be cached).
//! - `subscriptions/listen` honours every filter field (the lists never change, so only
//!   `resourceSubscriptions` of `test://watched-resource` ever fires) and acknowledges only
//!   resources that exist. By default the server never ends a subscription on its own; with
//!   `ServerConfig::listen_lifetime` it does (zero: right behind the acknowledgement), with the `notifications/cancelled` cancellation.mdx
//!   demands for a teardown (MUST) and no result (subscriptions.mdx's graceful-end result is a
//!   SHOULD the MUST overrides: a cancelled request gets no response). A subscription the client
//!   cancels (stdio: `notifications/cancelled`; HTTP: closing the stream) gets nothing more, not
//!   even a result (cancellation.mdx).
//! - Over HTTP the endpoint judges `_meta` presence and the mirrored headers; this module judges
//!   the version, the method and the capabilities, and the endpoint maps those codes to statuses.

use super::{catalog, invalid_params, JobKind, LogLevel, ReferenceServer};
use crate::faults::Fault;
use mcpspec_protocol::modern::{self as era, RequestMeta};
use mcpspec_protocol::revision::{Era, Revision};
use mcpspec_protocol::wire::{ErrorObject, Message, Request, RequestId};
use serde_json::{json, Map, Value};
use std::time::Duration;

/// The lifetime of cacheable results that do not change.
const TTL_MS: u64 = 60_000;

/// What is known of the modern request being handled: how its answer is finished.
#[derive(Debug, Clone)]
pub(super) struct Ctx {
    pub method: String,
    pub revision: Revision,
    /// `_meta` `io.modelcontextprotocol/logLevel`, if the request asks for log messages.
    pub log_level: Option<LogLevel>,
    pub capabilities: Value,
    /// An MRTR retry (it carries `inputResponses` or `requestState`): its result is not cached.
    pub retry: bool,
    /// The resource read, for its caching hints.
    pub uri: Option<String>,
}

impl ReferenceServer {
    fn modern_revisions(&self) -> Vec<Revision> {
        self.config.supported.iter().copied().filter(|r| r.era() == Era::Modern).collect()
    }

    /// Whether a request is served by the modern era's rules (see the module doc).
    pub(super) fn is_modern_request(&self, r: &Request) -> bool {
        if self.modern_revisions().is_empty() {
            return false;
        }
        let legacy = self.config.supported.iter().any(|r| r.era() == Era::Legacy);
        !legacy || r.method == "server/discover" || era::declares_version(r.params.as_ref())
    }

    /// Serves one modern request: the checks every request passes, then its method.
    pub(super) fn modern_request(&mut self, r: Request) {
        let newest = self.modern_revisions().into_iter().max().unwrap_or(Revision::V2026_07_28);
        let uri = r.params.as_ref().and_then(|p| p.get("uri")).and_then(Value::as_str).map(str::to_owned);
        let retry = r
            .params
            .as_ref()
            .is_some_and(|p| p.get("inputResponses").is_some() || p.get("requestState").is_some());
        self.modern = Some(Ctx {
            method: r.method.clone(),
            revision: newest,
            log_level: None,
            capabilities: json!({}),
            retry,
            uri,
        });
        match self.admit_modern(&r) {
            Ok(()) => self.dispatch_modern(r),
            Err(e) => self.respond(Some(r.id), Err(e)),
        }
        self.modern = None;
    }

    /// The checks of `basic/index.mdx` and `basic/versioning.mdx`, in order: `_meta`, version,
    /// log level, method.
    fn admit_modern(&mut self, r: &Request) -> Result<(), ErrorObject> {
        let supported = era::supported_list(&self.config.supported);
        if r.method == "initialize" {
            // versioning.mdx: a modern-only server "SHOULD name the protocol versions it supports
            // in any error it returns to an `initialize` request".
            let why = format!(
                "Method not found: initialize; this server speaks the modern protocol versions {} \
                 (use server/discover)",
                supported.join(", ")
            );
            return Err(ErrorObject::new(ErrorObject::METHOD_NOT_FOUND, why)
                .with_data(json!({ "supported": supported })));
        }
        let meta = match era::read_request_meta(r.params.as_ref()) {
            Ok(meta) => meta,
            Err(_) if self.fault == Some(Fault::ModernMetaNotRequired) => RequestMeta {
                version: era::wire_version(self.rev()).to_owned(),
                capabilities: json!({}),
                client_info: None,
                log_level: None,
            },
            // basic/index.mdx#_meta: "A request missing either is malformed; the server MUST
            // reject it with JSON-RPC error code -32602".
            Err(problem) => return Err(invalid_params(&problem.to_string())),
        };
        let revision =
            self.modern_revisions().into_iter().find(|rev| era::wire_version(*rev) == meta.version);
        let Some(revision) = revision else {
            return Err(match self.fault {
                Some(Fault::ModernUnsupportedVersionWrongCode) => {
                    invalid_params(&format!("unsupported protocol version {:?}", meta.version))
                }
                Some(Fault::ModernUnsupportedVersionNoList) => ErrorObject::new(
                    ErrorObject::UNSUPPORTED_PROTOCOL_VERSION,
                    "Unsupported protocol version",
                )
                .with_data(json!({ "requested": meta.version })),
                _ => era::unsupported_version(&meta.version, &supported),
            });
        };
        // logging.mdx: an unrecognised level "SHOULD" be rejected with -32602.
        let log_level = match meta.log_level.as_deref() {
            None => None,
            Some(l) => Some(LogLevel::parse(l).ok_or_else(|| {
                invalid_params(&format!(
                    "_meta {:?} must be a log level (debug … emergency), found {l:?}",
                    era::LOG_LEVEL_KEY
                ))
            })?),
        };
        if let Some(ctx) = self.modern.as_mut() {
            ctx.revision = revision;
            ctx.log_level = log_level;
            ctx.capabilities = meta.capabilities;
        }
        let served = era::CLIENT_REQUESTS.contains(&r.method.as_str())
            || (r.method == "ping" && self.fault == Some(Fault::ModernRemovedMethodServed));
        if !served {
            // Removed methods (ping, logging/setLevel, resources/subscribe, tasks/*) and unknown
            // ones alike: basic/index.mdx, streamable-http.mdx (404 + -32601 over HTTP).
            return Err(method_not_found(&r.method));
        }
        // A method behind a capability this server does not declare is not served either.
        let capability = match r.method.as_str() {
            "tools/list" | "tools/call" => Some("tools"),
            "prompts/list" | "prompts/get" => Some("prompts"),
            "resources/list" | "resources/templates/list" | "resources/read" => Some("resources"),
            "completion/complete" => Some("completions"),
            _ => None,
        };
        if capability.is_some_and(|c| server_capabilities().get(c).is_none()) {
            return Err(method_not_found(&r.method));
        }
        Ok(())
    }

    fn dispatch_modern(&mut self, r: Request) {
        let params = r.params.as_ref();
        let fault = self.fault;
        let outcome = match r.method.as_str() {
            "server/discover" => Ok(self.discover()),
            "subscriptions/listen" => return self.listen(r.id, params),
            "tools/call" => return self.modern_tools_call(r),
            "tools/list" if fault == Some(Fault::ModernInputRequiredOnList) => {
                Ok(json!({ "resultType": era::INPUT_REQUIRED, "requestState": "mcpspec-list-state" }))
            }
            "prompts/list" if fault == Some(Fault::ModernDiscoverListsUndeclared) => {
                Err(method_not_found(&r.method))
            }
            list @ ("tools/list" | "prompts/list" | "resources/list" | "resources/templates/list") => {
                self.list_page(list, params)
            }
            "resources/read" => self.modern_read(params),
            "prompts/get" => match params.and_then(|p| p.get("name")).and_then(Value::as_str) {
                Some(name @ catalog::MRTR_PROMPT) => self.mrtr("prompts/get", name, params),
                _ => self.get_prompt(params),
            },
            "completion/complete" => catalog::complete(params, fault),
            // Only with the fault `modern-removed-method-served`.
            _ => Ok(json!({})),
        };
        self.respond(Some(r.id), outcome);
    }

    /// `server/discover` (`server/discover.mdx`): what this server really serves.
    fn discover(&self) -> Value {
        let mut capabilities = server_capabilities();
        if let (Some(Fault::CompletionsServedUndeclared), Some(c)) =
            (self.fault, capabilities.as_object_mut())
        {
            c.remove("completions");
        }
        if self.fault == Some(Fault::ModernExtensionUnprefixed) {
            capabilities["extensions"] = json!({ "tasks": {} });
        }
        json!({
            "supportedVersions": era::supported_list(&self.config.supported),
            "capabilities": capabilities,
            "instructions": "The reference server of mcpspec: every server feature, with the official \
                conformance fixture's tools, resources and prompts; test_sampling, test_elicitation, \
                test_roots, test_mrtr_multiple_inputs, test_mrtr_multi_round, the prompt test_mrtr_prompt \
                and the resource test://mrtr/needs-input ask the client for input (MRTR).",
        })
    }

    /// `resources/read`: the catalog, the MRTR resource, and an unknown resource as -32602
    /// (2026-07-28 `server/resources.mdx`: "Servers MUST NOT return an empty contents array for
    /// a non-existent resource"; -32002 is no longer emitted).
    fn modern_read(&mut self, params: Option<&Value>) -> Result<Value, ErrorObject> {
        let uri = self.resource_uri(params)?;
        if uri == catalog::MRTR_RESOURCE {
            return self.mrtr("resources/read", uri, params);
        }
        match self.contents(uri) {
            Some(contents) => Ok(json!({ "contents": contents })),
            None => match self.fault {
                Some(Fault::ModernUnknownResourceEmptyContents) => Ok(json!({ "contents": [] })),
                Some(Fault::ModernUnknownResourceOldCode) => Err(super::resource_not_found(uri)),
                _ => Err(ErrorObject::new(ErrorObject::INVALID_PARAMS, format!("Resource not found: {uri}"))
                    .with_data(json!({ "uri": uri }))),
            },
        }
    }

    fn modern_tools_call(&mut self, r: Request) {
        let name = r.params.as_ref().and_then(|p| p.get("name")).and_then(Value::as_str);
        if self.fault == Some(Fault::ModernServerSendsRequest) {
            // The defect: a request to the client, which 2026-07-28 servers MUST NOT initiate.
            let ping = Message::request(RequestId::String("mcpspec-modern-ping".into()), "ping", None);
            self.out.push(ping.to_value());
        }
        match name {
            Some(name) if super::mrtr::is_tool(name) => {
                let name = name.to_owned();
                let outcome = self.mrtr("tools/call", &name, r.params.as_ref());
                self.respond(Some(r.id), outcome);
            }
            // Every other tool behaves as in a legacy session; `respond`, `finish` and `log`
            // apply the era's rules.
            _ => self.tools_call(r),
        }
    }

    /// `subscriptions/listen` (`basic/patterns/subscriptions.mdx`): acknowledged first, then
    /// only the notifications asked for, each naming the subscription; open until cancelled.
    fn listen(&mut self, id: RequestId, params: Option<&Value>) {
        let Some(filter) = params.and_then(|p| p.get("notifications")).and_then(Value::as_object) else {
            let why = "subscriptions/listen needs params.notifications, an object";
            return self.respond(Some(id), Err(invalid_params(why)));
        };
        let mut ack = Map::new();
        for flag in ["toolsListChanged", "promptsListChanged", "resourcesListChanged"] {
            if filter.get(flag) == Some(&Value::Bool(true)) {
                ack.insert(flag.into(), true.into());
            }
        }
        if let Some(uris) = filter.get("resourceSubscriptions").and_then(Value::as_array) {
            // Only resources that exist are honoured ("Notification types the server does not
            // support are omitted").
            let known: Vec<Value> = uris
                .iter()
                .filter(|u| u.as_str().is_some_and(|u| catalog::read_resource(u, 0).is_some()))
                .cloned()
                .collect();
            if known.iter().any(|u| u == catalog::WATCHED) {
                if let Some(d) = self.config.watched_update_delay {
                    self.watched_changes.push(self.now + d);
                }
            }
            ack.insert("resourceSubscriptions".into(), Value::Array(known));
        }
        let ack = Value::Object(ack);
        let ends = self.config.listen_lifetime.map(|d| self.now + d);
        self.start_job(id.clone(), None, ends, JobKind::Listen { ack: ack.clone() });
        if self.fault != Some(Fault::ModernListenNoAck) {
            self.notify_subscription(
                &id,
                "notifications/subscriptions/acknowledged",
                json!({ "notifications": ack }),
            );
        }
        if self.fault == Some(Fault::ModernListenUnrequested) && ack.get("toolsListChanged").is_none() {
            self.notify_subscription(&id, "notifications/tools/list_changed", json!({}));
        }
        // A zero lifetime ends the stream right behind its acknowledgement, in the same answer:
        // a deadline, however short, races the client's own end of the subscription.
        if self.config.listen_lifetime == Some(Duration::ZERO) {
            let now = self.now;
            self.fire(id, now);
        }
    }

    /// A notification of the listen stream `id`, naming it in `_meta`.
    fn notify_subscription(&mut self, id: &RequestId, method: &str, mut params: Value) {
        if self.fault != Some(Fault::ModernListenMissingSubscriptionId) {
            params["_meta"] = json!({ era::SUBSCRIPTION_ID_KEY: id.to_value() });
        }
        self.notify(method, params);
    }

    /// The listen streams subscribed to `uri`.
    fn listening_to(&self, uri: &str) -> Vec<RequestId> {
        self.jobs
            .iter()
            .filter(|(_, j)| match &j.kind {
                JobKind::Listen { ack } => {
                    ack["resourceSubscriptions"].as_array().is_some_and(|subs| subs.iter().any(|s| s == uri))
                }
                _ => false,
            })
            .map(|(id, _)| id.clone())
            .collect()
    }

    pub(super) fn listeners(&self, uri: &str) -> usize {
        self.listening_to(uri).len()
    }

    /// Tells every listen stream subscribed to `uri` that it changed; whether any heard.
    pub(super) fn notify_listeners(&mut self, uri: &str) -> bool {
        let ids = self.listening_to(uri);
        for id in &ids {
            self.notify_subscription(id, "notifications/resources/updated", json!({ "uri": uri }));
        }
        !ids.is_empty()
    }

    /// Finishes the answer to a modern request: `resultType`, serverInfo and caching hints on
    /// results, and the era's deliberate defects.
    pub(super) fn modern_outcome(
        &self,
        ctx: &Ctx,
        id: Option<RequestId>,
        outcome: Result<Value, ErrorObject>,
    ) -> (Option<RequestId>, Result<Value, ErrorObject>) {
        let fault = self.fault;
        let mut result = match outcome {
            Err(e) => {
                let id = if fault == Some(Fault::ModernErrorWithoutId) { None } else { id };
                return (id, Err(e));
            }
            Ok(Value::Object(m)) => m,
            Ok(_) => Map::new(),
        };
        let kind = result.get("resultType").and_then(Value::as_str).unwrap_or(era::COMPLETE).to_owned();
        result.insert("resultType".into(), kind.clone().into());
        let meta = result.entry("_meta").or_insert_with(|| json!({}));
        if let Some(meta) = meta.as_object_mut() {
            meta.insert(era::SERVER_INFO_KEY.into(), server_info());
        }
        // caching.mdx: complete results of the cacheable methods carry both hints.
        let hints_dropped =
            fault == Some(Fault::ModernDiscoverMissingCacheHints) && ctx.method == "server/discover";
        if kind == era::COMPLETE && era::is_cacheable(&ctx.method) && !hints_dropped {
            let (mut ttl, mut scope) = (json!(TTL_MS), "public");
            if ctx.retry {
                // caching.mdx: "Results produced by retrying a request through the multi
                // round-trip requests mechanism … MUST NOT be cached".
                (ttl, scope) = (json!(0), "private");
            } else if ctx.uri.as_deref() == Some(catalog::WATCHED) {
                ttl = json!(0);
            }
            match fault {
                Some(Fault::ModernCacheHintsMissing) if ctx.method == "tools/list" => {}
                Some(Fault::ModernNegativeTtl) => {
                    result.insert("ttlMs".into(), json!(-1000));
                    result.insert("cacheScope".into(), scope.into());
                }
                Some(Fault::ModernBadCacheScope) => {
                    result.insert("ttlMs".into(), ttl);
                    result.insert("cacheScope".into(), "shared".into());
                }
                _ => {
                    result.insert("ttlMs".into(), ttl);
                    result.insert("cacheScope".into(), scope.into());
                }
            }
        }
        if fault == Some(Fault::ModernResultTypeMissing) {
            result.remove("resultType");
        }
        (id, Ok(Value::Object(result)))
    }
}

/// What the server serves in the modern era (`server/discover.mdx`): no `tasks` (removed from
/// the core), `logging` because `test_tool_with_logging` logs to requests that ask for it.
pub(super) fn server_capabilities() -> Value {
    json!({
        "tools": { "listChanged": true },
        "resources": { "subscribe": true, "listChanged": true },
        "prompts": { "listChanged": true },
        "completions": {},
        "logging": {},
    })
}

/// `_meta` `io.modelcontextprotocol/serverInfo` of every result (basic/index.mdx: SHOULD).
fn server_info() -> Value {
    json!({ "name": "mcpspec-reference", "version": env!("CARGO_PKG_VERSION"), "title": "mcpspec reference server" })
}

fn method_not_found(method: &str) -> ErrorObject {
    ErrorObject::new(ErrorObject::METHOD_NOT_FOUND, format!("Method not found: {method}"))
}
