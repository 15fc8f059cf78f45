//! The rules of `elicitation/create` (client/elicitation.mdx, 2025-06-18 on): which modes a
//! client declared, and what its `ElicitResult` must hold — an action of accept, decline or
//! cancel; in form mode, accepted content that satisfies the `requestedSchema`, with the
//! schema's defaults pre-populated (2025-11-25); in URL mode, no content. Sans-IO.

use crate::sampling::brief;
use serde_json::Value;

/// The mode of an elicitation request: "Clients MUST treat requests without a `mode` field as
/// form mode" (2025-11-25).
pub fn mode(params: &Value) -> &str {
    params.get("mode").and_then(Value::as_str).unwrap_or("form")
}

/// Whether client `capabilities` declare elicitation `mode`. "For backwards compatibility, an
/// empty capabilities object is equivalent to declaring support for `form` mode only."
pub fn mode_declared(capabilities: &Value, mode: &str) -> bool {
    match capabilities.get("elicitation").and_then(Value::as_object) {
        Some(o) if o.is_empty() => mode == "form",
        Some(o) => o.get(mode).is_some_and(|m| !matches!(m, Value::Null | Value::Bool(false))),
        None => false,
    }
}

/// What is wrong with a client's declared elicitation capability, if anything: "Clients
/// declaring the `elicitation` capability MUST support at least one mode" (2025-11-25), so a
/// declaration naming neither form nor url (`{}` stands for form) declares nothing usable.
pub fn modes_problem(capabilities: &Value) -> Option<String> {
    let declared = capabilities.get("elicitation")?;
    match ["form", "url"].iter().any(|m| mode_declared(capabilities, m)) {
        true => None,
        false => Some(format!("elicitation: {} declares neither form nor url", brief(Some(declared)))),
    }
}

/// The secrets a form elicitation asks for, one line each: "Servers MUST NOT use form mode
/// elicitation to request sensitive information such as passwords, API keys, access tokens, or
/// payment credentials" (2025-11-25; 2025-06-18 says "MUST NOT … request sensitive
/// information"). Sensitivity has no wire mark, so a field counts when its name or title names
/// one of those secrets outright (`password`, `api_key`, `access_token`, `card_number`, `cvv`,
/// …); a field merely about tokens (`max_tokens`) does not.
pub fn sensitive_fields(params: &Value) -> Vec<String> {
    // Found anywhere in a name or title, letters and digits alone, lower case.
    const NAMES: [&str; 13] = [
        "password",
        "passwd",
        "passphrase",
        "apikey",
        "accesstoken",
        "refreshtoken",
        "bearertoken",
        "authtoken",
        "clientsecret",
        "secretkey",
        "privatekey",
        "creditcard",
        "cardnumber",
    ];
    // Too short to be found inside other words (`classname` holds "ssn"): whole words only.
    const WORDS: [&str; 3] = ["cvv", "cvc", "ssn"];
    let Some(fields) = params.pointer("/requestedSchema/properties").and_then(Value::as_object) else {
        return Vec::new();
    };
    let squash =
        |s: &str| s.chars().filter(char::is_ascii_alphanumeric).collect::<String>().to_ascii_lowercase();
    let words = |s: &str| -> Vec<String> {
        s.split(|c: char| !c.is_ascii_alphanumeric()).map(str::to_ascii_lowercase).collect()
    };
    fields
        .iter()
        .filter(|(name, field)| {
            let title = field.get("title").and_then(Value::as_str).unwrap_or_default();
            [name.as_str(), title].iter().any(|text| {
                let squashed = squash(text);
                NAMES.iter().any(|n| squashed.contains(n))
                    || words(text).iter().any(|w| WORDS.contains(&w.as_str()))
            })
        })
        .map(|(name, _)| format!("the form field {name:?} asks for a secret"))
        .collect()
}

