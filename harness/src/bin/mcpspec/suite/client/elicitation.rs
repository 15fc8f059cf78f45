//! Elicitation steps of the client scenarios (client/elicitation.mdx): judging a client's
//! `ElicitResult` against the request it answers. The judgement is
//! `mcpspec_protocol::elicitation`'s; the steps only fetch, hand over and record.

use super::{client_answer, Answer, ClientWorld, Halt};
use crate::suite::scenario::Scenario as _;
use cucumber::{then, when};
use mcpspec_protocol::elicitation::{defaults_missing, judge_elicit_result};
use serde_json::Value;

/// The answer to the pending elicitation request, judged: accept, decline or cancel; accepted
/// form content satisfies the requested schema; URL mode answers carry no content.
#[then(
    regex = r"^the client answers it with accept, decline or cancel(?:, accepted content satisfying the requested schema| and no content)$"
)]
async fn answers_elicitation(w: &mut ClientWorld) -> Result<(), Halt> {
    let params = w.sent_params.clone().unwrap_or(Value::Null);
    let expected = match mcpspec_protocol::elicitation::mode(&params) {
        "url" => "action accept, decline or cancel, without content (URL mode)",
        _ => "action accept, decline or cancel; accepted content satisfying the requested schema",
    };
    let result = match client_answer(w, expected).await? {
        Answer::Result(v) => v,
        other => return Err(w.fail(expected, other.describe())),
    };
    let judged = judge_elicit_result(&params, &result).map_err(|e| w.harness_error(e))?;
    let actual = match judged.problems.is_empty() {
        true => judged.summary,
        false => judged.problems.join("; "),
    };
    w.check(judged.problems.is_empty(), expected, actual);
    w.last_result = Some(result);
    Ok(())
}

/// client/elicitation.mdx#requested-schema (2025-11-25): "Clients that support defaults SHOULD
/// pre-populate form fields with these values." A form accepted as pre-populated carries every
/// field that has a default; a decline or cancel shows nothing of the form, so the scenario
/// does not apply.
#[then(
    "the client accepts it with a value for every field that has a default, unless it declines or cancels"
)]
async fn accepts_with_defaults(w: &mut ClientWorld) -> Result<(), Halt> {
    let params = w.sent_params.clone().unwrap_or(Value::Null);
    let expected = "accepted content holding every field that has a default (pre-populated)";
    let result = match client_answer(w, expected).await? {
        Answer::Result(v) => v,
        other => return Err(w.fail(expected, other.describe())),
    };
    let action = result.get("action").and_then(Value::as_str).unwrap_or("");
    if action != "accept" {
        return Err(w.skip(format!("the client answered with action {action:?}: no form content to judge")));
    }
    let content = result.get("content").cloned().unwrap_or(Value::Null);
    let missing = defaults_missing(&params, &content);
    let actual = match missing.is_empty() {
        true => format!("content {content}"),
        false => format!("accepted content without {}", missing.join(", ")),
    };
    w.check(missing.is_empty(), expected, actual);
    Ok(())
}

/// elicitation.mdx#completion-notifications-for-url-mode-elicitation: clients MUST ignore a
/// completion notification for an unknown or already completed elicitation id.
#[when("the scenario server announces the completion of an elicitation it never sent")]
async fn completes_unknown_elicitation(w: &mut ClientWorld) -> Result<(), Halt> {
    let params = serde_json::json!({ "elicitationId": "mcpspec-never-sent-elicitation" });
    let note =
        mcpspec_protocol::wire::Message::notification("notifications/elicitation/complete", Some(params));
    let sent = w.session()?.send_value(&note.to_value()).await;
    sent.map_err(|e| w.lost("the client reads the completion notification".into(), e))
}

/// basic/index.mdx#implementation-requirements (2025-11-25 on): a schema in a dialect the
/// client does not support is met with an error saying so, not judged as if it were another.
#[then("the client answers it with an error, as its schema's dialect is unknown")]
async fn refuses_unknown_dialect(w: &mut ClientWorld) -> Result<(), Halt> {
    let params = w.sent_params.clone().unwrap_or(Value::Null);
    let dialect = params.pointer("/requestedSchema/$schema").cloned().unwrap_or(Value::Null);
    let expected = format!("an error saying the requestedSchema's dialect {dialect} is not supported");
    // The modern era has no error for an input request: a refusal leaves it unanswered.
    let answer = client_answer(w, &expected).await?;
    w.check(!matches!(answer, Answer::Result(_)), expected, answer.describe());
    Ok(())
}

/// How long requests may still reach the listener after the client's answer: a preview
/// fetched while the client shows its prompt may land just after it.
const FETCH_GRACE: std::time::Duration = std::time::Duration::from_millis(500);

/// client/elicitation.mdx#safe-url-handling (2025-11-25 on): clients MUST NOT pre-fetch the URL
/// or its metadata. The URL is on the scenario server's listener, so every fetch shows. A
/// client that accepted may have opened it with the user's consent: a fetch then is not judged.
#[then("the client fetched nothing from the scenario server's listener, unless it accepted")]
async fn fetched_nothing(w: &mut ClientWorld) -> Result<(), Halt> {
    let expected = "no request for the elicitation's URL (no pre-fetch, no link preview) from a client that did not accept";
    let Some(canary) = w.canary.as_ref() else {
        return Err(w.harness_error("no listener was started (the request named no {listener} URL)".into()));
    };
    tokio::time::sleep(FETCH_GRACE).await;
    let hits = canary.hits();
    let action =
        w.last_result.as_ref().and_then(|r| r.get("action")).and_then(Value::as_str).unwrap_or("").to_owned();
    let seen = hits.iter().map(|h| format!("{} {}", h.method, h.target)).collect::<Vec<_>>().join(", ");
    match (hits.is_empty(), action.as_str()) {
        (true, _) => w.check(true, expected, format!("no request reached the URL (the client answered {action:?})")),
        (false, "accept") => w.inconclusive(
            expected,
            format!("the client accepted, and fetched {seen}: with the user's consent, opening the URL is allowed"),
        ),
        (false, _) => w.check(false, expected, format!("the client answered {action:?}, yet fetched {seen}")),
    }
    Ok(())
}
