//! Steps of the modern era's scenarios (`modern.feature`, `mrtr.feature`,
//! `subscriptions.feature`, `transport_http_modern.feature`): requests with a broken
//! `_meta`, a legacy client's `initialize`, input requests answered round by round (or with a
//! tampered `requestState`), subscriptions, and the HTTP headers that mirror a request's body.

use super::{docstring_json, outcome_text, Halt, Pending, ServerWorld};
use crate::suite::scenario::Scenario as _;
use cucumber::gherkin::Step;
use cucumber::{given, then, when};
use mcpspec::session::server::{input_required, MAX_INPUT_ROUNDS};
use mcpspec_protocol::modern;
use mcpspec_protocol::wire::{Message, Outcome, RequestId};
use mcpspec_protocol::Revision;
use mcpspec_reference::transport::http_client::Tweaks;
use serde_json::{json, Map, Value};

impl ServerWorld {
    /// The request `method` as mcpspec sends it in the modern era: `params` plus the
    /// client's `_meta`.
    pub(super) fn modern_request(&mut self, method: &str, params: Option<Value>) -> Result<Message, Halt> {
        let session = self.session()?;
        let id = session.fresh_id();
        let params = match session.request_meta() {
            Some(meta) => Some(modern::with_request_meta(params, &meta)),
            None => params,
        };
        Ok(Message::request(id, method, params))
    }

    /// Sends `message` exactly as given; over Streamable HTTP with the mirrored headers a
    /// correct client would send for `method` at the revision under test (so that what a step
    /// broke in the body is the only thing wrong) and `extra` on top.
    async fn send_exactly(&mut self, message: Message, extra: Vec<(String, String)>) -> Result<(), Halt> {
        let Message::Request(r) = &message else {
            return Err(self.harness_error("send_exactly sends requests".into()));
        };
        let (id, what) = (r.id.clone(), format!("the {} request", r.method));
        if self.session()?.recorder().http().is_some() {
            let version = modern::wire_version(self.scenario.revision).to_owned();
            let mut headers = vec![(modern::headers::METHOD.to_owned(), r.method.clone())];
            if let Some(name) = modern::name_source(&r.method, r.params.as_ref()) {
                headers.push((modern::headers::NAME.to_owned(), modern::encode_header_value(name)));
            }
            headers.extend(extra);
            let tweaks = Tweaks { protocol_version: Some(version), headers, ..Tweaks::default() };
            return self.post(message, tweaks).await;
        }
        if let Err(e) = self.session()?.send(&message).await {
            return Err(self.not_sent(&what, e).await);
        }
        self.pending.push(Pending { id: Some(id), idless_ok: false, barrier: false, what, request: None });
        Ok(())
    }

    /// The `InputRequiredResult` the last answer is, or a failed check saying what it was.
    fn asked_for_input(&mut self) -> Result<Value, Halt> {
        match self.response.as_ref() {
            Some(r) => match input_required(r) {
                Some(asked) => Ok(asked.clone()),
                None => {
                    Err(self.fail("an InputRequiredResult (resultType \"input_required\")", outcome_text(r)))
                }
            },
            None => Err(self.harness_error("no answer to look at (a Then step is missing)".into())),
        }
    }
}

/// The methods of an `InputRequiredResult`'s input requests.
fn input_methods(asked: &Value) -> Vec<String> {
    let inputs = asked.get("inputRequests").and_then(Value::as_object);
    inputs.into_iter().flatten().filter_map(|(_, i)| i.get("method")?.as_str().map(str::to_owned)).collect()
}

#[given("the client has discovered the server")]
async fn discovered(w: &mut ServerWorld) -> Result<(), Halt> {
    super::given::establish(w, json!({})).await
}

#[given("the client has discovered the server declaring the client capabilities")]
async fn discovered_declaring(w: &mut ServerWorld, step: &Step) -> Result<(), Halt> {
    let caps = docstring_json(w, step)?.unwrap_or(json!({}));
    super::given::establish(w, caps).await
}

/// The lists whose items must be the same on every connection and after other requests
/// (server/tools.mdx, prompts.mdx, resources.mdx #capabilities, 2026-07-28): the list, the
/// capability behind it, the member holding an item's identity.
const STABLE_LISTS: [(&str, &str, &str); 3] = [
    ("tools/list", "tools", "name"),
    ("prompts/list", "prompts", "name"),
    ("resources/list", "resources", "uri"),
];