/// What of the user a URL-mode elicitation's `url` carries, if anything: "the URL MUST NOT
/// contain sensitive information about the end-user, including credentials, personal
/// identifiable information, etc." (2025-11-25). Seen on the wire: credentials in the URL's
/// userinfo, an e-mail address, or a query parameter named for a secret.
pub fn url_user_data(params: &Value) -> Option<String> {
    let u = url::Url::parse(params.get("url")?.as_str()?).ok()?;
    if !u.username().is_empty() || u.password().is_some() {
        return Some(format!("url {} carries credentials in its userinfo", u.as_str()));
    }
    // A parameter named `token` or `state` may be the page's own binding, not the user's: only
    // names that can mean nothing but a secret of the user's count.
    const SECRETS: [&str; 7] =
        ["password", "passwd", "apikey", "accesstoken", "refreshtoken", "clientsecret", "ssn"];
    for (k, v) in u.query_pairs() {
        let key = k.chars().filter(char::is_ascii_alphanumeric).collect::<String>().to_ascii_lowercase();
        let email = v.split('@').collect::<Vec<_>>().as_slice().len() == 2
            && v.split('@').all(|p| !p.is_empty())
            && v.rsplit('@').next().is_some_and(|d| d.contains('.'));
        if email {
            return Some(format!("url {} carries an e-mail address ({k}={v})", u.as_str()));
        }
        if !v.is_empty() && SECRETS.contains(&key.as_str()) {
            return Some(format!("url {} carries a secret in its query ({k}=…)", u.as_str()));
        }
    }
    None
}

/// What is wrong with the `url` of a URL-mode elicitation, if anything: "The `url` parameter
/// **MUST** contain a valid URL" — an absolute URL, as the WHATWG URL parser reads one.
pub fn url_problem(params: &Value) -> Option<String> {
    match params.get("url") {
        Some(Value::String(u)) => match url::Url::parse(u) {
            Ok(_) => None,
            Err(e) => Some(format!("url {u:?} is not a valid URL ({e})")),
        },
        // A missing or ill-typed url is the schema's to judge.
        _ => None,
    }
}

/// What is wrong with the `data` of a URLElicitationRequiredError (-32042): it lists the
/// elicitations required, each in URL mode with an `elicitationId`.
pub fn required_error_problems(data: Option<&Value>) -> Vec<String> {
    let Some(list) = data.and_then(|d| d.get("elicitations")).and_then(Value::as_array) else {
        return vec!["no data.elicitations list of the elicitations required".into()];
    };
    if list.is_empty() {
        return vec!["data.elicitations is empty".into()];
    }
    let mut out = Vec::new();
    for (i, e) in list.iter().enumerate() {
        if e.get("mode").and_then(Value::as_str) != Some("url") {
            out.push(format!(
                "data.elicitations[{i}] is not a URL mode elicitation (mode {})",
                brief(e.get("mode"))
            ));
        }
        if !e.get("elicitationId").is_some_and(Value::is_string) {
            out.push(format!("data.elicitations[{i}] has no elicitationId"));
        }
        if let Some(why) = url_problem(e) {
            out.push(format!("data.elicitations[{i}]: {why}"));
        }
    }
    out
}

/// The `elicitationId`s a -32042 error's data names.
pub fn required_error_ids(data: Option<&Value>) -> Vec<String> {
    let list = data.and_then(|d| d.get("elicitations")).and_then(Value::as_array);
    list.into_iter().flatten().filter_map(|e| e.get("elicitationId")?.as_str().map(str::to_owned)).collect()
}

/// What a client's `elicitation/create` result was judged on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ElicitJudgement {
    /// The action, when it is one of accept, decline and cancel.
    pub action: Option<String>,
    /// What is wrong with the result, one line each.
    pub problems: Vec<String>,
    /// One line describing the result, for reports.
    pub summary: String,
}

