//! Steps of the cancellation and progress scenarios (basic/utilities/cancellation.mdx,
//! basic/utilities/progress.mdx): the scenario server cancels its own requests, cancels one it
//! never sent, answers a request the client cancelled, and sends progress and list_changed
//! notifications while the client waits.

use super::{what, ClientWorld, Halt, QUIET};
use crate::suite::scenario::Scenario as _;
use cucumber::{then, when};
use mcpspec::session::client::ClientWaitError;
use mcpspec_protocol::capabilities::declares;
use mcpspec_protocol::wire::{Message, RequestId};
use mcpspec_protocol::Revision;
use serde_json::{json, Value};
use std::time::Duration;

/// How long a client has to cancel its own request in client-cancellation/late-response (a
/// client opts into it by the scenario's name; one that does not is skipped after this).
const CANCEL_WITHIN: Duration = Duration::from_secs(2);

fn cancel(id: &RequestId, reason: &str) -> Value {
    Message::notification(
        "notifications/cancelled",
        Some(json!({ "requestId": id.to_value(), "reason": reason })),
    )
    .to_value()
}

/// Whether `i` is a response (result or error) with this id.
fn answers(i: &Value, id: &RequestId) -> bool {
    i.get("method").is_none() && i.get("id") == Some(&id.to_value())
}

#[when("the scenario server sends a request and cancels it at once")]
async fn sends_and_cancels(w: &mut ClientWorld) -> Result<(), Halt> {
    // The request the client is likeliest to still be working on when the cancel arrives.
    let caps = w.client_capabilities.clone().unwrap_or(json!({}));
    let (method, params) = if declares(&caps, "sampling") {
        let ask = json!({ "role": "user", "content": { "type": "text", "text": "Say hello." } });
        ("sampling/createMessage", Some(json!({ "messages": [ask], "maxTokens": 50 })))
    } else if declares(&caps, "roots") {
        ("roots/list", None)
    } else {
        ("ping", None)
    };
    let session = w.session()?;
    let sent = match session.send_request(method, params).await {
        Ok(id) => {
            session.send_value(&cancel(&id, "mcpspec: the scenario cancels it at once")).await.map(|()| id)
        }
        Err(e) => Err(e),
    };
    match sent {
        Ok(id) => {
            w.cancelled = Some(id);
            w.cancelled_at = Some(tokio::time::Instant::now());
            Ok(())
        }
        Err(e) => Err(w.lost(format!("the client reads the {method} request and its cancellation"), e)),
    }
}

/// cancellation.mdx#behavior-requirements: receivers SHOULD "not send a response for the
/// cancelled request". An answer that crossed the cancellation is fine; one sent once the
/// cancellation had time to arrive is not. "Time to arrive" is measured, not guessed: the
/// session's grace ([`mcpspec::session::client::ClientSession::grace`], a few times the slowest
/// ping round trip). The client is watched until it answers the request (the verdict is then
/// known: the answer crossed the cancellation or came late), or else until the timeout has
/// passed since the cancellation: an answer later than that would count as none for any request.
#[then("the client does not answer it once the cancellation has had time to arrive")]
async fn no_answer_after_cancel(w: &mut ClientWorld) -> Result<(), Halt> {
    let (Some(id), Some(at)) = (w.cancelled.clone(), w.cancelled_at) else {
        return Err(w.harness_error("no request was cancelled (a When step is missing)".into()));
    };
    let left = (at + w.timeout()).saturating_duration_since(tokio::time::Instant::now());
    let session = w.session()?;
    let already = session.received.iter().any(|v| answers(v, &id));
    if !already {
        // Served meanwhile; the answer itself is recorded in `received` and judged below.
        let _ = session.wait_for(left, |i| i.value.as_ref().is_some_and(|v| answers(v, &id))).await;
    }
    let grace = session.grace();
    let round_trip = match session.slowest_round_trip() {
        Some(rtt) => format!("the slowest ping round trip was {rtt:.1?}"),
        None => "no ping round trip was measured".to_owned(),
    };
    let after: Vec<Duration> = session
        .received
        .iter()
        .zip(&session.received_at)
        .filter(|(v, _)| answers(v, &id))
        .map(|(_, t)| t.saturating_duration_since(at))
        .collect();
    let late = after.iter().find(|d| **d > grace);
    let expected = format!(
        "no answer to request {id} more than {grace:.1?} after its cancellation was sent ({round_trip})"
    );
    let actual = match (after.first(), late) {
        (None, _) => "no answer: it stopped processing the request".to_owned(),
        (_, Some(d)) => format!("an answer {d:.1?} after the cancellation was sent"),
        (Some(d), None) => format!("an answer {d:.1?} after the cancellation: it crossed it"),
    };
    w.check(late.is_none(), expected, actual);
    Ok(())
}