#[when("the client lists every tool, prompt and resource the server declares")]
async fn lists_every_declared(w: &mut ServerWorld) -> Result<(), Halt> {
    let caps = w.server_capabilities()?;
    let mut round = Vec::new();
    for (method, capability, key) in STABLE_LISTS {
        if !mcpspec_protocol::capabilities::declares(&caps, capability) {
            continue;
        }
        let listing = super::when::list_all(w, method).await?;
        if let Some(why) = listing.unfinished {
            return Err(w.fail(format!("{method} listed to its end"), why));
        }
        let names = listing
            .items
            .iter()
            .filter_map(|i| i.member(key))
            .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_owned))
            .collect();
        round.push((method.to_owned(), names));
    }
    if round.is_empty() {
        return Err(w.skip("the server declares none of tools, prompts and resources".into()));
    }
    w.listed_rounds.push(round);
    Ok(())
}

/// A new connection: the session ends and the server is reached afresh (over stdio, a new
/// process; a client's connection is all the spec lets a list differ by, and it may not).
#[when("the client connects again")]
async fn connects_again(w: &mut ServerWorld) -> Result<(), Halt> {
    w.restart().await?;
    super::given::establish_on_started(w, json!({})).await
}

#[then("each list holds the same items every time")]
async fn lists_stable(w: &mut ServerWorld) -> Result<(), Halt> {
    let rounds = std::mem::take(&mut w.listed_rounds);
    let (ok, actual) = judge_stable_lists(&rounds);
    w.check(ok, "each of tools/list, prompts/list and resources/list the same on every listing", actual);
    Ok(())
}

/// Compares every later round of listings with the first: `(same, what was seen)`.
fn judge_stable_lists(rounds: &[Vec<(String, std::collections::BTreeSet<String>)>]) -> (bool, String) {
    let Some((first, later)) = rounds.split_first() else { return (false, "nothing was listed".into()) };
    let mut changes = Vec::new();
    for (n, round) in later.iter().enumerate() {
        for ((method, before), (_, after)) in first.iter().zip(round) {
            let added: Vec<&String> = after.difference(before).collect();
            let gone: Vec<&String> = before.difference(after).collect();
            if !added.is_empty() || !gone.is_empty() {
                changes.push(format!("listing {}: {method} gained {added:?}, lost {gone:?}", n + 2));
            }
        }
    }
    match (later.is_empty(), changes.is_empty()) {
        (true, _) => (false, "listed once: nothing to compare".into()),
        (false, true) => {
            let sizes: Vec<String> = first.iter().map(|(m, s)| format!("{m}: {}", s.len())).collect();
            (true, format!("{} listings, each the same ({})", rounds.len(), sizes.join(", ")))
        }
        (false, false) => (false, changes.join("; ")),
    }
}

#[given("the server speaks only the modern era")]
async fn only_modern(w: &mut ServerWorld) -> Result<(), Halt> {
    let listed = modern::version_list(w.server_description.as_ref().and_then(|d| d.get("supportedVersions")));
    let legacy: Vec<&String> =
        listed.iter().filter(|v| Revision::LEGACY.iter().any(|r| r.as_str() == v.as_str())).collect();
    if !legacy.is_empty() {
        return Err(w.skip(format!("the server speaks legacy revisions too ({legacy:?})")));
    }
    Ok(())
}

/// streamable-http.mdx#protocol-version-header (2026-07-28): a server that supports clients of
/// revisions before 2025-06-18 MAY take a request without MCP-Protocol-Version as 2025-03-26;
/// one that does not MUST reject it. What server/discover lists does not say (a dual-era server
/// may list only modern versions there): an `initialize` offering 2025-03-26 does. A server that
/// answers it at a revision before 2025-06-18 supports such clients, and the scenario is skipped.
#[given("the server serves no client of a revision before 2025-06-18")]
async fn serves_no_early_client(w: &mut ServerWorld) -> Result<(), Halt> {
    legacy_initialize(w, "initialize".into(), Revision::V2025_03_26.as_str().into()).await?;
    let r = w.await_answer().await?;
    let agreed = match &r.outcome {
        Outcome::Result(result) => result.get("protocolVersion").and_then(Value::as_str).map(str::to_owned),
        Outcome::Error(_) => None,
    };
    match agreed.as_deref().map(str::parse::<Revision>) {
        Some(Ok(v)) if v < Revision::V2025_06_18 => Err(w.skip(format!(
            "the server answered an initialize offering 2025-03-26 at {v}: it serves such clients, and MAY take a \
             request without MCP-Protocol-Version as 2025-03-26"
        ))),
        _ => Ok(()),
    }
}

