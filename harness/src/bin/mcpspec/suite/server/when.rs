//! When: what the client sends.

use super::{docstring_json, initialize_params, step_json, Halt, JsonText, Listing, Pending, ServerWorld};
use crate::suite::scenario::Scenario as _;
use cucumber::gherkin::Step;
use cucumber::when;
use mcpspec_protocol::arguments::example_object;
use mcpspec_protocol::wire::{EnvelopeError, Message, Outcome, RequestId};
use serde_json::{json, Value};
use std::collections::HashSet;
use std::sync::Arc;

/// The most pages a listing follows before it calls the list endless.
pub const MAX_PAGES: usize = 1_000;

/// With a docstring, the client declares those capabilities (and answers as a client that has them).
#[when(expr = "the client sends {string} offering the revision under test")]
async fn sends_initialize_at_revision(w: &mut ServerWorld, step: &Step, method: String) -> Result<(), Halt> {
    let capabilities = docstring_json(w, step)?.unwrap_or(json!({}));
    w.session()?.set_persona(mcpspec_reference::client::ClientPersona::new(capabilities.clone()));
    let version = w.scenario.revision.as_str().to_owned();
    w.offered = Some(version.clone());
    w.send_request(&method, Some(initialize_params(&version, &capabilities))).await.map(drop)
}

#[when(expr = "the client sends {string} offering {string}")]
async fn sends_initialize_offering(w: &mut ServerWorld, method: String, version: String) -> Result<(), Halt> {
    w.offered = Some(version.clone());
    w.send_request(&method, Some(initialize_params(&version, &json!({})))).await.map(drop)
}

#[when(expr = "the client sends a {string} request")]
async fn sends_request(w: &mut ServerWorld, step: &Step, method: String) -> Result<(), Halt> {
    let params = docstring_json(w, step)?;
    w.send_request(&method, params).await.map(drop)
}

#[when(regex = r#"^the client sends a "([^"]+)" request with id (.+)$"#)]
async fn sends_request_with_id(w: &mut ServerWorld, method: String, id: String) -> Result<(), Halt> {
    let id_value = step_json(w, &id)?;
    let mut message = json!({ "jsonrpc": "2.0", "id": id_value, "method": method });
    // In the modern era every request carries the client's _meta.
    if let Some(meta) = w.session()?.request_meta() {
        message["params"] = json!({ "_meta": meta });
    }
    write_message(w, message).await
}

#[when(expr = "the client sends a {string} request with an invalid cursor")]
async fn sends_invalid_cursor(w: &mut ServerWorld, method: String) -> Result<(), Halt> {
    // Cursors are opaque (pagination.mdx); this one was never issued by the server.
    let params = json!({ "cursor": "mcpspec-never-issued-cursor-\u{1F50E}" });
    w.send_request(&method, Some(params)).await.map(drop)
}

#[when(expr = "the client sends the {string} notification")]
async fn sends_notification(w: &mut ServerWorld, step: &Step, method: String) -> Result<(), Halt> {
    let params = docstring_json(w, step)?;
    let sent = w.session()?.send(&Message::notification(&method, params)).await;
    match sent {
        Ok(()) => Ok(()),
        Err(e) => Err(w.not_sent(&method, e).await),
    }
}

#[when(expr = "the client writes the line {string}")]
async fn writes_line(w: &mut ServerWorld, line: String) -> Result<(), Halt> {
    let mut bytes = line.into_bytes();
    bytes.push(b'\n');
    let sent = w.session()?.send_raw(&bytes).await;
    match sent {
        Ok(()) => {
            let what = "a line that is not JSON".into();
            w.pending.push(Pending { id: None, idless_ok: true, barrier: true, what, request: None });
            Ok(())
        }
        Err(e) => Err(w.not_sent("a line that is not JSON", e).await),
    }
}

#[when(regex = r"^the client writes the message (.+)$")]
async fn writes_message(w: &mut ServerWorld, text: String) -> Result<(), Halt> {
    let message = step_json(w, &text)?;
    write_message(w, message).await
}

/// Writes any JSON value as one line. A request is awaited by its id; a malformed message by
/// its id if it has a readable one, or else as an error without an id; notifications and
/// batches are not awaited here (batch steps wait for their own answers).
async fn write_message(w: &mut ServerWorld, message: Value) -> Result<(), Halt> {
    let what = format!("the message {message}");
    let sent = w.session()?.send_value(&message).await;
    if let Err(e) = sent {
        return Err(w.not_sent(&what, e).await);
    }
    match Message::from_value(&message) {
        // A ping is answered at once or not at all (an id the server cannot read back).
        Ok(Message::Request(r)) => {
            let barrier = r.method == "ping";
            w.pending.push(Pending { id: Some(r.id), idless_ok: false, barrier, what, request: None })
        }
        Ok(_) | Err(EnvelopeError::Batch) => {}
        Err(_) => {
            let id = message.get("id").and_then(RequestId::from_value);
            w.pending.push(Pending { id, idless_ok: true, barrier: true, what, request: None });
        }
    }
    Ok(())
}

