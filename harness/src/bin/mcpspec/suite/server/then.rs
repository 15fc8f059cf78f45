//! Then: what the server must have done.

use super::{initialize_params, outcome_text, step_json, Halt, ServerWorld};
use crate::suite::scenario::Scenario as _;
use cucumber::then;
use mcpspec::session::server::WaitError;
use mcpspec_protocol::wire::{describe, Message, Outcome, RequestId};
use mcpspec_protocol::Revision;
use mcpspec_reference::transport::child::describe_status;
use serde_json::{json, Value};
use std::collections::HashSet;
use std::time::{Duration, Instant};

/// How long "nothing more arrives" is watched for.
const QUIET: Duration = Duration::from_millis(100);

#[then("the server answers with a result")]
async fn answers_with_a_result(w: &mut ServerWorld) -> Result<(), Halt> {
    let what = w.pending.first().map(|p| p.what.clone()).unwrap_or_default();
    let r = w.await_answer().await?;
    if matches!(r.outcome, Outcome::Result(_)) {
        w.check(true, format!("a result answering {what}"), outcome_text(&r));
        Ok(())
    } else {
        Err(w.fail(format!("a result answering {what}"), outcome_text(&r)))
    }
}

#[then(regex = r"^the server answers with the result (.+)$")]
async fn answers_with_the_result(w: &mut ServerWorld, expected: String) -> Result<(), Halt> {
    let want = step_json(w, &expected)?;
    let r = w.await_answer().await?;
    let ok = matches!(&r.outcome, Outcome::Result(v) if same_result(v, &want));
    w.check(ok, format!("the result {want}"), outcome_text(&r));
    Ok(())
}

/// Every result may carry `_meta` (basic/index.mdx#_meta; the schema's `Result`): an empty result
/// with metadata is still the empty result a scenario expects, unless the scenario names `_meta`.
fn same_result(actual: &Value, want: &Value) -> bool {
    let strip = |v: &Value| match v {
        Value::Object(o) if want.get("_meta").is_none() => Value::Object(
            o.iter().filter(|(k, _)| *k != "_meta").map(|(k, v)| (k.clone(), v.clone())).collect(),
        ),
        other => other.clone(),
    };
    strip(actual) == *want
}

#[then("the server answers with a result or an error")]
async fn answers_at_all(w: &mut ServerWorld) -> Result<(), Halt> {
    let what = w.pending.first().map(|p| p.what.clone()).unwrap_or_default();
    let r = w.await_answer().await?;
    w.check(true, format!("a result or an error answering {what}"), outcome_text(&r));
    Ok(())
}

#[then(regex = r"^the server answers with error (-?\d+)(?: or (-?\d+))?$")]
async fn answers_with_error(w: &mut ServerWorld, code: String, other: String) -> Result<(), Halt> {
    let codes: Vec<i64> = [code, other].iter().filter_map(|c| c.parse().ok()).collect();
    let r = w.await_answer().await?;
    let ok = matches!(&r.outcome, Outcome::Error(e) if codes.contains(&e.code));
    let want = codes.iter().map(|c| c.to_string()).collect::<Vec<_>>().join(" or ");
    w.check(ok, format!("error {want}"), outcome_text(&r));
    Ok(())
}

/// server/resources.mdx#security-considerations (2026-07-28): servers sanitize file paths
/// against directory traversal. Any error will do; contents will not.
#[then("the server refuses to read it")]
async fn refuses_to_read(w: &mut ServerWorld) -> Result<(), Halt> {
    let r = w.await_answer().await?;
    let refused = matches!(r.outcome, Outcome::Error(_));
    w.check(
        refused,
        "an error: the path leaves the folder of the server's file:// resources",
        outcome_text(&r),
    );
    Ok(())
}