#[given("input requests are answered step by step")]
async fn step_by_step(w: &mut ServerWorld) -> Result<(), Halt> {
    w.answers_input = false;
    Ok(())
}

#[when(
    regex = r#"^the client sends a "([^"]+)" request whose _meta (is left out|lacks "([^"]+)"|sets "([^"]+)" to (.+))$"#
)]
async fn sends_with_meta(
    w: &mut ServerWorld,
    method: String,
    change: String,
    lacks: String,
    sets: String,
    value: String,
) -> Result<(), Halt> {
    let Some(mut meta) = w.session()?.request_meta() else {
        return Err(w.harness_error("a _meta step at a revision of the legacy era".into()));
    };
    let params = if change == "is left out" {
        json!({})
    } else {
        if let Some(m) = meta.as_object_mut() {
            if !lacks.is_empty() {
                m.remove(&lacks);
            } else {
                let v = super::step_json(w, &value)?;
                m.insert(sets, v);
            }
        }
        json!({ "_meta": meta })
    };
    let id = w.session()?.fresh_id();
    // Over HTTP, MCP-Protocol-Version follows what the body names, when it names one.
    let mut extra = Vec::new();
    if let Some(v) = meta.get(modern::PROTOCOL_VERSION_KEY).and_then(Value::as_str) {
        extra.push((modern::headers::PROTOCOL_VERSION.to_owned(), v.to_owned()));
    }
    w.send_exactly(Message::request(id, &method, Some(params)), extra).await
}

/// A client of the legacy era opening a session: `initialize` without any `_meta`.
#[when(expr = "the client sends {string} offering {string} as a legacy client")]
async fn legacy_initialize(w: &mut ServerWorld, method: String, version: String) -> Result<(), Halt> {
    let params = json!({
        "protocolVersion": version,
        "capabilities": {},
        "clientInfo": mcpspec::session::server::client_info(),
    });
    // Over HTTP a legacy client sends no MCP-Protocol-Version with its initialize (the header
    // comes once a version is negotiated).
    if w.session()?.recorder().http().is_some() {
        let id = w.session()?.fresh_id();
        let tweaks = Tweaks { protocol_version: Some(String::new()), ..Tweaks::default() };
        return w.post(Message::request(id, &method, Some(params)), tweaks).await;
    }
    let sent = w.session()?.send_request_as_is(&method, Some(params)).await;
    match sent {
        Ok(id) => {
            let what = format!("the {method} request");
            w.pending.push(Pending { id: Some(id), idless_ok: false, barrier: false, what, request: None });
            Ok(())
        }
        Err(e) => Err(w.not_sent(&format!("the {method} request"), e).await),
    }
}

#[when(
    regex = r"^the client retries with (the input and the request state|the input and a tampered request state|the request state but without the input|the input, an unexpected extra entry and the request state)$"
)]
async fn retries(w: &mut ServerWorld, how: String) -> Result<(), Halt> {
    let asked = w.asked_for_input()?;
    let Some((method, params)) = w.last_sent.clone() else {
        return Err(w.harness_error("no request to retry (a When step is missing)".into()));
    };
    let mut retry = match params {
        Some(Value::Object(m)) => m,
        _ => Map::new(),
    };
    let with_input = how != "the request state but without the input";
    if let (Some(inputs), true) = (asked.get("inputRequests"), with_input) {
        let mut answers = w.session()?.persona_answer_inputs(inputs);
        if how.contains("unexpected extra entry") {
            if let Some(a) = answers.as_object_mut() {
                a.insert("mcpspec-unasked".into(), json!({ "action": "accept", "content": {} }));
            }
        }
        retry.insert("inputResponses".into(), answers);
    }
    if let Some(state) = asked.get("requestState") {
        let state = match (how.contains("tampered"), state.as_str()) {
            (true, Some(s)) => Value::from(tamper(s)),
            _ => state.clone(),
        };
        retry.insert("requestState".into(), state);
    } else if how.contains("tampered") {
        return Err(w.skip("the server sent no requestState to tamper with".into()));
    }
    // A retry is a new request, under a new id (mrtr.mdx: the id MUST be different).
    w.send_request(&method, Some(Value::Object(retry))).await.map(drop)
}

