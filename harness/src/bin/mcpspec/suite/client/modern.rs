//! Steps of the modern era's client scenarios (`scenarios/client/modern.feature`, 2026-07-28):
//! the scenario server is the reference server at a modern revision; these steps script it a
//! little (a first request refused with -32022, no `requestState`, pages of its own, input
//! requests of the scenario's answering the client's held request) and judge the session from
//! what the client sent and what it was answered (`ClientSession::received` and `sent`). The
//! judging is in plain functions over those lists, tested below; every message is also judged by
//! `checker::modern_client`.

use super::{docstring_json, is_request, what, Answer, ClientWorld, Halt};
use crate::suite::scenario::Scenario as _;
use cucumber::{given, then, when};
use mcpspec::session::client::{ClientWaitError, ToolPages};
use mcpspec_protocol::modern::{self as era, CLIENT_CAPABILITIES_KEY, PROTOCOL_VERSION_KEY};
use mcpspec_protocol::wire::{describe, Message};
use serde_json::{json, Value};
use std::time::Duration;
use tokio::time::Instant;

/// A client whose first request is `initialize` speaks only the legacy era: the scenario is
/// skipped, with the reason, as the server suite skips a revision a server counter-offers (a
/// dual-era client probes first, and a modern one never sends `initialize`).
pub(super) fn legacy_only(w: &mut ClientWorld) -> Result<(), Halt> {
    let received = &w.session()?.received;
    let first = received.iter().find(|v| v.get("method").is_some() && v.get("id").is_some());
    let legacy = first.is_some_and(is_initialize);
    w.legacy_only = legacy;
    match legacy {
        true => Err(w.skip(format!(
            "the client speaks only the legacy era: its first request was initialize, which {} does not have",
            w.scenario.revision
        ))),
        false => Ok(()),
    }
}

#[given("the scenario server refuses the client's first request as an unsupported protocol version")]
async fn refuses_first_version(w: &mut ClientWorld) -> Result<(), Halt> {
    w.session()?.script.refuse_first_version = true;
    Ok(())
}

#[given(expr = "the scenario server also lists the tool {string} annotated with x-mcp-header {string}")]
async fn lists_badly_annotated_tool(
    w: &mut ClientWorld,
    name: String,
    annotation: String,
) -> Result<(), Halt> {
    let tool = serde_json::json!({
        "name": name,
        "description": "A tool whose x-mcp-header annotation breaks the constraints: a client over Streamable HTTP leaves it out.",
        "inputSchema": { "type": "object", "properties": {
            "region": { "type": "string", "x-mcp-header": annotation } } }
    });
    w.session()?.script.extra_tools.push(tool);
    Ok(())
}

/// basic/index.mdx#ref-resolution (2026-07-28): a tool whose inputSchema refers (`$ref`) to a
/// URL on a listener of the scenario server's, which records every request.
#[given("the scenario server also lists a tool whose input schema refers to a URL on its listener")]
async fn lists_remote_ref_tool(w: &mut ClientWorld) -> Result<(), Halt> {
    let canary = mcpspec_reference::transport::canary::Canary::start().await;
    let canary = canary.map_err(|e| w.harness_error(format!("cannot listen on 127.0.0.1: {e}")))?;
    let tool = serde_json::json!({
        "name": "test_remote_ref",
        "description": "Its input schema refers to a schema at a network URI, which no client fetches on its own.",
        "inputSchema": { "type": "object", "properties": {
            "item": { "$ref": format!("{}/schemas/item.json", canary.base_url()) } } }
    });
    w.canary = Some(canary);
    w.session()?.script.extra_tools.push(tool);
    Ok(())
}

/// basic/index.mdx#ref-resolution: implementations MUST NOT dereference a `$ref` to a network
/// URI on their own (an opt-in mode MUST be off by default). A client that did not list the
/// tools never saw the schema, and is skipped.
#[then("the client listed the tools, and fetched nothing from the scenario server's listener")]
async fn listed_without_fetching(w: &mut ClientWorld) -> Result<(), Halt> {
    legacy_only(w)?;
    let listed = w
        .session()?
        .received
        .iter()
        .any(|v| v.get("id").is_some() && v.get("method").and_then(Value::as_str) == Some("tools/list"));
    if !listed {
        return Err(w.skip("the client did not list the tools".into()));
    }
    let hits = w.canary.as_ref().map(|c| c.hits()).unwrap_or_default();
    let seen = hits.iter().map(|h| format!("{} {}", h.method, h.target)).collect::<Vec<_>>().join(", ");
    w.check(
        hits.is_empty(),
        "no request for the $ref of a listed tool's input schema (network refs are not followed by default)",
        match hits.is_empty() {
            true => "the client listed the tools and fetched nothing".to_owned(),
            false => format!("the client fetched {seen}"),
        },
    );
    Ok(())
}

