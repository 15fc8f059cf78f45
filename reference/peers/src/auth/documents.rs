//! An https host of client ID metadata documents on loopback
//! (`basic/authorization.mdx#client-id-metadata-documents`, 2025-11-25 on): the documents an
//! authorization server under test fetches when a client names itself by a URL. A document URL
//! must be https (`#implementation-requirements`), so the host serves TLS with a certificate
//! for `127.0.0.1` and `localhost` issued by a CA of its own ([`HostCa`]: made for the run, or
//! kept in a directory and reused, so that a server running elsewhere can be told once to trust
//! it). The CA's certificate, in PEM, is what the authorization server must trust.
//!
//! Every request is logged by path ([`DocumentHost::fetches`]), and so is every TLS handshake
//! that failed ([`DocumentHost::handshake_failures`]): a server that never fetched a document,
//! or could not trust the host, is told apart from one that fetched it.

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{header, StatusCode};
use axum::response::Response;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_rustls::server::TlsStream;

/// Why the host could not start.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DocumentHostError {
    /// The certificate or its CA could not be made (or the CA kept could not be read).
    #[error("the document host's certificate: {0}")]
    Certificate(String),
    /// The TLS configuration was refused.
    #[error("the document host's TLS configuration: {0}")]
    Tls(#[from] rustls::Error),
    #[error("the document host: {0}")]
    Io(#[from] std::io::Error),
}

fn cert_error(e: rcgen::Error) -> DocumentHostError {
    DocumentHostError::Certificate(e.to_string())
}

/// How long a TLS handshake may take before the connection is dropped.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(5);

/// How many requests and failed handshakes the host keeps in its log.
const LOG_LIMIT: usize = 4096;

/// The CA that issues the host's certificate.
pub struct HostCa {
    key: rcgen::KeyPair,
    cert: rcgen::Certificate,
}

impl HostCa {
    /// A CA made now, for one run.
    pub fn generate() -> Result<HostCa, DocumentHostError> {
        let key = rcgen::KeyPair::generate().map_err(cert_error)?;
        HostCa::with_key(key)
    }

    /// The CA kept in `dir` (`ca-key.pem`, its certificate `ca.pem`), made and written there the
    /// first time. The certificate is issued again from the kept key on each run; a verifier
    /// that trusts `ca.pem` trusts it, as the name and key are the same.
    pub fn kept_in(dir: &Path) -> Result<HostCa, DocumentHostError> {
        let key_path = dir.join("ca-key.pem");
        let key = match std::fs::read_to_string(&key_path) {
            Ok(pem) => rcgen::KeyPair::from_pem(&pem).map_err(cert_error)?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                std::fs::create_dir_all(dir)?;
                let key = rcgen::KeyPair::generate().map_err(cert_error)?;
                write_private(&key_path, &key.serialize_pem())?;
                key
            }
            Err(e) => return Err(e.into()),
        };
        let ca = HostCa::with_key(key)?;
        let cert_path = dir.join("ca.pem");
        if !cert_path.exists() {
            std::fs::write(&cert_path, ca.pem())?;
        }
        Ok(ca)
    }

    fn with_key(key: rcgen::KeyPair) -> Result<HostCa, DocumentHostError> {
        let mut params = rcgen::CertificateParams::new(Vec::<String>::new()).map_err(cert_error)?;
        params
            .distinguished_name
            .push(rcgen::DnType::CommonName, "mcpspec client ID metadata document host CA");
        params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Constrained(0));
        params.key_usages =
            vec![rcgen::KeyUsagePurpose::KeyCertSign, rcgen::KeyUsagePurpose::DigitalSignature];
        let cert = params.self_signed(&key).map_err(cert_error)?;
        Ok(HostCa { key, cert })
    }

    /// The CA's certificate in PEM: what the authorization server must trust.
    pub fn pem(&self) -> String {
        self.cert.pem()
    }
}