/// `state` with its next-to-last letter or digit changed (A↔B, same length and alphabet): an
/// integrity tag usually ends a state (a payload, a separator, a MAC), so what is changed is what
/// a server that verifies its state must notice, while the payload before it still reads; the
/// very last character is left alone, since in Base64 without padding it may hold bits a decoder
/// requires to be zero (then the state would merely be unreadable).
fn tamper(state: &str) -> String {
    let mut chars: Vec<char> = state.chars().collect();
    let letters: Vec<usize> = (0..chars.len()).filter(|i| chars[*i].is_ascii_alphanumeric()).collect();
    let at = match letters.len() {
        0 => None,
        1 => Some(letters[0]),
        n => Some(letters[n - 2]),
    };
    match at {
        Some(at) => chars[at] = if chars[at] == 'A' { 'B' } else { 'A' },
        None => chars.push('A'),
    }
    chars.into_iter().collect()
}

#[then(expr = "the server asks for input with an {string} input request")]
async fn asks_for_input(w: &mut ServerWorld, method: String) -> Result<(), Halt> {
    w.await_answer().await?;
    let asked = w.asked_for_input()?;
    let methods = input_methods(&asked);
    w.check(
        methods.contains(&method),
        format!("an InputRequiredResult whose inputRequests hold a {method} request"),
        format!("inputRequests hold {methods:?}"),
    );
    Ok(())
}

#[then(expr = "the server asks for no {string} input")]
async fn asks_for_no_input(w: &mut ServerWorld, method: String) -> Result<(), Halt> {
    let r = w.await_answer().await?;
    let asked = input_required(&r).map(input_methods).unwrap_or_default();
    w.check(
        !asked.contains(&method),
        format!("no {method} input request (a result, an error, or other input)"),
        match input_required(&r) {
            Some(_) => format!("inputRequests hold {asked:?}"),
            None => outcome_text(&r),
        },
    );
    Ok(())
}

/// `basic/index.mdx#_meta`: a request needing a capability the client did not declare is
/// refused with -32021, `data.requiredCapabilities` naming it. A server that serves the request
/// without it (a complete, successful result) needed nothing: there is no refusal to judge.
#[then(expr = "the server refuses it with error -32021 naming the client capability {string}")]
async fn refuses_missing_capability(w: &mut ServerWorld, capability: String) -> Result<(), Halt> {
    let r = w.await_answer().await?;
    let expected = format!("error -32021 whose data.requiredCapabilities names {capability:?}");
    match &r.outcome {
        Outcome::Error(e) => {
            let names =
                e.data.as_ref().and_then(|d| d.pointer(&format!("/requiredCapabilities/{capability}")));
            let actual = match &e.data {
                Some(data) => format!("error {}: {} (data {data})", e.code, e.message),
                None => format!("error {}: {} (no data)", e.code, e.message),
            };
            w.check(e.code == -32021 && names.is_some(), expected, actual);
        }
        Outcome::Result(v)
            if input_required(&r).is_none() && v.get("isError") != Some(&Value::Bool(true)) =>
        {
            return Err(
                w.skip(format!("the server served the request without {capability:?}: no refusal to judge"))
            );
        }
        Outcome::Result(_) => {
            let actual = match input_required(&r) {
                Some(asked) => format!("an InputRequiredResult asking for {:?}", input_methods(asked)),
                None => outcome_text(&r),
            };
            w.check(false, expected, actual);
        }
    }
    Ok(())
}

#[then(expr = "the server asks for {int} or more inputs in one result")]
async fn asks_for_several(w: &mut ServerWorld, n: usize) -> Result<(), Halt> {
    w.await_answer().await?;
    let asked = w.asked_for_input()?;
    let methods = input_methods(&asked);
    w.check(methods.len() >= n, format!("{n} or more input requests in one result"), format!("{methods:?}"));
    Ok(())
}

