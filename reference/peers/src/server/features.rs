//! Answers of a legacy session beside its tools: `initialize`, the list methods (paged),
//! resources and their subscriptions, and logging.

use super::*;
use pagination::Items;

impl ReferenceServer {
    pub(super) fn initialize(&mut self, params: Option<&Value>) -> Result<Value, ErrorObject> {
        let requested = params
            .and_then(|p| p.get("protocolVersion"))
            .and_then(Value::as_str)
            .ok_or_else(|| invalid_params("initialize needs params.protocolVersion, a string"))?;
        let legacy: Vec<Revision> =
            self.config.supported.iter().copied().filter(|r| r.era() == Era::Legacy).collect();
        // lifecycle.mdx: echo a supported version, otherwise counter-offer the latest supported.
        let revision = match requested.parse::<Revision>() {
            Ok(r) if self.fault == Some(Fault::CounterOfferAlways) && legacy.len() > 1 => {
                let at = legacy.iter().position(|l| *l == r).map_or(0, |i| i + 1);
                legacy[at % legacy.len()]
            }
            Ok(r) if legacy.contains(&r) => r,
            _ => *legacy.iter().max().ok_or_else(|| {
                ErrorObject::new(
                    ErrorObject::INTERNAL_ERROR,
                    "this server is configured with no legacy revision",
                )
            })?,
        };
        self.revision = Some(revision);
        self.phase = Phase::Initialized;
        self.client_capabilities = params
            .and_then(|p| p.get("capabilities"))
            .filter(|c| c.is_object())
            .cloned()
            .unwrap_or_else(|| json!({}));
        let mut server_info = Map::new();
        server_info.insert("name".into(), "mcpspec-reference".into());
        server_info.insert("version".into(), env!("CARGO_PKG_VERSION").into());
        if revision >= Revision::V2025_06_18 {
            server_info.insert("title".into(), "mcpspec reference server".into());
        }
        // Every server feature. The lists never change, so listChanged is declared but never
        // needed ("SHOULD send" only when a list changes).
        let mut capabilities = json!({
            "tools": { "listChanged": true },
            "resources": { "subscribe": true, "listChanged": true },
            "prompts": { "listChanged": true },
            "logging": {},
        });
        if revision >= Revision::V2025_03_26 && self.fault != Some(Fault::CompletionsServedUndeclared) {
            capabilities["completions"] = json!({});
        }
        if let (Some(Fault::FeaturesServedUndeclared), Some(c)) = (self.fault, capabilities.as_object_mut()) {
            for feature in ["tools", "prompts", "resources"] {
                c.remove(feature);
            }
        }
        if catalog::has_tasks(revision) {
            capabilities["tasks"] = Self::tasks_capability();
            if self.fault == Some(Fault::TaskCapabilityUndeclared) {
                capabilities["tasks"].as_object_mut().map(|t| t.remove("requests"));
            }
        }
        let mut result = json!({
            "protocolVersion": revision.as_str(),
            "capabilities": capabilities,
            "serverInfo": server_info,
        });
        if revision >= Revision::V2025_03_26 {
            result["instructions"] = "The reference server of mcpspec: every server feature, with the \
                official conformance fixture's tools, resources and prompts."
                .into();
        }
        Ok(result)
    }