/// A `tools/call` POST: its request headers, and its request reduced to what they mirror.
type ToolCall = (Vec<(String, String)>, Value);

/// The `tools/call` POSTs the scenario server's endpoint saw (refused ones too).
fn tool_calls(w: &mut ClientWorld) -> Result<Vec<ToolCall>, Halt> {
    let session = w.session()?;
    session.drain_http();
    let exchanges = session.recorder().http_client().map(|c| c.exchanges().cloned().collect::<Vec<_>>());
    Ok(exchanges
        .unwrap_or_default()
        .into_iter()
        .filter_map(|x| x.request.filter(|r| r["method"] == "tools/call").map(|r| (x.request_headers, r)))
        .collect())
}

/// `streamable-http.mdx#custom-headers-from-tool-parameters`: each call of the tool carries an
/// `Mcp-Param-*` header per annotated argument with a value (encoded), none for a null or
/// absent one (every call is also judged by the client HTTP rules, `http-client/param-header-…`).
#[then(expr = "the client called the tool {string}, its Mcp-Param headers mirroring the arguments")]
async fn called_with_param_headers(w: &mut ClientWorld, tool: String) -> Result<(), Halt> {
    legacy_only(w)?;
    let calls: Vec<_> = tool_calls(w)?
        .into_iter()
        .filter(|(_, r)| r.pointer("/params/name") == Some(&Value::from(tool.as_str())))
        .collect();
    if calls.is_empty() {
        return Err(w.skip(format!(
            "the client did not call {tool} (a client opts in by the scenario's name, MCP_CONFORMANCE_SCENARIO)"
        )));
    }
    let schemas =
        w.session()?.recorder().http_client().map(|c| c.param_schemas().clone()).unwrap_or_default();
    let mut wrong = Vec::new();
    for (headers, request) in &calls {
        for v in mcpspec::judge::client::http::param_header_violations(headers, request, &schemas) {
            wrong.push(format!("{}: {}", v.rule.id, v.actual));
        }
    }
    let expected = format!("each call of {tool} with an Mcp-Param header per argument with a value, encoded, and none for a null or absent one");
    let actual = match wrong.is_empty() {
        true => format!("{} call(s), each mirroring its arguments", calls.len()),
        false => wrong.join("; "),
    };
    w.check(wrong.is_empty(), expected, actual);
    Ok(())
}

/// `streamable-http.mdx#schema-extension`: a client over Streamable HTTP leaves a tool whose
/// `x-mcp-header` annotation breaks the constraints out of its tool list, so never calls it. A
/// client that called no tool at all shows nothing: skipped.
#[then(expr = "the client called a tool, but never {string}")]
async fn never_called(w: &mut ClientWorld, tool: String) -> Result<(), Halt> {
    legacy_only(w)?;
    let calls = tool_calls(w)?;
    if calls.is_empty() {
        return Err(w.skip(
            "the client called no tool: whether it would call the badly annotated one is unknown".into(),
        ));
    }
    let bad =
        calls.iter().filter(|(_, r)| r.pointer("/params/name") == Some(&Value::from(tool.as_str()))).count();
    let names: Vec<&str> =
        calls.iter().filter_map(|(_, r)| r.pointer("/params/name").and_then(Value::as_str)).collect();
    w.check(
        bad == 0,
        format!(
            "no call of {tool} (its x-mcp-header annotation is invalid: the tool is left out of the list)"
        ),
        format!("calls of {}", names.join(", ")),
    );
    Ok(())
}

/// An input request of the scenario server's, awaiting the client's answer in the retry of the
/// request it answered (`basic/patterns/mrtr.mdx`).
#[derive(Debug, Clone)]
pub struct InputAsked {
    /// Its key in `inputRequests` (and so in the retry's `inputResponses`).
    key: String,
    /// The method and name (tool, prompt) or URI of the request answered: what its retry is.
    method: String,
    name: Option<String>,
}

#[when(
    regex = r#"^the scenario server answers it asking for input: a "([^"]+)" request(?: with the params)?$"#
)]
async fn answers_asking_for_input(
    w: &mut ClientWorld,
    method: String,
    step: &cucumber::gherkin::Step,
) -> Result<(), Halt> {
    let params = docstring_json(w, step)?;
    super::ask(w, &method, params).await
}

/// Answers the client's held request with an InputRequiredResult holding one input request,
/// `method` with `params`, under a key of its own, with a `requestState` (mrtr.mdx: the
/// client answers it in the retry of the request, the state echoed).
pub(super) async fn ask_input(w: &mut ClientWorld, method: &str, params: Option<Value>) -> Result<(), Halt> {
    let Some(Message::Request(held)) = w.held.take().and_then(|i| i.message) else {
        return Err(w.harness_error(
            "no request of the client's is held to answer with input_required (a When step is missing)"
                .into(),
        ));
    };
    w.inputs_asked += 1;
    let key = format!("mcpspec-input-{}", w.inputs_asked);
    let mut request = json!({ "method": method });
    if let Some(p) = params {
        request["params"] = p;
    }
    let result = json!({ "resultType": era::INPUT_REQUIRED, "inputRequests": { key.clone(): request },
        "requestState": format!("mcpspec-state-{}", w.inputs_asked) });
    let sent = w.session()?.send(&Message::result(held.id.clone(), result)).await;
    sent.map_err(|e| {
        w.lost(format!("the client reads the input_required answer to its {}", held.method), e)
    })?;
    let name = era::name_source(&held.method, held.params.as_ref()).map(str::to_owned);
    w.input = Some(InputAsked { key, method: held.method, name });
    Ok(())
}

