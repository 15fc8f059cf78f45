//! Which scenario a server's message belongs to, when several scenarios read from one server
//! process at once ([`super::host`]). Sans-IO: the host tells it what each tenant sent and asks
//! where each message the server wrote goes.
//!
//! A message is attributed by what ties it to a request: a response by its id, a progress
//! notification by its token, an error without an id by the one tenant that sent something it
//! could answer. What nothing ties to one tenant goes to all of them — harmlessly, for a
//! notification a tenant may see anyway (a log message) — or, where a wrong guess could change
//! a verdict (a server request, an answer to nothing, a line that is no message), to all of them
//! *tainted*: their scenarios are judged again in a process of their own.

use mcpspec_protocol::wire::{Message, RequestId};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};

/// A tenant's number on its host, from 0 (the scenario that started the process).
pub type TenantId = usize;

/// Where a message the server wrote goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Route {
    /// To one tenant.
    To(TenantId),
    /// To every tenant present: nothing ties it to one, and seeing it changes no verdict.
    All,
    /// To every tenant present, whose verdicts it may change: they are judged again alone
    /// (the reason says why).
    Ambiguous(String),
}

#[derive(Debug, Default)]
struct Tenant {
    /// Still running its scenario (a tenant that left keeps its routes: a late message of its
    /// own is still charged to it).
    present: bool,
    /// Its requests awaiting their answers.
    awaiting: usize,
    /// It sent something the server may answer with an error without an id (a line that is no
    /// well-formed request).
    idless: usize,
}

/// The routes of one shared process.
#[derive(Debug, Default)]
pub struct Routes {
    tenants: BTreeMap<TenantId, Tenant>,
    /// Requests awaiting their answers: id → the tenant that sent it.
    requests: HashMap<RequestId, TenantId>,
    /// Progress tokens of the tenants' requests (as JSON text) → the tenant.
    tokens: HashMap<String, TenantId>,
    /// Every request id sent on the process → the tenant that sent it first (ids are unique
    /// per session in the legacy era: a server may refuse one used before).
    used: HashMap<RequestId, TenantId>,
}

/// What sending a message shares with other tenants.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Shared {
    /// Another tenant's request still awaiting its answer has the same id or progress token.
    pub clash: Option<TenantId>,
    /// An id another tenant used before, on the same process.
    pub reused: Option<RequestId>,
}

impl Routes {
    /// A new tenant.
    pub fn join(&mut self) -> TenantId {
        let id = self.tenants.keys().next_back().map_or(0, |last| last + 1);
        self.tenants.insert(id, Tenant { present: true, ..Tenant::default() });
        id
    }

    /// The tenant's scenario is over; what is still addressed to it stays its own.
    pub fn leave(&mut self, tenant: TenantId) {
        if let Some(t) = self.tenants.get_mut(&tenant) {
            t.present = false;
        }
    }

    /// The tenants still running their scenarios.
    pub fn present(&self) -> Vec<TenantId> {
        self.tenants.iter().filter(|(_, t)| t.present).map(|(id, _)| *id).collect()
    }

    /// Whether `tenant` is still running its scenario.
    pub fn is_present(&self, tenant: TenantId) -> bool {
        self.tenants.get(&tenant).is_some_and(|t| t.present)
    }

    /// The tenant that left last, for what no present tenant can take.
    fn last_gone(&self) -> Option<TenantId> {
        self.tenants.keys().next_back().copied()
    }