#[then(regex = r"^the server answers with an error, preferably (-?\d+)$")]
async fn answers_with_an_error_preferably(w: &mut ServerWorld, code: String) -> Result<(), Halt> {
    let preferred: i64 = code.parse().unwrap_or_default();
    let r = w.await_answer().await?;
    match &r.outcome {
        Outcome::Error(e) if e.code == preferred => {
            w.check(true, format!("error {preferred}"), outcome_text(&r))
        }
        Outcome::Error(_) => {
            let doc = w.scenario.doc().to_owned();
            w.warn(&doc, format!("error {preferred}, the code the spec's example uses"), outcome_text(&r));
        }
        Outcome::Result(_) => {
            w.check(false, format!("a JSON-RPC error (preferably {preferred})"), outcome_text(&r))
        }
    }
    Ok(())
}

#[then(regex = r"^the response id is exactly (.+)$")]
async fn response_id_is(w: &mut ServerWorld, id: String) -> Result<(), Halt> {
    let want = step_json(w, &id)?;
    let got = w.response.as_ref().and_then(|r| r.id.as_ref()).map(RequestId::to_value);
    let ok = got.as_ref() == Some(&want)
        && got.as_ref().map(RequestId::from_value) == Some(RequestId::from_value(&want));
    w.check(ok, format!("id {want} ({})", mcpspec_protocol::wire::json_type(&want)), describe(got.as_ref()));
    Ok(())
}

#[then(regex = r#"^the result has the members ((?:"[^"]+"(?:, )?)+)$"#)]
async fn result_has_members(w: &mut ServerWorld, list: String) -> Result<(), Halt> {
    let result = w.last_result()?;
    for name in list.split('"').skip(1).step_by(2) {
        let found = result.get(name);
        let actual = match found {
            Some(v) => format!("{name:?}: {}", describe(Some(v))),
            None => format!("no {name:?} in {}", describe(Some(&result))),
        };
        w.check(found.is_some(), format!("the result has {name:?}"), actual);
    }
    Ok(())
}

#[then(regex = r#"^the result's "([^"]+)" is the revision under test$"#)]
async fn result_member_is_revision(w: &mut ServerWorld, member: String) -> Result<(), Halt> {
    let result = w.last_result()?;
    let want = w.scenario.revision.as_str();
    let got = result.get(&member);
    w.check(got == Some(&Value::from(want)), format!("{member:?}: \"{want}\""), describe(got));
    Ok(())
}

/// A server answers initialize with a revision it supports (lifecycle.mdx#version-negotiation),
/// so the revision it answered with, offered to a fresh process of its own, must be echoed.
/// Where it answered with the revision offered, this exchange was that offer already: the same
/// bytes to a fresh process, which another would only repeat.
#[then("the revision it answered with, offered in turn to a fresh process, is echoed")]
async fn answered_revision_echoed(w: &mut ServerWorld) -> Result<(), Halt> {
    let answered = w.last_result()?.get("protocolVersion").cloned();
    let Some(Value::String(version)) = answered else {
        let actual = format!("protocolVersion {}", describe(answered.as_ref()));
        return Err(w.fail("an initialize result naming the revision as a string", actual));
    };
    let expected = format!(
        "\"protocolVersion\": \"{version}\", the revision the server answered with, echoed when offered"
    );
    if w.offered.as_deref() == Some(version.as_str()) {
        let actual = format!("{version:?} was the revision offered, and the server echoed it");
        w.check(true, expected, actual);
        return Ok(());
    }
    w.restart().await?;
    w.offered = Some(version.clone());
    w.send_request("initialize", Some(initialize_params(&version, &json!({})))).await?;
    w.await_answer().await?;
    let got = w.last_result()?.get("protocolVersion").cloned();
    w.check(got.as_ref() == Some(&Value::from(version.as_str())), expected, describe(got.as_ref()));
    Ok(())
}

