//! Tool calls: each a job that may report progress, run past its answer's deadline, or ask the
//! client for something first (sampling, with its tool-use loop; elicitation; roots) and finish
//! when the client answers.

use super::*;

impl ReferenceServer {
    pub(super) fn tools_call(&mut self, r: Request) {
        let id = r.id.clone();
        let params = r.params.as_ref();
        let Some(name) = params.and_then(|p| p.get("name")).and_then(Value::as_str) else {
            return self.respond(Some(id), Err(invalid_params("tools/call needs params.name, a string")));
        };
        let args = match params.and_then(|p| p.get("arguments")) {
            None | Some(Value::Null) => json!({}),
            Some(a @ Value::Object(_)) => a.clone(),
            // Fails the CallToolRequest schema: a malformed request, a protocol error everywhere.
            Some(other) => {
                let why = format!(
                    "params.arguments must be an object, found {}",
                    mcpspec_protocol::wire::describe(Some(other))
                );
                return self.respond(Some(id), Err(invalid_params(&why)));
            }
        };
        let rev = self.rev();
        if self.modern.is_some() && self.fault == Some(Fault::ModernChangeOnCallStream) {
            // Over HTTP this lands on the call's own stream, which only notifications relating
            // to the call may use.
            self.notify("notifications/tools/list_changed", json!({}));
        }
        if self.unnamed_fault_tool().is_some_and(|t| t["name"] == name) {
            return self.start_sampling(id, &args, self.fault);
        }
        if let Some(bulk) = self.config.bulk.filter(|b| b.is_tool(name)) {
            let deadline = self.now + bulk.delay;
            let token = params.and_then(|p| p.pointer("/_meta/progressToken")).cloned();
            let token = token.filter(|t| RequestId::from_value(t).is_some());
            return self.start_job(id, token, Some(deadline), JobKind::Bulk);
        }
        if !catalog::has_tool(rev, name) {
            // server/tools.mdx: unknown tools are a protocol error (example: -32602).
            let why = format!("Unknown tool: {name}");
            let outcome = if self.fault == Some(Fault::UnknownToolIsErrorResult) {
                Ok(tool_error(&why))
            } else {
                Err(invalid_params(&why))
            };
            return self.respond(Some(id), outcome);
        }
        // basic/utilities/tasks.mdx#tool-level-negotiation (2025-11-25).
        if catalog::has_tasks(rev) && self.modern.is_none() {
            let support = catalog::task_support(rev, name);
            match params.and_then(|p| p.get("task")).filter(|t| t.is_object()) {
                // Never as a task: -32601 (SHOULD).
                Some(_) if support.is_none() => {
                    let why = format!("Method not found: the tool {name} does not run as a task");
                    return self.respond(Some(id), Err(ErrorObject::new(ErrorObject::METHOD_NOT_FOUND, why)));
                }
                Some(task) if tasks::task_of_job(&id).is_none() => {
                    let task = task.clone();
                    return self.start_task(r, &task);
                }
                // Only as a task: a plain call is -32601 (MUST).
                None if support == Some("required")
                    && tasks::task_of_job(&id).is_none()
                    && self.fault != Some(Fault::TaskRequiredServedPlain) =>
                {
                    let why = format!("Method not found: the tool {name} runs only as a task");
                    return self.respond(Some(id), Err(ErrorObject::new(ErrorObject::METHOD_NOT_FOUND, why)));
                }
                _ => {}
            }
        }
        // server/tools.mdx#security-considerations: servers MUST validate all tool inputs. A
        // task-augmented call is validated when its task runs, so the task fails and says why.
        if self.fault != Some(Fault::ToolArgumentsUnchecked) {
            let schema = catalog::input_schema(rev, name).unwrap_or_default();
            let problem = match (name, self.fault) {
                // Validated as draft-07, which knows no prefixItems.
                (catalog::DIALECT_TOOL, Some(Fault::ToolSchemaDraft07)) => {
                    catalog::dialect_problem(&schema, &args, jsonschema::Draft::Draft7)
                }
                (catalog::DIALECT_TOOL, _) => {
                    catalog::dialect_problem(&schema, &args, jsonschema::Draft::Draft202012)
                }
                _ => catalog::argument_problem(&schema, &args),
            };
            if let Some(why) = problem {
                let outcome =
                    self.bad_arguments(&format!("{name}: its inputSchema refuses the arguments: {why}"));
                return self.respond(Some(id), outcome);
            }
        }
        let token = params
            .and_then(|p| p.get("_meta"))
            .and_then(|m| m.get("progressToken"))
            .filter(|t| RequestId::from_value(t).is_some())
            .cloned();
        let text = |t: &str| json!({ "type": "text", "text": t });
        let image = json!({ "type": "image", "data": catalog::PNG_1PX, "mimeType": "image/png" });
        let embedded = json!({ "type": "resource", "resource": {
            "uri": "test://embedded-resource", "mimeType": "text/plain",
            "text": "This is an embedded resource content." } });
        let outcome = match name {
            "test_simple_text" => {
                if matches!(self.fault, Some(Fault::ToolAddedSilently | Fault::ToolAddedAnnounced))
                    && !self.tool_added
                {
                    self.tool_added = true;
                    if self.fault == Some(Fault::ToolAddedAnnounced) {
                        self.notify("notifications/tools/list_changed", json!({}));
                    }
                }
                Ok(content(vec![text("This is a simple text response for testing.")]))
            }
            "test_image_content" => Ok(content(vec![image])),
            "test_audio_content" => Ok(content(vec![
                json!({ "type": "audio", "data": catalog::WAV_SILENCE, "mimeType": "audio/wav" }),
            ])),
            "test_embedded_resource" => Ok(content(vec![embedded])),
            "test_multiple_content_types" => {
                Ok(content(vec![text("Multiple content types test:"), image, embedded]))
            }
            "test_tool_with_logging" => {
                self.log(LogLevel::Debug, "Tool execution started (debug)");
                self.log(LogLevel::Info, "Tool is running (info)");
                self.log(LogLevel::Warning, "Tool is almost done (warning)");
                self.log(LogLevel::Error, "Tool logged an error on purpose (error)");
                Ok(content(vec![text("Tool with logging executed successfully")]))
            }
            "test_tool_with_progress" => {
                let deadline = self.now + self.config.progress_interval;
                return self.start_job(id, token, Some(deadline), JobKind::Progress { done: 0 });
            }
            "test_error_handling" => Ok(tool_error("This tool intentionally returns an error for testing")),
            "test_sampling" => {
                let fault = self.fault.filter(|_| self.unnamed_fault_tool().is_none());
                return self.start_sampling(id, &args, fault);
            }
            "test_elicitation" | catalog::TASK_ELICITATION_TOOL => return self.start_elicitation(id, &args),
            "test_roots" => {
                if self.client_capability("roots").is_none()
                    && self.fault != Some(Fault::RootsWithoutCapability)
                {
                    Ok(tool_error(
                        "the client did not declare the roots capability, so this server may not send \
                         roots/list (client/roots.mdx)",
                    ))
                } else {
                    return self.ask(id, Purpose::Roots, None);
                }
            }
            "echo" if self.fault == Some(Fault::ToolArgumentsUnchecked) => {
                let message = args.get("message").cloned().unwrap_or_default();
                Ok(content(vec![text(&message.as_str().map_or_else(|| message.to_string(), str::to_owned))]))
            }
            catalog::DIALECT_TOOL => {
                let point = args.get("point").cloned().unwrap_or_default();
                let label = args.get("label").and_then(Value::as_str).unwrap_or("point");
                Ok(content(vec![text(&format!("{label}: {point}"))]))
            }
            "echo" => match args.get("message").and_then(Value::as_str) {
                Some(m) => Ok(content(vec![text(m)])),
                None => self.bad_arguments("echo needs the argument \"message\", a string"),
            },
            "add" if self.fault == Some(Fault::OutputToolRefuses) => {
                Ok(tool_error("add refuses these arguments (a deliberate fault)"))
            }
            "add" => match (args.get("a").and_then(Value::as_f64), args.get("b").and_then(Value::as_f64)) {
                (Some(a), Some(b)) => {
                    let sum = a + b;
                    let mut result = content(vec![text(&sum.to_string())]);
                    // tools.mdx (2025-06-18+): with an outputSchema, "Servers MUST provide
                    // structured results that conform to this schema"; the text block mirrors it.
                    if rev >= Revision::V2025_06_18 {
                        result["structuredContent"] = if self.fault == Some(Fault::StructuredContentMismatch)
                        {
                            json!({ "sum": sum.to_string() })
                        } else {
                            json!({ "sum": sum })
                        };
                    }
                    Ok(result)
                }
                _ => self.bad_arguments("add needs the arguments \"a\" and \"b\", numbers"),
            },
            "slow" | catalog::TASK_ONLY_TOOL => {
                let ms = match args.get("ms") {
                    None if name == catalog::TASK_ONLY_TOOL => Some(200),
                    None => Some(1000),
                    Some(ms) => ms.as_u64().filter(|ms| *ms <= 600_000),
                };
                match ms {
                    Some(0) if self.fault == Some(Fault::FuzzCrashToolArgument) => {
                        self.crash = Some(Crash::divide_by_zero());
                        return;
                    }
                    Some(ms) => {
                        let deadline = self.now + Duration::from_millis(ms);
                        return self.start_job(id, token, Some(deadline), JobKind::Slow { ms });
                    }
                    None => self.bad_arguments("slow needs the argument \"ms\", an integer from 0 to 600000"),
                }
            }
            catalog::PARAM_HEADERS_TOOL => Ok(content(vec![text(&format!("arguments: {args}"))])),
            "touch_watched" => {
                let subscribed = self.touch_watched();
                let note = if subscribed { "subscribers were notified" } else { "nobody is subscribed" };
                Ok(content(vec![text(&format!("test://watched-resource changed ({note})"))]))
            }
            other => Err(ErrorObject::new(
                ErrorObject::INTERNAL_ERROR,
                format!("tool {other} is listed but not served"),
            )),
        };
        self.tool_called |= outcome.is_ok();
        self.respond(Some(id), outcome);
    }