/// Judges a client's result to an `elicitation/create` request with `params`: the action is
/// accept, decline or cancel (`ElicitResult.action`); in form mode, accepted content validates
/// against the `requestedSchema` (formats included: the schema offers email, uri, date and
/// date-time); in URL mode the content is omitted (client/elicitation.mdx#response-actions).
/// `Err` when the request's own schema does not compile (the scenario's fault, not the client's).
pub fn judge_elicit_result(params: &Value, result: &Value) -> Result<ElicitJudgement, String> {
    let mut problems = Vec::new();
    let action = result.get("action").and_then(Value::as_str);
    let action = match action {
        Some(a @ ("accept" | "decline" | "cancel")) => Some(a.to_owned()),
        _ => {
            problems.push(format!("action {} is not accept, decline or cancel", brief(result.get("action"))));
            None
        }
    };
    let content = result.get("content");
    match (mode(params), action.as_deref()) {
        ("url", _) if content.is_some() => {
            problems.push(format!("content {} in answer to a URL mode request", brief(content)));
        }
        ("form", Some("accept")) => match content {
            None => problems.push("an accept without content".to_owned()),
            Some(c) => {
                problems.extend(schema_problems(params.get("requestedSchema").unwrap_or(&Value::Null), c)?)
            }
        },
        _ => {}
    }
    let summary = format!("action {}, content {}", brief(result.get("action")), brief(content));
    Ok(ElicitJudgement { action, problems, summary })
}

/// Why `content` does not satisfy the requested schema (empty when it does).
pub fn schema_problems(schema: &Value, content: &Value) -> Result<Vec<String>, String> {
    let validator = jsonschema::options()
        .should_validate_formats(true)
        .build(schema)
        .map_err(|e| format!("the requested schema does not compile: {e}"))?;
    Ok(validator
        .iter_errors(content)
        .take(5)
        .map(|e| match e.instance_path().as_str() {
            "" => format!("content: {e}"),
            path => format!("content{path}: {e}"),
        })
        .collect())
}

/// The properties of the requested schema that have a `default` but are missing from the
/// accepted `content`. "Clients that support defaults SHOULD pre-populate form fields with
/// these values" (2025-11-25, client/elicitation.mdx#requested-schema): a form submitted as
/// pre-populated carries each defaulted field.
pub fn defaults_missing(params: &Value, content: &Value) -> Vec<String> {
    let properties = params.pointer("/requestedSchema/properties").and_then(Value::as_object);
    properties
        .into_iter()
        .flatten()
        .filter(|(name, p)| p.get("default").is_some() && content.get(name.as_str()).is_none())
        .map(|(name, p)| format!("{name} (default {})", brief(p.get("default"))))
        .collect()
}

#[cfg(test)]
mod tests {

    #[test]
    fn secrets_in_forms_and_user_data_in_urls_are_seen() {
        use serde_json::json;
        let form = |props: serde_json::Value| json!({ "mode": "form", "message": "m", "requestedSchema": { "type": "object", "properties": props } });
        assert!(super::sensitive_fields(&form(
            json!({ "username": {}, "email": {}, "max_tokens": {}, "topic": {}, "classname": {} })
        ))
        .is_empty());
        for secret in ["password", "API_KEY", "access-token", "cardNumber", "cvv", "card_cvc"] {
            assert_eq!(
                super::sensitive_fields(&form(json!({ secret: { "type": "string" } }))).len(),
                1,
                "{secret}"
            );
        }
        assert_eq!(super::sensitive_fields(&form(json!({ "p": { "title": "Your Password" } }))).len(), 1);
        let url = |u: &str| json!({ "mode": "url", "url": u });
        assert_eq!(super::url_user_data(&url("https://example.com/consent?elicitation=e1")), None);
        assert!(super::url_user_data(&url("https://example.com/c?email=ada%40example.com")).is_some());
        assert!(super::url_user_data(&url("https://ada:pw@example.com/c")).is_some());
        assert!(super::url_user_data(&url("https://example.com/c?access_token=abc")).is_some());
        assert_eq!(super::url_user_data(&url("https://example.com/c?token=session-binding")), None);
        assert_eq!(super::url_user_data(&url("not a url")), None);
    }

