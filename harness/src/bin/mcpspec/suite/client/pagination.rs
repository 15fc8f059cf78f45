//! Steps of the pagination scenarios (server/utilities/pagination.mdx): the scenario server
//! pages its tool list itself, with a cursor a careless client would alter.

use super::{is_request, what, ClientWorld, Halt, QUIET};
use crate::suite::scenario::Scenario as _;
use cucumber::{then, when};
use mcpspec::judge::checker::Inspection;
use mcpspec::session::client::ClientWaitError;
use mcpspec_protocol::wire::{describe, Message};
use serde_json::{json, Value};

/// Answers the held request with `result`.
async fn answer_held_with(w: &mut ClientWorld, result: Value) -> Result<(), Halt> {
    let Some(Inspection { message: Some(Message::Request(r)), .. }) = w.held.take() else {
        return Err(w.harness_error("no request of the client's is held (a When step is missing)".into()));
    };
    let sent = w.session()?.send(&Message::result(r.id, result)).await;
    sent.map_err(|e| w.lost(format!("the client reads the answer to its {}", r.method), e))
}

#[when(regex = r#"^the scenario server answers it with a first page whose next cursor is "([^"]+)"$"#)]
async fn first_page(w: &mut ClientWorld, cursor: String) -> Result<(), Halt> {
    let tools = w.session()?.reference_tools();
    let half = tools.len().div_ceil(2);
    let (first, rest) = tools.split_at(half);
    w.cursor = Some((cursor.clone(), rest.to_vec()));
    answer_held_with(w, json!({ "tools": first, "nextCursor": cursor })).await
}

#[then("the client asks for the next page with that very cursor")]
async fn asks_next_page(w: &mut ClientWorld) -> Result<(), Halt> {
    let Some((cursor, _)) = w.cursor.clone() else {
        return Err(w.harness_error("no cursor was handed out (a When step is missing)".into()));
    };
    let within = w.timeout();
    // The next tools/list, or any other request but a ping: the client has moved on.
    let next = w
        .session()?
        .wait_for(within, |i| matches!(&i.message, Some(Message::Request(r)) if r.method != "ping"))
        .await;
    let i = match next {
        Ok(i) if is_request(&i, "tools/list") => i,
        Ok(i) => {
            return Err(w.skip(format!("the client did not ask for the next page; it sent {}", what(&i))))
        }
        Err(e @ (ClientWaitError::Timeout(_) | ClientWaitError::Closed(_) | ClientWaitError::Ended(_))) => {
            return Err(w.skip(format!("the client did not ask for the next page ({e})")))
        }
        Err(e) => return Err(w.lost("the client asks for the next page".into(), e)),
    };
    let sent = i.value.as_ref().and_then(|v| v.pointer("/params/cursor")).cloned();
    if sent.is_none() {
        return Err(w.skip("the client listed again from the start, without a cursor".into()));
    }
    let ok = sent.as_ref().and_then(Value::as_str) == Some(cursor.as_str());
    w.check(
        ok,
        format!("tools/list with the cursor {cursor:?}, unchanged"),
        format!("tools/list with the cursor {}", describe(sent.as_ref())),
    );
    w.held = Some(i);
    Ok(())
}

#[when("the scenario server answers it with the last page")]
async fn last_page(w: &mut ClientWorld) -> Result<(), Halt> {
    let Some((_, rest)) = w.cursor.clone() else {
        return Err(w.harness_error("no cursor was handed out (a When step is missing)".into()));
    };
    answer_held_with(w, json!({ "tools": rest })).await
}

#[then("the client asks for no page after the last")]
async fn no_page_after_last(w: &mut ClientWorld) -> Result<(), Halt> {
    let mut past_end = Vec::new();
    w.session()?
        .watch(QUIET, |i| {
            let cursor = i.value.as_ref().and_then(|v| v.pointer("/params/cursor"));
            if is_request(i, "tools/list") && cursor.is_some() {
                past_end.push(format!("tools/list with the cursor {}", describe(cursor)));
            }
            true
        })
        .await;
    let expected = "no further page requested after a result without nextCursor";
    let actual = match past_end.is_empty() {
        true => format!("no page requested within {QUIET:?}"),
        false => past_end.join(", "),
    };
    w.check(past_end.is_empty(), expected, actual);
    Ok(())
}
