//! The wire recorder: every message that crosses the wire, in both directions, goes through the
//! session checker and — for the implementation under test — the JSON Schema of the revision
//! in force. What it finds becomes checks of the scenario in which it happened.

use crate::judge::checker::{Inspection, SessionChecker};
use crate::judge::client::http::HttpClientChecker;
use crate::judge::rules::{self, Rule};
use crate::judge::server::http::HttpChecker;
use crate::judge::verdict::{Check, Verdict};
use mcpspec_protocol::framing::{Frame, FrameContent, LineDecoder};
use mcpspec_protocol::{Direction, Revision};
use mcpspec_reference::transport::http_client::{BodyEnd, Exchange, Flavor, HttpEvent};
use mcpspec_reference::transport::http_server::HttpRecord;
use mcpspec_schema::{SchemaSet, Validation};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::sync::Arc;
use std::time::Instant;

/// How many findings of one rule are reported one by one; the rest are counted.
const FINDINGS_PER_RULE: usize = 10;
/// How many transcript entries a session keeps, and how much of each.
const TRANSCRIPT_ENTRIES: usize = 200;
const TRANSCRIPT_TEXT: usize = 2_000;

/// The response headers a transcript shows (the rest are seldom telling).
/// Where the live wire log goes: a sink the command line sets once (`--verbose` shows it on the
/// console); without one, nothing is logged live. Judging knows no console: the sink is how a
/// later stage listens.
type WireSink = Box<dyn Fn(&str, &str, &str) + Send + Sync>;
static WIRE_LOG: std::sync::OnceLock<WireSink> = std::sync::OnceLock::new();

/// Sends every message every recorder sees, as it crosses the wire, to `sink(label, arrow,
/// text)`: `label` names the session's scenario. The first call wins.
pub fn log_wire_to(sink: impl Fn(&str, &str, &str) + Send + Sync + 'static) {
    let _ = WIRE_LOG.set(Box::new(sink));
}

const SHOWN_HEADERS: &[&str] = &["content-type", "mcp-session-id", "content-length", "allow"];

/// The `dir` of a wire-log line that is mcpspec's note, not a message.
pub const NOTE: &str = "·";

/// A transcript line's `dir`, read back from a report.
fn transcript_dir<'de, D: serde::Deserializer<'de>>(d: D) -> Result<&'static str, D::Error> {
    use mcpspec_protocol::wire::Direction;
    crate::judge::verdict::one_of(
        d,
        &[Direction::ClientToServer.arrow(), Direction::ServerToClient.arrow(), NOTE],
    )
}

/// One line of the wire log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TranscriptEntry {
    /// `→` client to server, `←` server to client, [`NOTE`] for a note of mcpspec's.
    #[serde(deserialize_with = "transcript_dir")]
    pub dir: crate::judge::verdict::Word,
    /// The line number on the receiving side's stream, when it came from a byte stream.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u64>,
    /// Milliseconds since the scenario's record began (the session's start, or the moment a
    /// shared session was handed to the scenario).
    pub at_ms: u64,
    pub text: String,
}

#[derive(Debug)]
struct Finding {
    rule: &'static Rule,
    revision: Revision,
    expected: String,
    actual: String,
    /// The transcript entry being judged when the rule broke (absent once the log is full).
    message: Option<usize>,
}

/// Records one session.
pub struct WireRecorder {
    checker: SessionChecker,
    schemas: Option<Arc<SchemaSet>>,
    iut: Direction,
    /// The first [`FINDINGS_PER_RULE`] findings of each rule; past those, only counted in
    /// `findings_beyond`, so that an implementation breaking one rule without end (a flood of
    /// garbage lines) costs a count, not memory.
    findings: Vec<Finding>,
    findings_beyond: Vec<(&'static str, usize)>,
    /// Messages from the implementation under test judged by the envelope rules.
    judged: usize,
    /// … of which valid against the schema, per revision seen.
    schema_valid: usize,
    schema_missing: Option<Revision>,
    transcript: Vec<TranscriptEntry>,
    transcript_dropped: usize,
    /// When the record began: the transcript's times count from here.
    began: Instant,
    /// The transcript entry of the message (or HTTP event) being judged, while it fits the log.
    current: Option<usize>,
    /// Who the session is for, in the live wire log (`--verbose`): the scenario and revision.
    label: String,
    /// The HTTP rules, for a session over HTTP.
    http: Option<HttpChecker>,
    /// HTTP exchanges judged in the current record.
    http_judged: usize,
    /// The HTTP rules of clients, for a client's session over HTTP (mcpspec serving).
    http_client: Option<HttpClientChecker>,
}

impl WireRecorder {
    /// A recorder for a session at `revision` whose implementation under test sends in
    /// direction `iut`.
    pub fn new(revision: Revision, iut: Direction, schemas: Option<Arc<SchemaSet>>) -> Self {
        WireRecorder {
            checker: SessionChecker::new(revision),
            schemas,
            iut,
            findings: Vec::new(),
            findings_beyond: Vec::new(),
            judged: 0,
            schema_valid: 0,
            schema_missing: None,
            transcript: Vec::new(),
            transcript_dropped: 0,
            began: Instant::now(),
            current: None,
            label: revision.to_string(),
            http: None,
            http_judged: 0,
            http_client: None,
        }
    }