#[when(expr = "the client sends {int} {string} requests at once")]
async fn sends_many(w: &mut ServerWorld, n: usize, method: String) -> Result<(), Halt> {
    for _ in 0..n {
        w.send_request(&method, None).await?;
    }
    Ok(())
}

#[when("the client cancels the request")]
async fn cancels(w: &mut ServerWorld) -> Result<(), Halt> {
    let Some(id) = w.pending.last().and_then(|p| p.id.clone()) else {
        return Err(w.harness_error("no request to cancel (a When step is missing)".into()));
    };
    let cancel = Message::notification(
        "notifications/cancelled",
        Some(json!({ "requestId": id.to_value(), "reason": "mcpspec cancels it" })),
    );
    let sent = w.session()?.send(&cancel).await;
    match sent {
        Ok(()) => Ok(()),
        Err(e) => Err(w.not_sent("notifications/cancelled", e).await),
    }
}

#[when("the client cancels the answered request")]
async fn cancels_answered(w: &mut ServerWorld) -> Result<(), Halt> {
    let Some(id) =
        w.session()?.recorder().checker().last_answered(mcpspec_protocol::Direction::ClientToServer)
    else {
        return Err(w.harness_error("no answered request to cancel".into()));
    };
    let cancel =
        Message::notification("notifications/cancelled", Some(json!({ "requestId": id.to_value() })));
    let sent = w.session()?.send(&cancel).await;
    match sent {
        Ok(()) => Ok(()),
        Err(e) => Err(w.not_sent("notifications/cancelled", e).await),
    }
}

#[when(expr = "the client lists {string} to the end")]
async fn lists_to_the_end(w: &mut ServerWorld, method: String) -> Result<(), Halt> {
    w.listing = Some(list_all(w, &method).await?);
    Ok(())
}

/// Follows a list page by page to its end (or to an error, a cycle, the page bound).
pub(super) async fn list_all(w: &mut ServerWorld, method: &str) -> Result<Listing, Halt> {
    let mut items = Vec::new();
    let listing = list_each(w, method, |item| items.push(JsonText::of(&item))).await?;
    Ok(Listing { items, ..listing })
}

/// [`list_all`], handing each item to `visit` as its page arrives instead of keeping it (the
/// listing returned holds no items): a step that needs only a little of each item of a large
/// catalogue holds that little, not the catalogue (issue #31).
pub(super) async fn list_each(
    w: &mut ServerWorld,
    method: &str,
    mut visit: impl FnMut(Value),
) -> Result<Listing, Halt> {
    let key = match method {
        "tools/list" => "tools",
        "prompts/list" => "prompts",
        "resources/list" => "resources",
        "resources/templates/list" => "resourceTemplates",
        "tasks/list" => "tasks",
        other => return Err(w.harness_error(format!("{other} is not a paginated list method"))),
    };
    let mut listing = Listing { method: method.to_owned(), ..Listing::default() };
    let mut seen_cursors = HashSet::new();
    let mut cursor: Option<Value> = None;
    loop {
        if listing.pages >= MAX_PAGES {
            listing.unfinished = Some(format!("still a nextCursor after {MAX_PAGES} pages"));
            break;
        }
        let params = cursor.take().map(|c| json!({ "cursor": c }));
        let response = w.call(method, params).await?;
        listing.pages += 1;
        let mut page = match Arc::unwrap_or_clone(response).outcome {
            Outcome::Result(page) => page,
            Outcome::Error(e) => {
                listing.unfinished =
                    Some(format!("page {} failed with error {}: {}", listing.pages, e.code, e.message));
                break;
            }
        };
        if let Some(Value::Array(items)) = page.as_object_mut().and_then(|p| p.remove(key)) {
            items.into_iter().for_each(&mut visit);
        }
        match page.get("nextCursor") {
            Some(c) if !c.is_null() => {
                if !seen_cursors.insert(c.to_string()) {
                    listing.unfinished = Some(format!(
                        "nextCursor {c} on page {} was already given: the pages loop",
                        listing.pages
                    ));
                    break;
                }
                cursor = Some(c.clone());
            }
            _ => break,
        }
    }
    Ok(listing)
}

#[when("the client calls the tool")]
async fn calls_the_tool(w: &mut ServerWorld, step: &Step) -> Result<(), Halt> {
    let explicit = docstring_json(w, step)?;
    call_tool(w, explicit, None).await.map(drop)
}

