//! The authorization vocabulary's readers (`mcpspec_protocol::auth`), which read what a server
//! under test or its authorization server sends: `WWW-Authenticate` values and metadata
//! documents. For any input they never panic; a `Bearer` challenge they read, formatted again,
//! reads back as itself (repeats aside); a metadata document they accept serializes back to
//! one they accept as equal.

use mcpspec_protocol::auth::{
    challenge, AuthorizationServerMetadata, BearerChallenge, ProtectedResourceMetadata,
};

/// `data`: `WWW-Authenticate` field values, one per line (lossy UTF-8), or a JSON document.
pub fn www_authenticate(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let values: Vec<&str> = text.split('\n').collect();
    let _ = challenge::parse(&values);
    if let Ok(Some(mut b)) = BearerChallenge::find(&values) {
        // Formatting writes each parameter once: what was repeated is gone from the copy.
        b.repeated.clear();
        let again = BearerChallenge::find(&[b.to_string()]);
        assert_eq!(
            again,
            Ok(Some(b.clone())),
            "the challenge {b:?} formatted as {:?} reads back otherwise",
            b.to_string()
        );
    }
    if let Ok(v) = serde_json::from_slice::<serde_json::Value>(data) {
        if let Ok(prm) = ProtectedResourceMetadata::from_json(&v) {
            assert_eq!(ProtectedResourceMetadata::from_json(&prm.to_json()).as_ref(), Ok(&prm));
        }
        if let Ok(m) = AuthorizationServerMetadata::from_json(&v) {
            let _ = m.problems(&m.issuer);
            assert_eq!(AuthorizationServerMetadata::from_json(&m.to_json()).as_ref(), Ok(&m));
        }
    }
}