    /// Judges the HTTP requests of a client the scenario server's endpoint answers
    /// ([`Self::record_http_record`]).
    pub fn with_http_server(mut self, flavor: Flavor) -> Self {
        self.http_client = Some(HttpClientChecker::new(flavor, self.checker.revision()));
        self
    }

    /// The scenario server's tools with `x-mcp-header` parameters (inputSchema by name), whose
    /// calls' `Mcp-Param-*` headers the client HTTP rules judge.
    pub fn with_param_schemas(mut self, schemas: std::collections::HashMap<String, Value>) -> Self {
        self.http_client = self.http_client.take().map(|c| c.with_param_schemas(schemas));
        self
    }

    /// The client's HTTP requests as the endpoint saw them, for a client over HTTP.
    pub fn http_client(&self) -> Option<&HttpClientChecker> {
        self.http_client.as_ref()
    }

    /// Legacy HTTP+SSE: a session's `endpoint` event named `path_and_query`.
    pub fn endpoint_announced(&mut self, path_and_query: &str) {
        if let Some(c) = self.http_client.as_mut() {
            c.endpoint_announced(path_and_query);
        }
    }

    /// Starts judging a new session of the same client (it re-initialized after a 404): the
    /// session checker starts afresh (ids and lifecycle are per session); findings stay.
    pub fn new_session(&mut self, note: String) {
        let asked = self.http_client.as_ref().map_or(self.checker.revision(), HttpClientChecker::revision);
        self.checker = SessionChecker::new(asked);
        self.log(Direction::ServerToClient, None, note);
    }

    /// Records one record of the scenario server's HTTP endpoint (`session`: the session it
    /// belongs to): exchanges go to the transcript (method, path, status, the headers of note)
    /// and are judged by the client HTTP rules.
    pub fn record_http_record(&mut self, session: Option<&str>, record: &HttpRecord) {
        let text = match record {
            HttpRecord::Exchange(x) => {
                let mut text = format!("[HTTP] {} {} → {}", x.method, x.path, x.status);
                if let Some(ct) = &x.response_content_type {
                    text.push_str(&format!(" {ct}"));
                }
                for (k, v) in x.request_headers.iter().chain(&x.response_headers) {
                    if k != "content-type" {
                        text.push_str(&format!("; {k}: {v}"));
                    }
                }
                if !x.replayed.is_empty() {
                    text.push_str(&format!("; replayed {}", x.replayed.join(", ")));
                }
                Some((Direction::ClientToServer, text))
            }
            HttpRecord::PollClosed { stream, event_id, retry, .. } => Some((
                Direction::ServerToClient,
                format!(
                    "[HTTP] stream {stream} closed after its priming event {event_id:?} (retry {} ms)",
                    retry.as_millis()
                ),
            )),
            HttpRecord::Undeliverable { message, why } => {
                Some((Direction::ServerToClient, format!("[HTTP] could not deliver {message}: {why}")))
            }
            _ => None,
        };
        if let Some((direction, text)) = text {
            self.log(direction, None, text);
        }
        let Some(c) = self.http_client.as_mut() else { return };
        let violations = c.on_record(session, record);
        if matches!(record, HttpRecord::Exchange(_)) {
            self.http_judged += 1;
        }
        self.found(violations);
    }

