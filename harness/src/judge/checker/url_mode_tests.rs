//! URL-mode elicitation: what a server may ask and what it must send once the user is done.

use super::*;
use mcpspec_protocol::elicitation::required_error_problems;
use serde_json::json;

use super::tests::{C2S, S2C};

fn ids(c: &mut SessionChecker, d: Direction, v: Value) -> Vec<&'static str> {
    super::tests::ids(&c.on_value(d, &v))
}

/// A 2025-11-25 session with a client that takes URL-mode elicitation.
fn session() -> SessionChecker {
    let mut c = SessionChecker::new(Revision::V2025_11_25);
    c.on_value(C2S, &json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{"url":{}}}}}));
    c.on_value(
        S2C,
        &json!({"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{}}}),
    );
    c.on_value(C2S, &json!({"jsonrpc":"2.0","method":"notifications/initialized"}));
    c
}

fn elicit(id: i64, url: &str, elicitation_id: &str) -> Value {
    json!({"jsonrpc":"2.0","id":id,"method":"elicitation/create","params":{"mode":"url","message":"m","url":url,"elicitationId":elicitation_id}})
}

fn complete(elicitation_id: &str) -> Value {
    json!({"jsonrpc":"2.0","method":"notifications/elicitation/complete","params":{"elicitationId":elicitation_id}})
}

#[test]
fn url_mode_elicitations_name_a_valid_url() {
    let mut c = session();
    assert!(ids(&mut c, S2C, elicit(1, "https://example.com/consent?x=1", "e1")).is_empty());
    assert_eq!(ids(&mut c, S2C, elicit(2, "the consent page", "e2")), ["elicitation/url-valid"]);
    assert_eq!(ids(&mut c, S2C, elicit(3, "/relative/path", "e3")), ["elicitation/url-valid"]);
}

#[test]
fn completions_name_an_elicitation_of_the_session() {
    let mut c = session();
    assert_eq!(ids(&mut c, S2C, complete("e1")), ["elicitation/complete-known-id"]);
    ids(&mut c, S2C, elicit(1, "https://example.com/", "e1"));
    assert!(ids(&mut c, S2C, complete("e1")).is_empty());
    // Ids a -32042 error announced may be completed too.
    c.on_value(C2S, &json!({"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"t"}}));
    let required = json!({"jsonrpc":"2.0","id":5,"error":{"code":-32042,"message":"m","data":{"elicitations":[
        {"mode":"url","elicitationId":"e9","url":"https://example.com/","message":"m"}]}}});
    assert!(ids(&mut c, S2C, required).is_empty());
    assert!(ids(&mut c, S2C, complete("e9")).is_empty());
}

#[test]
fn url_elicitation_required_errors_list_url_mode_elicitations() {
    let mut c = session();
    c.on_value(C2S, &json!({"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"t"}}));
    let form = json!({"jsonrpc":"2.0","id":5,"error":{"code":-32042,"message":"m","data":{"elicitations":[
        {"mode":"form","message":"m","requestedSchema":{"type":"object","properties":{}}}]}}});
    assert_eq!(
        ids(&mut c, S2C, form),
        ["elicitation/required-error-url-mode", "elicitation/required-error-url-mode"]
    );
    assert_eq!(required_error_problems(None), ["no data.elicitations list of the elicitations required"]);
}