/// The client's answer to the pending input request: its entry in the `inputResponses` of the
/// retry (the next request of the same method and name, held for the next step to answer), or
/// no answer when the retry lacks it or no retry comes within the timeout.
pub(super) async fn input_answer(w: &mut ClientWorld, expected: &str) -> Result<Answer, Halt> {
    let Some(asked) = w.input.take() else {
        return Err(w.harness_error("no input request awaits an answer (a When step is missing)".into()));
    };
    let within = w.timeout();
    let is_retry = |i: &mcpspec::judge::checker::Inspection| {
        let params = i.value.as_ref().and_then(|v| v.get("params"));
        is_request(i, &asked.method) && era::name_source(&asked.method, params) == asked.name.as_deref()
    };
    let retried = w.session()?.wait_for(within, is_retry).await;
    match retried {
        Ok(i) => {
            let answer = i
                .value
                .as_ref()
                .and_then(|v| v.pointer("/params/inputResponses"))
                .and_then(|r| r.get(&asked.key))
                .cloned();
            w.held = Some(i);
            Ok(match answer {
                Some(v) => Answer::Result(v),
                None => Answer::Withheld(format!(
                    "its retry of {} has no inputResponses[{:?}]",
                    asked.method, asked.key
                )),
            })
        }
        Err(e @ (ClientWaitError::Timeout(_) | ClientWaitError::Closed(_) | ClientWaitError::Ended(_))) => {
            Ok(Answer::Withheld(format!("it did not retry its {} ({e})", asked.method)))
        }
        Err(e) => Err(
            w.lost(format!("the retry of {}, answering the input request with {expected}", asked.method), e)
        ),
    }
}

/// `server/utilities/pagination.mdx`: the scenario server pages its tool list itself, pages of
/// the sizes given, then one with the rest, each but the last with the next cursor given.
#[given(
    regex = r#"^the scenario server pages its tool list in pages of (\d+(?:, \d+)*) tools? and then the rest, with the next cursors? (".*")$"#
)]
async fn pages_tools(w: &mut ClientWorld, sizes: String, cursors: String) -> Result<(), Halt> {
    let sizes: Vec<usize> = sizes.split(", ").filter_map(|n| n.parse().ok()).collect();
    let cursors: Vec<String> = serde_json::from_str(&format!("[{cursors}]"))
        .map_err(|e| w.harness_error(format!("the step's cursors {cursors} are no JSON strings: {e}")))?;
    if sizes.len() != cursors.len() {
        return Err(w.harness_error("a next cursor for each page but the last, please".into()));
    }
    w.session()?.script.tool_pages = Some(ToolPages { sizes, cursors });
    Ok(())
}

/// pagination.mdx: a `nextCursor` given means more results, whatever it holds (an empty
/// string too) and however short its page (the server picks the page size): the client asks
/// for each next page with the cursor unchanged. A client that listed no tools is skipped.
#[then("the client asked for each next page of the tool list with its cursor")]
async fn asked_every_page(w: &mut ClientWorld) -> Result<(), Halt> {
    legacy_only(w)?;
    let session = w.session()?;
    let cursors = session.script.tool_pages.as_ref().map(|p| p.cursors.clone()).unwrap_or_default();
    let received = session.received.clone();
    match judge_pages(&received, &cursors) {
        None => Err(w.skip("the client did not list the tools".into())),
        Some((ok, actual)) => {
            let expected =
                format!("a tools/list request with each next cursor given, unchanged: {cursors:?}");
            w.check(ok, expected, actual);
            Ok(())
        }
    }
}

/// Over the client's messages: `None` when it sent no `tools/list`; otherwise whether each of
/// `cursors` came back in one, and what was seen.
fn judge_pages(received: &[Value], cursors: &[String]) -> Option<(bool, String)> {
    let lists: Vec<Option<&Value>> = received
        .iter()
        .filter(|v| v.get("id").is_some() && v.get("method").and_then(Value::as_str) == Some("tools/list"))
        .map(|v| v.pointer("/params/cursor"))
        .collect();
    if lists.is_empty() {
        return None;
    }
    let missing: Vec<&String> = cursors
        .iter()
        .filter(|c| !lists.iter().any(|l| l.and_then(Value::as_str) == Some(c.as_str())))
        .collect();
    let sent: Vec<String> =
        lists.iter().map(|c| c.map_or_else(|| "(none)".to_owned(), Value::to_string)).collect();
    let actual = match missing.is_empty() {
        true => format!("tools/list with the cursors {}", sent.join(", ")),
        false => format!("no tools/list with the cursor(s) {missing:?}; it sent cursors {}", sent.join(", ")),
    };
    Some((missing.is_empty(), actual))
}

