//! The authorization server's binding, state and routing, its discovery documents (RFC 8414
//! §2-3, OpenID Connect Discovery 1.0 §3-4) and its JWKS. The grants are in `grants.rs`.

use super::grants;
use super::tokens::{self, SigningKey, TokenError, TokenMinter};
use super::{AsFault, AuthServerOptions, MetadataDocument, RegisteredClient};
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{header, Method, StatusCode};
use axum::response::Response;
use mcpspec_protocol::auth::discovery::{OAUTH_SUFFIX, OIDC_SUFFIX};
use serde_json::{json, Value};
use std::collections::{HashMap, VecDeque};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;
use tokio::task::JoinHandle;

/// Why the server could not start.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AuthServerError {
    /// The address is not loopback: the reference servers never listen beyond this machine.
    #[error("the authorization server binds loopback only, not {0}")]
    NotLoopback(SocketAddr),
    #[error("binding the authorization server failed: {0}")]
    Io(#[from] std::io::Error),
    #[error(transparent)]
    Token(#[from] TokenError),
}

/// One request the server answered, as tests of clients judge it. Parameters are kept as sent,
/// secrets included: whatever shows them to a person must redact them first.
#[derive(Debug, Clone)]
pub struct AsExchange {
    pub method: String,
    pub path: String,
    /// The query's and the form's parameters, in order.
    pub params: Vec<(String, String)>,
    /// The `Authorization` header's scheme, if one was sent.
    pub auth_scheme: Option<String>,
    pub status: u16,
    pub at: Instant,
}

/// An authorization code not yet redeemed (or redeemed, kept to refuse a second redemption).
pub(super) struct Code {
    pub client_id: String,
    pub redirect_uri: String,
    pub challenge: String,
    pub scopes: Vec<String>,
    pub resource: Option<String>,
    pub expires: Instant,
    pub used: bool,
}

/// A refresh token's grant.
pub(super) struct Refresh {
    pub client_id: String,
    pub scopes: Vec<String>,
    pub resource: Option<String>,
}

pub(super) struct AsState {
    pub clients: HashMap<String, RegisteredClient>,
    pub codes: HashMap<String, Code>,
    pub code_order: VecDeque<String>,
    pub refresh: HashMap<String, Refresh>,
    pub refresh_order: VecDeque<String>,
    pub log: VecDeque<AsExchange>,
}

pub(super) struct Shared {
    pub options: AuthServerOptions,
    pub issuer: String,
    pub minter: TokenMinter,
    pub rng: ring::rand::SystemRandom,
    state: Mutex<AsState>,
}

impl Shared {
    /// A poisoned lock is used as is: no map is left half-changed in a way that matters.
    pub fn lock(&self) -> MutexGuard<'_, AsState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Keeps `x` in the log, the oldest entry dropped beyond `max_entries`.
    pub fn record(&self, x: AsExchange) {
        let mut state = self.lock();
        if state.log.len() >= self.options.max_entries {
            state.log.pop_front();
        }
        state.log.push_back(x);
    }

    pub fn fault(&self, f: AsFault) -> bool {
        self.options.fault == Some(f)
    }

    /// An endpoint's URL: the issuer and `name`.
    pub fn endpoint(&self, name: &str) -> String {
        format!("{}/{name}", self.issuer)
    }

    fn endpoint_path(&self, name: &str) -> String {
        format!("{}/{name}", self.options.issuer_path)
    }
}

/// A running authorization server. Dropping it stops it.
pub struct AuthorizationServer {
    shared: Arc<Shared>,
    local_addr: SocketAddr,
    task: JoinHandle<()>,
}

impl AuthorizationServer {
    pub async fn bind(options: AuthServerOptions) -> Result<AuthorizationServer, AuthServerError> {
        if !options.bind.ip().is_loopback() {
            return Err(AuthServerError::NotLoopback(options.bind));
        }
        let tcp = tokio::net::TcpListener::bind(options.bind).await?;
        let local_addr = tcp.local_addr()?;
        let path = options.issuer_path.trim_end_matches('/').to_owned();
        let issuer = options.public_issuer.clone().unwrap_or_else(|| format!("http://{local_addr}{path}"));
        let minter = TokenMinter::new(issuer.clone(), SigningKey::generate()?, options.token_lifetime)?;
        let clients = options.clients.iter().map(|c| (c.client_id.clone(), c.clone())).collect();
        let shared = Arc::new(Shared {
            options: AuthServerOptions { issuer_path: path, ..options },
            issuer,
            minter,
            rng: ring::rand::SystemRandom::new(),
            state: Mutex::new(AsState {
                clients,
                codes: HashMap::new(),
                code_order: VecDeque::new(),
                refresh: HashMap::new(),
                refresh_order: VecDeque::new(),
                log: VecDeque::new(),
            }),
        });
        let router = axum::Router::new().fallback(handle).with_state(shared.clone());
        let task = tokio::spawn(async move {
            let _ = axum::serve(tcp, router).await;
        });
        Ok(AuthorizationServer { shared, local_addr, task })
    }

    /// The issuer identifier (`http://127.0.0.1:PORT` and the issuer path).
    pub fn issuer(&self) -> &str {
        &self.shared.issuer
    }

    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// Mints tokens under this issuer with its published key.
    pub fn minter(&self) -> &TokenMinter {
        &self.shared.minter
    }

    pub fn options(&self) -> &AuthServerOptions {
        &self.shared.options
    }

    /// The metadata document this server serves (RFC 8414 form).
    pub fn metadata(&self) -> Value {
        metadata(&self.shared, MetadataDocument::OAuth)
    }

    /// Registers a client, as pre-registration does.
    pub fn register(&self, client: RegisteredClient) {
        self.shared.lock().clients.insert(client.client_id.clone(), client);
    }

    /// Takes the requests answered so far.
    pub fn take_log(&self) -> Vec<AsExchange> {
        self.shared.lock().log.drain(..).collect()
    }
}

impl Drop for AuthorizationServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// The path at which `doc` is served, for the issuer path `path`.
fn document_path(doc: MetadataDocument, path: &str) -> String {
    match doc {
        MetadataDocument::OAuth => format!("/.well-known/{OAUTH_SUFFIX}{path}"),
        MetadataDocument::OpenIdInserted => format!("/.well-known/{OIDC_SUFFIX}{path}"),
        MetadataDocument::OpenIdAppended => format!("{path}/.well-known/{OIDC_SUFFIX}"),
    }
}

fn metadata(shared: &Shared, doc: MetadataDocument) -> Value {
    let o = &shared.options;
    let issuer = if shared.fault(AsFault::IssuerMismatch) {
        format!("{}/elsewhere", shared.issuer)
    } else {
        shared.issuer.clone()
    };
    let methods = if shared.fault(AsFault::NoS256) { json!(["plain"]) } else { json!(["S256"]) };
    let mut m = json!({
        "issuer": issuer,
        "authorization_endpoint": shared.endpoint("authorize"),
        "token_endpoint": shared.endpoint("token"),
        "jwks_uri": if shared.fault(AsFault::InsecureJwksUri) {
            "http://jwks.example.com/jwks".to_owned()
        } else {
            shared.endpoint("jwks")
        },
        "scopes_supported": o.scopes_supported,
        "response_types_supported": ["code"],
        "response_modes_supported": ["query"],
        "grant_types_supported": ["authorization_code", "refresh_token"],
        "token_endpoint_auth_methods_supported": o.token_auth_methods.iter().map(|a| a.name()).collect::<Vec<_>>(),
        "code_challenge_methods_supported": methods,
    });
    if shared.fault(AsFault::MetadataMissingField) {
        if let Some(m) = m.as_object_mut() {
            m.remove("response_types_supported");
        }
    }
    if o.registration {
        m["registration_endpoint"] = json!(shared.endpoint("register"));
    }
    if shared.fault(AsFault::NoChallengeMethods) {
        if let Some(doc) = m.as_object_mut() {
            doc.remove("code_challenge_methods_supported");
        }
    }
    if o.client_id_metadata_documents {
        m["client_id_metadata_document_supported"] = json!(true);
    }
    if (o.iss_parameter || shared.fault(AsFault::NoIssParameter))
        && !shared.fault(AsFault::WrongIssUnadvertised)
    {
        m["authorization_response_iss_parameter_supported"] = json!(true);
    }
    if doc != MetadataDocument::OAuth {
        m["subject_types_supported"] = json!(["public"]);
        m["id_token_signing_alg_values_supported"] = json!(["ES256"]);
    }
    m
}

/// A JSON response with `Cache-Control: no-store` (RFC 6749 §5.1 for token responses; harmless
/// elsewhere).
pub(super) fn json_response(status: StatusCode, body: &Value) -> Response {
    Response::builder()
        .status(status)
        .header(header::CONTENT_TYPE, "application/json")
        .header(header::CACHE_CONTROL, "no-store")
        .body(Body::from(body.to_string()))
        .unwrap_or_default()
}

/// An OAuth error response (RFC 6749 §5.2).
pub(super) fn oauth_error(status: StatusCode, error: &str, description: &str) -> Response {
    json_response(status, &json!({ "error": error, "error_description": description }))
}

async fn handle(State(shared): State<Arc<Shared>>, request: Request) -> Response {
    let method = request.method().clone();
    let path = request.uri().path().to_owned();
    let query: Vec<(String, String)> = request
        .uri()
        .query()
        .map(|q| url::form_urlencoded::parse(q.as_bytes()).into_owned().collect())
        .unwrap_or_default();
    let auth_scheme = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(' ').next())
        .map(str::to_owned);
    let mut params = query.clone();
    let response = route(&shared, &method, &path, query, request, &mut params).await;
    shared.record(AsExchange {
        method: method.to_string(),
        path,
        params,
        auth_scheme,
        status: response.status().as_u16(),
        at: Instant::now(),
    });
    response
}