    /// The extra tool of the faults that only show when a tool without a fixture name is called:
    /// it samples, like `test_sampling`, with the fault's defect.
    pub(super) fn unnamed_fault_tool(&self) -> Option<Value> {
        // Those faults send requests to the client: a legacy defect, never in the modern era.
        if self.modern.is_some() {
            return None;
        }
        let name = match self.fault? {
            Fault::UnnamedSamplingTools => "summarize",
            Fault::UnnamedUnbalancedToolLoop => "research",
            _ => return None,
        };
        let input = json!({ "type": "object", "properties": { "topic": { "type": "string" } }, "required": ["topic"] });
        Some(
            json!({ "name": name, "description": format!("Asks the client's model to {name} a topic."), "inputSchema": input }),
        )
    }

    /// Starts a tool that waits on its own request to the client.
    pub(super) fn ask(&mut self, id: RequestId, purpose: Purpose, params: Option<Value>) {
        let method = purpose.method();
        let deferred = Some((method, params.unwrap_or(Value::Null)));
        self.start_job(id.clone(), None, None, JobKind::Ask { purpose, request: None, deferred });
        if self.phase == Phase::Operating {
            self.send_deferred(&id);
        }
    }

    pub(super) fn send_deferred_requests(&mut self) {
        let ids: Vec<RequestId> = self
            .jobs
            .iter()
            .filter(|(_, j)| matches!(j.kind, JobKind::Ask { deferred: Some(_), .. }))
            .map(|(id, _)| id.clone())
            .collect();
        for id in ids {
            self.send_deferred(&id);
        }
    }