#[given("the scenario server leaves resultType out of its tools/list results, as a server of an earlier version would")]
async fn strips_list_result_type(w: &mut ClientWorld) -> Result<(), Halt> {
    w.session()?.script.strip_list_result_type = true;
    Ok(())
}

#[given(
    regex = r#"^the scenario server answers the first tools/list with resultType "([^"]+)", listing only the tool "([^"]+)"$"#
)]
async fn unknown_list_result_type(
    w: &mut ClientWorld,
    result_type: String,
    tool: String,
) -> Result<(), Halt> {
    let tool = json!({ "name": tool, "inputSchema": { "type": "object" },
        "description": "Listed only in a result of a resultType no client knows: a client takes that result for invalid, and never calls it." });
    w.session()?.script.unknown_list_result = Some((result_type, tool));
    Ok(())
}

/// basic/index.mdx#resulttype: a result whose `resultType` the client does not recognize is
/// invalid: the tool it alone lists is never called. A client that did not list is skipped.
#[then(expr = "the client listed the tools, but never called {string}")]
async fn listed_but_never_called(w: &mut ClientWorld, tool: String) -> Result<(), Halt> {
    legacy_only(w)?;
    let received = w.session()?.received.clone();
    let listed = received
        .iter()
        .any(|v| v.get("id").is_some() && v.get("method").and_then(Value::as_str) == Some("tools/list"));
    if !listed {
        return Err(w.skip("the client did not list the tools".into()));
    }
    let calls = calls_of(&received, &tool).len();
    w.check(
        calls == 0,
        format!("no call of {tool} (only a result of a resultType the client does not know listed it)"),
        match calls {
            0 => format!("the client listed the tools and never called {tool}"),
            n => format!("{n} call(s) of {tool}"),
        },
    );
    Ok(())
}

/// basic/index.mdx#resulttype: a result without `resultType` is complete. Judged from what the
/// client did with each `tools/list` result without it; a client that made no use of them is
/// skipped.
#[then("the client took each tools/list result without resultType for a complete one")]
async fn took_as_complete(w: &mut ClientWorld) -> Result<(), Halt> {
    legacy_only(w)?;
    let session = w.session()?;
    let (received, sent) = (session.received.clone(), answers(&session.sent));
    match judge_absent_result_type(&received, &sent) {
        None => Err(
            w.skip("the client made no use of the tool list (it neither paged it nor called a tool)".into())
        ),
        Some((ok, actual)) => {
            let expected = "each tools/list result without resultType used as complete (its nextCursor followed, its tools called), neither asked for again nor retried as input_required";
            w.check(ok, expected, actual);
            Ok(())
        }
    }
}

/// Over the client's requests and the scenario server's answers: `None` when no `tools/list`
/// result without `resultType` was given, or the client made no use of one; otherwise whether
/// it took each for complete: it asked for none of their pages again before using it, and
/// retried none as if it were input_required.
fn judge_absent_result_type(received: &[Value], sent: &[(Instant, Value)]) -> Option<(bool, String)> {
    // The cursor of each page answered without resultType, and its result.
    let mut bare: Vec<(Option<Value>, Value)> = Vec::new();
    let (mut used, mut problems) = (Vec::new(), Vec::new());
    for v in received.iter().filter(|v| v.get("id").is_some()) {
        let Some(method) = v.get("method").and_then(Value::as_str) else { continue };
        let params = v.get("params");
        let cursor = params.and_then(|p| p.get("cursor")).cloned();
        if method == "tools/list" {
            if used.is_empty() && bare.iter().any(|(c, _)| *c == cursor) {
                let which = cursor.as_ref().map_or_else(|| "(none)".to_owned(), Value::to_string);
                problems.push(format!("tools/list with the cursor {which} asked for again"));
            }
            if params.is_some_and(|p| p.get("inputResponses").is_some() || p.get("requestState").is_some()) {
                problems.push(
                    "tools/list retried with inputResponses or requestState, as if input_required".into(),
                );
            }
            if bare.iter().any(|(_, r)| cursor.is_some() && r.get("nextCursor") == cursor.as_ref()) {
                used.push("followed its nextCursor".to_owned());
            }
            let answer = answer_to(v.get("id"), sent).and_then(|(_, a)| a.get("result"));
            if let Some(result) = answer.filter(|r| r.get("resultType").is_none()) {
                bare.push((cursor, result.clone()));
            }
        } else if method == "tools/call" {
            let name = params.and_then(|p| p.get("name"));
            let shown = name.and_then(Value::as_str).unwrap_or("?");
            let listed = bare.iter().any(|(_, r)| {
                r.get("tools")
                    .and_then(Value::as_array)
                    .is_some_and(|t| t.iter().any(|t| t.get("name") == name))
            });
            if listed {
                used.push(format!("called the tool {shown} it listed"));
            }
        }
    }
    if bare.is_empty() || (used.is_empty() && problems.is_empty()) {
        return None;
    }
    used.dedup();
    Some(match problems.is_empty() {
        true => {
            (true, format!("{} result(s) without resultType; the client {}", bare.len(), used.join(", ")))
        }
        false => (false, problems.join("; ")),
    })
}