#[then("the server does not complete the request")]
async fn does_not_complete(w: &mut ServerWorld) -> Result<(), Halt> {
    let r = w.await_answer().await?;
    let completed = matches!(&r.outcome, Outcome::Result(_)) && input_required(&r).is_none();
    let doc = w.scenario.doc().to_owned();
    let expected = "an error, or a new InputRequiredResult: the state failed verification";
    if completed {
        w.warn(
            &doc,
            expected,
            format!("{}: the request completed with the tampered state", outcome_text(&r)),
        );
    } else {
        w.check(true, expected, outcome_text(&r));
    }
    Ok(())
}

#[then(expr = "the server asked for input in {int} or more rounds")]
async fn asked_in_rounds(w: &mut ServerWorld, n: usize) -> Result<(), Halt> {
    let rounds = w.session()?.input_required.len();
    w.check(
        rounds >= n && rounds < MAX_INPUT_ROUNDS,
        format!("{n} or more InputRequiredResults, each answered, before the result"),
        format!("{rounds} rounds"),
    );
    Ok(())
}

#[then(regex = r#"^the result's "([^"]+)" lists the revision under test$"#)]
async fn lists_revision(w: &mut ServerWorld, member: String) -> Result<(), Halt> {
    let result = w.last_result()?;
    let version = modern::wire_version(w.scenario.revision);
    let listed = result.get(&member);
    let ok = listed.and_then(Value::as_array).is_some_and(|a| a.iter().any(|v| v == version));
    w.check(ok, format!("{member:?} lists {version:?}"), mcpspec_protocol::wire::describe(listed));
    Ok(())
}

#[then(expr = "the server answers as its {string} capability says")]
async fn answers_as_declared(w: &mut ServerWorld, capability: String) -> Result<(), Halt> {
    let declared = w.server_capabilities()?.get(&capability).is_some_and(|c| !c.is_null());
    let r = w.await_answer().await?;
    let (ok, expected) = match declared {
        true => (
            matches!(r.outcome, Outcome::Result(_)),
            format!("a result: server/discover declares {capability:?}"),
        ),
        false => (
            matches!(&r.outcome, Outcome::Error(e) if e.code == mcpspec_protocol::ErrorObject::METHOD_NOT_FOUND),
            format!("error -32601: server/discover does not declare {capability:?}"),
        ),
    };
    w.check(ok, expected, outcome_text(&r));
    Ok(())
}

#[then(expr = "over HTTP the status is {int}")]
async fn over_http_status(w: &mut ServerWorld, status: u16) -> Result<(), Halt> {
    if w.session()?.recorder().http().is_none() {
        return Ok(());
    }
    let Some(n) = w.session()?.last_exchange() else {
        return Err(w.harness_error("no HTTP request was made".into()));
    };
    w.exchange = Some(n);
    let x = w.last_exchange().await?;
    w.check(x.status == status, format!("HTTP {status}"), x.describe());
    Ok(())
}

#[then(expr = "the error names the supported versions and the requested {string}")]
async fn names_versions(w: &mut ServerWorld, requested: String) -> Result<(), Halt> {
    let data = match w.response.as_ref().map(|r| &r.outcome) {
        Some(Outcome::Error(e)) => e.data.clone().unwrap_or(Value::Null),
        _ => return Err(w.harness_error("no error to look at".into())),
    };
    let supported = data.get("supported").and_then(Value::as_array);
    let listed = supported.is_some_and(|s| !s.is_empty() && s.iter().all(Value::is_string));
    w.check(
        listed,
        "data.supported: the versions the server implements",
        mcpspec_protocol::wire::describe(Some(&data)),
    );
    let echoed = data.get("requested").and_then(Value::as_str) == Some(requested.as_str());
    w.check(echoed, format!("data.requested: {requested:?}"), mcpspec_protocol::wire::describe(Some(&data)));
    Ok(())
}

#[then("the server refuses it naming the revision under test, unless it serves the legacy era too")]
async fn error_names_revision(w: &mut ServerWorld) -> Result<(), Halt> {
    let r = w.await_answer().await?;
    let version = modern::wire_version(w.scenario.revision);
    match &r.outcome {
        // A dual-era server (whatever its server/discover lists) serves a legacy client: the
        // SHOULD is a modern-only server's.
        Outcome::Result(_) => {
            Err(w.skip("the server answered initialize: it serves the legacy era too".into()))
        }
        Outcome::Error(e) => {
            let named = e.message.contains(version)
                || e.data.as_ref().is_some_and(|d| d.to_string().contains(version));
            w.check(named, format!("an error whose message or data names {version:?}"), outcome_text(&r));
            Ok(())
        }
    }
}