#[then("the server counter-offers a revision it supports")]
async fn counter_offers(w: &mut ServerWorld) -> Result<(), Halt> {
    let offered = w.offered.clone().unwrap_or_default();
    let r = w.await_answer().await?;
    let expected =
        format!("a result whose protocolVersion is a revision the server supports, not {offered:?}");
    match &r.outcome {
        Outcome::Result(result) => match result.get("protocolVersion") {
            Some(Value::String(v)) if *v == offered => {
                w.check(false, expected, format!("protocolVersion {v:?}: the unsupported version was echoed"))
            }
            Some(Value::String(v)) if v.parse::<Revision>().is_ok() => {
                w.check(true, expected, format!("protocolVersion {v:?}"))
            }
            Some(Value::String(v)) => w.warn(
                "basic/lifecycle.mdx#version-negotiation",
                expected,
                format!("protocolVersion {v:?}, a revision mcpspec does not know"),
            ),
            other => w.check(false, expected, format!("protocolVersion {}", describe(other))),
        },
        // lifecycle.mdx's own Error Handling example answers this way, against the MUST of its
        // Version Negotiation section (spec-digest §T1): a deviation, not a failure.
        Outcome::Error(e) => w.warn(
            "basic/lifecycle.mdx#error-handling",
            expected,
            format!(
                "error {}: {} — as in the spec's Error Handling example, but the normative text requires a counter-offer",
                e.code, e.message
            ),
        ),
    }
    Ok(())
}

#[then("the server answers every request")]
async fn answers_every_request(w: &mut ServerWorld) -> Result<(), Halt> {
    let n = w.pending.len();
    while !w.pending.is_empty() {
        w.await_answer().await?;
    }
    w.check(n > 0, format!("an answer to each of the {n} requests"), format!("{n} answered"));
    Ok(())
}

#[then("the session is still alive")]
async fn still_alive(w: &mut ServerWorld) -> Result<(), Halt> {
    // Answers to what was sent before (or their absence) are the business of other steps;
    // what arrives meanwhile is still recorded and judged.
    w.pending.clear();
    let within = w.timeout();
    // ping ({} expected) in the legacy era; server/discover (any result) in the modern one.
    let (method, params) = w.session()?.liveness_request();
    let expected = match method {
        "ping" => "the session still answers ping with {}".to_owned(),
        other => format!("the server still answers {other} with a result"),
    };
    let answer = w.session()?.send_request_as_is(method, params).await;
    let answer = match answer {
        Ok(id) => w.session()?.wait_response(&id, within).await,
        Err(e) => Err(e.into()),
    };
    match answer {
        Ok(r) => {
            let good = match &r.outcome {
                Outcome::Result(v) => method != "ping" || v.as_object().is_some_and(|o| o.is_empty()),
                Outcome::Error(_) => false,
            };
            w.check(good, expected, outcome_text(&r))
        }
        Err(e) => {
            let mut actual = format!("{method}: {e}");
            w.append_stderr(&mut actual);
            return Err(w.fail(expected, actual));
        }
    }
    let _ = w.session()?.drain(QUIET).await;
    Ok(())
}

#[then("the server answers the request or drops it")]
async fn answers_or_drops(w: &mut ServerWorld) -> Result<(), Halt> {
    let Some(pending) = w.pending.pop() else {
        return Err(w.harness_error("no request awaits an answer".into()));
    };
    let Some(id) = pending.id else { return Err(w.harness_error("the request has no id".into())) };
    // cancellation.mdx: after a cancel the receiver SHOULD not respond, but a response that
    // crossed the cancel is legal; either way, at most one (the checker fails a second).
    let answer = w.session()?.wait_response(&id, Duration::from_millis(500)).await;
    let actual = match answer {
        Ok(r) => format!("answered ({}) — it crossed the cancel", outcome_text(&r)),
        Err(_) => "no response, as the cancel asked".to_owned(),
    };
    w.check(true, "a response that crossed the cancel, or none", actual);
    Ok(())
}