    /// Sends a job's request to the client; its answer is due within the configured timeout.
    pub(super) fn send_deferred(&mut self, job_id: &RequestId) {
        let ours = RequestId::Integer(self.next_request_id.into());
        let deadline = self.now + self.config.client_request_timeout;
        let Some(job) = self.jobs.get_mut(job_id) else { return };
        let JobKind::Ask { request, deferred, .. } = &mut job.kind else { return };
        let Some((method, params)) = deferred.take() else { return };
        // Ids of our requests are unique within the session: a counter, never reused.
        self.next_request_id += 1;
        *request = Some(ours.clone());
        job.deadline = Some(deadline);
        self.awaiting.insert(ours.clone(), job_id.clone());
        let mut params = params;
        if let Some(task) = tasks::task_of_job(job_id) {
            self.task_needs_input(&task, &mut params);
        }
        let params = (!params.is_null()).then_some(params);
        self.out.push(Message::request(ours, method, params).to_value());
    }

    /// Starts a sampling tool with `fault` (the unnamed faults apply to their own tool only).
    pub(super) fn start_sampling(&mut self, id: RequestId, args: &Value, fault: Option<Fault>) {
        let sampling = self.client_capability("sampling").cloned();
        if sampling.is_none() && fault != Some(Fault::SamplingWithoutCapability) {
            let why = "the client did not declare the sampling capability, so this server may not send \
                       sampling/createMessage (client/sampling.mdx)";
            return self.respond(Some(id), Ok(tool_error(why)));
        }
        // sampling.mdx (2025-11-25): "Servers MUST NOT send tool-enabled sampling requests to
        // Clients that have not declared support for tool use via the sampling.tools capability."
        let declared_tools = self.rev() >= Revision::V2025_11_25
            && sampling.as_ref().and_then(|s| s.get("tools")).is_some_and(|t| !t.is_null());
        let with_tools = declared_tools
            || matches!(fault, Some(Fault::SamplingToolsWithoutCapability | Fault::UnnamedSamplingTools));
        let unbalanced = fault == Some(Fault::UnnamedUnbalancedToolLoop);
        let prompt = args.get("prompt").and_then(Value::as_str).unwrap_or("Say hello.");
        let messages = vec![json!({ "role": "user", "content": { "type": "text", "text": prompt } })];
        let params = sampling_params(&messages, with_tools, false);
        self.ask(id, Purpose::Sampling { messages, with_tools, rounds: 1, unbalanced }, Some(params));
    }

