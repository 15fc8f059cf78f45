//! A protected scenario server for a client under test over HTTP (`basic/authorization.mdx`,
//! 2025-06-18 on): the endpoint in the reference server's protected mode, in front of
//! mcpspec's reference authorization server, each as the scenario asks ([`AuthScript`]: which
//! discovery documents exist, whether registration is offered or the client is pre-registered,
//! the scopes required and whether `scopes_supported` lists them, where the challenge points, a
//! planted authorization server fault).
//!
//! Pre-registered credentials reach the client in `MCP_CONFORMANCE_CONTEXT` as the official
//! conformance suite passes them: a JSON object with `client_id` and `client_secret` (and the
//! scenario's `name`). What the authorization server answered is kept for the steps to judge.

use mcpspec_reference::auth::{
    AsExchange, AsFault, AuthServerOptions, AuthorizationServer, ClientAuth, MetadataDocument,
    RegisteredClient,
};
use mcpspec_reference::transport::http_server::{ChallengeMetadata, Protection};
use serde_json::{json, Value};
use std::sync::Arc;

/// The pre-registered client's id (its secret is drawn per session).
pub const PREREGISTERED_CLIENT_ID: &str = "mcpspec-preregistered-client";

/// How the protected scenario server and its authorization server behave.
#[derive(Debug, Clone)]
pub struct AuthScript {
    pub server: AuthServerOptions,
    /// The scopes every request needs (the challenge's `scope`).
    pub scopes: Vec<String>,
    /// Scopes the metadata lists beyond those.
    pub advertised: Vec<String>,
    /// Neither the PRM's nor the authorization server's `scopes_supported` lists the scopes
    /// required, which the authorization server grants all the same.
    pub required_unlisted: bool,
    /// Scopes needed too once a request was served (a step-up).
    pub step_up: Vec<String>,
    /// The step-up's challenge names only the new scopes.
    pub step_up_new_only: bool,
    pub challenge_metadata: ChallengeMetadata,
    pub challenge_scope: bool,
    /// The client is pre-registered (its credentials in `MCP_CONFORMANCE_CONTEXT`).
    pub preregistered: bool,
    /// 2025-03-26: the authorization server sits at the MCP server's origin (relayed), with its
    /// metadata there (`true`) or only the default endpoints (`false`).
    pub at_origin: Option<bool>,
    /// Once a request was served, the resource moves to a second authorization server.
    pub migrate: bool,
    /// Every token is refused with 403 `insufficient_scope`, however scoped.
    pub never_sufficient: bool,
    /// The PRM names this resource instead of the scenario server.
    pub prm_resource: Option<String>,
}

/// The resource a PRM names when the scenario says it names another server.
pub const OTHER_RESOURCE: &str = "https://other-server.invalid/mcp";

/// The paths 2025-03-26 puts at the MCP server's origin: the metadata, the default endpoints
/// (`#fallbacks-for-servers-without-metadata-discovery`) and the keys.
pub const ORIGIN_PATHS: [&str; 5] =
    ["/.well-known/oauth-authorization-server", "/authorize", "/token", "/register", "/jwks"];

impl Default for AuthScript {
    fn default() -> Self {
        // Every scope a scenario may require or advertise is one the server grants.
        let server = AuthServerOptions {
            scopes_supported: vec!["mcp".into(), "mcp:admin".into(), "mcp:write".into()],
            ..AuthServerOptions::default()
        };
        AuthScript {
            server,
            scopes: vec!["mcp".into()],
            advertised: Vec::new(),
            required_unlisted: false,
            step_up: Vec::new(),
            step_up_new_only: false,
            challenge_metadata: ChallengeMetadata::Elsewhere,
            challenge_scope: true,
            preregistered: false,
            at_origin: None,
            migrate: false,
            never_sufficient: false,
            prm_resource: None,
        }
    }
}

fn words(value: &str) -> Vec<String> {
    value.split([',', ' ']).filter(|w| !w.is_empty()).map(str::to_owned).collect()
}