#[when("the scenario server cancels a request it never sent")]
async fn cancels_unknown(w: &mut ClientWorld) -> Result<(), Halt> {
    let never = RequestId::from("mcpspec-never-sent");
    let sent =
        w.session()?.send_value(&cancel(&never, "mcpspec: a cancellation the client must ignore")).await;
    sent.map_err(|e| w.lost("the client reads the cancellation".into(), e))
}

#[then("the client answered the cancelled request at most once")]
async fn answered_at_most_once(w: &mut ClientWorld) -> Result<(), Halt> {
    let Some(id) = w.cancelled.clone() else {
        return Err(w.harness_error("no request was cancelled (a When step is missing)".into()));
    };
    let n = w.session()?.received.iter().filter(|v| answers(v, &id)).count();
    let actual = match n {
        0 => "no answer: it stopped processing the request, as receivers SHOULD".to_owned(),
        1 => "one answer, tolerated: it may have crossed the cancellation".to_owned(),
        n => format!("{n} answers to request {id}"),
    };
    w.check(n <= 1, format!("at most one answer to the cancelled request {id}"), actual);
    Ok(())
}

#[then("the client cancels it")]
async fn client_cancels(w: &mut ClientWorld) -> Result<(), Halt> {
    let Some((id, method)) = w.held.as_ref().and_then(|i| match &i.message {
        Some(Message::Request(r)) => Some((r.id.clone(), r.method.clone())),
        _ => None,
    }) else {
        return Err(w.harness_error("no request of the client's is held (a When step is missing)".into()));
    };
    let within = CANCEL_WITHIN.min(w.timeout());
    let is_cancel = |i: &mcpspec::judge::checker::Inspection| matches!(&i.message, Some(Message::Notification(n)) if n.method == "notifications/cancelled");
    let found = w.session()?.wait_for(within, is_cancel).await;
    let expected = format!("notifications/cancelled naming request {id} ({})", id.type_name());
    match found {
        Ok(i) => {
            let named = i.value.as_ref().and_then(|v| v.pointer("/params/requestId")).cloned();
            let ok = named.as_ref() == Some(&id.to_value());
            let actual = format!(
                "notifications/cancelled naming {}",
                mcpspec_protocol::wire::describe(named.as_ref())
            );
            w.check(ok, expected, actual);
            w.cancelled = Some(id);
            Ok(())
        }
        Err(ClientWaitError::Timeout(_)) => Err(w.skip(format!(
            "the client did not cancel its {method} request within {within:?} (a client opts into this \
             scenario by its name in MCP_CONFORMANCE_SCENARIO)"
        ))),
        Err(e) => Err(w.skip(format!("the client did not cancel its {method} request: {e}"))),
    }
}

#[then("the client ignores the late response")]
async fn ignores_late_response(w: &mut ClientWorld) -> Result<(), Halt> {
    let Some(id) = w.cancelled.clone() else {
        return Err(w.harness_error("no request was cancelled (a step is missing)".into()));
    };
    let mut about_it = Vec::new();
    w.session()?
        .watch(QUIET, |i| {
            if i.value.as_ref().is_some_and(|v| answers(v, &id)) {
                about_it.push(what(i));
            }
            true
        })
        .await;
    let expected = format!("no reply to the response that arrived after request {id} was cancelled");
    let actual = match about_it.is_empty() {
        true => format!("nothing about it within {QUIET:?}"),
        false => format!("the client sent {}", about_it.join(", ")),
    };
    w.check(about_it.is_empty(), expected, actual);
    Ok(())
}

#[when("the scenario server sends progress and list_changed notifications")]
async fn sends_progress(w: &mut ClientWorld) -> Result<(), Halt> {
    let token = w.held_value("/params/_meta/progressToken");
    let revision = w.scenario.revision;
    let session = w.session()?;
    let declared = session.server_capabilities.clone().unwrap_or(json!({}));
    let mut notifications = Vec::new();
    if let Some(token) = token {
        for progress in [1, 2] {
            let mut params = json!({ "progressToken": token, "progress": progress, "total": 2 });
            // `message` arrived in 2025-03-26.
            if revision >= Revision::V2025_03_26 {
                params["message"] = json!(format!("step {progress} of 2"));
            }
            notifications.push(Message::notification("notifications/progress", Some(params)));
        }
    }
    for (method, needs) in [
        ("notifications/tools/list_changed", "tools.listChanged"),
        ("notifications/prompts/list_changed", "prompts.listChanged"),
        ("notifications/resources/list_changed", "resources.listChanged"),
    ] {
        if declares(&declared, needs) {
            notifications.push(Message::notification(method, None));
        }
    }
    if notifications.is_empty() {
        return Err(w.skip("no progress token to report on and no listChanged capability declared".into()));
    }
    for n in &notifications {
        if let Err(e) = w.session()?.send(n).await {
            return Err(w.lost("the client reads the notifications".into(), e));
        }
    }
    Ok(())
}