    /// The client's model answered. With tools, every `tool_use` is answered in the next user
    /// message by a `tool_result` with the matching `toolUseId`, and that message holds nothing
    /// else (sampling.mdx, 2025-11-25: "Servers MUST ensure that when replying to a stopReason:
    /// "toolUse", each ToolUseContent item is responded to with a ToolResultContent item with a
    /// matching toolUseId, and that the user message contains only tool results").
    pub(super) fn sampling_answered(&mut self, job_id: RequestId, result: Value) {
        let max_rounds = self.config.max_sampling_rounds;
        let Some(job) = self.jobs.get_mut(&job_id) else { return };
        let JobKind::Ask {
            purpose: Purpose::Sampling { messages, with_tools, rounds, unbalanced },
            deferred,
            ..
        } = &mut job.kind
        else {
            return;
        };
        match sampling_step(messages, *with_tools, rounds, *unbalanced, max_rounds, &result) {
            SamplingNext::Ask(params) => {
                *deferred = Some(("sampling/createMessage", params));
                self.send_deferred(&job_id)
            }
            SamplingNext::Done(outcome) => self.finish(job_id, Ok(outcome)),
        }
    }

    pub(super) fn start_elicitation(&mut self, id: RequestId, args: &Value) {
        let declared = self.client_capability("elicitation").cloned();
        let forced = self.fault == Some(Fault::ElicitationWithoutCapability);
        let Some(modes) = declared.or_else(|| forced.then(|| json!({}))) else {
            let why = "the client did not declare the elicitation capability, so this server may not send \
                       elicitation/create (client/elicitation.mdx)";
            return self.respond(Some(id), Ok(tool_error(why)));
        };
        // elicitation.mdx (2025-11-25): "Servers MUST NOT send elicitation requests with modes
        // that are not supported by the client"; an empty object means form mode only.
        let rev = self.rev();
        let form = rev < Revision::V2025_11_25 || modes.get("form").is_some() || modes.get("url").is_none();
        let message = args.get("message").and_then(Value::as_str).unwrap_or("Please provide your details.");
        if !form && !forced {
            // A client that takes URL mode only is sent to a consent page instead of a form.
            self.next_elicitation += 1;
            let elicitation_id = format!("mcpspec-elicitation-{}", self.next_elicitation);
            let url = match self.fault {
                Some(Fault::ElicitationUrlInvalid) => "the mcpspec consent page".to_owned(),
                _ => format!("https://example.com/mcpspec/consent?elicitation={elicitation_id}"),
            };
            let mut params =
                json!({ "mode": "url", "message": message, "url": url, "elicitationId": elicitation_id });
            self.bend_elicitation(&mut params);
            return self.ask(id, Purpose::Elicitation { url_id: Some(elicitation_id) }, Some(params));
        }
        let mut form = elicitation_form(message, rev);
        self.bend_elicitation(&mut form);
        self.ask(id, Purpose::Elicitation { url_id: None }, Some(form));
    }