/// Writes `text` readable by its owner only (a private key).
fn write_private(path: &Path, text: &str) -> std::io::Result<()> {
    use std::io::Write as _;
    use std::os::unix::fs::OpenOptionsExt as _;
    let mut f = std::fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(path)?;
    f.write_all(text.as_bytes())
}

/// A document the host serves: its media type and body (anything: a test may serve no JSON).
#[derive(Debug, Clone)]
struct Served {
    content_type: String,
    body: String,
}

#[derive(Default)]
struct HostState {
    documents: HashMap<String, Served>,
    /// The path of each request, oldest first.
    fetched: Vec<String>,
    /// Why each failed handshake failed.
    handshakes: Vec<String>,
}

struct Shared {
    state: Mutex<HostState>,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, HostState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The running host. Dropping it stops it.
pub struct DocumentHost {
    shared: Arc<Shared>,
    local_addr: SocketAddr,
    ca_pem: String,
    tasks: Vec<JoinHandle<()>>,
}

impl DocumentHost {
    /// Serves on a free loopback port, with a certificate `ca` issues.
    pub async fn start(ca: &HostCa) -> Result<DocumentHost, DocumentHostError> {
        let leaf_key = rcgen::KeyPair::generate().map_err(cert_error)?;
        let mut params = rcgen::CertificateParams::new(vec!["127.0.0.1".to_owned(), "localhost".to_owned()])
            .map_err(cert_error)?;
        params.distinguished_name.push(rcgen::DnType::CommonName, "127.0.0.1");
        params.extended_key_usages = vec![rcgen::ExtendedKeyUsagePurpose::ServerAuth];
        let leaf = params.signed_by(&leaf_key, &ca.cert, &ca.key).map_err(cert_error)?;
        let chain: Vec<CertificateDer<'static>> = vec![leaf.der().clone(), ca.cert.der().clone()];
        let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(leaf_key.serialize_der()));
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let mut config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()?
            .with_no_client_auth()
            .with_single_cert(chain, key)?;
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));

        let tcp = TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], 0))).await?;
        let local_addr = tcp.local_addr()?;
        let shared = Arc::new(Shared { state: Mutex::new(HostState::default()) });
        // Handshakes run apart from each other: one slow client holds up no other.
        let (tx, rx) = mpsc::channel(64);
        let handshakes = shared.clone();
        let accepting = tokio::spawn(async move {
            loop {
                let Ok((stream, addr)) = tcp.accept().await else {
                    tokio::time::sleep(Duration::from_millis(10)).await;
                    continue;
                };
                let (acceptor, tx, shared) = (acceptor.clone(), tx.clone(), handshakes.clone());
                tokio::spawn(async move {
                    match tokio::time::timeout(HANDSHAKE_TIMEOUT, acceptor.accept(stream)).await {
                        Ok(Ok(tls)) => {
                            let _ = tx.send((tls, addr)).await;
                        }
                        Ok(Err(e)) => push(&mut shared.lock().handshakes, e.to_string()),
                        Err(_) => push(&mut shared.lock().handshakes, "the handshake timed out".into()),
                    }
                });
            }
        });
        let router = axum::Router::new().fallback(serve).with_state(shared.clone());
        let listener = Handshaken { rx, local_addr };
        let serving = tokio::spawn(async move {
            let _ = axum::serve(listener, router).await;
        });
        Ok(DocumentHost { shared, local_addr, ca_pem: ca.pem(), tasks: vec![accepting, serving] })
    }

    /// `https://127.0.0.1:PORT`.
    pub fn origin(&self) -> String {
        format!("https://{}", self.local_addr)
    }

    /// The certificate of the CA that issued the host's, in PEM.
    pub fn ca_pem(&self) -> &str {
        &self.ca_pem
    }

    /// Serves `body` as `content_type` at `path` (from now on); returns its URL.
    pub fn put(&self, path: &str, content_type: &str, body: String) -> String {
        let served = Served { content_type: content_type.to_owned(), body };
        self.shared.lock().documents.insert(path.to_owned(), served);
        format!("{}{path}", self.origin())
    }

    /// How many requests came for `path` so far.
    pub fn fetches(&self, path: &str) -> usize {
        self.shared.lock().fetched.iter().filter(|p| *p == path).count()
    }

    /// Why each TLS handshake that failed so far failed (say, a client that does not trust the
    /// CA).
    pub fn handshake_failures(&self) -> Vec<String> {
        self.shared.lock().handshakes.clone()
    }
}