    /// The findings of rules whose ids start with one of `prefixes`: "id: actual" each.
    pub fn findings_with_prefix(&self, prefixes: &[&str]) -> Vec<String> {
        self.findings
            .iter()
            .filter(|f| prefixes.iter().any(|p| f.rule.id.starts_with(p)))
            .map(|f| format!("{}: {}", f.rule.id, f.actual))
            .collect()
    }

    /// Judges the body of one POST of a client over HTTP (one message, or a batch).
    pub fn record_post_body(&mut self, value: &Value) {
        let Some(c) = self.http_client.as_mut() else { return };
        let violations = c.on_post_body(value);
        self.found(violations);
    }

    /// Records the transport checkers' violations as findings of the message being judged.
    fn found(&mut self, violations: Vec<crate::judge::rules::Violation>) {
        let revision = self.checker.revision();
        // A rule of other revisions is no finding here (the modern era has no session, so no
        // event id need be unique across its streams).
        for v in violations.into_iter().filter(|v| v.rule.applies(revision)) {
            self.keep(Finding {
                rule: v.rule,
                revision,
                expected: v.expected,
                actual: v.actual,
                message: self.current,
            });
        }
    }

    /// Judges the HTTP exchanges of the session too ([`Self::record_http`]).
    pub fn with_http(mut self, flavor: Flavor) -> Self {
        self.http = Some(HttpChecker::new(flavor));
        self
    }

    /// Records an HTTP event: a response's status line and headers, an SSE event, a body's
    /// end, a failure. The messages a body carried are recorded as frames
    /// ([`Self::record_frame`]); here they are judged as HTTP only (which stream, which event id).
    pub fn record_http(&mut self, event: &HttpEvent) {
        let text = match event {
            HttpEvent::Response(x) => {
                let mut text = format!("[HTTP #{}] {}", x.n, x.describe());
                for (k, v) in &x.headers {
                    if SHOWN_HEADERS.contains(&k.to_ascii_lowercase().as_str()) {
                        text.push_str(&format!("; {k}: {v}"));
                    }
                }
                Some(text)
            }
            HttpEvent::Event { n, event } => Some(format!(
                "[HTTP #{n}] SSE event {:?}{}: {}",
                event.kind(),
                event.id.as_ref().map(|i| format!(" id {i:?}")).unwrap_or_default(),
                event.data
            )),
            HttpEvent::End { n, end: BodyEnd::Broken(why) } => {
                Some(format!("[HTTP #{n}] the body broke off: {why}"))
            }
            HttpEvent::End { n, end: BodyEnd::Truncated } => {
                Some(format!("[HTTP #{n}] the SSE stream ended inside an event"))
            }
            HttpEvent::End { .. } | HttpEvent::Message { .. } => None,
            HttpEvent::Failed { n, method, url, error } => {
                Some(format!("[HTTP #{n}] {method} {url} failed: {error}"))
            }
            HttpEvent::Unanswered { n, ids, why } => {
                let ids: Vec<String> = ids.iter().map(ToString::to_string).collect();
                Some(format!("[HTTP #{n}] no answer to id {} will come: {why}", ids.join(", ")))
            }
        };
        if let Some(text) = text {
            self.log(Direction::ServerToClient, None, text);
        }
        let Some(http) = self.http.as_mut() else { return };
        let violations = http.on_event(event);
        if matches!(event, HttpEvent::Response(_)) {
            self.http_judged += 1;
        }
        self.found(violations);
    }

    /// Records the JSON-RPC error in the body of HTTP exchange `n`'s error status: the answer
    /// to the POST (`basic/transports.mdx`: "The HTTP response body MAY comprise a JSON-RPC error
    /// response that has no id"), logged, and not judged as a message of the session.
    pub fn record_refusal(&mut self, n: u64, value: &Value) {
        self.log(Direction::ServerToClient, None, format!("[HTTP #{n} refused] {value}"));
    }

    /// The head of HTTP exchange `n`'s response, once it has come.
    pub fn exchange(&self, n: u64) -> Option<&Exchange> {
        self.http.as_ref()?.exchange(n)
    }

    /// The HTTP rules' record of the session's exchanges, over HTTP.
    pub fn http(&self) -> Option<&HttpChecker> {
        self.http.as_ref()
    }

    /// Why HTTP exchange `n` got no response, when it failed.
    pub fn exchange_failure(&self, n: u64) -> Option<&str> {
        self.http.as_ref()?.failure(n)
    }