#[when(expr = "the client listens for {string}")]
async fn listens_for(w: &mut ServerWorld, member: String) -> Result<(), Halt> {
    listen(w, json!({ member: true })).await
}

#[when(expr = "the client listens for updates of {string}")]
async fn listens_for_updates(w: &mut ServerWorld, uri: String) -> Result<(), Halt> {
    listen(w, json!({ "resourceSubscriptions": [uri] })).await
}

#[when("the client listens for updates of the resource")]
async fn listens_for_updates_of_subject(w: &mut ServerWorld) -> Result<(), Halt> {
    let uri = w.subject.as_ref().and_then(|r| r.get("uri")).cloned();
    let Some(uri) = uri else {
        return Err(w.harness_error("no resource (a Given step is missing)".into()));
    };
    listen(w, json!({ "resourceSubscriptions": [uri] })).await
}

/// Opens a subscription; its answer comes only when it ends, so nothing waits for it here.
async fn listen(w: &mut ServerWorld, filter: Value) -> Result<(), Halt> {
    let sent =
        w.session()?.send_request("subscriptions/listen", Some(json!({ "notifications": filter }))).await;
    match sent {
        Ok(id) => {
            w.subscription = Some(id);
            Ok(())
        }
        Err(e) => Err(w.not_sent("the subscriptions/listen request", e).await),
    }
}

#[then("the server acknowledges the subscription")]
async fn acknowledges(w: &mut ServerWorld) -> Result<(), Halt> {
    let Some(id) = w.subscription.clone() else {
        return Err(w.harness_error("no subscription (a When step is missing)".into()));
    };
    let within = w.timeout();
    let method = "notifications/subscriptions/acknowledged";
    let arrived = w.session()?.wait_notification(method, within).await;
    let ack = w.session()?.notifications.iter().find_map(|m| match m {
        Message::Notification(n) if n.method == method => Some(n.clone()),
        _ => None,
    });
    let named = ack
        .as_ref()
        .and_then(|n| n.params.as_ref()?.get("_meta")?.get(modern::SUBSCRIPTION_ID_KEY))
        .and_then(RequestId::from_value);
    let actual = match (arrived, &named) {
        (false, _) => format!("no acknowledgement within {within:?}"),
        (true, Some(named)) => format!("acknowledged for subscription {named}"),
        (true, None) => "acknowledged without a subscription id".to_owned(),
    };
    w.check(named.as_ref() == Some(&id), format!("{method} for subscription {id}"), actual);
    Ok(())
}

#[when("the client ends the subscription")]
async fn ends_subscription(w: &mut ServerWorld) -> Result<(), Halt> {
    let Some(id) = w.subscription.take() else {
        return Err(w.harness_error("no subscription (a When step is missing)".into()));
    };
    // Over stdio a client cancels with notifications/cancelled (basic/patterns/cancellation.mdx);
    // over HTTP by closing the request's stream, which the session does when it ends.
    if w.session()?.recorder().http().is_some() {
        return Ok(());
    }
    let cancel = Message::notification(
        "notifications/cancelled",
        Some(json!({ "requestId": id.to_value(), "reason": "mcpspec's scenario is over" })),
    );
    if let Err(e) = w.session()?.send(&cancel).await {
        return Err(w.not_sent("notifications/cancelled", e).await);
    }
    Ok(())
}

#[when(expr = "the client POSTs a read of the resource with the header {string}")]
async fn posts_read_with_header(w: &mut ServerWorld, text: String) -> Result<(), Halt> {
    let (name, value) = text.split_once(':').unwrap_or((&text, ""));
    read_subject_with(w, vec![(name.trim().to_ascii_lowercase(), value.trim().to_owned())]).await
}

#[when("the client POSTs a read of the resource with its name Base64-encoded")]
async fn posts_read_base64(w: &mut ServerWorld) -> Result<(), Halt> {
    let uri =
        w.subject.as_ref().and_then(|r| r.get("uri")).and_then(Value::as_str).unwrap_or_default().to_owned();
    // The sentinel form even of a plain value: a server must decode it before comparing
    // (`streamable-http.mdx#value-encoding`).
    let encoded = modern::base64_sentinel(&uri);
    read_subject_with(w, vec![(modern::headers::NAME.to_owned(), encoded)]).await
}