#[given("the scenario server sends no requestState")]
async fn no_request_state(w: &mut ClientWorld) -> Result<(), Halt> {
    w.session()?.script.strip_request_state = true;
    Ok(())
}

#[then(regex = r#"^the client's first request is "([^"]+)"$"#)]
async fn first_request_is(w: &mut ClientWorld, method: String) -> Result<(), Halt> {
    let within = w.timeout();
    let first = w.session()?.recv(within).await;
    let expected = format!("a {method} request before any other");
    match first {
        Ok(i) => {
            let ok = is_request(&i, &method);
            // Answered, so the client can go on (and end) as it would.
            let _ = w.session()?.serve(&i).await;
            legacy_only(w)?;
            w.check(ok, expected, what(&i));
            Ok(())
        }
        Err(e) => Err(w.lost(expected, e)),
    }
}

#[then("the client sent requests, each with the request metadata in _meta, and no initialize")]
async fn requests_carry_meta(w: &mut ClientWorld) -> Result<(), Halt> {
    legacy_only(w)?;
    let received = w.session()?.received.clone();
    let (ok, actual) = judge_meta(&received);
    w.check(
        ok,
        "requests, each with _meta naming the protocol version and the client capabilities; no initialize",
        actual,
    );
    Ok(())
}

#[then("the client retried the refused request at a version from the supported list, with a new id")]
async fn retried_after_unsupported(w: &mut ClientWorld) -> Result<(), Halt> {
    legacy_only(w)?;
    let supported = era::wire_version(w.scenario.revision);
    let received = w.session()?.received.clone();
    let (ok, actual) = judge_version_retry(&received, supported);
    w.check(ok, format!("the refused request again, with a new id, at version {supported:?}"), actual);
    Ok(())
}

#[then(
    regex = r#"^the client completed its call of the tool "([^"]+)" after (at least )?(\d+) rounds? of input$"#
)]
async fn completed_call(
    w: &mut ClientWorld,
    tool: String,
    at_least: String,
    rounds: usize,
) -> Result<(), Halt> {
    legacy_only(w)?;
    let session = w.session()?;
    let (received, sent) = (session.received.clone(), answers(&session.sent));
    let calls = calls_of(&received, &tool);
    if calls.is_empty() {
        return Err(w.skip(format!(
            "the client did not call the tool {tool:?} (a client opts in by the scenario's name)"
        )));
    }
    let outcomes: Vec<Outcome> = calls.iter().map(|c| outcome(c.get("id"), &sent)).collect();
    let asked = outcomes.iter().filter(|o| **o == Outcome::InputRequired).count();
    let done = outcomes.last() == Some(&Outcome::Complete);
    let enough = if at_least.is_empty() { asked == rounds } else { asked >= rounds };
    let expected = format!(
        "{tool} called, answered input_required {}{rounds} time(s), retried each time, then complete",
        if at_least.is_empty() { "" } else { "at least " }
    );
    let summary: Vec<String> = outcomes.iter().map(|o| format!("{o:?}")).collect();
    let actual = format!("{} call(s), answered: {}", calls.len(), summary.join(" → "));
    w.check(done && enough, expected, actual);
    Ok(())
}

/// client/roots.mdx, as MRTR carries it: each root the client gave in answer to a `roots/list`
/// input request is a `file://` URI without dot segments (the legacy step's rule).
#[then(regex = r#"^the roots the client gave for the tool "([^"]+)" are file:// URIs without dot segments$"#)]
async fn retried_with_valid_roots(w: &mut ClientWorld, tool: String) -> Result<(), Halt> {
    legacy_only(w)?;
    let session = w.session()?;
    let (received, sent) = (session.received.clone(), answers(&session.sent));
    let given = roots_given(&calls_of(&received, &tool), &sent);
    if given.is_empty() {
        return Err(w.skip(format!("the client answered no roots/list input request of the tool {tool:?}")));
    }
    let problems: Vec<String> = given.iter().flat_map(mcpspec_protocol::roots::problems).collect();
    let actual = match problems.is_empty() {
        true => {
            format!("{} roots/list answer(s), every root a file:// URI without dot segments", given.len())
        }
        false => problems.join("; "),
    };
    w.check(problems.is_empty(), "roots that are file:// URIs without . or .. segments", actual);
    Ok(())
}

