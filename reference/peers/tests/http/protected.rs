//! The reference server's protected mode end to end, with the reference authorization server
//! as its issuer: its PRM at both well-known URLs, 401 with a `Bearer` challenge, each flawed
//! token refused (403 for a missing scope), a token in the query string refused, 2025-03-26's
//! paths at its origin relayed to the issuer, and every `auth-` fault breaking the one rule it
//! names.

use super::auth_server::get_json;
use super::{server, within, Server, BOTH};
use mcpspec_protocol::auth::discovery::DEFAULT_ENDPOINTS_2025_03_26;
use mcpspec_protocol::auth::{BearerChallenge, CanonicalResource, ProtectedResourceMetadata};
use mcpspec_reference::auth::{AuthServerOptions, AuthorizationServer, TokenFlaw};
use mcpspec_reference::faults::Fault;
use mcpspec_reference::transport::http_server::{Flavor, Protection};
use serde_json::json;
use std::sync::Arc;

/// 2025-03-26's metadata path at the MCP server's origin (`#authorization-base-url`).
const METADATA_PATH: &str = "/.well-known/oauth-authorization-server";

struct Protected {
    server: Server,
    issuer: AuthorizationServer,
}

async fn protected(flavor: Flavor, fault: Option<Fault>) -> Protected {
    let issuer = within("AS", AuthorizationServer::bind(AuthServerOptions::default())).await.unwrap();
    let protection = Arc::new(Protection::new(issuer.issuer().to_owned(), vec!["mcp".into()]));
    // 2025-03-26's paths at the origin, relayed to the issuer, as `mcpspec reference server
    // --auth-issuer` does: the metadata and the default endpoints.
    let mut paths = vec![METADATA_PATH.to_owned()];
    paths.extend(DEFAULT_ENDPOINTS_2025_03_26.iter().map(|(_, p)| p.to_string()));
    let relay = (issuer.local_addr(), paths);
    let server = server(flavor, |o| {
        o.protection = Some(protection);
        o.fault = fault;
        o.authorization_relay = Some(relay);
    })
    .await;
    Protected { server, issuer }
}

impl Protected {
    fn token(&self, flaw: TokenFlaw) -> String {
        self.issuer.minter().mint(flaw, &self.server.url, &["mcp".to_owned()], "test").unwrap()
    }

    /// The status and challenge of an initialize POST (Streamable HTTP) or of the SSE GET
    /// (legacy) carrying `token`, with `query` appended to the URL.
    async fn attempt(
        &self,
        token: Option<&str>,
        query: &str,
        flavor: Flavor,
    ) -> (u16, Option<BearerChallenge>) {
        let client = super::plain_client();
        let url = format!("{}{query}", self.server.url);
        let mut b = match flavor {
            Flavor::Streamable => {
                let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                    "protocolVersion": "2025-11-25", "capabilities": {},
                    "clientInfo": {"name": "t", "version": "1"}}});
                client
                    .post(url)
                    .header("accept", BOTH)
                    .header("content-type", "application/json")
                    .body(init.to_string())
            }
            Flavor::LegacySse => client.get(url).header("accept", "text/event-stream"),
        };
        if let Some(t) = token {
            b = b.header("authorization", format!("Bearer {t}"));
        }
        let r = within("request", b.send()).await.unwrap();
        let values: Vec<String> =
            r.headers().get_all("www-authenticate").iter().map(|v| v.to_str().unwrap().to_owned()).collect();
        let challenge = if values.is_empty() { None } else { BearerChallenge::find(&values).unwrap() };
        (r.status().as_u16(), challenge)
    }
}

#[tokio::test]
async fn prm_challenge_and_every_token_flaw() {
    for flavor in [Flavor::Streamable, Flavor::LegacySse] {
        let p = protected(flavor, None).await;
        let (status, challenge) = p.attempt(None, "", flavor).await;
        assert_eq!(status, 401);
        let challenge = challenge.expect("a Bearer challenge");
        assert_eq!(challenge.scope.as_deref(), Some("mcp"));
        assert_eq!(challenge.error, None, "no error code without a token (RFC 6750 §3.1)");
        let (status, doc) = get_json(challenge.resource_metadata.as_deref().unwrap()).await;
        assert_eq!(status, 200);
        let prm = ProtectedResourceMetadata::from_json(&doc).unwrap();
        assert_eq!(prm.problems(&CanonicalResource::parse(&p.server.url).unwrap()), vec![]);
        assert_eq!(prm.authorization_servers, [p.issuer.issuer()]);
        let root = format!("{}/.well-known/oauth-protected-resource", p.server.base);
        assert_eq!(get_json(&root).await.1, doc);

        for flaw in TokenFlaw::ALL {
            let (status, c) = p.attempt(Some(&p.token(flaw)), "", flavor).await;
            let expected = match flaw {
                TokenFlaw::None => 200,
                TokenFlaw::MissingScope => 403,
                _ => 401,
            };
            assert_eq!(status, expected, "{flaw:?} over {flavor:?}");
            let error = c.and_then(|c| c.error);
            match flaw {
                TokenFlaw::None => {}
                TokenFlaw::MissingScope => assert_eq!(error.as_deref(), Some("insufficient_scope")),
                _ => assert_eq!(error.as_deref(), Some("invalid_token")),
            }
        }
        assert_eq!(p.attempt(Some("garbage"), "", flavor).await.0, 401);
        let query = format!("?access_token={}", p.token(TokenFlaw::None));
        assert_eq!(p.attempt(None, &query, flavor).await.0, 401);
    }
}