/// POSTs `resources/read` of the resource a Given step picked, with `headers` over the
/// correct ones.
async fn read_subject_with(w: &mut ServerWorld, headers: Vec<(String, String)>) -> Result<(), Halt> {
    let Some(uri) = w.subject.as_ref().and_then(|r| r.get("uri")).cloned() else {
        return Err(w.harness_error("no resource picked (a Given step is missing)".into()));
    };
    let message = w.modern_request("resources/read", Some(json!({ "uri": uri })))?;
    w.send_exactly(message, headers).await
}

/// The annotated parameter a custom-header scenario plays with: a top-level parameter of type
/// `ty` (`string` or `integer`) of a tool whose `x-mcp-header` annotations are all valid (an
/// optional one first, so that leaving it null or out is still a call the tool takes): its
/// property and annotation.
fn param_header_target(tool: &Value, ty: &str) -> Option<(String, String)> {
    let schema = tool.get("inputSchema")?;
    let required =
        |p: &str| schema.get("required").and_then(Value::as_array).is_some_and(|r| r.iter().any(|n| n == p));
    let is_string =
        |p: &str| match schema.get("properties").and_then(|ps| ps.get(p)).and_then(|x| x.get("type")) {
            Some(Value::String(t)) => t == ty,
            Some(Value::Array(ts)) => ts.iter().any(|t| t == ty),
            _ => false,
        };
    mcpspec_protocol::param_headers::annotations(schema)
        .into_iter()
        .filter(|a| a.path.len() == 1 && is_string(&a.path[0]))
        .min_by_key(|a| required(&a.path[0]))
        .map(|a| (a.path[0].clone(), a.name))
}

#[given(expr = "the server lists a tool with an x-mcp-header {word} parameter")]
async fn lists_param_header_tool(w: &mut ServerWorld, ty: String) -> Result<(), Halt> {
    let pick = |t: &Value| param_header_target(t, &ty).is_some();
    match super::given::find(w, "tools/list", "tools", pick).await? {
        Some(t) => {
            w.subject = Some(t);
            Ok(())
        }
        None => Err(w.skip(format!(
            "the server lists no tool with valid x-mcp-header annotations on a top-level {ty} parameter \
             (x-mcp-header is optional for servers)"
        ))),
    }
}

/// POSTs `tools/call` of the tool a Given step picked: an example of its required arguments,
/// its annotated parameter set to `value` (`None`: left out), and that parameter's
/// `Mcp-Param-*` header replaced by `header` (`None`: left out). The other annotated arguments
/// carry their headers as a correct client's would.
async fn call_param_tool(
    w: &mut ServerWorld,
    ty: &str,
    value: Option<Value>,
    header: Option<String>,
) -> Result<(), Halt> {
    let Some(tool) = w.subject.clone() else {
        return Err(w.harness_error("no tool picked (a Given step is missing)".into()));
    };
    let Some((property, annotation)) = param_header_target(&tool, ty) else {
        return Err(w.harness_error(format!("the tool picked has no x-mcp-header {ty} parameter")));
    };
    let schema = tool.get("inputSchema").cloned().unwrap_or_default();
    let mut arguments = mcpspec_protocol::arguments::example_object(&schema);
    if let Some(args) = arguments.as_object_mut() {
        match value {
            Some(v) => args.insert(property, v),
            None => args.remove(&property),
        };
    }
    let params = json!({ "name": tool["name"], "arguments": arguments });
    let message = w.modern_request("tools/call", Some(params))?;
    let name = format!("{}{}", modern::headers::PARAM_PREFIX, annotation.to_ascii_lowercase());
    w.send_exactly(message, vec![(name, header.unwrap_or_default())]).await
}