#[then("the listing ends")]
async fn listing_ends(w: &mut ServerWorld) -> Result<(), Halt> {
    let Some(listing) = w.listing.as_ref() else { return Err(w.harness_error("nothing was listed".into())) };
    let actual = match &listing.unfinished {
        None => {
            format!("{} items on {} page(s), the last without nextCursor", listing.items.len(), listing.pages)
        }
        Some(why) => why.clone(),
    };
    let expected = format!("{} pages that end", listing.method);
    let ended = listing.unfinished.is_none();
    w.check(ended, expected, actual);
    Ok(())
}

#[then(expr = "no {string} appears twice in the listing")]
async fn no_duplicates(w: &mut ServerWorld, key: String) -> Result<(), Halt> {
    let Some(listing) = w.listing.as_ref() else { return Err(w.harness_error("nothing was listed".into())) };
    let mut seen = HashSet::new();
    let twice: Vec<String> = listing
        .items
        .iter()
        .filter_map(|i| i.member(&key).map(|v| v.to_string()))
        .filter(|k| !seen.insert(k.clone()))
        .collect();
    let actual = if twice.is_empty() {
        format!("{} distinct items", listing.items.len())
    } else {
        format!("listed more than once: {}", twice.join(", "))
    };
    w.check(twice.is_empty(), format!("each {key} once across all pages"), actual);
    Ok(())
}

#[then(expr = "the result's {string} holds at most {int} items")]
async fn holds_at_most(w: &mut ServerWorld, pointer: String, max: usize) -> Result<(), Halt> {
    let result = w.last_result()?;
    let path = format!("/{}", pointer.replace('.', "/"));
    let n = result.pointer(&path).and_then(Value::as_array).map(Vec::len);
    let actual = match n {
        Some(n) => format!("{n} items"),
        None => format!("no array at {pointer}"),
    };
    w.check(n.is_some_and(|n| n <= max), format!("{pointer} with at most {max} items"), actual);
    Ok(())
}

#[then(regex = r"^the tool result is (not )?an error$")]
async fn tool_result_is_error(w: &mut ServerWorld, not: String) -> Result<(), Halt> {
    let want = not.is_empty();
    let result = w.last_result()?;
    let is_error = result.get("isError") == Some(&Value::Bool(true));
    let actual = format!("isError {}", describe(result.get("isError")));
    w.check(is_error == want, if want { "isError: true" } else { "a result without isError: true" }, actual);
    Ok(())
}

#[then("the contents name the resource")]
async fn contents_name_resource(w: &mut ServerWorld) -> Result<(), Halt> {
    let result = w.last_result()?;
    let uri = w.subject.as_ref().and_then(|r| r.get("uri")).cloned().unwrap_or(Value::Null);
    let contents = result.get("contents").and_then(Value::as_array).cloned().unwrap_or_default();
    let ok = !contents.is_empty() && contents.iter().any(|c| c.get("uri") == Some(&uri));
    let actual = format!(
        "{} content item(s), uris {:?}",
        contents.len(),
        contents.iter().map(|c| c.get("uri")).collect::<Vec<_>>()
    );
    w.check(ok, format!("contents for {uri}"), actual);
    Ok(())
}

#[then(expr = "the server sent a {string} request")]
async fn server_sent_request(w: &mut ServerWorld, method: String) -> Result<(), Halt> {
    let seen: Vec<String> = w.session()?.server_requests.iter().map(|r| r.method.clone()).collect();
    let ok = seen.contains(&method);
    w.check(ok, format!("a {method} request from the server"), format!("server requests: {seen:?}"));
    Ok(())
}

#[then(expr = "the server sent no {string} request")]
async fn server_sent_no_request(w: &mut ServerWorld, method: String) -> Result<(), Halt> {
    let _ = w.session()?.drain(QUIET).await;
    let seen: Vec<String> = w.session()?.server_requests.iter().map(|r| r.method.clone()).collect();
    let ok = !seen.contains(&method);
    w.check(ok, format!("no {method} request from the server"), format!("server requests: {seen:?}"));
    Ok(())
}