    pub fn checker(&self) -> &SessionChecker {
        &self.checker
    }

    /// The revision in force (negotiated, once `initialize` has been answered).
    pub fn revision(&self) -> Revision {
        self.checker.revision()
    }

    /// Records a frame read from the wire.
    pub fn record_frame(&mut self, direction: Direction, frame: Frame) -> Vec<Inspection> {
        let line = Some(frame.line);
        let invalid = matches!(frame.content, FrameContent::Invalid(_));
        match &frame.content {
            FrameContent::Json { value, lines: 1, .. } => self.log_value(direction, line, "", value),
            FrameContent::Json { value, lines, .. } => {
                self.log_value(direction, line, &format!("[over {lines} lines] "), value)
            }
            FrameContent::Blank => self.log(direction, line, String::new()),
            FrameContent::Invalid(_) => {}
        }
        let inspections = self.checker.on_frame(direction, frame.content);
        if invalid {
            // Logged in the words of the checker's finding, and only while the log has room: a
            // client flooding garbage sends millions of lines, each described once at most.
            let why = inspections.iter().flat_map(|i| &i.violations).map(|v| v.actual.as_str()).next();
            self.log_lazily(direction, line, || format!("[not a message: {}]", why.unwrap_or_default()));
        }
        self.judge(direction, &inspections);
        inspections
    }

    /// Records a message written to the wire.
    pub fn record_value(&mut self, direction: Direction, value: &Value) -> Vec<Inspection> {
        self.log_value(direction, None, "", value);
        let inspections = self.checker.on_value(direction, value);
        self.judge(direction, &inspections);
        inspections
    }

    /// Records raw bytes written on purpose (malformed input), for the log only.
    pub fn record_raw(&mut self, direction: Direction, bytes: &[u8]) {
        self.log(direction, None, format!("[raw] {}", String::from_utf8_lossy(bytes).trim_end()));
        // The checker sees what the receiver will decode, so it knows which answers to expect.
        for frame in LineDecoder::decode_all(usize::MAX, bytes) {
            let inspections = self.checker.on_frame(direction, frame.content);
            self.judge(direction, &inspections);
        }
    }

    fn judge(&mut self, direction: Direction, inspections: &[Inspection]) {
        if direction != self.iut {
            return;
        }
        let revision = self.checker.revision();
        let over_http = self.http.is_some();
        for i in inspections {
            self.judged += 1;
            for v in &i.violations {
                // The checker's framing rules are stdio's; over HTTP a message that is not one
                // breaks the HTTP transport's rule instead.
                let rule = match over_http && v.rule.id.starts_with("stdio/") {
                    true => &rules::HTTP_MESSAGE_JSON,
                    false => v.rule,
                };
                if self.room_for(rule) {
                    let message = self.current;
                    let (expected, actual) = (v.expected.clone(), v.actual.clone());
                    self.findings.push(Finding { rule, revision, expected, actual, message });
                }
            }
            if let (Some(value), Some(_)) = (&i.value, &i.message) {
                self.validate(direction, value, i.answered_method.as_deref(), revision);
            }
        }
    }

    fn validate(&mut self, direction: Direction, value: &Value, answered: Option<&str>, revision: Revision) {
        let Some(schema) = self.schemas.as_ref().and_then(|s| s.get(revision)) else {
            self.schema_missing = Some(revision);
            return;
        };
        match schema.validate(direction, &schema_form(value), answered) {
            Validation::Valid { .. } => self.schema_valid += 1,
            Validation::FormatMismatch { definition, violations } => {
                self.schema_valid += 1;
                self.format_findings(&definition, &violations, revision);
            }
            Validation::Invalid { definition, violations } => {
                // A format mismatch next to a structural violation is still only a format's.
                let (formats, structural): (Vec<_>, Vec<_>) =
                    violations.iter().cloned().partition(|v| v.format.is_some());
                let structural = if structural.is_empty() { &violations } else { &structural };
                let actual = structural
                    .iter()
                    .map(|v| format!("{}: {}", pointer(&v.instance_path), v.message))
                    .collect::<Vec<_>>()
                    .join("; ");
                self.keep(Finding {
                    rule: &rules::SCHEMA_VALID,
                    revision,
                    expected: format!("valid against {definition} of the {revision} schema"),
                    actual,
                    message: self.current,
                });
                if structural.len() < violations.len() {
                    self.format_findings(&definition, &formats, revision);
                }
            }
            // A dual-era client's server/discover probe before the handshake (2026-07-28
            // basic/versioning.mdx) is a method of a later revision on purpose, not an unknown one.
            Validation::UnknownMethod { method }
                if method == "server/discover" && self.checker.negotiated().is_none() => {}
            Validation::UnknownMethod { method } => self.keep(Finding {
                rule: &rules::SCHEMA_KNOWN_METHOD,
                revision,
                expected: format!("a method {revision} defines for {direction}"),
                actual: method.to_string(),
                message: self.current,
            }),
            // Nothing to match it to (a response to no known request): the checker has said so.
            Validation::Unmatched { .. } => {}
        }
    }

