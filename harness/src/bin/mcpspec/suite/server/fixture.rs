//! Given steps for the official conformance fixture's resources and prompts: a scenario that
//! needs one is skipped, with the reason, on a server that does not list it.

use super::given::find;
use super::{Halt, ServerWorld};
use crate::suite::scenario::Scenario as _;
use cucumber::given;
use serde_json::Value;

#[given(expr = "the server lists the resource {string}")]
async fn lists_the_resource(w: &mut ServerWorld, uri: String) -> Result<(), Halt> {
    let wanted = Value::from(uri.as_str());
    if find(w, "resources/list", "resources", |r| r.get("uri") == Some(&wanted)).await?.is_none() {
        return Err(w.skip(format!(
            "the server lists no resource {uri:?} (a name of the official conformance fixture)"
        )));
    }
    Ok(())
}

#[given(expr = "the server lists the resource template {string}")]
async fn lists_the_template(w: &mut ServerWorld, template: String) -> Result<(), Halt> {
    let wanted = Value::from(template.as_str());
    let found =
        find(w, "resources/templates/list", "resourceTemplates", |t| t.get("uriTemplate") == Some(&wanted))
            .await?;
    if found.is_none() {
        return Err(w.skip(format!(
            "the server lists no resource template {template:?} (a name of the official conformance fixture)"
        )));
    }
    Ok(())
}

#[given(expr = "the server lists the prompt {string}")]
async fn lists_the_prompt(w: &mut ServerWorld, name: String) -> Result<(), Halt> {
    let wanted = Value::from(name.as_str());
    if find(w, "prompts/list", "prompts", |p| p.get("name") == Some(&wanted)).await?.is_none() {
        return Err(w.skip(format!(
            "the server lists no prompt {name:?} (a name of the official conformance fixture)"
        )));
    }
    Ok(())
}