#[when(expr = "the client calls the tool with the progress token {string}")]
async fn calls_the_tool_with_progress(w: &mut ServerWorld, token: String) -> Result<(), Halt> {
    call_tool(w, None, Some(Value::from(token))).await.map(drop)
}

/// A tool name of mcpspec's own invention, which no server offers.
const UNOFFERED_TOOL: &str = "mcpspec-no-such-tool";

/// A call of a tool no server offers runs nothing, whatever the server answers: the session is
/// left as the scenario found it, for others (a server that claims to have run it fails the
/// scenario, which ends its process).
#[when("the client calls a tool the server does not offer")]
async fn calls_unoffered_tool(w: &mut ServerWorld) -> Result<(), Halt> {
    let params = json!({ "name": UNOFFERED_TOOL, "arguments": {} });
    let id = w.send_request("tools/call", Some(params)).await?;
    w.session()?.names_nothing_offered(&id);
    Ok(())
}

/// Calls the tool a Given step picked, with `arguments` or example ones from its input schema.
async fn call_tool(
    w: &mut ServerWorld,
    arguments: Option<Value>,
    progress: Option<Value>,
) -> Result<RequestId, Halt> {
    let Some(tool) = w.subject.clone() else {
        return Err(w.harness_error("no tool picked (a Given step is missing)".into()));
    };
    let name = tool.get("name").cloned().unwrap_or(Value::Null);
    let arguments =
        arguments.unwrap_or_else(|| example_object(tool.get("inputSchema").unwrap_or(&Value::Null)));
    let mut params = json!({ "name": name, "arguments": arguments });
    if let Some(token) = progress {
        params["_meta"] = json!({ "progressToken": token });
    }
    w.send_request("tools/call", Some(params)).await
}

/// Calls the tool picked with `arguments` its input schema refuses: a server that validates
/// its inputs runs nothing, and leaves the session as the scenario found it.
async fn call_tool_refused(w: &mut ServerWorld, arguments: Value) -> Result<(), Halt> {
    let id = call_tool(w, Some(arguments), None).await?;
    w.session()?.arguments_refused(&id);
    Ok(())
}

#[when("the client reads the resource")]
async fn reads_the_resource(w: &mut ServerWorld) -> Result<(), Halt> {
    let Some(uri) = w.subject.as_ref().and_then(|r| r.get("uri")).cloned() else {
        return Err(w.harness_error("no resource picked (a Given step is missing)".into()));
    };
    w.send_request("resources/read", Some(json!({ "uri": uri }))).await.map(drop)
}

/// server/resources.mdx#security-considerations (2026-07-28): the URI of the resource picked,
/// climbing out of its folder with `..` segments to /etc/passwd.
#[when("the client reads a file:// URI that climbs out of the resource's folder")]
async fn reads_climbing_uri(w: &mut ServerWorld) -> Result<(), Halt> {
    let listed = w.subject.as_ref().and_then(|r| r.get("uri")).and_then(Value::as_str).unwrap_or_default();
    let Some(uri) = mcpspec_protocol::resources::climbing_uri(listed) else {
        return Err(
            w.harness_error("no file:// resource in a folder picked (a Given step is missing)".into())
        );
    };
    w.send_request("resources/read", Some(json!({ "uri": uri }))).await.map(drop)
}

#[when(expr = "the client {word} to the resource")]
async fn subscribes(w: &mut ServerWorld, verb: String) -> Result<(), Halt> {
    let method = match verb.as_str() {
        "subscribes" => "resources/subscribe",
        "unsubscribes" => "resources/unsubscribe",
        other => return Err(w.harness_error(format!("unknown verb {other:?} (subscribes, unsubscribes)"))),
    };
    let Some(uri) = w.subject.as_ref().and_then(|r| r.get("uri")).cloned() else {
        return Err(w.harness_error("no resource picked (a Given step is missing)".into()));
    };
    w.send_request(method, Some(json!({ "uri": uri }))).await.map(drop)
}

#[when("the client gets the prompt without its required arguments")]
async fn gets_prompt_without_arguments(w: &mut ServerWorld) -> Result<(), Halt> {
    let Some(name) = w.subject.as_ref().and_then(|p| p.get("name")).cloned() else {
        return Err(w.harness_error("no prompt picked (a Given step is missing)".into()));
    };
    w.send_request("prompts/get", Some(json!({ "name": name, "arguments": {} }))).await.map(drop)
}

#[when("the client asks to complete the prompt's first argument")]
async fn completes_prompt_argument(w: &mut ServerWorld) -> Result<(), Halt> {
    let prompt = w.subject.clone().unwrap_or(Value::Null);
    let (Some(name), Some(argument)) =
        (prompt.get("name"), prompt.pointer("/arguments/0/name").and_then(Value::as_str))
    else {
        return Err(w.harness_error("no prompt with an argument picked (a Given step is missing)".into()));
    };
    let params = json!({
        "ref": { "type": "ref/prompt", "name": name },
        "argument": { "name": argument, "value": "" },
    });
    w.send_request("completion/complete", Some(params)).await.map(drop)
}