    /// `tenant` is about to send `value`. Returns the other tenant it now shares an address
    /// with, if any: an id still awaiting another tenant's answer, or a progress token another
    /// tenant's request carries (neither answer could be told apart).
    pub fn sent(&mut self, tenant: TenantId, value: &Value) -> Shared {
        let mut shared = Shared::default();
        match value {
            // A batch may be refused as a whole, with an error without an id.
            Value::Array(items) => {
                self.tenant(tenant).idless += 1;
                for item in items {
                    let more = self.sent(tenant, item);
                    shared.clash = shared.clash.or(more.clash);
                    shared.reused = shared.reused.or(more.reused);
                }
            }
            Value::Object(message) => {
                let request = message.get("method").is_some() && !message.contains_key("result");
                // An id the server can read is answered with it, even on a request it refuses.
                if let Some(id) = message.get("id").and_then(RequestId::from_value).filter(|_| request) {
                    if *self.used.entry(id.clone()).or_insert(tenant) != tenant {
                        shared.reused = Some(id.clone());
                    }
                    shared.clash = self.requests.insert(id, tenant).filter(|other| *other != tenant);
                    if let Some(token) = message.get("params").and_then(|p| p.pointer("/_meta/progressToken"))
                    {
                        let other = self.tokens.insert(token.to_string(), tenant);
                        shared.clash = shared.clash.or(other.filter(|other| *other != tenant));
                    }
                    self.tenant(tenant).awaiting += 1;
                }
                // What breaks the envelope may be refused with an error without an id.
                if Message::from_value(value).is_err() {
                    self.tenant(tenant).idless += 1;
                }
            }
            _ => self.tenant(tenant).idless += 1,
        }
        shared
    }

    /// `tenant` is about to write bytes that may be no message at all.
    pub fn sent_raw(&mut self, tenant: TenantId, bytes: &[u8]) -> Shared {
        let mut shared = Shared::default();
        let mut any = false;
        for line in bytes.split(|b| *b == b'\n').filter(|l| !l.iter().all(u8::is_ascii_whitespace)) {
            any = true;
            match serde_json::from_slice::<Value>(line) {
                Ok(value) => {
                    let more = self.sent(tenant, &value);
                    shared.clash = shared.clash.or(more.clash);
                    shared.reused = shared.reused.or(more.reused);
                }
                Err(_) => self.tenant(tenant).idless += 1,
            }
        }
        if !any {
            self.tenant(tenant).idless += 1;
        }
        shared
    }

    fn tenant(&mut self, tenant: TenantId) -> &mut Tenant {
        self.tenants.entry(tenant).or_default()
    }

    /// Where a message the server wrote goes.
    pub fn received(&mut self, value: &Value) -> Route {
        match value {
            Value::Array(items) => {
                let routes: Vec<Route> = items.iter().map(|item| self.received(item)).collect();
                match routes.first() {
                    Some(first) if routes.iter().all(|r| r == first) => first.clone(),
                    _ => Route::Ambiguous("a batch whose messages belong to several scenarios".into()),
                }
            }
            Value::Object(message) => match message.get("method").and_then(Value::as_str) {
                Some(method) if message.contains_key("id") => {
                    let waiting: Vec<TenantId> = self
                        .tenants
                        .iter()
                        .filter(|(_, t)| t.present && t.awaiting > 0)
                        .map(|(id, _)| *id)
                        .collect();
                    match waiting.as_slice() {
                        [one] => Route::To(*one),
                        _ => Route::Ambiguous(format!(
                            "the server sent a {method} request while {} scenarios' requests were in flight",
                            waiting.len()
                        )),
                    }
                }
                Some(_) => {
                    let token = message.get("params").and_then(|p| p.get("progressToken"));
                    if let Some(tenant) = token.and_then(|t| self.tokens.get(&t.to_string())) {
                        return Route::To(*tenant);
                    }
                    self.only_present().map_or(Route::All, Route::To)
                }
                None => self.answer(message.get("id")),
            },
            _ => Route::Ambiguous("a message that is not a JSON object".into()),
        }
    }