    #[test]
    fn a_declared_elicitation_names_a_mode() {
        use serde_json::json;
        for ok in [
            json!({}),
            json!({"elicitation": {}}),
            json!({"elicitation": {"url": {}}}),
            json!({"elicitation": {"form": {}, "url": {}}}),
        ] {
            assert_eq!(super::modes_problem(&ok), None, "{ok}");
        }
        for bad in [
            json!({"elicitation": {"forms": {}}}),
            json!({"elicitation": {"url": false}}),
            json!({"elicitation": true}),
        ] {
            assert!(super::modes_problem(&bad).is_some(), "{bad}");
        }
    }
    use super::*;
    use serde_json::json;

    fn form() -> Value {
        json!({"message": "m", "requestedSchema": {"type": "object", "properties": {
            "name": {"type": "string", "minLength": 2},
            "age": {"type": "integer", "minimum": 18},
            "color": {"type": "string", "enum": ["red", "blue"], "default": "blue"},
            "email": {"type": "string", "format": "email"}},
            "required": ["name", "age"]}})
    }

    #[test]
    fn an_accepted_form_is_judged_against_the_schema() {
        let ok = json!({"action": "accept", "content": {"name": "ab", "age": 18, "color": "blue"}});
        assert_eq!(judge_elicit_result(&form(), &ok).unwrap().problems, Vec::<String>::new());
        for (content, want) in [
            (json!({"name": "ab"}), "age"),
            (json!({"name": "ab", "age": "old"}), "/age"),
            (json!({"name": "ab", "age": 17}), "/age"),
            (json!({"name": "ab", "age": 20, "color": "green"}), "/color"),
            (json!({"name": "ab", "age": 20, "email": "nope"}), "/email"),
        ] {
            let j = judge_elicit_result(&form(), &json!({"action": "accept", "content": content})).unwrap();
            assert!(j.problems.iter().any(|p| p.contains(want)), "{content}: {j:?}");
        }
        let no_content = judge_elicit_result(&form(), &json!({"action": "accept"})).unwrap();
        assert_eq!(no_content.problems, ["an accept without content"]);
    }

    #[test]
    fn decline_cancel_and_url_mode() {
        for a in ["decline", "cancel"] {
            let j = judge_elicit_result(&form(), &json!({ "action": a })).unwrap();
            assert_eq!((j.action.as_deref(), j.problems.len()), (Some(a), 0));
        }
        let bad = judge_elicit_result(&form(), &json!({"action": "ok"})).unwrap();
        assert!(bad.action.is_none() && bad.problems[0].contains("not accept"));
        let url = json!({"mode": "url", "message": "m", "url": "https://example.com", "elicitationId": "e"});
        assert!(judge_elicit_result(&url, &json!({"action": "accept"})).unwrap().problems.is_empty());
        let with_content = judge_elicit_result(&url, &json!({"action": "accept", "content": {}})).unwrap();
        assert!(with_content.problems[0].contains("URL mode"));
        let broken = json!({"message": "m", "requestedSchema": {"type": 7}});
        assert!(judge_elicit_result(&broken, &json!({"action": "accept", "content": {}})).is_err());
    }

    #[test]
    fn defaults_and_modes() {
        assert_eq!(
            defaults_missing(&form(), &json!({"name": "ab", "age": 18})),
            ["color (default \"blue\")"]
        );
        assert!(defaults_missing(&form(), &json!({"color": "red"})).is_empty(), "the user may change it");
        assert!(mode_declared(&json!({"elicitation": {}}), "form"));
        assert!(!mode_declared(&json!({"elicitation": {}}), "url"));
        assert!(mode_declared(&json!({"elicitation": {"url": {}}}), "url"));
        assert!(!mode_declared(&json!({"elicitation": {"url": {}}}), "form"));
        assert!(!mode_declared(&json!({}), "form"));
        assert_eq!(mode(&json!({})), "form");
    }
}