    /// One page of a list (`tools/list`, `resources/list`, `resources/templates/list`,
    /// `prompts/list`) at the revision being served; lists of the modern era recognise their
    /// cursors without memory (`pagination.rs`).
    pub(super) fn list_page(&mut self, list: &str, params: Option<&Value>) -> Result<Value, ErrorObject> {
        let rev = self.rev();
        // The grown catalogue's items are made for the page served only (`pagination::Items`).
        let bulk = self.config.bulk;
        let grown = bulk.map_or(0, |b| b.items);
        let annotated = rev >= Revision::V2025_03_26;
        let (tool, resource, prompt) = (
            move |i| bulk.map_or(Value::Null, |b| b.tool(i, annotated)),
            move |i| bulk.map_or(Value::Null, |b| b.resource(i)),
            move |i| bulk.map_or(Value::Null, |b| b.prompt_item(i)),
        );
        let (list, key, items): (&'static str, _, _) = match list {
            "tools/list" => {
                let mut tools = catalog::tools(rev);
                tools.extend(self.unnamed_fault_tool());
                if self.fault == Some(Fault::ModernToolsPerProcess)
                    && rev.era() == mcpspec_protocol::Era::Modern
                {
                    let name = format!("mcpspec_process_{}", std::process::id());
                    tools.push(json!({ "name": name, "description": "Named after the process serving it.",
                        "inputSchema": { "type": "object" } }));
                }
                if self.tool_added {
                    tools.push(
                        json!({ "name": "mcpspec_added", "description": "Appeared during the session.",
                        "inputSchema": { "type": "object" } }),
                    );
                }
                ("tools/list", "tools", Items { fixed: tools, grown, make: &tool })
            }
            "resources/list" => {
                let resources = catalog::resources(rev);
                ("resources/list", "resources", Items { fixed: resources, grown, make: &resource })
            }
            // resources/templates/list is paginated in every revision (utilities/pagination.mdx;
            // digest §T11 for 2025-11-25).
            "resources/templates/list" => {
                ("resources/templates/list", "resourceTemplates", Items::fixed(catalog::templates(rev)))
            }
            _ => {
                let prompts = catalog::prompts(rev);
                ("prompts/list", "prompts", Items { fixed: prompts, grown, make: &prompt })
            }
        };
        if self.fault == Some(Fault::FuzzHangOnInput)
            && list == "prompts/list"
            && params.and_then(|p| p.get("cursor")).and_then(Value::as_str) == Some("")
        {
            // The page is still computed below; the serving loop hangs before writing it.
            self.crash = Some(Crash::Hang);
        }
        let modern = self.modern.is_some();
        let how = pagination::Paging { page_size: self.config.page_size, fault: self.fault, modern };
        self.cursors.page(list, key, items, params, how)
    }

    /// The revision being served: the modern request's, else the negotiated one.
    pub(super) fn rev(&self) -> Revision {
        match &self.modern {
            Some(ctx) => ctx.revision,
            None => self.revision.unwrap_or_else(Revision::latest_legacy),
        }
    }

    pub(super) fn client_capability(&self, name: &str) -> Option<&Value> {
        self.client_capabilities.get(name).filter(|v| !v.is_null())
    }

    // ---- resources and logging -----------------------------------------------------------