/// Without a fault, 2025-03-26's paths at the origin answer as the issuer's: its metadata and
/// its default endpoints.
#[tokio::test]
async fn the_origin_relays_the_issuer_at_2025_03_26() {
    let p = protected(Flavor::Streamable, None).await;
    let (status, doc) = get_json(&format!("{}{METADATA_PATH}", p.server.base)).await;
    assert_eq!((status, doc["issuer"].as_str()), (200, Some(p.issuer.issuer())));
    let (status, error) = get_json(&format!("{}/authorize", p.server.base)).await;
    assert_eq!((status, error["error"].as_str()), (400, Some("invalid_request")), "no client_id");
}

/// Each `auth-` fault, and what it lets through (or leaves out).
#[tokio::test]
async fn every_auth_fault_breaks_its_rule() {
    let f = Flavor::Streamable;
    for fault in Fault::ALL.iter().copied().filter(|f| f.name().starts_with("auth-")) {
        let p = protected(f, Some(fault)).await;
        let (status, challenge) = p.attempt(None, "", f).await;
        let prm_url = format!("{}/.well-known/oauth-protected-resource/mcp", p.server.base);
        let legacy_metadata = format!("{}{METADATA_PATH}", p.server.base);
        let authorize = format!("{}/authorize", p.server.base);
        let broken = match fault {
            Fault::AuthNoChallenge => status == 401 && challenge.is_none(),
            Fault::AuthChallengeWithoutMetadata => {
                challenge.unwrap().resource_metadata.is_none() && get_json(&prm_url).await.0 == 200
            }
            Fault::AuthChallengeWithoutScope => challenge.unwrap().scope.is_none(),
            Fault::AuthErrorWithoutToken => challenge.unwrap().error.as_deref() == Some("invalid_token"),
            Fault::AuthPrmUndiscoverable => {
                challenge.unwrap().resource_metadata.is_none() && get_json(&prm_url).await.0 == 404
            }
            Fault::AuthPrmWrongResource | Fault::AuthPrmNoAuthorizationServers => {
                let prm = ProtectedResourceMetadata::from_json(&get_json(&prm_url).await.1).unwrap();
                !prm.problems(&CanonicalResource::parse(&p.server.url).unwrap()).is_empty()
            }
            Fault::AuthPrmDeadAuthorizationServer => {
                let prm = ProtectedResourceMetadata::from_json(&get_json(&prm_url).await.1).unwrap();
                prm.authorization_servers != [p.issuer.issuer()]
            }
            Fault::AuthOfflineAccessAdvertised => {
                let prm = ProtectedResourceMetadata::from_json(&get_json(&prm_url).await.1).unwrap();
                prm.advertises_offline_access()
            }
            Fault::AuthUnauthenticatedServed => status == 200,
            Fault::AuthAcceptsGarbage => p.attempt(Some("garbage"), "", f).await.0 == 200,
            Fault::AuthIgnoresSignature => {
                p.attempt(Some(&p.token(TokenFlaw::BadSignature)), "", f).await.0 == 200
            }
            Fault::AuthIgnoresAudience => {
                p.attempt(Some(&p.token(TokenFlaw::WrongAudience)), "", f).await.0 == 200
            }
            Fault::AuthIgnoresExpiry => p.attempt(Some(&p.token(TokenFlaw::Expired)), "", f).await.0 == 200,
            Fault::AuthIgnoresNotBefore => {
                p.attempt(Some(&p.token(TokenFlaw::NotYetValid)), "", f).await.0 == 200
            }
            Fault::AuthIgnoresIssuer => {
                p.attempt(Some(&p.token(TokenFlaw::WrongIssuer)), "", f).await.0 == 200
            }
            Fault::AuthAcceptsQueryToken => {
                p.attempt(None, &format!("?access_token={}", p.token(TokenFlaw::None)), f).await.0 == 200
            }
            Fault::AuthNoScopeCheck => {
                p.attempt(Some(&p.token(TokenFlaw::MissingScope)), "", f).await.0 == 200
            }
            Fault::AuthInsufficientScope401 => {
                p.attempt(Some(&p.token(TokenFlaw::MissingScope)), "", f).await.0 == 401
            }
            Fault::AuthLegacyNoMetadata => {
                get_json(&legacy_metadata).await.0 == 404 && get_json(&authorize).await.0 != 404
            }
            Fault::AuthLegacyMetadataIncomplete => {
                let (status, doc) = get_json(&legacy_metadata).await;
                status == 200 && doc["token_endpoint"].is_null() && doc["authorization_endpoint"].is_string()
            }
            Fault::AuthLegacyNoDefaultEndpoints => {
                get_json(&legacy_metadata).await.0 == 404 && get_json(&authorize).await.0 == 404
            }
            other => panic!("{other:?} has no row here"),
        };
        assert!(broken, "{} left its rule intact", fault.name());
        // Everything else still holds: a valid token is served.
        if !matches!(fault, Fault::AuthPrmDeadAuthorizationServer) {
            assert_eq!(p.attempt(Some(&p.token(TokenFlaw::None)), "", f).await.0, 200, "{}", fault.name());
        }
    }
}