    /// One `schema/format` finding per string that does not match its format.
    fn format_findings(
        &mut self,
        definition: &str,
        violations: &[mcpspec_schema::Violation],
        revision: Revision,
    ) {
        for v in violations {
            let format = v.format.as_deref().unwrap_or("its format");
            let at = pointer(&v.instance_path);
            self.keep(Finding {
                rule: &rules::SCHEMA_FORMAT,
                revision,
                expected: format!("a string in format {format} at {at} ({definition}, {revision} schema)"),
                actual: format!("{at}: {}", v.message),
                message: self.current,
            });
        }
    }

    /// Names the session in the live wire log: the scenario it serves.
    pub fn set_label(&mut self, label: String) {
        self.label = label;
    }

    fn log(&mut self, direction: Direction, line: Option<u64>, text: String) {
        if let Some(sink) = WIRE_LOG.get() {
            sink(&self.label, direction.arrow(), &text);
        }
        let total = text.len();
        self.keep_entry(direction, line, text, total);
    }

    /// [`Self::log`], making the text only if it is kept: in the transcript or the wire log.
    fn log_lazily(&mut self, direction: Direction, line: Option<u64>, text: impl FnOnce() -> String) {
        match WIRE_LOG.get().is_none() && self.transcript.len() >= TRANSCRIPT_ENTRIES {
            true => self.keep_entry(direction, line, String::new(), 0),
            false => self.log(direction, line, text()),
        }
    }

    /// Logs a message as `prefix` and its JSON text. Without a wire log only the transcript's
    /// head of the text is kept while it is written, so a message of megabytes is not written
    /// out whole for 2,000 characters of it.
    fn log_value(&mut self, direction: Direction, line: Option<u64>, prefix: &str, value: &Value) {
        if WIRE_LOG.get().is_some() {
            return self.log(direction, line, format!("{prefix}{value}"));
        }
        let mut head = Head { kept: prefix.as_bytes().to_vec(), total: prefix.len() };
        if self.transcript.len() < TRANSCRIPT_ENTRIES {
            // Writing to memory fails only on a value serde_json cannot write (none it made).
            let _ = serde_json::to_writer(&mut head, value);
        }
        let text = String::from_utf8_lossy(&head.kept).into_owned();
        self.keep_entry(direction, line, text, head.total);
    }

    /// Keeps a line of the transcript: `text`, the head of a text of `total` bytes, cut to
    /// [`TRANSCRIPT_TEXT`] with the whole length said.
    fn keep_entry(&mut self, direction: Direction, line: Option<u64>, mut text: String, total: usize) {
        if self.transcript.len() >= TRANSCRIPT_ENTRIES {
            self.transcript_dropped += 1;
            self.current = None;
            return;
        }
        if total > TRANSCRIPT_TEXT {
            let mut cut = TRANSCRIPT_TEXT.min(text.len());
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            text = format!("{}… [{total} bytes]", &text[..cut]);
            // Formatting grows by doubling: without this a cut line keeps 4 KiB for its 2,000
            // bytes, in every one of a run's transcripts.
            text.shrink_to_fit();
        }
        self.current = Some(self.transcript.len());
        let at_ms = self.began.elapsed().as_millis() as u64;
        self.transcript.push(TranscriptEntry { dir: direction.arrow(), line, at_ms, text });
    }

    /// Keeps a finding, or past [`FINDINGS_PER_RULE`] of its rule, counts it.
    fn keep(&mut self, finding: Finding) {
        if self.room_for(finding.rule) {
            self.findings.push(finding);
        }
    }