impl AuthScript {
    /// Sets one behaviour, as a scenario's table names it (`key | value`).
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), String> {
        let v = value.trim();
        match key.trim() {
            "metadata" => {
                self.server.documents = words(v)
                    .iter()
                    .map(|d| match d.as_str() {
                        "oauth" => Ok(MetadataDocument::OAuth),
                        "openid-inserted" => Ok(MetadataDocument::OpenIdInserted),
                        "openid-appended" => Ok(MetadataDocument::OpenIdAppended),
                        other => Err(format!(
                            "no discovery document {other:?} (oauth, openid-inserted, openid-appended)"
                        )),
                    })
                    .collect::<Result<_, _>>()?
            }
            "issuer path" => self.server.issuer_path = v.to_owned(),
            "registration" => match v {
                "dynamic" => self.server.registration = true,
                // Dynamic registration is offered too: the client picks (`#client-registration-approaches`).
                "client ID metadata document" => {
                    self.server.registration = true;
                    self.server.client_id_metadata_documents = true;
                }
                "pre-registered" => {
                    self.server.registration = false;
                    self.preregistered = true;
                }
                other => {
                    return Err(format!(
                        "no registration {other:?} (dynamic, pre-registered, client ID metadata document)"
                    ))
                }
            },
            "token endpoint auth" => {
                let only = ClientAuth::from_name(v).ok_or_else(|| {
                    format!("no token endpoint auth {v:?} (client_secret_basic, client_secret_post, none)")
                })?;
                self.server.token_auth_methods = vec![only];
            }
            "refresh tokens" => match v {
                "not issued" => self.server.refresh_tokens = false,
                other => return Err(format!("no refresh token behaviour {other:?} (not issued)")),
            },
            "every token" => match v {
                "lacks a scope" => self.never_sufficient = true,
                other => return Err(format!("no token behaviour {other:?} (lacks a scope)")),
            },
            "protected resource metadata" => match v {
                "names another server" => self.prm_resource = Some(OTHER_RESOURCE.to_owned()),
                other => {
                    return Err(format!("no protected resource metadata {other:?} (names another server)"))
                }
            },
            "scopes" => self.scopes = if v == "none" { Vec::new() } else { words(v) },
            "advertised scopes" => self.advertised = words(v),
            "scopes_supported" => match v {
                "leaves out the challenged scopes" => self.required_unlisted = true,
                other => {
                    return Err(format!("no scopes_supported {other:?} (leaves out the challenged scopes)"))
                }
            },
            "step-up scopes" => self.step_up = words(v),
            "step-up challenge" => match v {
                "every scope required" => self.step_up_new_only = false,
                "the new scopes only" => self.step_up_new_only = true,
                other => return Err(format!("no step-up challenge {other:?}")),
            },
            "challenge" => match v {
                "metadata elsewhere" => self.challenge_metadata = ChallengeMetadata::Elsewhere,
                "metadata at the well-known URL" => self.challenge_metadata = ChallengeMetadata::WellKnown,
                "no metadata" => self.challenge_metadata = ChallengeMetadata::Absent,
                "no scope" => self.challenge_scope = false,
                other => return Err(format!("no challenge {other:?}")),
            },
            "authorization base" => match v {
                // A 2025-03-26 server names no protected resource metadata in its challenge.
                "the origin, with metadata" => {
                    self.at_origin = Some(true);
                    self.server.documents = vec![MetadataDocument::OAuth];
                    self.challenge_metadata = ChallengeMetadata::Absent;
                }
                // Without metadata nothing advertises RFC 9207, so no `iss` is sent either
                // (RFC 9207 §3: a server that sends it says so in its metadata).
                "the origin, default endpoints only" => {
                    self.at_origin = Some(false);
                    self.server.documents = Vec::new();
                    self.server.iss_parameter = false;
                    self.challenge_metadata = ChallengeMetadata::Absent;
                }
                other => return Err(format!("no authorization base {other:?}")),
            },
            "authorization server" => match v {
                "changes after the first request" => self.migrate = true,
                other => return Err(format!("no authorization server change {other:?}")),
            },
            "fault" => {
                self.server.fault = Some(match v {
                    "issuer-mismatch" => AsFault::IssuerMismatch,
                    "no-s256" => AsFault::NoS256,
                    "no-challenge-methods" => AsFault::NoChallengeMethods,
                    "wrong-iss" => AsFault::WrongIss,
                    "wrong-iss-unadvertised" => AsFault::WrongIssUnadvertised,
                    "no-iss" => AsFault::NoIssParameter,
                    "iss-with-trailing-slash" => AsFault::IssWithTrailingSlash,
                    "error-with-wrong-iss" => AsFault::ErrorWithWrongIss,
                    "refuses-redirect-uris" => AsFault::RefusesRedirectUris,
                    other => return Err(format!("no authorization server fault {other:?}")),
                })
            }
            other => return Err(format!("no authorization behaviour {other:?}")),
        }
        Ok(())
    }

    /// The authorization server's options: the scenario's, with the scopes required granted
    /// but not listed when the scenario says so.
    pub fn server_options(&self) -> AuthServerOptions {
        let mut options = self.server.clone();
        if self.required_unlisted {
            options.scopes_supported.retain(|s| !self.scopes.contains(s));
            options.unadvertised_scopes.extend(self.scopes.iter().cloned());
        }
        options
    }

    /// The scopes the PRM's `scopes_supported` lists.
    pub fn prm_scopes(&self) -> Vec<String> {
        let mut out = if self.required_unlisted { Vec::new() } else { self.scopes.clone() };
        for s in self.step_up.iter().chain(&self.advertised) {
            if !out.contains(s) {
                out.push(s.clone());
            }
        }
        out
    }

    /// The protection of the endpoint, trusting `server`'s tokens (its keys known in advance:
    /// at 2025-03-26 it may serve no metadata to find them by).
    pub fn protection(
        &self,
        server: &AuthorizationServer,
        next: Option<&AuthorizationServer>,
    ) -> Arc<Protection> {
        let keys =
            [Some(server), next].into_iter().flatten().map(|s| s.minter().key().jwk().clone()).collect();
        let mut p = Protection::new(server.issuer().to_owned(), self.scopes.clone());
        if let Some(next) = next {
            p = p.with_migration(next.issuer().to_owned());
        }
        if self.never_sufficient {
            p = p.with_scope_never_sufficient();
        }
        if let Some(r) = &self.prm_resource {
            p = p.with_prm_resource(r.clone());
        }
        Arc::new(
            p.with_keys(keys)
                .with_step_up(self.step_up.clone())
                .with_step_up_naming_new_scopes_only(self.step_up_new_only)
                .with_advertised_scopes(self.advertised.clone())
                .with_required_scopes_unlisted(self.required_unlisted)
                .with_challenge_metadata(self.challenge_metadata)
                .with_challenge_scope(self.challenge_scope),
        )
    }
}