#[then(expr = "the server sent progress for the token {string}")]
async fn server_sent_progress(w: &mut ServerWorld, token: String) -> Result<(), Halt> {
    let _ = w.session()?.drain(QUIET).await;
    let n = w
        .session()?
        .notifications
        .iter()
        .filter(|m| match m {
            Message::Notification(n) => {
                n.method == "notifications/progress"
                    && n.params.as_ref().and_then(|p| p.get("progressToken"))
                        == Some(&Value::from(token.as_str()))
            }
            _ => false,
        })
        .count();
    w.check(
        n > 0,
        format!("notifications/progress for token {token:?}"),
        format!("{n} progress notification(s)"),
    );
    Ok(())
}

#[then(expr = "the server sends nothing but pings and logging for {float} s")]
async fn quiet_but_pings_and_logging(w: &mut ServerWorld, seconds: f64) -> Result<(), Halt> {
    let session = w.session()?;
    let (requests, notifications) = (session.server_requests.len(), session.notifications.len());
    let _ = session.drain(Duration::from_secs_f64(seconds.clamp(0.0, 30.0))).await;
    let mut others: Vec<String> = session.server_requests[requests..]
        .iter()
        .filter(|r| r.method != "ping")
        .map(|r| r.method.clone())
        .collect();
    others.extend(session.notifications[notifications..].iter().filter_map(|m| match m {
        Message::Notification(n) if n.method != "notifications/message" => Some(n.method.clone()),
        _ => None,
    }));
    let actual = if others.is_empty() { "nothing else".to_owned() } else { format!("also {others:?}") };
    w.check(others.is_empty(), format!("only pings and logging for {seconds} s"), actual);
    Ok(())
}

#[then(regex = r"^the server answers the batch with responses to (.+)$")]
async fn answers_the_batch(w: &mut ServerWorld, ids: String) -> Result<(), Halt> {
    let wanted: Vec<RequestId> = match step_json(w, &format!("[{ids}]"))? {
        Value::Array(items) => items.iter().filter_map(RequestId::from_value).collect(),
        _ => Vec::new(),
    };
    // The whole batch is due within one timeout, not one per request: the requests went out
    // together, so a server that answers none of them costs one wait, not one each.
    let within = w.timeout();
    let deadline = Instant::now() + within;
    let mut missing = Vec::new();
    let mut why = None;
    for id in &wanted {
        let left = deadline.saturating_duration_since(Instant::now());
        if let Err(e) = w.session()?.wait_response(id, left).await {
            missing.push(id.to_string());
            let e = match e {
                WaitError::Timeout(_) => WaitError::Timeout(within),
                e => e,
            };
            why.get_or_insert(e.to_string());
        }
    }
    let actual = match why {
        None => "all answered".to_owned(),
        Some(why) => format!("no response to {} ({why})", missing.join(", ")),
    };
    w.check(missing.is_empty(), format!("a response to each of {ids}"), actual);
    Ok(())
}

#[then("the server exits within the timeout")]
async fn exits_within_timeout(w: &mut ServerWorld) -> Result<(), Halt> {
    let within = w.timeout();
    let exited = w.session()?.close_stdin_and_wait(within).await;
    let expected = format!("the server exits within {within:?} of its stdin closing");
    match exited {
        Some(status) => {
            w.check(true, expected, format!("{} after its stdin was closed", describe_status(status)))
        }
        None => {
            let report = w.session()?.shutdown().await;
            w.check(false, expected, format!("still running after {within:?}; {}", report.describe()));
        }
    }
    Ok(())
}