    /// Whether another finding of `rule` is kept; if not, it is counted here.
    fn room_for(&mut self, rule: &'static Rule) -> bool {
        let id = rule.id;
        if self.findings.iter().filter(|f| f.rule.id == id).count() < FINDINGS_PER_RULE {
            return true;
        }
        match self.findings_beyond.iter_mut().find(|(r, _)| *r == id) {
            Some((_, n)) => *n += 1,
            None => self.findings_beyond.push((id, 1)),
        }
        false
    }

    /// Starts the record of the next scenario on this session: its findings, counts and wire
    /// log start empty (they were the last scenario's), while the checker keeps the session's
    /// state — what was negotiated, which ids were used, what is outstanding. `note`, the first
    /// line of the new log, says where the session came from.
    pub fn begin_segment(&mut self, note: String) {
        self.findings = Vec::new();
        self.findings_beyond.clear();
        self.judged = 0;
        self.schema_valid = 0;
        self.schema_missing = None;
        self.transcript.clear();
        self.transcript_dropped = 0;
        self.http_judged = 0;
        self.began = Instant::now();
        self.current = None;
        self.transcript.push(TranscriptEntry { dir: NOTE, line: None, at_ms: 0, text: note });
    }

    /// A recorder for another scenario on the same stdio session at once (a tenant of a shared
    /// process, [`crate::session::server::host`]): it knows what this one knows of the session
    /// (its negotiation, the ids and tokens used) and starts its own record, headed by `note`.
    /// The two judge their own messages from here on.
    pub fn fork(&self, note: String) -> WireRecorder {
        let mut fork = WireRecorder::new(self.checker.revision(), self.iut, self.schemas.clone());
        fork.checker = self.checker.clone();
        fork.label = self.label.clone();
        fork.begin_segment(note);
        fork
    }

    /// The wire log, and how many entries did not fit.
    pub fn transcript(&self) -> (&[TranscriptEntry], usize) {
        (&self.transcript, self.transcript_dropped)
    }

    /// Whether a finding has been recorded against the implementation under test.
    pub fn has_findings(&self) -> bool {
        !self.findings.is_empty()
    }