async fn route(
    shared: &Arc<Shared>,
    method: &Method,
    path: &str,
    query: Vec<(String, String)>,
    request: Request,
    logged: &mut Vec<(String, String)>,
) -> Response {
    let o = &shared.options;
    if method == Method::GET {
        if let Some(doc) = o.documents.iter().find(|d| document_path(**d, &o.issuer_path) == path) {
            return json_response(StatusCode::OK, &metadata(shared, *doc));
        }
        if path == shared.endpoint_path("jwks") {
            let jwks = serde_json::to_value(tokens::jwks(&[shared.minter.key()])).unwrap_or_default();
            return json_response(StatusCode::OK, &jwks);
        }
        if path == shared.endpoint_path(grants::ERROR_INFO) {
            return Response::builder()
                .status(StatusCode::OK)
                .header(header::CONTENT_TYPE, "text/plain; charset=utf-8")
                .body(Body::from("the error this page explains came from this authorization server"))
                .unwrap_or_default();
        }
        if path == shared.endpoint_path("authorize") {
            if let Err(refused) = grants::admit_metadata_document_client(shared, &query).await {
                return refused;
            }
            return grants::authorize(shared, &query);
        }
    }
    if method == Method::POST
        && (path == shared.endpoint_path("token") || path == shared.endpoint_path("register"))
    {
        let registering = path.ends_with("/register");
        if registering && !o.registration {
            return oauth_error(StatusCode::NOT_FOUND, "invalid_request", "registration is not offered");
        }
        let (parts, body) = request.into_parts();
        let bytes = match tokio::time::timeout(o.body_timeout, axum::body::to_bytes(body, 64 * 1024)).await {
            Ok(Ok(b)) => b,
            Ok(Err(_)) => {
                return oauth_error(StatusCode::PAYLOAD_TOO_LARGE, "invalid_request", "body too large")
            }
            Err(_) => return oauth_error(StatusCode::REQUEST_TIMEOUT, "invalid_request", "body too slow"),
        };
        if registering {
            logged.extend(grants::registration_params(&bytes));
            return grants::register(shared, &bytes);
        }
        let form: Vec<(String, String)> = url::form_urlencoded::parse(&bytes).into_owned().collect();
        logged.extend(form.iter().cloned());
        return grants::token(shared, &parts.headers, &form);
    }
    oauth_error(StatusCode::NOT_FOUND, "invalid_request", &format!("nothing at {method} {path}"))
}