#[when(expr = "the client POSTs a call of the tool whose Mcp-Param header {string}")]
async fn posts_param_call(w: &mut ServerWorld, problem: String) -> Result<(), Halt> {
    if problem == "writes its integer with a fraction" {
        // streamable-http.mdx#server-validation: integers SHOULD be compared as numbers (42.0 is 42).
        let (property, _) =
            w.subject.as_ref().and_then(|t| param_header_target(t, "integer")).unwrap_or_default();
        let schema = w.subject.as_ref().and_then(|t| t.get("inputSchema")?.get("properties")?.get(&property));
        let example = mcpspec_protocol::arguments::example_for(&property, schema.unwrap_or(&Value::Null));
        let n = example.as_i64().unwrap_or(42);
        return call_param_tool(w, "integer", Some(json!(n)), Some(format!("{n}.0"))).await;
    }
    let (property, annotation) =
        w.subject.as_ref().and_then(|t| param_header_target(t, "string")).unwrap_or_default();
    let schema = w.subject.as_ref().and_then(|t| t.get("inputSchema")?.get("properties")?.get(&property));
    let example = mcpspec_protocol::arguments::example_for(&property, schema.unwrap_or(&Value::Null));
    let text = example.as_str().unwrap_or("mcpspec").to_owned();
    let (value, header) = match problem.as_str() {
        "names another value" => (text.clone(), Some(modern::encode_header_value(&format!("{text}-other")))),
        "is missing" => (text, None),
        // streamable-http.mdx#value-encoding: such a value travels in the Base64 sentinel.
        "holds characters beyond ASCII" => ("Hello, 世界".to_owned(), Some("Hello, 世界".to_owned())),
        // Unpadded Base64: the sentinel is malformed (the official suite's case).
        "is a malformed Base64 sentinel" => ("Hello".to_owned(), Some("=?base64?SGVsbG8?=".to_owned())),
        // mcpspec's HTTP client writes every header name in lower case (as HTTP/1.1 lets it).
        "is named in lower case" if annotation == annotation.to_ascii_lowercase() => {
            return Err(w.skip(format!(
                "the annotation {annotation:?} has no upper-case letter: a lower-case name would test nothing"
            )))
        }
        "is named in lower case" => (text.clone(), Some(modern::encode_header_value(&text))),
        other => return Err(w.harness_error(format!("no such Mcp-Param header problem: {other:?}"))),
    };
    call_param_tool(w, "string", Some(Value::String(value)), header).await
}

#[when(
    expr = "the client POSTs a call of the tool with its x-mcp-header parameter {word} and no Mcp-Param header"
)]
async fn posts_param_call_without_value(w: &mut ServerWorld, how: String) -> Result<(), Halt> {
    match how.as_str() {
        "null" => call_param_tool(w, "string", Some(Value::Null), None).await,
        "absent" => call_param_tool(w, "string", None, None).await,
        other => Err(w.harness_error(format!("no such argument: {other:?} (null or absent)"))),
    }
}

/// `streamable-http.mdx#server-behavior-for-custom-headers`: whatever the tool makes of the
/// call, the server did not refuse it as a header mismatch.
#[then("the server does not refuse the request for its headers")]
async fn not_refused_for_headers(w: &mut ServerWorld) -> Result<(), Halt> {
    let x = w.last_exchange().await?;
    let r = w.await_answer().await?;
    let refused = matches!(&r.outcome, Outcome::Error(e) if e.code == mcpspec_protocol::wire::ErrorObject::HEADER_MISMATCH);
    w.check(
        !refused,
        "an answer other than -32020 (HeaderMismatch)",
        format!("{}: {}", x.describe(), outcome_text(&r)),
    );
    Ok(())
}

#[when("the client opens a GET stream")]
async fn opens_get(w: &mut ServerWorld) -> Result<(), Halt> {
    let Some(n) = w.session()?.http_request("GET", &Tweaks::default()) else {
        return Err(w.skip("the server is not reached over HTTP".into()));
    };
    w.exchange = Some(n);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::judge_stable_lists;
    use std::collections::BTreeSet;

    fn round(tools: &[&str]) -> Vec<(String, BTreeSet<String>)> {
        vec![("tools/list".to_owned(), tools.iter().map(|t| t.to_string()).collect())]
    }

    #[test]
    fn lists_compare_with_the_first_listing() {
        assert!(judge_stable_lists(&[round(&["a", "b"]), round(&["b", "a"]), round(&["a", "b"])]).0);
        let (ok, actual) = judge_stable_lists(&[round(&["a"]), round(&["a"]), round(&["a", "p1"])]);
        assert!(!ok);
        assert!(actual.contains("listing 3") && actual.contains("p1"), "{actual}");
        // Listed once exercised nothing.
        assert!(!judge_stable_lists(&[round(&["a"])]).0);
        assert!(!judge_stable_lists(&[]).0);
    }
}