#[then("the server does not answer the cancelled request")]
async fn does_not_answer_cancelled(w: &mut ServerWorld) -> Result<(), Halt> {
    let Some(pending) = w.pending.pop() else {
        return Err(w.harness_error("no request awaits an answer".into()));
    };
    let Some(id) = pending.id else { return Err(w.harness_error("the request has no id".into())) };
    // The cancel went out after the request reported progress; cancellation.mdx: the receiver
    // SHOULD not send a response for it. A response the server wrote before it read the cancel
    // crossed it ("due to communication latency"), which no server can help: a loaded machine
    // delays the cancel past a quick tool's end (the reference server's, now and then).
    if crossed_cancellation(w, &id).await? {
        return Err(w.skip(
            "inconclusive: the request was answered before the server had read the cancellation (it crossed it)"
                .into(),
        ));
    }
    let answer = w.session()?.wait_response(&id, Duration::from_secs(1)).await;
    let actual = match &answer {
        Ok(r) => format!("answered anyway, after the server had read the cancellation ({})", outcome_text(r)),
        Err(_) => "no response within 1s of the server's reading the cancel".to_owned(),
    };
    w.check(answer.is_err(), "no response once the cancel was processed", actual);
    Ok(())
}

/// Sends a liveness request after a cancellation and waits for its answer, by which the server
/// has read the cancellation (it reads in order); whether the cancelled request `id` had been
/// answered by then, that is, its response crossed the cancellation.
async fn crossed_cancellation(w: &mut ServerWorld, id: &RequestId) -> Result<bool, Halt> {
    let within = w.timeout();
    let (method, params) = w.session()?.liveness_request();
    let barrier = match w.session()?.send_request_as_is(method, params).await {
        Ok(barrier) => barrier,
        Err(e) => return Err(w.fail("the server reads on after the cancellation", e.to_string())),
    };
    if let Err(e) = w.session()?.wait_response(&barrier, within).await {
        return Err(w.fail(format!("an answer to the {method} sent after the cancellation"), e.to_string()));
    }
    Ok(w.session()?.wait_response(id, Duration::from_millis(1)).await.is_ok())
}

/// basic/transports/stdio.mdx#cancellation (2026-07-28): once the server has the cancellation,
/// it MUST NOT send anything more for the request. When it had it shows by a barrier: the
/// liveness request sent after the cancellation is answered once the server has read it (stdio
/// is read in order). A response or progress before the barrier's answer crossed the
/// cancellation; after it, nothing of the request may come.
#[then("the server sends nothing more for the cancelled request once it has read the cancellation")]
async fn silent_after_cancel(w: &mut ServerWorld) -> Result<(), Halt> {
    let Some(id) = w.pending.pop().and_then(|p| p.id) else {
        return Err(w.harness_error("no request awaits an answer".into()));
    };
    let token = w.last_sent.as_ref().and_then(|(_, p)| p.as_ref()?.pointer("/_meta/progressToken").cloned());
    let progress = |w: &mut ServerWorld| -> Result<usize, Halt> {
        Ok(w.session()?
            .notifications
            .iter()
            .filter(|m| {
                matches!(m, Message::Notification(n) if n.method == "notifications/progress"
                && n.params.as_ref().and_then(|p| p.get("progressToken")) == token.as_ref())
            })
            .count())
    };
    let crossed = crossed_cancellation(w, &id).await?;
    let progress_at_barrier = progress(w)?;
    let _ = w.session()?.drain(Duration::from_millis(500)).await;
    let answered_after = !crossed && w.session()?.wait_response(&id, Duration::from_millis(1)).await.is_ok();
    let progress_after = progress(w)? - progress_at_barrier;
    let mut after = Vec::new();
    if answered_after {
        after.push("a response".to_owned());
    }
    if progress_after > 0 {
        after.push(format!("{progress_after} progress notification(s)"));
    }
    let actual = match (after.is_empty(), crossed) {
        (true, true) => "its response crossed the cancellation; nothing after the server read it".to_owned(),
        (true, false) => {
            "nothing for it once the server had read the cancellation (500 ms watched)".to_owned()
        }
        (false, _) => format!("{} for it after the server had read the cancellation", after.join(" and ")),
    };
    w.check(after.is_empty(), "nothing more for the request once the cancellation was read", actual);
    Ok(())
}