    /// The wire checks of the session so far: each finding (the first few of each rule, then a
    /// count), and a passed check per rule family that was exercised and held.
    pub fn checks(&self) -> Vec<Check> {
        let mut out = Vec::new();
        let who = match self.iut {
            Direction::ServerToClient => "server",
            Direction::ClientToServer => "client",
        };
        for f in &self.findings {
            out.push(Check {
                id: f.rule.id.to_owned(),
                level: f.rule.level_at(f.revision),
                spec: f.rule.spec(f.revision),
                verdict: f.rule.level_at(f.revision).broken(),
                expected: f.expected.clone(),
                actual: f.actual.clone(),
                message: f.message,
                baselined: false,
                clauses: Vec::new(),
            });
        }
        for (id, n) in &self.findings_beyond {
            if let Some(c) = out.iter().rev().find(|c| c.id == *id).cloned() {
                out.push(Check { actual: format!("… and {n} more like it"), ..c });
            }
        }
        let revision = self.checker.revision();
        let envelope_broken = self.findings.iter().any(|f| {
            f.rule != &rules::SCHEMA_VALID
                && f.rule != &rules::SCHEMA_KNOWN_METHOD
                && f.rule != &rules::SCHEMA_FORMAT
        });
        if self.judged > 0 && !envelope_broken {
            out.push(Check {
                id: rules::JSONRPC_ENVELOPE.id.to_owned(),
                level: rules::JSONRPC_ENVELOPE.level,
                spec: rules::JSONRPC_ENVELOPE.spec(revision),
                verdict: Verdict::Passed,
                expected: format!("every line from the {who} is one well-formed JSON-RPC message"),
                actual: format!("{} message(s) from the {who}, all well-formed", self.judged),
                message: None,
                baselined: false,
                clauses: Vec::new(),
            });
        }
        let http_broken = self.findings.iter().any(|f| {
            ["http/", "sse/", "http-client/", "sse-client/"].iter().any(|p| f.rule.id.starts_with(p))
        });
        if self.http_judged > 0 && !http_broken {
            let rule = &rules::HTTP_ACCEPTED_202;
            let flavor = self.http.as_ref().map(HttpChecker::flavor);
            let flavor = flavor.or(self.http_client.as_ref().map(HttpClientChecker::flavor));
            let transport = match flavor {
                Some(Flavor::LegacySse) => "HTTP+SSE",
                _ => "Streamable HTTP",
            };
            let (id, what) = match self.http_client.is_some() {
                true => ("http-client/transport", "request"),
                false => ("http/transport", "response"),
            };
            out.push(Check {
                id: id.to_owned(),
                level: rule.level,
                spec: format!("{}/basic/transports.mdx", revision.doc_root()),
                verdict: Verdict::Passed,
                expected: format!(
                    "every HTTP {what} from the {who} follows the {transport} transport's rules"
                ),
                actual: format!("{} {what}(s), each as the transport requires", self.http_judged),
                message: None,
                baselined: false,
                clauses: Vec::new(),
            });
        }
        let schema_broken = self.findings.iter().any(|f| f.rule == &rules::SCHEMA_VALID);
        if let Some(missing) = self.schema_missing {
            out.push(Check {
                id: rules::SCHEMA_VALID.id.to_owned(),
                level: rules::SCHEMA_VALID.level,
                spec: rules::SCHEMA_VALID.spec(missing),
                verdict: Verdict::Skipped,
                expected: format!("messages from the {who} valid against the {missing} schema"),
                actual: format!("not checked: no schema for {missing} is loaded (see --schema-dir)"),
                message: None,
                baselined: false,
                clauses: Vec::new(),
            });
        } else if self.schema_valid > 0 && !schema_broken {
            out.push(Check {
                id: rules::SCHEMA_VALID.id.to_owned(),
                level: rules::SCHEMA_VALID.level,
                spec: rules::SCHEMA_VALID.spec(revision),
                verdict: Verdict::Passed,
                expected: format!("messages from the {who} valid against the {revision} schema"),
                actual: format!("{} message(s) validated, all valid", self.schema_valid),
                message: None,
                baselined: false,
                clauses: Vec::new(),
            });
        }
        out
    }
}

/// A JSON pointer as shown in findings: `/` for the whole message.
fn pointer(path: &str) -> &str {
    if path.is_empty() {
        "/"
    } else {
        path
    }
}

/// The form of a message the schema judges. Spec erratum (basic/index.mdx vs schema.json,
/// before 2025-11-25): JSON-RPC answers a message whose id could not be read with an error
/// whose id is null (or absent), which the schemas of those revisions reject. Both forms are
/// accepted: the error is checked with a stand-in id, so every other violation still counts.
pub fn schema_form(value: &Value) -> std::borrow::Cow<'_, Value> {
    if value.get("error").is_some() && value.get("id").is_none_or(Value::is_null) {
        let mut v = value.clone();
        v["id"] = Value::from(0);
        std::borrow::Cow::Owned(v)
    } else {
        std::borrow::Cow::Borrowed(value)
    }
}

/// The first bytes written to it, up to the transcript's length of a line and a character
/// more, and how many were written in all.
struct Head {
    kept: Vec<u8>,
    total: usize,
}