    /// Where an answer goes: to the tenant whose request it answers.
    fn answer(&mut self, id: Option<&Value>) -> Route {
        match id.and_then(RequestId::from_value) {
            Some(id) => {
                // An id whose JSON type changed on the way is still the answer (the recorder
                // fails it).
                let owner =
                    self.requests.remove(&id).or_else(|| id.twin().and_then(|t| self.requests.remove(&t)));
                match owner {
                    Some(tenant) => {
                        let t = self.tenant(tenant);
                        t.awaiting = t.awaiting.saturating_sub(1);
                        Route::To(tenant)
                    }
                    None => {
                        Route::Ambiguous(format!("an answer to {id}, which no scenario's request awaits"))
                    }
                }
            }
            // A server that leaves the id off its errors may be answering any request in
            // flight, not only a line whose id it could not read: with another scenario's
            // request awaiting its answer, the error is that scenario's as much as the
            // garbage-sender's (seen with the fault peer `modern-error-without-id`: its error
            // for a prompts/get went to a scenario that had sent garbage earlier, so the
            // prompts/get's scenario warned of no answer where, alone, it failed the id rule).
            None => {
                let asked: Vec<TenantId> =
                    self.tenants.iter().filter(|(_, t)| t.idless > 0).map(|(id, _)| *id).collect();
                let waiting = self
                    .tenants
                    .iter()
                    .filter(|(id, t)| t.present && t.awaiting > 0 && !asked.contains(id))
                    .count();
                match asked.as_slice() {
                    [one] if waiting == 0 => {
                        self.tenant(*one).idless -= 1;
                        Route::To(*one)
                    }
                    _ => Route::Ambiguous(format!(
                        "an error without an id, which {} scenarios' messages could have earned",
                        asked.len() + waiting
                    )),
                }
            }
        }
    }