/// completion/complete for the prompt's first argument with no `value`, which the request
/// requires (utilities/completion.mdx#security: implementations MUST validate all completion
/// inputs).
#[when("the client asks to complete the prompt's first argument without a value")]
async fn completes_prompt_argument_without_value(w: &mut ServerWorld) -> Result<(), Halt> {
    let prompt = w.subject.clone().unwrap_or(Value::Null);
    let (Some(name), Some(argument)) =
        (prompt.get("name"), prompt.pointer("/arguments/0/name").and_then(Value::as_str))
    else {
        return Err(w.harness_error("no prompt with an argument picked (a Given step is missing)".into()));
    };
    let params = json!({ "ref": { "type": "ref/prompt", "name": name }, "argument": { "name": argument } });
    w.send_request("completion/complete", Some(params)).await.map(drop)
}

/// The tool picked, with arguments its inputSchema refuses (a required property of the wrong
/// type).
#[when("the client calls the tool with arguments its input schema refuses")]
async fn calls_tool_refused(w: &mut ServerWorld) -> Result<(), Halt> {
    let Some(tool) = w.subject.clone() else {
        return Err(w.harness_error("no tool picked (a Given step is missing)".into()));
    };
    let schema = tool.get("inputSchema").cloned().unwrap_or(Value::Null);
    let Some(arguments) = mcpspec_protocol::arguments::refused_object(&schema) else {
        return Err(w.harness_error("the tool's inputSchema declares no typed property".into()));
    };
    call_tool_refused(w, arguments).await
}

/// The tool picked, with arguments its schema's own dialect (2020-12 when it declares none)
/// refuses and another dialect accepts (basic/index.mdx#json-schema-usage).
#[when("the client calls the tool with arguments only its schema's own dialect refuses")]
async fn calls_tool_telling_dialect(w: &mut ServerWorld) -> Result<(), Halt> {
    let schema = w.subject.as_ref().and_then(|t| t.get("inputSchema")).cloned().unwrap_or(Value::Null);
    let Some(telling) = mcpspec_protocol::dialect::telling_arguments(&schema) else {
        return Err(w.harness_error(
            "no tool whose schema tells its dialect picked (a Given step is missing)".into(),
        ));
    };
    call_tool_refused(w, telling.arguments).await
}

#[when("the client asks to complete the template's first variable")]
async fn completes_template_variable(w: &mut ServerWorld) -> Result<(), Halt> {
    let template =
        w.subject.as_ref().and_then(|t| t.get("uriTemplate")).and_then(Value::as_str).map(str::to_owned);
    // RFC 6570: the first expression's first variable name, without operator or modifiers.
    let variable = template.as_deref().and_then(|t| {
        let inner = t.split('{').nth(1)?.split('}').next()?;
        let name =
            inner.trim_start_matches(['+', '#', '.', '/', ';', '?', '&']).split([',', ':', '*']).next()?;
        Some(name.to_owned())
    });
    let (Some(uri), Some(variable)) = (template, variable) else {
        return Err(
            w.harness_error("no resource template with a variable picked (a Given step is missing)".into())
        );
    };
    let params = json!({
        "ref": { "type": "ref/resource", "uri": uri },
        "argument": { "name": variable, "value": "" },
    });
    w.send_request("completion/complete", Some(params)).await.map(drop)
}

#[when("the client closes the server's stdin")]
async fn closes_stdin(w: &mut ServerWorld) -> Result<(), Halt> {
    // The closing itself happens in the Then step, which also watches the exit.
    w.session()?;
    Ok(())
}

#[when("the client cancels the request once it reports progress")]
async fn cancels_after_progress(w: &mut ServerWorld) -> Result<(), Halt> {
    let Some(pending) = w.pending.last().cloned() else {
        return Err(w.harness_error("no request to cancel (a When step is missing)".into()));
    };
    let Some(id) = pending.id else { return Err(w.harness_error("the request has no id".into())) };
    let within = w.timeout();
    let progressed = w.session()?.wait_progress(within).await;
    if !progressed {
        return Err(w.skip(format!(
            "the request reported no progress within {within:?}, so it cannot be cancelled mid-way"
        )));
    }
    let cancel = Message::notification(
        "notifications/cancelled",
        Some(json!({ "requestId": id.to_value(), "reason": "mcpspec cancels it mid-way" })),
    );
    let sent = w.session()?.send(&cancel).await;
    match sent {
        Ok(()) => Ok(()),
        Err(e) => Err(w.not_sent("notifications/cancelled", e).await),
    }
}