    /// What the elicitation faults do to the params of an elicitation the server sends: a form
    /// that asks for a password, a URL that carries the user's e-mail address
    /// (client/elicitation.mdx: neither is allowed).
    pub(super) fn bend_elicitation(&self, params: &mut Value) {
        match (self.fault, params.get("mode").and_then(Value::as_str).unwrap_or("form")) {
            (Some(Fault::ElicitationAsksSecret), "form") => {
                params["requestedSchema"]["properties"]["password"] =
                    json!({ "type": "string", "description": "Your account password" });
            }
            (Some(Fault::ElicitationUrlUserData), "url") => {
                if let Some(url) = params.get("url").and_then(Value::as_str) {
                    let joint = if url.contains('?') { '&' } else { '?' };
                    params["url"] = Value::from(format!("{url}{joint}email=ada%40example.com"));
                }
            }
            _ => {}
        }
    }

    /// A job's deadline has come.
    pub(super) fn fire(&mut self, id: RequestId, at: Instant) {
        let fault = self.fault;
        let rev = self.rev();
        let interval = self.config.progress_interval;
        let timeout = self.config.client_request_timeout;
        let operating = self.phase == Phase::Operating;
        let Some(job) = self.jobs.get_mut(&id) else { return };
        job.deadline = None;
        if matches!(job.kind, JobKind::Listen { .. }) {
            if fault == Some(Fault::ModernListenEndsWithResult) {
                // The defect: a completion result alone (subscriptions.mdx#graceful-closure),
                // without the notifications/cancelled cancellation.mdx requires.
                let meta = json!({ mcpspec_protocol::modern::SUBSCRIPTION_ID_KEY: id.to_value() });
                return self.finish(id, Ok(json!({ "_meta": meta })));
            }
            // The listen stream's lifetime is over: the server tears it down, naming it in a
            // notifications/cancelled (2026-07-28 basic/patterns/cancellation.mdx, MUST), and
            // sends no result for the cancelled request.
            self.jobs.remove(&id);
            let reason = "the server ended the subscription";
            self.notify("notifications/cancelled", json!({ "requestId": id.to_value(), "reason": reason }));
            return;
        }
        // A modern request has no session phase: its progress goes out at once.
        let operating = operating || job.modern.is_some();
        match &mut job.kind {
            JobKind::Slow { ms } => {
                let text = format!("slept {ms} ms");
                // A task reports its progress, if its call asked for it (tasks.mdx#task-progress-notifications).
                if let (Some(task), Some(token), true) =
                    (tasks::task_of_job(&id), job.progress_token.clone(), operating)
                {
                    self.task_progress(&task, &token);
                }
                self.finish(id, Ok(tool_text(&text)));
            }
            JobKind::Bulk => {
                let text = self.config.bulk.map(|b| b.text()).unwrap_or_default();
                self.finish(id, Ok(tool_text(&text)));
            }
            JobKind::Progress { done } => {
                *done += 1;
                let done = *done;
                let token = job.progress_token.clone();
                if done < PROGRESS_STEPS {
                    job.deadline = Some(at + interval);
                }
                // progress.mdx: "The progress value MUST increase with each notification".
                let value =
                    if fault == Some(Fault::ProgressDecreasing) { PROGRESS_STEPS + 1 - done } else { done };
                // Only once the session operates: before `initialized` the server sends nothing
                // but pings and logging (lifecycle.mdx), and progress is optional (progress.mdx:
                // the receiver MAY send none).
                if let (Some(token), true) = (&token, operating) {
                    self.notify("notifications/progress", progress_params(rev, token, value, done));
                }
                if done >= PROGRESS_STEPS {
                    self.finish(id, Ok(tool_text("Tool with progress completed")));
                    // progress.mdx: "Progress notifications MUST stop after completion".
                    if let (Some(token), Some(Fault::ProgressAfterResponse)) = (&token, fault) {
                        self.notify(
                            "notifications/progress",
                            progress_params(rev, token, done + 1, done + 1),
                        );
                    }
                }
            }
            JobKind::Ask { purpose, request, .. } => {
                let method = purpose.method();
                if let Some(ours) = request.take() {
                    self.awaiting.remove(&ours);
                    // lifecycle.mdx "Timeouts": the sender "SHOULD issue a cancellation
                    // notification for that request and stop waiting".
                    let reason = format!("no answer within {} ms", timeout.as_millis());
                    self.notify(
                        "notifications/cancelled",
                        json!({ "requestId": ours.to_value(), "reason": reason }),
                    );
                }
                let why = format!("the client did not answer {method} within {} ms", timeout.as_millis());
                self.finish(id, Ok(tool_error(&why)));
            }
            // Handled above; a waiting tasks/result has no deadline of its own.
            JobKind::Listen { .. } | JobKind::AwaitTask { .. } => {}
        }
    }
}

