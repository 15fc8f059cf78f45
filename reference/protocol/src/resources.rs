//! What a server's `file://` resources must not give away (server/resources.mdx#security-
//! considerations, 2026-07-28: servers MUST sanitize file paths against directory traversal),
//! as a pure function: the URI that would climb out of a listed resource's directory.

/// A `file://` URI that climbs out of the directory of `listed` (a `file://` URI the server
/// listed) with `..` segments, one more than the directory is deep, to `/etc/passwd`. Written
/// out as is: a URL parser would resolve the segments away, and a server that resolves them
/// before it checks the path is exactly what is asked for. `None` for a URI that is not
/// `file://`, or one in the root directory (there is nothing to climb out of).
pub fn climbing_uri(listed: &str) -> Option<String> {
    let rest = listed.strip_prefix("file://")?;
    let (authority, path) = rest.split_at(rest.find('/')?);
    let path = path.split(['?', '#']).next().unwrap_or(path);
    let dir = &path[..path.rfind('/')? + 1];
    let depth = dir.split('/').filter(|s| !s.is_empty()).count();
    (depth > 0).then(|| format!("file://{authority}{dir}{}etc/passwd", "../".repeat(depth + 1)))
}

#[cfg(test)]
mod tests {
    use super::climbing_uri;

    #[test]
    fn the_climb_goes_one_past_the_root() {
        assert_eq!(
            climbing_uri("file:///srv/docs/readme.md").as_deref(),
            Some("file:///srv/docs/../../../etc/passwd")
        );
        assert_eq!(
            climbing_uri("file:///srv/docs/").as_deref(),
            Some("file:///srv/docs/../../../etc/passwd")
        );
        assert_eq!(
            climbing_uri("file://localhost/a/b.txt?x=1").as_deref(),
            Some("file://localhost/a/../../etc/passwd")
        );
        assert_eq!(climbing_uri("file:///readme.md"), None);
        assert_eq!(climbing_uri("test://static-text"), None);
        assert_eq!(climbing_uri("https://example.com/a/b"), None);
    }
}