/// The `roots/list` results a client gave in its retries: for each call answered
/// input_required, the next call's `inputResponses` under the keys whose input request was
/// `roots/list`.
fn roots_given(calls: &[&Value], sent: &[(Instant, Value)]) -> Vec<Value> {
    let mut given = Vec::new();
    for pair in calls.windows(2) {
        let Some((_, answer)) = answer_to(pair[0].get("id"), sent) else { continue };
        let Some(requests) = answer.pointer("/result/inputRequests").and_then(Value::as_object) else {
            continue;
        };
        for (key, request) in requests {
            if request.get("method").and_then(Value::as_str) != Some("roots/list") {
                continue;
            }
            if let Some(result) = pair[1].pointer("/params/inputResponses").and_then(|r| r.get(key)) {
                given.push(result.clone());
            }
        }
    }
    given
}

#[then(regex = r#"^the client retried its call of the tool "([^"]+)", each retry without a requestState$"#)]
async fn retried_without_state(w: &mut ClientWorld, tool: String) -> Result<(), Halt> {
    legacy_only(w)?;
    let received = w.session()?.received.clone();
    let calls = calls_of(&received, &tool);
    if calls.is_empty() {
        return Err(w.skip(format!(
            "the client did not call the tool {tool:?} (a client opts in by the scenario's name)"
        )));
    }
    let retries = calls.len() - 1;
    let with_state = calls.iter().filter(|c| c.pointer("/params/requestState").is_some()).count();
    w.check(
        retries > 0 && with_state == 0,
        format!("at least one retry of {tool}, none with a requestState (none was given)"),
        format!("{retries} retr(ies), {with_state} with a requestState"),
    );
    Ok(())
}

#[then("the client asked for no cacheable result again while it was fresh")]
async fn no_refetch_while_fresh(w: &mut ClientWorld) -> Result<(), Halt> {
    legacy_only(w)?;
    let session = w.session()?;
    let refetched = refetched_while_fresh(&session.received, &session.received_at, &session.sent);
    let expected = "no cacheable request repeated within the ttlMs of its complete answer";
    match refetched.first() {
        None => w.check(true, expected, "none repeated while fresh"),
        Some(what) => w.check(false, expected, what.clone()),
    }
    Ok(())
}

/// Over Streamable HTTP at a modern revision: the endpoint refused no POST (it checks the
/// request headers against the body: 400 with -32020 for a mismatch, and 400 for a missing
/// `_meta`), and the client used none of the legacy transport's machinery (a session id, the
/// GET stream, DELETE).
#[then("no POST of the client was refused, and none carried a session id or went out as a GET")]
async fn http_requests_accepted(w: &mut ClientWorld) -> Result<(), Halt> {
    legacy_only(w)?;
    let session = w.session()?;
    session.drain_http();
    let exchanges: Vec<_> =
        session.recorder().http_client().map(|c| c.exchanges().cloned().collect()).unwrap_or_default();
    let mut wrong = Vec::new();
    for x in &exchanges {
        let what = format!("{} {} → {}", x.method, x.path, x.status);
        if x.method != "POST" {
            wrong.push(format!("{what} (the era has only POST)"));
        } else if (400..500).contains(&x.status) {
            wrong.push(format!("{what} (refused: its headers or _meta do not match what the body says)"));
        } else if x.request_headers.iter().any(|(k, _)| k == "mcp-session-id") {
            wrong.push(format!("{what} with Mcp-Session-Id (the era has no sessions)"));
        }
    }
    let expected = "POSTs only, each accepted (headers mirroring the body), none with Mcp-Session-Id";
    let actual = match wrong.is_empty() {
        true => format!("{} POST(s), each accepted", exchanges.len()),
        false => wrong.join("; "),
    };
    w.check(wrong.is_empty() && !exchanges.is_empty(), expected, actual);
    Ok(())
}

/// How the scenario server answered one request.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Outcome {
    InputRequired,
    Complete,
    Error(i64),
    Unanswered,
}

/// The scenario server's answers (responses), by id as JSON text.
fn answers(sent: &[(Instant, Value)]) -> Vec<(Instant, Value)> {
    sent.iter().filter(|(_, v)| v.get("method").is_none() && v.get("id").is_some()).cloned().collect()
}

fn answer_to<'a>(id: Option<&Value>, sent: &'a [(Instant, Value)]) -> Option<&'a (Instant, Value)> {
    let id = id?;
    sent.iter().find(|(_, v)| v.get("id") == Some(id))
}

fn outcome(id: Option<&Value>, sent: &[(Instant, Value)]) -> Outcome {
    let Some((_, answer)) = answer_to(id, sent) else { return Outcome::Unanswered };
    if let Some(code) = answer.pointer("/error/code").and_then(Value::as_i64) {
        return Outcome::Error(code);
    }
    match answer.pointer("/result/resultType").and_then(Value::as_str) {
        Some(era::INPUT_REQUIRED) => Outcome::InputRequired,
        _ => Outcome::Complete,
    }
}

