//! The rules of a client's roots (client/roots.mdx): every root's `uri` is a `file://` URI
//! ("The `uri` MUST be a `file://` URI in the current specification"), and a client validates
//! its root URIs against path traversal ("Clients MUST … Validate all root URIs to prevent path
//! traversal"). What a client lists is all the server sees of that validation: a root whose path
//! still walks up or sideways (`..`, `.`) is one the client did not validate. Sans-IO.

use crate::sampling::brief;
use serde_json::Value;

/// What is wrong with the roots of a `roots/list` result (`{"roots": [...]}`), one line each;
/// empty when every root is a `file://` URI without a dot segment. A result without a `roots`
/// array is one problem.
pub fn problems(result: &Value) -> Vec<String> {
    let Some(roots) = result.get("roots").and_then(Value::as_array) else {
        return vec![format!("no roots array in {}", brief(Some(result)))];
    };
    roots.iter().filter_map(|root| root_problem(root.get("uri"))).collect()
}

fn root_problem(uri: Option<&Value>) -> Option<String> {
    let Some(uri) = uri.and_then(Value::as_str) else {
        return Some(format!("a root whose uri is {}", brief(uri)));
    };
    let Some(path) = uri.strip_prefix("file://") else {
        return Some(format!("{uri:?} is not a file:// URI"));
    };
    dot_segment(path).map(|segment| format!("{uri:?} holds the path segment {segment:?} (path traversal)"))
}

/// The first `.` or `..` segment of a URI's path, percent-encoded dots included: the WHATWG URL
/// parser resolves both (and, for `file:`, a backslash separates segments as a slash does), so a
/// URI holding one names a place other than its text says. Query and fragment are not the path.
fn dot_segment(path: &str) -> Option<&str> {
    let path = path.split(['?', '#']).next().unwrap_or_default();
    path.split(['/', '\\']).find(|segment| {
        let decoded = segment.to_ascii_lowercase().replace("%2e", ".");
        decoded == "." || decoded == ".."
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn of(uris: &[&str]) -> Vec<String> {
        let roots: Vec<Value> = uris.iter().map(|u| json!({ "uri": u })).collect();
        problems(&json!({ "roots": roots }))
    }

    #[test]
    fn plain_file_uris_pass() {
        assert!(
            of(&["file:///home/user/project", "file:///C:/work/repo", "file://host/share/a..b"]).is_empty()
        );
        assert!(of(&[]).is_empty());
    }

    #[test]
    fn dot_segments_are_traversal_however_spelled() {
        for uri in [
            "file:///home/user/../etc",
            "file:///home/user/..",
            "file:///home/./user",
            "file:///home/%2e%2e/etc",
            "file:///home/%2E./etc",
            "file:///C:/work\\..\\secrets",
        ] {
            let found = of(&[uri]);
            assert_eq!(found.len(), 1, "{uri}: {found:?}");
            assert!(found[0].contains("path traversal"), "{uri}: {found:?}");
        }
    }

    #[test]
    fn query_and_fragment_are_not_the_path() {
        assert!(of(&["file:///home/user/project?x=../y#../z"]).is_empty());
    }

    #[test]
    fn other_schemes_and_missing_uris_are_named() {
        assert!(of(&["https://example.com/project"])[0].contains("not a file:// URI"));
        assert!(problems(&json!({ "roots": [{ "name": "x" }] }))[0].contains("absent"));
        assert!(problems(&json!({ "roots": [{ "uri": 3 }] }))[0].contains("3"));
        assert!(problems(&json!({}))[0].contains("no roots array"));
    }
}