    /// The one tenant present, or — none being present — the one that left last.
    fn only_present(&self) -> Option<TenantId> {
        match self.present().as_slice() {
            [one] => Some(*one),
            [] => self.last_gone(),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn two() -> (Routes, TenantId, TenantId) {
        let mut routes = Routes::default();
        let a = routes.join();
        let b = routes.join();
        (routes, a, b)
    }

    #[test]
    fn answers_go_to_the_request_s_sender() {
        let (mut routes, a, b) = two();
        assert_eq!(routes.sent(a, &json!({"jsonrpc":"2.0","id":1,"method":"ping"})), Shared::default());
        assert_eq!(
            routes.sent(b, &json!({"jsonrpc":"2.0","id":1000001,"method":"tools/list"})),
            Shared::default()
        );
        assert_eq!(routes.received(&json!({"jsonrpc":"2.0","id":1000001,"result":{}})), Route::To(b));
        // Its type changed on the way: still the answer to a's request.
        assert_eq!(routes.received(&json!({"jsonrpc":"2.0","id":"1","result":{}})), Route::To(a));
        // Answered already: no scenario awaits it.
        assert!(matches!(routes.received(&json!({"jsonrpc":"2.0","id":1,"result":{}})), Route::Ambiguous(_)));
    }

    #[test]
    fn one_id_for_two_tenants_is_a_clash() {
        let (mut routes, a, b) = two();
        routes.sent(a, &json!({"jsonrpc":"2.0","id":0,"method":"ping"}));
        let shared = routes.sent(b, &json!({"jsonrpc":"2.0","id":0,"method":"ping"}));
        assert_eq!(shared.clash, Some(a));
        assert_eq!(shared.reused, Some(RequestId::from(0)));
    }

    #[test]
    fn an_id_another_tenant_used_before_is_reused() {
        let (mut routes, a, b) = two();
        routes.sent(a, &json!({"jsonrpc":"2.0","id":"x","method":"ping"}));
        assert_eq!(routes.received(&json!({"jsonrpc":"2.0","id":"x","result":{}})), Route::To(a));
        let shared = routes.sent(b, &json!({"jsonrpc":"2.0","id":"x","method":"ping"}));
        assert_eq!(shared, Shared { clash: None, reused: Some(RequestId::from("x")) });
        assert_eq!(routes.sent(a, &json!({"jsonrpc":"2.0","id":"y","method":"ping"})).reused, None, "new");
        let again = routes.sent(a, &json!({"jsonrpc":"2.0","id":"x","method":"ping"}));
        assert_eq!(again.reused, None, "its own id, used again");
    }

    #[test]
    fn progress_follows_its_token_and_other_notifications_go_to_all() {
        let (mut routes, a, b) = two();
        let call =
            json!({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"_meta":{"progressToken":"t"}}});
        routes.sent(b, &call);
        let progress = json!({"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1}});
        assert_eq!(routes.received(&progress), Route::To(b));
        let log =
            json!({"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}});
        assert_eq!(routes.received(&log), Route::All);
        routes.leave(a);
        assert_eq!(routes.received(&log), Route::To(b), "one tenant left present");
        let _ = a;
    }

    #[test]
    fn a_server_request_goes_to_the_one_tenant_waiting_else_taints() {
        let (mut routes, a, b) = two();
        let request = json!({"jsonrpc":"2.0","id":"s1","method":"roots/list"});
        assert!(matches!(routes.received(&request), Route::Ambiguous(_)), "nobody waits");
        routes.sent(a, &json!({"jsonrpc":"2.0","id":1,"method":"tools/call"}));
        assert_eq!(routes.received(&request), Route::To(a));
        routes.sent(b, &json!({"jsonrpc":"2.0","id":2,"method":"tools/call"}));
        assert!(matches!(routes.received(&request), Route::Ambiguous(_)));
    }

    #[test]
    fn an_error_without_id_goes_to_the_one_tenant_that_sent_garbage() {
        let (mut routes, a, b) = two();
        let idless = json!({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}});
        assert!(matches!(routes.received(&idless), Route::Ambiguous(_)));
        routes.sent_raw(b, b"{not json\n");
        assert_eq!(routes.received(&idless), Route::To(b));
        routes.sent(a, &json!({"jsonrpc":"2.0","id":null,"method":"ping"}));
        routes.sent_raw(b, b"[]\n");
        assert!(matches!(routes.received(&idless), Route::Ambiguous(_)), "both could have earned it");
    }

    /// A server that drops the ids of its errors may be answering a request in flight: while
    /// another tenant awaits an answer, an error without an id is no longer the garbage-sender's
    /// alone, even if that tenant has left.
    #[test]
    fn an_error_without_id_is_ambiguous_while_another_tenant_awaits_an_answer() {
        let (mut routes, a, b) = two();
        let idless = json!({"jsonrpc":"2.0","error":{"code":-32602,"message":"Missing argument"}});
        routes.sent_raw(a, b"{not json\n");
        routes.leave(a);
        routes.sent(b, &json!({"jsonrpc":"2.0","id":7,"method":"prompts/get","params":{"name":"p"}}));
        let Route::Ambiguous(why) = routes.received(&idless) else { panic!("routed to one tenant") };
        assert!(why.contains("2 scenarios"), "{why}");
        routes.received(&json!({"jsonrpc":"2.0","id":7,"result":{"messages":[]}}));
        routes.sent_raw(a, b"{not json\n");
        assert_eq!(routes.received(&idless), Route::To(a), "nobody else awaits an answer");
    }

    #[test]
    fn a_batch_goes_where_all_its_messages_go() {
        let (mut routes, a, b) = two();
        routes.sent(
            a,
            &json!([{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]),
        );
        routes.sent(b, &json!({"jsonrpc":"2.0","id":3,"method":"ping"}));
        let both = json!([{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","id":2,"result":{}}]);
        assert_eq!(routes.received(&both), Route::To(a));
        routes.sent(a, &json!({"jsonrpc":"2.0","id":4,"method":"ping"}));
        let mixed = json!([{"jsonrpc":"2.0","id":3,"result":{}},{"jsonrpc":"2.0","id":4,"result":{}}]);
        assert!(matches!(routes.received(&mixed), Route::Ambiguous(_)));
    }
}