pub(super) fn progress_params(rev: Revision, token: &Value, progress: u32, step: u32) -> Value {
    let mut p = json!({ "progressToken": token, "progress": progress, "total": PROGRESS_STEPS });
    // `message` exists from 2025-03-26 (changelog).
    if rev >= Revision::V2025_03_26 {
        p["message"] = format!("step {step} of {PROGRESS_STEPS}").into();
    }
    p
}

/// The one tool `test_sampling` offers the client's model.
pub(super) fn lookup_tool() -> Value {
    json!({
        "name": "lookup",
        "description": "Looks up the answer to a query.",
        "inputSchema": { "type": "object", "properties": { "query": { "type": "string" } }, "required": ["query"] },
    })
}

pub(super) fn sampling_params(messages: &[Value], with_tools: bool, forbid_tools: bool) -> Value {
    let mut p = json!({ "messages": messages, "maxTokens": 100 });
    if with_tools {
        p["tools"] = json!([lookup_tool()]);
        p["toolChoice"] = json!({ "mode": if forbid_tools { "none" } else { "auto" } });
    }
    p
}

/// What a sampling tool does next with the model's reply.
pub(super) enum SamplingNext {
    /// Ask the model again with these `sampling/createMessage` params.
    Ask(Value),
    /// The tool's result.
    Done(Value),
}