#[then("the structured content conforms to the output schema")]
async fn structured_content_conforms(w: &mut ServerWorld) -> Result<(), Halt> {
    let result = w.last_result()?;
    if result.get("isError") == Some(&Value::Bool(true)) {
        // tools.mdx#output-schema binds the structured results of successful calls; an error
        // result (e.g. arguments the tool refused) says nothing either way.
        let text = result.pointer("/content/0/text").and_then(Value::as_str).unwrap_or_default();
        return Err(w.skip(format!(
            "inconclusive: the tool answered with an error result (isError: true), which its outputSchema does not bind: {}",
            text.chars().take(200).collect::<String>()
        )));
    }
    let schema = w.subject.as_ref().and_then(|t| t.get("outputSchema")).cloned().unwrap_or(Value::Null);
    let Some(content) = result.get("structuredContent") else {
        w.check(false, "structuredContent conforming to the tool's outputSchema", "no structuredContent");
        return Ok(());
    };
    let validator = match jsonschema::validator_for(&schema) {
        Ok(v) => v,
        Err(e) => {
            w.check(
                false,
                "an outputSchema that is a valid JSON Schema",
                format!("it does not compile: {e}"),
            );
            return Ok(());
        }
    };
    let errors: Vec<String> =
        validator.iter_errors(content).map(|e| format!("{}: {e}", e.instance_path())).take(5).collect();
    let actual = if errors.is_empty() { "conforms".to_owned() } else { errors.join("; ") };
    w.check(errors.is_empty(), "structuredContent conforming to the tool's outputSchema", actual);
    Ok(())
}

/// RFC 5424 severities, least severe first (logging.mdx).
const LOG_LEVELS: [&str; 8] =
    ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"];

#[then(expr = "no log message below {string} arrived")]
async fn no_log_below(w: &mut ServerWorld, floor: String) -> Result<(), Halt> {
    let _ = w.session()?.drain(QUIET).await;
    let rank = |l: &str| LOG_LEVELS.iter().position(|x| *x == l);
    let Some(min) = rank(&floor) else {
        return Err(w.harness_error(format!("{floor:?} is not a log level")));
    };
    let levels: Vec<String> = w
        .session()?
        .notifications
        .iter()
        .filter_map(|m| match m {
            Message::Notification(n) if n.method == "notifications/message" => {
                n.params.as_ref().and_then(|p| p.get("level")).and_then(Value::as_str).map(str::to_owned)
            }
            _ => None,
        })
        .collect();
    let below: Vec<&String> = levels.iter().filter(|l| rank(l).is_some_and(|r| r < min)).collect();
    let actual = format!("log levels received: {levels:?}");
    w.check(below.is_empty(), format!("no notifications/message below {floor:?}"), actual);
    Ok(())
}

#[then(expr = "the server sends a {string} notification")]
async fn server_sends_notification(w: &mut ServerWorld, method: String) -> Result<(), Halt> {
    let within = w.timeout();
    let arrived = w.session()?.wait_notification(&method, within).await;
    w.check(
        arrived,
        format!("{method} within {within:?}"),
        if arrived { "received" } else { "none arrived" },
    );
    Ok(())
}

#[then(regex = r#"^the result's "([^"]+)" is not empty$"#)]
async fn result_member_not_empty(w: &mut ServerWorld, pointer: String) -> Result<(), Halt> {
    let result = w.last_result()?;
    let path = format!("/{}", pointer.replace('.', "/"));
    let found = result.pointer(&path);
    let ok = match found {
        Some(Value::Array(a)) => !a.is_empty(),
        Some(Value::String(s)) => !s.is_empty(),
        Some(Value::Object(o)) => !o.is_empty(),
        Some(Value::Null) | None => false,
        Some(_) => true,
    };
    w.check(ok, format!("a non-empty {pointer}"), describe(found));
    Ok(())
}