/// The authorization server of a session (and the one the resource moves to), and what each
/// answered so far.
pub struct SessionAuth {
    pub server: AuthorizationServer,
    pub next: Option<AuthorizationServer>,
    pub script: AuthScript,
    log: Vec<AsExchange>,
    next_log: Vec<AsExchange>,
}

impl SessionAuth {
    /// Starts the authorization server; with a pre-registered client, registers it and returns
    /// the context the client gets (`context` with `client_id` and `client_secret` added).
    pub async fn start(
        script: AuthScript,
        context: &Value,
        origin: Option<String>,
    ) -> std::io::Result<(SessionAuth, Value)> {
        let mut options = script.server_options();
        options.public_issuer = origin;
        let server =
            AuthorizationServer::bind(options).await.map_err(|e| std::io::Error::other(e.to_string()))?;
        let mut context = context.clone();
        if script.preregistered {
            let secret = secret().map_err(std::io::Error::other)?;
            server.register(RegisteredClient {
                client_id: PREREGISTERED_CLIENT_ID.into(),
                client_secret: Some(secret.clone()),
                redirect_uris: Vec::new(),
                // The method the token endpoint takes (the first, when it takes several).
                auth: script
                    .server
                    .token_auth_methods
                    .first()
                    .copied()
                    .filter(|a| *a != ClientAuth::None)
                    .unwrap_or(ClientAuth::Basic),
            });
            if !context.is_object() {
                context = json!({});
            }
            context["client_id"] = json!(PREREGISTERED_CLIENT_ID);
            context["client_secret"] = json!(secret);
        }
        let next = match script.migrate {
            true => Some(
                AuthorizationServer::bind(script.server_options())
                    .await
                    .map_err(|e| std::io::Error::other(e.to_string()))?,
            ),
            false => None,
        };
        Ok((SessionAuth { server, next, script, log: Vec::new(), next_log: Vec::new() }, context))
    }

    /// Everything the authorization server answered so far.
    pub fn exchanges(&mut self) -> &[AsExchange] {
        self.log.extend(self.server.take_log());
        &self.log
    }

    /// Everything the second authorization server answered so far.
    pub fn next_exchanges(&mut self) -> &[AsExchange] {
        if let Some(next) = &self.next {
            self.next_log.extend(next.take_log());
        }
        &self.next_log
    }
}

/// A client secret: random, so that no report could hold a known one by chance.
fn secret() -> Result<String, String> {
    let rng = ring::rand::SystemRandom::new();
    mcpspec_reference::auth::tokens::random_string(&rng, 24).map_err(|e| e.to_string())
}