/// One turn of a sampling tool (legacy requests and MRTR alike): with tools, every `tool_use` is
/// answered in the next user message by a `tool_result` with the matching `toolUseId`, and that
/// message holds nothing else (sampling.mdx, 2025-11-25: "Servers MUST ensure that when replying
/// to a stopReason: "toolUse", each ToolUseContent item is responded to with a ToolResultContent
/// item with a matching toolUseId, and that the user message contains only tool results").
/// `messages` is the conversation so far, `rounds` the requests sent so far; `unbalanced` is the
/// deliberate fault that leaves the tool uses unanswered.
pub(super) fn sampling_step(
    messages: &mut Vec<Value>,
    with_tools: bool,
    rounds: &mut usize,
    unbalanced: bool,
    max_rounds: usize,
    result: &Value,
) -> SamplingNext {
    let max_rounds = max_rounds.max(1);
    let reply = result.get("content").cloned().unwrap_or(Value::Null);
    let blocks: Vec<Value> = match &reply {
        Value::Array(a) => a.clone(),
        Value::Null => Vec::new(),
        one => vec![one.clone()],
    };
    let uses: Vec<&Value> = blocks.iter().filter(|b| b["type"] == "tool_use").collect();
    if with_tools && !uses.is_empty() {
        if *rounds > max_rounds {
            // The last request forbade tools (toolChoice "none") and the model used them.
            let why = format!("the model still called tools after {max_rounds} tool-enabled rounds");
            return SamplingNext::Done(tool_error(&why));
        }
        if uses.iter().any(|u| !u["id"].is_string()) {
            // A tool_result must name its tool_use; without an id there is nothing to name.
            let why = "the model sent a tool_use without a string id; the tool loop cannot answer it";
            return SamplingNext::Done(tool_error(why));
        }
        let results: Vec<Value> = uses
            .iter()
            .map(|u| {
                let query = u["input"]["query"].as_str().unwrap_or("");
                let known = u["name"] == "lookup";
                let text = if known {
                    format!("lookup({query:?}): the answer is 42")
                } else {
                    format!("there is no tool named {}", u["name"])
                };
                let mut r = json!({ "type": "tool_result", "toolUseId": u["id"].clone(),
                    "content": [{ "type": "text", "text": text }] });
                if !known {
                    r["isError"] = true.into();
                }
                r
            })
            .collect();
        messages.push(json!({ "role": "assistant", "content": reply }));
        let results = match unbalanced {
            true => json!({ "type": "text", "text": "Go on without the tool's result." }),
            false => Value::Array(results),
        };
        messages.push(json!({ "role": "user", "content": results }));
        *rounds += 1;
        let last = *rounds > max_rounds;
        return SamplingNext::Ask(sampling_params(messages, true, last));
    }
    let text: Vec<&str> =
        blocks.iter().filter(|b| b["type"] == "text").filter_map(|b| b["text"].as_str()).collect();
    SamplingNext::Done(tool_text(&format!("LLM response: {}", text.join(" "))))
}

/// The tool result of an answered elicitation.
pub(super) fn elicitation_text(result: &Value) -> String {
    let action = result.get("action").and_then(Value::as_str).unwrap_or("(none)");
    let content = result.get("content").map(Value::to_string).unwrap_or_else(|| "none".into());
    format!("User response: action={action}, content={content}")
}

/// The tool result of an answered `roots/list`.
pub(super) fn roots_text(result: &Value) -> String {
    let uris: Vec<&str> = result
        .get("roots")
        .and_then(Value::as_array)
        .map(|roots| roots.iter().filter_map(|r| r.get("uri")?.as_str()).collect())
        .unwrap_or_default();
    format!("The client has {} root(s): {}", uris.len(), uris.join(", "))
}

/// The form `test_elicitation` asks the user to fill in.
pub(super) fn elicitation_form(message: &str, rev: Revision) -> Value {
    let mut params = json!({
        "message": message,
        "requestedSchema": {
            "type": "object",
            "properties": {
                "username": { "type": "string", "description": "Your username" },
                "email": { "type": "string", "format": "email", "description": "Your email address" },
            },
            "required": ["username"],
        },
    });
    if rev >= Revision::V2025_11_25 {
        params["mode"] = "form".into();
    }
    params
}

pub(super) fn content(blocks: Vec<Value>) -> Value {
    json!({ "content": blocks, "isError": false })
}

pub(super) fn tool_text(text: &str) -> Value {
    content(vec![json!({ "type": "text", "text": text })])
}

/// A tool execution error (server/tools.mdx): a result with `isError: true`.
pub(super) fn tool_error(text: &str) -> Value {
    json!({ "content": [{ "type": "text", "text": text }], "isError": true })
}