impl std::io::Write for Head {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        // A UTF-8 character is at most 4 bytes: the cut at TRANSCRIPT_TEXT finds its boundary.
        let room = (TRANSCRIPT_TEXT + 4).saturating_sub(self.kept.len());
        self.kept.extend_from_slice(&bytes[..bytes.len().min(room)]);
        self.total += bytes.len();
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A recorder judging the server of a 2025-11-25 session whose initialize result has
    /// `serverInfo` as given.
    fn initialized_with(server_info: Value) -> Vec<Check> {
        let schemas = mcpspec_schema::SchemaSet::shared_builtin();
        let mut r = WireRecorder::new(Revision::V2025_11_25, Direction::ServerToClient, Some(schemas));
        r.record_value(
            Direction::ClientToServer,
            &json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",
                "capabilities":{},"clientInfo":{"name":"c","version":"1"}}}),
        );
        r.record_value(
            Direction::ServerToClient,
            &json!({"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{},
                "serverInfo":server_info}}),
        );
        r.checks()
    }

    fn verdicts(checks: &[Check]) -> Vec<(String, Verdict)> {
        checks.iter().map(|c| (c.id.clone(), c.verdict)).collect()
    }

    /// `format` is an annotation: a URL that is not a URI is a warning of its own, naming the
    /// format and the place, and the message still counts as valid.
    #[test]
    fn a_format_mismatch_is_a_warning_not_a_schema_failure() {
        let checks = initialized_with(json!({"name":"s","version":"1","websiteUrl":"not a uri"}));
        let v = verdicts(&checks);
        assert!(v.contains(&("schema/format".into(), Verdict::Warning)), "{v:?}");
        assert!(v.contains(&("schema/message-valid".into(), Verdict::Passed)), "{v:?}");
        assert!(v.contains(&("jsonrpc/envelope".into(), Verdict::Passed)), "{v:?}");
        let format = checks.iter().find(|c| c.id == "schema/format").unwrap();
        assert_eq!(format.level, crate::judge::verdict::Level::SHOULD);
        assert!(
            format.expected.contains("format uri at /result/serverInfo/websiteUrl"),
            "{}",
            format.expected
        );
        assert!(format.spec.ends_with("2025-11-25/basic/index.mdx"), "{}", format.spec);
    }

    /// A long message's transcript line is its text's head and whole length, as if the whole
    /// text were written and cut, whatever characters fall at the cut; a short one is whole.
    #[test]
    fn a_long_message_is_shown_by_its_head_and_length() {
        for filler in ["a", "é", "😀", "\n"] {
            let long = json!({"jsonrpc":"2.0","method":"notifications/message","params":{"data":filler.repeat(3000)}});
            let whole = long.to_string();
            let mut r = WireRecorder::new(Revision::V2025_11_25, Direction::ServerToClient, None);
            r.record_value(Direction::ServerToClient, &long);
            r.record_value(Direction::ServerToClient, &json!({"jsonrpc":"2.0","method":"ping","id":1}));
            let (entries, _) = r.transcript();
            let mut cut = TRANSCRIPT_TEXT;
            while !whole.is_char_boundary(cut) {
                cut -= 1;
            }
            assert_eq!(entries[0].text, format!("{}… [{} bytes]", &whole[..cut], whole.len()), "{filler}");
            assert_eq!(entries[1].text, r#"{"jsonrpc":"2.0","method":"ping","id":1}"#);
        }
    }

    /// Over HTTP, a message body or SSE event that is not JSON breaks the HTTP transport's rule,
    /// not stdio's.
    #[test]
    fn over_http_a_message_that_is_not_json_cites_the_http_transport() {
        use mcpspec_protocol::framing::Frame;
        let content = |text: &str| mcpspec_protocol::framing::decode_line(text.as_bytes());
        let mut r = WireRecorder::new(Revision::V2025_11_25, Direction::ServerToClient, None)
            .with_http(Flavor::Streamable);
        r.record_frame(Direction::ServerToClient, Frame { line: 1, content: content("not json") });
        let checks = r.checks();
        let c = checks.iter().find(|c| c.id == "http/message-json").expect("http/message-json");
        assert_eq!(
            (c.verdict, c.spec.as_str()),
            (Verdict::Failed, "docs/specification/2025-11-25/basic/transports.mdx#streamable-http")
        );
        assert!(!checks.iter().any(|c| c.id.starts_with("stdio/")), "{checks:?}");
        let mut stdio = WireRecorder::new(Revision::V2025_11_25, Direction::ServerToClient, None);
        stdio.record_frame(Direction::ServerToClient, Frame { line: 1, content: content("not json") });
        assert!(stdio.checks().iter().any(|c| c.id == "stdio/stdout-only-mcp"));
    }

    /// A structural defect still fails, and a format mismatch beside it stays a warning.
    #[test]
    fn a_structural_violation_still_fails() {
        let checks = initialized_with(json!({"name":"s","version":1,"websiteUrl":"not a uri"}));
        let v = verdicts(&checks);
        assert!(v.contains(&("schema/message-valid".into(), Verdict::Failed)), "{v:?}");
        assert!(v.contains(&("schema/format".into(), Verdict::Warning)), "{v:?}");
        let failed = checks.iter().find(|c| c.id == "schema/message-valid").unwrap();
        assert!(
            failed.actual.contains("/result/serverInfo/version") && !failed.actual.contains("uri"),
            "{}",
            failed.actual
        );
        let fine = initialized_with(json!({"name":"s","version":"1","websiteUrl":"https://example.com"}));
        assert!(!verdicts(&fine).iter().any(|(id, v)| id.starts_with("schema/") && *v != Verdict::Passed));
    }
}
