//! OAuth Client ID Metadata Documents (`basic/authorization.mdx#client-id-metadata-documents`,
//! 2025-11-25 on; draft-ietf-oauth-client-id-metadata-document-00): a client with no prior
//! relationship to an authorization server names itself by an https URL whose document holds
//! its metadata. What makes such a `client_id` and its document valid, for the client's
//! judge and the reference authorization server alike.

use serde_json::Value;

/// Whether `client_id` is meant as a metadata document's URL (rather than an opaque id an
/// authorization server issued): it has a URL scheme. Such an id is then held to
/// [`url_problem`].
pub fn is_url_form(client_id: &str) -> bool {
    url::Url::parse(client_id).is_ok_and(|u| u.has_host())
}

/// Why `client_id` is not a valid metadata document URL, if it is not: the spec requires the
/// "https" scheme and a path component (`https://example.com/client.json`); the draft forbids
/// a fragment, dot segments and credentials.
pub fn url_problem(client_id: &str) -> Option<String> {
    let Ok(u) = url::Url::parse(client_id) else {
        return Some(format!("{client_id:?} is not a URL"));
    };
    if u.scheme() != "https" {
        return Some(format!("{client_id:?} is not an https URL"));
    }
    if u.path().is_empty() || u.path() == "/" {
        return Some(format!("{client_id:?} has no path component"));
    }
    if u.fragment().is_some() {
        return Some(format!("{client_id:?} has a fragment"));
    }
    if !u.username().is_empty() || u.password().is_some() {
        return Some(format!("{client_id:?} carries credentials"));
    }
    // `url` resolves dot segments away, so a dot segment shows as a difference.
    if client_id.contains("/./") || client_id.contains("/../") {
        return Some(format!("{client_id:?} has a dot segment"));
    }
    None
}

/// A client ID metadata document for `url`: the members the spec requires (`client_id`,
/// `client_name`, `redirect_uris`), a public client's grant and response types, and
/// `token_endpoint_auth_method` `none`.
pub fn document(url: &str, client_name: &str, redirect_uris: &[&str]) -> Value {
    serde_json::json!({
        "client_id": url,
        "client_name": client_name,
        "redirect_uris": redirect_uris,
        "grant_types": ["authorization_code"],
        "response_types": ["code"],
        "token_endpoint_auth_method": "none",
    })
}

/// What is wrong with the metadata document fetched from `url`: it must be a JSON object with
/// `client_id` (equal to `url`, exactly), `client_name` and `redirect_uris`; and the redirect
/// URI an authorization request presents, if given, must be one of them.
pub fn document_problems(doc: &Value, url: &str, redirect_uri: Option<&str>) -> Vec<String> {
    let Value::Object(m) = doc else { return vec!["the document is not a JSON object".into()] };
    let mut out = Vec::new();
    match m.get("client_id").and_then(Value::as_str) {
        Some(id) if id == url => {}
        Some(id) => out.push(format!("its client_id {id:?} is not its URL {url:?}")),
        None => out.push("it has no client_id".into()),
    }
    if m.get("client_name").and_then(Value::as_str).is_none() {
        out.push("it has no client_name".into());
    }
    let uris: Vec<&str> = m
        .get("redirect_uris")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    if uris.is_empty() {
        out.push("it has no redirect_uris".into());
    } else if let Some(r) = redirect_uri.filter(|r| !uris.contains(r)) {
        out.push(format!("the redirect URI {r:?} is not among its redirect_uris"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_client_id_url_is_https_with_a_path() {
        assert_eq!(url_problem("https://client.example/client.json"), None);
        assert!(url_problem("http://client.example/client.json").is_some());
        assert!(url_problem("https://client.example").is_some());
        assert!(url_problem("https://client.example/").is_some());
        assert!(url_problem("https://client.example/c.json#x").is_some());
        assert!(url_problem("https://u:p@client.example/c.json").is_some());
        assert!(url_problem("https://client.example/a/../c.json").is_some());
        assert!(url_problem("not a url").is_some());
        assert!(is_url_form("https://client.example/c.json") && is_url_form("http://x/c"));
        assert!(!is_url_form("mcpspec-client-123"));
    }

    #[test]
    fn a_document_names_itself_and_its_redirect_uris() {
        let url = "https://client.example/c.json";
        let good = json!({"client_id": url, "client_name": "c", "redirect_uris": ["http://127.0.0.1:3/cb"]});
        assert!(document_problems(&good, url, Some("http://127.0.0.1:3/cb")).is_empty());
        assert_eq!(document_problems(&good, url, Some("http://127.0.0.1:4/cb")).len(), 1);
        let other = json!({"client_id": "https://client.example/other.json", "client_name": "c", "redirect_uris": ["x"]});
        assert_eq!(document_problems(&other, url, None).len(), 1);
        assert_eq!(document_problems(&json!({}), url, None).len(), 3);
        assert_eq!(document_problems(&json!([]), url, None).len(), 1);
        let made = document(url, "c", &["http://127.0.0.1:3/cb"]);
        assert!(document_problems(&made, url, Some("http://127.0.0.1:3/cb")).is_empty());
    }
}