/// A server that answers a request of a feature it did not declare shows nothing of that
/// feature: an error (such as -32601) or an empty result pass, items or an item served fail
/// (server/tools.mdx, prompts.mdx, resources.mdx, utilities/completion.mdx: a server that
/// supports the feature MUST declare its capability). The Given steps have checked that the
/// capability is undeclared.
#[then("the server serves nothing it did not declare")]
async fn serves_nothing_undeclared(w: &mut ServerWorld) -> Result<(), Halt> {
    let method = w.last_sent.as_ref().map(|(m, _)| m.clone()).unwrap_or_default();
    let revision = w.scenario.revision;
    let capability = mcpspec_protocol::capabilities::server_capability_for(&method, revision).unwrap_or("?");
    let r = w.await_answer().await?;
    let expected = format!(
        "no {method} served, or the {capability:?} capability declared (the capabilities are {})",
        w.server_capabilities()?
    );
    let served = match &r.outcome {
        Outcome::Result(result) => mcpspec_protocol::capabilities::served(&method, result),
        Outcome::Error(_) => None,
    };
    match served {
        Some(what) => w.check(false, expected, format!("a result with {what}")),
        None => w.check(true, expected, outcome_text(&r)),
    }
    Ok(())
}

/// A tool called with arguments its inputSchema refuses must not succeed as if they were
/// good (server/tools.mdx#security-considerations: servers MUST validate all tool inputs):
/// a JSON-RPC error, or a result with `isError: true` (2025-11-25 names input validation
/// errors tool execution errors).
#[then("the server refuses the call with an error or a tool error")]
async fn refuses_the_call(w: &mut ServerWorld) -> Result<(), Halt> {
    let r = w.await_answer().await?;
    let refused = match &r.outcome {
        Outcome::Error(_) => true,
        Outcome::Result(result) => result.get("isError") == Some(&Value::Bool(true)),
    };
    w.check(refused, "a JSON-RPC error or a result with isError: true", outcome_text(&r));
    Ok(())
}

/// basic/index.mdx#json-schema-usage (2025-11-25 on): implementations validate by a schema's
/// declared dialect, JSON Schema 2020-12 when it declares none. Arguments only that dialect
/// refuses are refused as any invalid arguments are.
#[then("the server refuses the call, as its schema's own dialect does")]
async fn refuses_by_own_dialect(w: &mut ServerWorld) -> Result<(), Halt> {
    let schema = w.subject.as_ref().and_then(|t| t.get("inputSchema")).cloned().unwrap_or(Value::Null);
    let telling = mcpspec_protocol::dialect::telling_arguments(&schema);
    let expected = match telling {
        Some(t) => format!(
            "a JSON-RPC error or a result with isError: true: the arguments {} break the tool's \
             inputSchema under {}, its dialect, though {} would take them",
            t.arguments, t.own, t.other
        ),
        None => "a JSON-RPC error or a result with isError: true".to_owned(),
    };
    let r = w.await_answer().await?;
    let refused = match &r.outcome {
        Outcome::Error(_) => true,
        Outcome::Result(result) => result.get("isError") == Some(&Value::Bool(true)),
    };
    w.check(refused, expected, outcome_text(&r));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::same_result;
    use serde_json::json;

    #[test]
    fn an_empty_result_may_carry_meta() {
        assert!(same_result(&json!({}), &json!({})));
        assert!(same_result(&json!({"_meta": {"example.com/k": 1}}), &json!({})));
        assert!(!same_result(&json!({"extra": 1}), &json!({})));
        assert!(!same_result(&json!([]), &json!({})));
        assert!(
            !same_result(&json!({}), &json!({"_meta": {"k": 1}})),
            "a scenario that names _meta wants it"
        );
    }
}
