//! Sampling steps of the client scenarios (client/sampling.mdx): judging a client's
//! `sampling/createMessage` result, and carrying a tool loop on from it. The judgement is
//! `mcpspec_protocol::sampling`'s; the steps only fetch, hand over and record.

use super::{ask, client_answer, Answer, ClientWorld, Halt};
use crate::suite::scenario::Scenario as _;
use cucumber::{then, when};
use mcpspec::judge::verdict::{Check, Level};
use mcpspec_protocol::sampling::{judge_sampling_result, next_turn, tool_uses};
use serde_json::Value;

/// The check of `stopReason` on a tool-using result: SHOULD (see
/// [`mcpspec_protocol::sampling::judge_sampling_result`]), apart from the scenario's own level.
const STOP_REASON_CHECK: &str = "client-sampling/stop-reason";
const STOP_REASON_DOC: &str = "client/sampling.mdx#sampling-with-tools";

/// In the modern era the user's rejection is no answer (client/sampling.mdx#error-handling:
/// the request is not replayed), where the legacy era has error -1.
#[then(
    regex = r"^the client answers it with a sampled message, or (?:error -1|no answer) \(the user rejected it\)$"
)]
async fn answers_sampling(w: &mut ClientWorld) -> Result<(), Halt> {
    let params = w.sent_params.clone().unwrap_or(Value::Null);
    let expected = match w.scenario.revision.era() {
        mcpspec_protocol::Era::Modern => {
            "a result with role, content and model, using only tools the request allowed, or no answer"
        }
        _ => "a result with role, content and model, using only tools the request allowed, or error -1",
    };
    w.last_result = None;
    match client_answer(w, expected).await? {
        Answer::Result(v) => {
            let judged = judge_sampling_result(&params, &v);
            let actual = match judged.problems.is_empty() {
                true => format!("result: {}", judged.summary),
                false => judged.problems.join("; "),
            };
            w.check(judged.problems.is_empty(), expected, actual);
            if let Some(stop) = judged.stop_reason {
                let spec = format!("{}/{STOP_REASON_DOC}", w.scenario.revision.doc_root());
                let expected = "stopReason \"toolUse\" on a result that uses tools";
                let actual = stop.as_ref().err().cloned().unwrap_or_else(|| "stopReason \"toolUse\"".into());
                w.scenario.checks.push(Check::judge(
                    STOP_REASON_CHECK,
                    Level::SHOULD,
                    spec,
                    stop.is_ok(),
                    expected,
                    actual,
                ));
            }
            w.last_result = Some(v);
        }
        // client/sampling.mdx#error-handling: -1 is how a user's rejection is reported.
        Answer::Error(e) => w.check(e.code == -1, expected, format!("error {}: {}", e.code, e.message)),
        withheld @ Answer::Withheld(_) => w.check(true, expected, withheld.describe()),
    }
    Ok(())
}

/// client/sampling.mdx#tools-in-sampling: "Clients MUST declare support for tool use via the
/// `sampling.tools` capability to receive tool-enabled sampling requests." A client that did not
/// declare it and still answers with a tool use supports tool use undeclared. An error, or a
/// message without tool use, is fine: the spec names no error code for this case.
#[then("the client answers it without using a tool")]
async fn answers_without_tools(w: &mut ClientWorld) -> Result<(), Halt> {
    let expected =
        "an error (or no answer), or a result without tool_use content (sampling.tools was not declared)";
    match client_answer(w, expected).await? {
        Answer::Result(v) => {
            let uses: Vec<String> = tool_uses(&v)
                .iter()
                .map(|u| u.get("name").and_then(Value::as_str).unwrap_or("?").to_owned())
                .collect();
            let actual = match uses.is_empty() {
                true => "a result without tool use".to_owned(),
                false => format!("a result using tool(s) {}", uses.join(", ")),
            };
            w.check(uses.is_empty(), expected, actual);
        }
        refused => w.check(true, expected, refused.describe()),
    }
    Ok(())
}

/// Sends the next `sampling/createMessage` of a tool loop, built from the last request and the
/// client's result (tool results for its tool uses), optionally with another `toolChoice`; in
/// the modern era as the input request answering the client's retry.
#[when(
    regex = r#"^the scenario server continues the tool loop(?: with toolChoice "(auto|required|none)")?$"#
)]
async fn continues_tool_loop(w: &mut ClientWorld, choice: String) -> Result<(), Halt> {
    let (Some(params), Some(result)) = (w.sent_params.clone(), w.last_result.clone()) else {
        // The user rejected the previous turn (-1): there is no loop to carry on.
        return Err(w.skip("the client rejected the sampling request, so the tool loop did not run".into()));
    };
    let choice = Some(choice.as_str()).filter(|c| !c.is_empty());
    let next = next_turn(&params, &result, choice);
    ask(w, "sampling/createMessage", Some(next)).await
}