/// The client's `tools/call` requests of `tool`, in order.
fn calls_of<'a>(received: &'a [Value], tool: &str) -> Vec<&'a Value> {
    received
        .iter()
        .filter(|v| v.get("id").is_some() && v.get("method").and_then(Value::as_str) == Some("tools/call"))
        .filter(|v| v.pointer("/params/name").and_then(Value::as_str) == Some(tool))
        .collect()
}

/// Every request has `_meta` with the version (a string) and the capabilities (an object), and
/// none is `initialize`: `(ok, what was seen)`.
fn judge_meta(received: &[Value]) -> (bool, String) {
    let requests: Vec<&Value> =
        received.iter().filter(|v| v.get("method").is_some() && v.get("id").is_some()).collect();
    if requests.is_empty() {
        return (false, "no request at all".into());
    }
    for r in &requests {
        let method = r.get("method").and_then(Value::as_str).unwrap_or("?");
        if method == "initialize" {
            return (false, "an initialize request (the era has none)".into());
        }
        let meta = r.pointer("/params/_meta");
        let version = meta.and_then(|m| m.get(PROTOCOL_VERSION_KEY)).is_some_and(Value::is_string);
        let caps = meta.and_then(|m| m.get(CLIENT_CAPABILITIES_KEY)).is_some_and(Value::is_object);
        if !(version && caps) {
            return (
                false,
                format!("{method} request {} with _meta {}", describe(r.get("id")), describe(meta)),
            );
        }
    }
    (true, format!("{} request(s), each with the request metadata", requests.len()))
}

/// The first request was refused (-32022 by the scripted server); the next request of the same
/// method is its retry: a new id, at `supported`.
fn judge_version_retry(received: &[Value], supported: &str) -> (bool, String) {
    let mut requests = received.iter().filter(|v| v.get("method").is_some() && v.get("id").is_some());
    let Some(first) = requests.next() else { return (false, "no request at all".into()) };
    let method = first.get("method");
    let retry = requests.find(|v| v.get("method") == method || is_initialize(v));
    match retry {
        None => (false, format!("no {} request after the refusal", describe(method))),
        Some(r) if is_initialize(r) => {
            (false, "initialize: -32022 is a modern error, no reason to fall back (versioning.mdx)".into())
        }
        Some(r) => {
            let version = r.pointer("/params/_meta").and_then(|m| m.get(PROTOCOL_VERSION_KEY));
            let ok = r.get("id") != first.get("id") && version.and_then(Value::as_str) == Some(supported);
            (
                ok,
                format!(
                    "id {} (refused: {}), version {}",
                    describe(r.get("id")),
                    describe(first.get("id")),
                    describe(version)
                ),
            )
        }
    }
}

fn is_initialize(v: &Value) -> bool {
    v.get("method").and_then(Value::as_str) == Some("initialize")
}