impl std::fmt::Debug for DocumentHost {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DocumentHost").field("origin", &self.origin()).finish_non_exhaustive()
    }
}

impl Drop for DocumentHost {
    fn drop(&mut self) {
        for t in &self.tasks {
            t.abort();
        }
    }
}

fn push(log: &mut Vec<String>, entry: String) {
    if log.len() < LOG_LIMIT {
        log.push(entry);
    }
}

/// The connections whose handshake succeeded, as axum takes them.
struct Handshaken {
    rx: mpsc::Receiver<(TlsStream<TcpStream>, SocketAddr)>,
    local_addr: SocketAddr,
}

impl axum::serve::Listener for Handshaken {
    type Io = TlsStream<TcpStream>;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        match self.rx.recv().await {
            Some(connection) => connection,
            // The accepting task is gone (the host is stopping): nothing more comes.
            None => std::future::pending().await,
        }
    }

    fn local_addr(&self) -> std::io::Result<Self::Addr> {
        Ok(self.local_addr)
    }
}

async fn serve(State(shared): State<Arc<Shared>>, request: Request) -> Response {
    let path = request.uri().path().to_owned();
    let mut st = shared.lock();
    push(&mut st.fetched, path.clone());
    match st.documents.get(&path) {
        Some(d) => Response::builder()
            .status(StatusCode::OK)
            .header(header::CONTENT_TYPE, d.content_type.as_str())
            .header(header::CACHE_CONTROL, "no-store")
            .body(Body::from(d.body.clone()))
            .unwrap_or_default(),
        None => Response::builder().status(StatusCode::NOT_FOUND).body(Body::empty()).unwrap_or_default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_client_trusting_the_ca_fetches_a_document_and_one_that_does_not_cannot() {
        let ca = HostCa::generate().unwrap();
        let host = DocumentHost::start(&ca).await.unwrap();
        let url = host.put("/c.json", "application/json", "{\"a\":1}".into());
        assert!(url.starts_with("https://127.0.0.1:"));
        let root = reqwest::Certificate::from_pem(host.ca_pem().as_bytes()).unwrap();
        let trusting =
            crate::transport::http_client::client_builder().tls_certs_only([root]).build().unwrap();
        let r = trusting.get(&url).send().await.unwrap();
        assert_eq!(r.status(), 200);
        assert_eq!(r.text().await.unwrap(), "{\"a\":1}");
        assert_eq!(host.fetches("/c.json"), 1);
        let missing = trusting.get(format!("{}/none", host.origin())).send().await.unwrap();
        assert_eq!(missing.status(), 404);
        // A CA of its own trusts nothing the host shows.
        let other = HostCa::generate().unwrap();
        let root = reqwest::Certificate::from_pem(other.pem().as_bytes()).unwrap();
        let distrusting =
            crate::transport::http_client::client_builder().tls_certs_only([root]).build().unwrap();
        assert!(distrusting.get(&url).send().await.is_err());
        assert_eq!(host.fetches("/c.json"), 1);
        for _ in 0..50 {
            if !host.handshake_failures().is_empty() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert!(!host.handshake_failures().is_empty());
    }

    #[test]
    fn a_kept_ca_is_written_once_and_read_back() {
        let dir = std::env::temp_dir().join(format!("mcpspec-ca-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let first = HostCa::kept_in(&dir).unwrap();
        let again = HostCa::kept_in(&dir).unwrap();
        assert_eq!(first.key.public_key_der(), again.key.public_key_der());
        assert!(std::fs::read_to_string(dir.join("ca.pem")).unwrap().contains("BEGIN CERTIFICATE"));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