    pub(super) fn resource_uri<'a>(&self, params: Option<&'a Value>) -> Result<&'a str, ErrorObject> {
        params
            .and_then(|p| p.get("uri"))
            .and_then(Value::as_str)
            .ok_or_else(|| invalid_params("params.uri, a string, is required"))
    }

    pub(super) fn read_resource(&mut self, params: Option<&Value>) -> Result<Value, ErrorObject> {
        let uri = self.resource_uri(params)?;
        match self.contents(uri) {
            Some(contents) => Ok(json!({ "contents": contents })),
            None => Err(resource_not_found(uri)),
        }
    }

    /// The `contents` of a resource of the fixture or of the grown catalogue.
    pub(super) fn contents(&self, uri: &str) -> Option<Value> {
        let grown = self.config.bulk.as_ref().and_then(|b| b.read(uri));
        grown.or_else(|| catalog::read_resource(uri, self.watched_version)).or_else(|| self.traversed(uri))
    }

    /// The fault `resources-path-traversal`: a `file://` URI beside the reference's file is read
    /// from disk, its path joined to a real folder without a look at its `..` segments.
    fn traversed(&self, uri: &str) -> Option<Value> {
        if self.fault != Some(Fault::ResourcesPathTraversal) {
            return None;
        }
        let folder = catalog::FILE_RESOURCE.rsplit_once('/')?.0;
        let rest = uri.strip_prefix(folder)?.trim_start_matches('/');
        let bytes = std::fs::read(std::env::temp_dir().join(rest)).ok()?;
        let text = String::from_utf8_lossy(&bytes[..bytes.len().min(4096)]).into_owned();
        Some(serde_json::json!([{ "uri": uri, "mimeType": "text/plain", "text": text }]))
    }

    /// `prompts/get` of a prompt of the fixture or of the grown catalogue.
    pub(super) fn get_prompt(&self, params: Option<&Value>) -> Result<Value, ErrorObject> {
        let name = params.and_then(|p| p.get("name")).and_then(Value::as_str).unwrap_or_default();
        match self.config.bulk.as_ref().and_then(|b| b.prompt(name)) {
            Some(result) => Ok(result),
            None => catalog::get_prompt(params, self.fault),
        }
    }

    pub(super) fn subscribe(&mut self, params: Option<&Value>, on: bool) -> Result<Value, ErrorObject> {
        let uri = self.resource_uri(params)?;
        if catalog::read_resource(uri, 0).is_none() {
            return Err(resource_not_found(uri));
        }
        if on {
            self.subscriptions.insert(uri.to_owned());
            if let (catalog::WATCHED, Some(d)) = (uri, self.config.watched_update_delay) {
                self.watched_changes.push(self.now + d);
            }
        } else {
            self.subscriptions.remove(uri);
        }
        Ok(json!({}))
    }

    pub(super) fn watched_resource_changes(&mut self) {
        // A legacy session between `initialize` and `initialized` waits; a modern listener
        // (or a connection that never initialized) hears of the change at once.
        if self.phase == Phase::Initialized && self.listeners(catalog::WATCHED) == 0 {
            // Nothing but pings and logging before `initialized`: change a little later (from
            // now, and never at once, so that a late poll does not spin).
            let delay = self.config.watched_update_delay.unwrap_or_default().max(Duration::from_millis(1));
            self.watched_changes.push(self.now + delay);
            return;
        }
        self.touch_watched();
    }

    /// The watched resource changes; subscribers hear about it (server/resources.mdx), and so do
    /// the `subscriptions/listen` streams that asked for it.
    pub(super) fn touch_watched(&mut self) -> bool {
        self.watched_version += 1;
        let subscribed = self.subscriptions.contains(catalog::WATCHED);
        if subscribed && self.phase == Phase::Operating {
            self.notify("notifications/resources/updated", json!({ "uri": catalog::WATCHED }));
        }
        let heard = self.notify_listeners(catalog::WATCHED);
        subscribed || heard
    }

    pub(super) fn set_level(&mut self, params: Option<&Value>) -> Result<Value, ErrorObject> {
        let level = params.and_then(|p| p.get("level"));
        match level.and_then(Value::as_str).and_then(LogLevel::parse) {
            Some(l) => self.min_log_level = Some(l),
            None if self.fault == Some(Fault::InvalidLogLevelAccepted) => {}
            // logging.mdx: "Invalid log level: -32602".
            None => {
                return Err(invalid_params(&format!(
                    "params.level must be one of debug, info, notice, warning, error, critical, alert, \
                     emergency; found {}",
                    mcpspec_protocol::wire::describe(level)
                )))
            }
        }
        Ok(json!({}))
    }

    /// Sends a `notifications/message` if `level` passes the filter. Before any
    /// `logging/setLevel` every level is sent: logging.mdx leaves the default open (digest §T16),
    /// and sending all makes the effect of a later setLevel visible.
    ///
    /// A modern request is logged to only when its `_meta` names a level, and only at or
    /// above it (2026-07-28 `server/utilities/logging.mdx`: "The server **MUST NOT** emit
    /// `notifications/message` for a request that does not include this field").
    pub(super) fn log(&mut self, level: LogLevel, data: &str) {
        let passes = match &self.modern {
            Some(ctx) => {
                ctx.log_level.is_some_and(|min| level >= min)
                    || self.fault == Some(Fault::ModernLogWithoutLevel)
            }
            None => {
                self.min_log_level.is_none_or(|min| level >= min)
                    || self.fault == Some(Fault::LogLevelIgnored)
            }
        };
        if passes {
            let params = json!({ "level": level.as_str(), "logger": "test_tool_with_logging", "data": data });
            self.notify("notifications/message", params);
        }
    }

    // ---- tools ---------------------------------------------------------------------------

    /// A failure of the tool's arguments: a protocol error up to 2025-06-18, a tool execution
    /// error from 2025-11-25 (server/tools.mdx "Error Handling", SEP-1303).
    pub(super) fn bad_arguments(&self, why: &str) -> Result<Value, ErrorObject> {
        if self.rev() >= Revision::V2025_11_25 && self.fault != Some(Fault::TaskErrorBecomesResult) {
            Ok(tool_error(why))
        } else {
            Err(invalid_params(why))
        }
    }
}