/// Cacheable requests the client repeated (same method and params, `_meta` aside) within the
/// `ttlMs` of an earlier identical request's complete answer. Judged from when the client's
/// requests were read and when the answer was sent: a repeat read sooner than `ttlMs` after the
/// answer went out was surely sent while the answer was fresh to the client.
fn refetched_while_fresh(
    received: &[Value],
    received_at: &[Instant],
    sent: &[(Instant, Value)],
) -> Vec<String> {
    let sent = answers(sent);
    let key = |v: &Value| {
        let mut p = v.get("params").cloned().unwrap_or(Value::Null);
        if let Some(o) = p.as_object_mut() {
            o.remove("_meta");
        }
        format!("{} {p}", v.get("method").and_then(Value::as_str).unwrap_or(""))
    };
    let mut fresh: Vec<(String, Instant)> = Vec::new();
    let mut out = Vec::new();
    for (v, at) in received.iter().zip(received_at) {
        let Some(method) = v.get("method").and_then(Value::as_str) else { continue };
        if v.get("id").is_none() || !era::is_cacheable(method) {
            continue;
        }
        let k = key(v);
        if fresh.iter().any(|(f, until)| *f == k && *at < *until) {
            out.push(format!(
                "{method} request {} asked again while the earlier answer was fresh",
                describe(v.get("id"))
            ));
        }
        if let Some((answered, answer)) = answer_to(v.get("id"), &sent) {
            let complete =
                answer.pointer("/result/resultType").and_then(Value::as_str) != Some(era::INPUT_REQUIRED);
            let ttl = answer.pointer("/result/ttlMs").and_then(Value::as_u64).unwrap_or(0);
            if complete && ttl > 0 && answer.get("result").is_some() {
                fresh.push((k, *answered + Duration::from_millis(ttl.min(86_400_000))));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn meta() -> Value {
        era::request_meta("2026-07-28", &json!({}), None)
    }

    fn req(id: i64, method: &str, params: Value) -> Value {
        json!({"jsonrpc": "2.0", "id": id, "method": method, "params": era::with_request_meta(Some(params), &meta())})
    }

    #[test]
    fn meta_and_initialize_are_judged() {
        assert!(judge_meta(&[req(1, "server/discover", json!({}))]).0);
        assert!(!judge_meta(&[json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})]).0);
        assert!(!judge_meta(&[json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}})]).0);
        assert!(!judge_meta(&[]).0);
    }

    #[test]
    fn the_version_retry_is_found() {
        let first = req(1, "server/discover", json!({}));
        assert!(judge_version_retry(&[first.clone(), req(2, "server/discover", json!({}))], "2026-07-28").0);
        assert!(!judge_version_retry(&[first.clone(), req(1, "server/discover", json!({}))], "2026-07-28").0);
        assert!(!judge_version_retry(std::slice::from_ref(&first), "2026-07-28").0);
        let init = json!({"jsonrpc": "2.0", "id": 2, "method": "initialize", "params": {}});
        assert!(!judge_version_retry(&[first, init], "2026-07-28").0);
    }

    #[test]
    fn refetches_within_ttl_are_named() {
        let t0 = Instant::now();
        let list = |id| req(id, "tools/list", json!({}));
        let answer = |id, ttl: u64| json!({"jsonrpc": "2.0", "id": id, "result": {"tools": [], "ttlMs": ttl, "cacheScope": "public", "resultType": "complete"}});
        let received = [list(1), list(2)];
        let at = [t0, t0 + Duration::from_millis(10)];
        let sent = [
            (t0 + Duration::from_millis(1), answer(1, 60_000)),
            (t0 + Duration::from_millis(11), answer(2, 60_000)),
        ];
        assert_eq!(refetched_while_fresh(&received, &at, &sent).len(), 1);
        let stale =
            [(t0 + Duration::from_millis(1), answer(1, 0)), (t0 + Duration::from_millis(11), answer(2, 0))];
        assert!(refetched_while_fresh(&received, &at, &stale).is_empty());
        let other_page = [list(1), req(2, "tools/list", json!({"cursor": "c"}))];
        assert!(refetched_while_fresh(&other_page, &at, &sent).is_empty());
    }

    #[test]
    fn every_next_cursor_must_come_back() {
        let list = |id, cursor: Option<&str>| {
            let params = cursor.map_or(json!({}), |c| json!({"cursor": c}));
            req(id, "tools/list", params)
        };
        let cursors = ["".to_owned(), "p3".to_owned()];
        let all = [list(1, None), list(2, Some("")), list(3, Some("p3"))];
        assert!(judge_pages(&all, &cursors).unwrap().0);
        let stopped = [list(1, None)];
        assert!(!judge_pages(&stopped, &cursors).unwrap().0);
        assert_eq!(judge_pages(&[req(1, "server/discover", json!({}))], &cursors), None);
    }

    #[test]
    fn a_result_without_result_type_is_used_not_asked_for_again() {
        let t = Instant::now();
        let list = |id, cursor: Option<&str>| {
            let params = cursor.map_or(json!({}), |c| json!({"cursor": c}));
            req(id, "tools/list", params)
        };
        let page = |id, next: Option<&str>| {
            let mut r = json!({"tools": [{"name": "a"}]});
            if let Some(n) = next {
                r["nextCursor"] = json!(n);
            }
            (t, json!({"jsonrpc": "2.0", "id": id, "result": r}))
        };
        let sent = [page(1, Some("c2")), page(2, None), page(3, Some("c2"))];
        let paged = [list(1, None), list(2, Some("c2")), req(4, "tools/call", json!({"name": "a"}))];
        assert!(judge_absent_result_type(&paged, &sent).unwrap().0);
        let again = [list(1, None), list(3, None)];
        assert!(!judge_absent_result_type(&again, &sent).unwrap().0);
        assert_eq!(judge_absent_result_type(&[list(2, Some("c2"))], &sent), None, "no use made of it");
    }

    #[test]
    fn outcomes_pair_calls_with_answers() {
        let t = Instant::now();
        let sent = answers(&[
            (
                t,
                json!({"jsonrpc": "2.0", "id": 1, "result": {"resultType": "input_required", "inputRequests": {}}}),
            ),
            (t, json!({"jsonrpc": "2.0", "id": 2, "result": {"content": [], "resultType": "complete"}})),
            (t, json!({"jsonrpc": "2.0", "id": "s", "method": "x"})),
        ]);
        assert_eq!(outcome(Some(&json!(1)), &sent), Outcome::InputRequired);
        assert_eq!(outcome(Some(&json!(2)), &sent), Outcome::Complete);
        assert_eq!(outcome(Some(&json!(3)), &sent), Outcome::Unanswered);
    }
}
