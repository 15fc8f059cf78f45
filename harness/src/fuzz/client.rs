//! Fuzzing a client (`mcpspec fuzz --role client [--transport http|sse] -- CMD`): mcpspec is the
//! client's server as in client certification — over stdio (the client spawns `mcpspec peer`,
//! which relays its pipes to mcpspec), or over Streamable HTTP or HTTP+SSE (mcpspec's endpoint
//! on 127.0.0.1, its URL appended to the command) — and the reference server's answers are what
//! the client reads — but for what each input bends: one answer replaced by a mutated one, and
//! server requests, notifications, answers to nothing and broken lines written once the client
//! has initialized; over HTTP, one response of the endpoint bent instead (its status, headers,
//! SSE stream or body: [`crate::fuzz::generate::client`]).
//!
//! A client runs its own course and ends, so every input is one run of the client, from its
//! start. The first run is clean (no input): what the client asks and is answered there is
//! what answers are drawn from, and how it ends there (its exit status, whether stderr shows an
//! uncaught error) is what the other runs are compared with. The oracles:
//! - **crash**: killed by a signal, or an exit status other than the clean run's with an
//!   uncaught error on stderr (a panic, a traceback): the client died on what it read;
//! - **hang**: silent for the hang timeout and then not answering a `ping` within it either, or
//!   not done within the clean run's time plus a margin;
//! - **uncaught error** on stderr while it ends as in the clean run;
//! - **id desync** (an answer to a request never sent, a second answer) and **schema** (a
//!   message of the client's the revision's schema rejects), by the same [`Watch`] as servers.
//!
//! Investigation is simpler than a server's: an input is its own run, so it reproduces by
//! running again, and [`minimize`] shrinks it with each probe a run of its own.

use super::campaign::{signature_of, write_reproducer, CampaignResult, Finding, Limit, Shard, Target};
use super::driver::{DriverConfig, FuzzTarget, HttpTarget, Outcome, StartError};
use super::generate::client::{answer_method, with_id, ClientGenerator};
use super::minimize::{self, Budget, Probe};
use super::oracle::{Trip, Watch};
use super::signature::{has_panic, Oracle};
use super::{Catalog, Input};
use crate::session::client::{ClientSession, ClientWaitError, ServerScript};
use mcpspec_protocol::framing::{encode, Frame, FrameContent};
use mcpspec_protocol::{Era, Revision};
use mcpspec_reference::transport::child::describe_status;
use mcpspec_reference::transport::{ChildOptions, CommandSpec, Flavor, Stage};
use serde_json::{json, Value};
use std::os::unix::process::ExitStatusExt as _;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A client campaign's settings.
pub struct ClientCampaign {
    /// The revision, the schemas, the timeouts; its target is the client's command.
    pub driver: Arc<DriverConfig>,
    /// The relay the client spawns as its server (`mcpspec peer`), without `--connect`.
    pub relay: Vec<String>,
    pub seed: u64,
    pub limit: Limit,
    pub shard: Shard,
    pub findings_dir: Option<PathBuf>,
    pub minimize: Budget,
    pub max_findings: Option<usize>,
    /// Runs of the client at once (`-j`).
    pub jobs: usize,
}

/// How the clean run went: what the fuzzed runs are compared with.
#[derive(Debug, Clone)]
pub struct CleanRun {
    pub exit: Option<i32>,
    pub panicked: bool,
    pub elapsed: Duration,
    /// `(method, result)` of each request the client made, as the reference server answered.
    pub answers: Vec<(String, Value)>,
    /// How many messages the client sent (over HTTP, each a POST of its own).
    pub sent: u32,
}

/// What one run of the client came to.
struct Run {
    outcome: Outcome,
    /// How it ended, when it ended on its own.
    exit: Option<std::process::ExitStatus>,
    answers: Vec<(String, Value)>,
    /// How many messages the client sent.
    sent: u32,
}

impl ClientCampaign {
    /// The client's command, and the HTTP transport it is served over (none: stdio).
    fn command(&self) -> Result<(&CommandSpec, Option<Flavor>), StartError> {
        match &self.driver.target {
            FuzzTarget::Stdio(command) => Ok((command, None)),
            FuzzTarget::Http(HttpTarget { command: Some(command), flavor, .. }) => {
                Ok((command, Some(*flavor)))
            }
            FuzzTarget::Http(_) => Err(StartError::Spawn("a client is fuzzed by running its command".into())),
        }
    }

    /// The clean run: no input.
    pub async fn clean_run(&self) -> Result<CleanRun, StartError> {
        let started = Instant::now();
        let run = self.run(&Input::default(), None).await?;
        if let Some(trip) = run.outcome.trips.iter().find(|t| matches!(t.oracle, Oracle::Hang)) {
            return Err(StartError::Setup(format!("the client's clean run hung: {}", trip.detail)));
        }
        Ok(CleanRun {
            exit: run.exit.and_then(|s| s.code()),
            panicked: has_panic(&run.outcome.stderr),
            elapsed: started.elapsed(),
            answers: run.answers,
            sent: run.sent,
        })
    }

    /// One run of the client with `input`, judged against `clean` (none: the clean run itself).
    async fn run(&self, input: &Input, clean: Option<&CleanRun>) -> Result<Run, StartError> {
        let config = &self.driver;
        let revision = config.revision;
        let options = ChildOptions {
            max_message_bytes: config.max_message_bytes,
            write_timeout: config.hang_timeout,
            shutdown_grace: Duration::from_millis(500),
            stderr_tail_bytes: 16 * 1024,
            ..ChildOptions::default()
        };
        let started = Instant::now();
        let (command, flavor) = self.command()?;
        let script = ServerScript {
            bend: input.http.as_ref().and_then(|h| h.reply.clone()),
            ..ServerScript::default()
        };
        let session = match flavor {
            None => ClientSession::start(
                command,
                &self.relay,
                options,
                revision,
                None,
                "fuzz",
                &json!({}),
                script,
            ),
            Some(flavor) => {
                ClientSession::start_http(
                    command,
                    flavor,
                    options,
                    revision,
                    None,
                    "fuzz",
                    &json!({}),
                    script,
                )
                .await
            }
        };
        let mut session = session.map_err(|e| StartError::Spawn(e.to_string()))?;
        if let Err(e) = session.accept(config.start_timeout, None).await {
            let note = session.exit_note().await;
            session.shutdown().await;
            return Err(StartError::Setup(format!("the client never connected to its server: {e}{note}")));
        }
        let mut watch = Watch::of_client(revision, config.schemas.clone());
        // Answers held for the client's first request of their method; the rest is injected.
        let mut answers: Vec<(String, Vec<u8>)> = Vec::new();
        let mut injections: Vec<&Vec<u8>> = Vec::new();
        // Over HTTP a body is one JSON text: a write that is none (a structural mutation can
        // leave one) has no way to the client there, and is left out.
        let sendable = |w: &&Vec<u8>| flavor.is_none() || serde_json::from_slice::<Value>(w).is_ok();
        for write in input.writes.iter().filter(|w| !w.is_empty()).filter(sendable) {
            match answer_method(write) {
                Some(method) => answers.push((method, write.clone())),
                None => injections.push(write),
            }
        }
        let mut injected = injections.is_empty();
        // Over Streamable HTTP a server's message goes on the stream of a request in flight, else
        // on the GET stream (held until it opens). Written at once when the client has
        // initialized, the injection took one way or the other by a race with the client's next
        // POST: a campaign's reproducer of a hang on a POST stream was once replayed down the GET
        // stream and called fixed. So there it waits for the client's next request and goes
        // before its answer, on its POST stream; a client that makes none within half the hang
        // timeout gets it on the GET stream.
        let rides_next_request = flavor == Some(Flavor::Streamable) && revision.era() == Era::Legacy;
        let mut initialized_at: Option<Instant> = None;
        let mut seen: Vec<(String, Value)> = Vec::new();
        // A client may take the clean run's time again, and the hang timeout more, counted from
        // its connection: a start slowed by a loaded machine leaves the run its whole budget.
        let budget = clean.map_or(config.hang_timeout * 4, |c| c.elapsed * 2 + config.hang_timeout * 2);
        let mut deadline = Instant::now() + budget;
        let mut quiet_since = Instant::now();
        let mut ping: Option<(String, Instant)> = None;
        let mut pings = 0u32;
        let mut trips: Vec<Trip> = Vec::new();
        // Whether mcpspec ended the run (time up, a hang): how the client then exits is what it
        // does when its server goes away mid-request, no crash of its own.
        let mut ended_by_us = false;
        let mut sent = 0u32;
        let bends_get = input.http.as_ref().and_then(|h| h.reply.as_ref()).is_some_and(|r| r.method == "GET");
        loop {
            let now = Instant::now();
            // A client still at work when the time is up (waiting for an answer an input took
            // away, say) is ended, no finding: only silence towards a ping is a hang.
            if now >= deadline {
                // A ping in flight has the hang timeout to be answered: the time being up does
                // not cut short the proof of a hang (a replay on a loaded machine once found
                // none so, and called the hang fixed).
                match &ping {
                    Some((_, sent)) if sent.elapsed() < config.hang_timeout => {
                        deadline = *sent + config.hang_timeout + Duration::from_millis(100);
                        continue;
                    }
                    _ => {
                        ended_by_us = true;
                        break;
                    }
                }
            }
            if !injected && initialized_at.is_some_and(|at| at.elapsed() >= config.hang_timeout / 2) {
                injected = true;
                inject(&mut session, &mut watch, &injections).await;
            }
            let slice = (deadline - now).min(Duration::from_millis(100));
            match session.recv(slice).await {
                Ok(inspection) => {
                    quiet_since = Instant::now();
                    let Some(value) = inspection.value.clone() else { continue };
                    sent += 1;
                    let frame = Frame {
                        line: 0,
                        content: FrameContent::Json { value: value.clone(), crlf: false, lines: 1 },
                    };
                    watch.received(&frame);
                    if let Some((id, _)) = &ping {
                        if value.get("id") == Some(&json!(id)) && value.get("method").is_none() {
                            // Alive, and quiet for the hang timeout: waiting for something an
                            // input took away (an answer), or done without closing. Either way
                            // the run has shown what it can: it ends after a moment more (what
                            // the client still writes, a second answer say, is judged), no finding.
                            ping = None;
                            deadline = deadline.min(Instant::now() + Duration::from_millis(300));
                        }
                    }
                    let method = value.get("method").and_then(Value::as_str).map(str::to_owned);
                    let reference = session.answers(&inspection);
                    if let (Some(method), Some(id)) = (&method, value.get("id")) {
                        if let Some(answer) = reference.iter().find(|a| a.get("id") == Some(id)) {
                            if let Some(result) = answer.get("result") {
                                seen.push((method.clone(), result.clone()));
                            }
                        }
                        if let Some(at) = answers.iter().position(|(m, _)| m == method) {
                            let (_, bytes) = answers.remove(at);
                            let bytes = with_id(&bytes, method, id);
                            let line =
                                if bytes.ends_with(b"\n") { bytes } else { [bytes, b"\n".to_vec()].concat() };
                            watch.sent(&line);
                            if session.send_raw(&line).await.is_err() {
                                break;
                            }
                            continue;
                        }
                    }
                    let is_request = method.is_some() && value.get("id").is_some();
                    if !injected && rides_next_request && initialized_at.is_some() && is_request {
                        injected = true;
                        inject(&mut session, &mut watch, &injections).await;
                    }
                    for answer in &reference {
                        watch.sent(&encode(answer));
                        if session.send_value(answer).await.is_err() {
                            break;
                        }
                    }
                    // Once the client has initialized (the modern era has no handshake: once it
                    // made its first request), what the input injects is written.
                    let ready = match revision.era() {
                        Era::Legacy => method.as_deref() == Some("notifications/initialized"),
                        Era::Modern => method.is_some(),
                    };
                    if ready && !injected {
                        if rides_next_request {
                            initialized_at.get_or_insert_with(Instant::now);
                        } else {
                            injected = true;
                            inject(&mut session, &mut watch, &injections).await;
                        }
                    }
                }
                Err(ClientWaitError::Closed(_) | ClientWaitError::Ended(_)) => break,
                Err(_) => {
                    let quiet = quiet_since.elapsed();
                    match &ping {
                        Some((_, sent)) if sent.elapsed() >= config.hang_timeout => {
                            trips.push(hang(format!(
                                "silent for {quiet:?}, and a ping went unanswered for {:?}",
                                config.hang_timeout
                            )));
                            ended_by_us = true;
                            break;
                        }
                        // A ping proves a hang only on a way to the client the input left
                        // intact: not over a bent GET stream (it may be what the client cannot
                        // read), nor held for a GET stream the client has not opened.
                        None if quiet >= config.hang_timeout
                            && revision.era() == Era::Legacy
                            && !bends_get
                            && session.reaches_client() =>
                        {
                            pings += 1;
                            let id = format!("mcpspec-fuzz-ping-{pings}");
                            let request = json!({"jsonrpc": "2.0", "id": id, "method": "ping"});
                            watch.sent(&encode(&request));
                            if session.send_raw(&encode(&request)).await.is_err() {
                                break;
                            }
                            ping = Some((id, Instant::now()));
                        }
                        // Quiet, and no ping can tell a hang from a wait: the run has shown
                        // what it can, no finding.
                        None if quiet >= config.hang_timeout && (bends_get || !session.reaches_client()) => {
                            ended_by_us = true;
                            break;
                        }
                        _ => {}
                    }
                }
            }
        }
        // Closing the connection ends the relay, and a client whose server is gone ends: how it
        // ended is judged only when it ended on its own (a client mcpspec had to signal was
        // still at work, which is no crash).
        let end = session.shutdown_within(config.hang_timeout).await;
        let exit = match end.stage {
            Stage::AlreadyExited | Stage::StdinClosed if !ended_by_us => end.status,
            _ => None,
        };
        let stderr = session.stderr_tail();
        trips.extend(watch.take_trips());
        let panicked = has_panic(&stderr);
        if let Some(status) = exit {
            let died = status.signal().is_some()
                || clean.is_some_and(|c| status.code() != c.exit && panicked && !c.panicked);
            if died {
                trips.push(Trip {
                    oracle: Oracle::Crash,
                    method: None,
                    detail: format!(
                        "the client {} (its clean run: {})",
                        describe_status(status),
                        clean.and_then(|c| c.exit).map_or("no status".into(), |c| format!("status {c}"))
                    ),
                    message: None,
                });
            } else if panicked && clean.is_some_and(|c| !c.panicked) {
                trips.push(Trip {
                    oracle: Oracle::StderrPanic,
                    method: None,
                    detail: format!("stderr shows an uncaught error: {}", super::driver::tail(&stderr)),
                    message: None,
                });
            }
        }
        let outcome = Outcome { trips, stderr, elapsed: started.elapsed() };
        Ok(Run { outcome, exit, answers: seen, sent })
    }

    /// Runs the campaign until its limit or `stop`.
    pub async fn campaign(&self, stop: Arc<AtomicBool>) -> Result<CampaignResult, StartError> {
        let started = Instant::now();
        let clean = self.clean_run().await?;
        let schemas = self.driver.schemas.clone().unwrap_or_else(mcpspec_schema::SchemaSet::shared_builtin);
        let http = self.command()?.1.map(|flavor| (flavor, clean.sent));
        let generator = ClientGenerator::new(self.driver.revision, &schemas, clean.answers.clone(), http);
        let mut findings: Vec<Finding> = Vec::new();
        let mut inputs = 0u64;
        let mut starts = 1u64;
        let mut slot = 0u64;
        loop {
            let over = match self.limit {
                Limit::Runs(runs) => slot >= runs,
                Limit::Duration(d) => started.elapsed() >= d,
            };
            if over || stop.load(Ordering::Relaxed) || self.enough(&findings) {
                break;
            }
            // `jobs` runs of the client at once; their outcomes are judged in the order of their
            // inputs, so what is found (and which input a finding is named after) does not
            // depend on which run ended first.
            let mut batch = Vec::new();
            while batch.len() < self.jobs.max(1) && !matches!(self.limit, Limit::Runs(runs) if slot >= runs) {
                let index = self.shard.index_of(slot);
                slot += 1;
                batch.push((index, generator.input(self.seed, index)));
            }
            let runs =
                futures::future::join_all(batch.iter().map(|(_, input)| self.run(input, Some(&clean)))).await;
            for ((index, input), run) in batch.into_iter().zip(runs) {
                if self.enough(&findings) {
                    break;
                }
                let run = match run {
                    Ok(run) => run,
                    Err(e) if inputs == 0 => return Err(e),
                    Err(_) => continue,
                };
                starts += 1;
                inputs += 1;
                let Some(primary) = run.outcome.primary().cloned() else { continue };
                let seen_as = signature_of(&primary, &run.outcome.stderr);
                // A bug already known costs a count; one still doubtful (it did not trip again
                // on a fresh process: a slow start under load may have hidden it) is tried
                // again on its next few hits, so a planted bug first met on a loaded machine is
                // still proven.
                let doubtful = match findings.iter_mut().find(|f| f.signature == seen_as) {
                    Some(known) => {
                        known.hits += 1;
                        if known.proven() || known.hits > 1 + DOUBTFUL_RETRIES {
                            continue;
                        }
                        Some(seen_as.clone())
                    }
                    None => None,
                };
                let target = Target::of(&primary, &run.outcome);
                let mut probe = Again { campaign: self, clean: &clean, target, stop: &stop, probes: 0 };
                let reproduced = probe.still_fails(&input).await;
                if doubtful.is_some() && !reproduced {
                    starts += probe.probes as u64;
                    continue;
                }
                let minimized = match reproduced {
                    true => minimize::minimize(input.clone(), &mut probe, self.minimize).await,
                    false => input.clone(),
                };
                let probes = probe.probes;
                starts += probes as u64;
                let (minimized, last) = match self.run(&minimized, Some(&clean)).await {
                    Ok(r) if probe.target.matches(&r.outcome) => (minimized, r.outcome),
                    // The minimized input did not trip once more: a probe slowed past the hang
                    // barrier on a loaded machine passes for the bug, and minimizing may have
                    // kept such a one. The input that tripped twice stays the reproducer.
                    _ => (input.clone(), run.outcome.clone()),
                };
                let trip = last.trips.iter().find(|t| t.oracle == primary.oracle).cloned().unwrap_or(primary);
                let signature = signature_of(&trip, &last.stderr);
                // Proven now, a doubtful finding gives way to the proof, keeping its count (its
                // reproducer file too, when the minimized input names it otherwise).
                let mut hits = 1;
                if let Some(at) = doubtful.and_then(|d| findings.iter().position(|f| f.signature == d)) {
                    let gone = findings.remove(at);
                    hits = gone.hits;
                    if let (Some(dir), true) = (&self.findings_dir, gone.id != signature.id()) {
                        let _ = std::fs::remove_file(dir.join(format!("{}.json", gone.id)));
                    }
                }
                if let Some(known) = findings.iter_mut().find(|f| f.signature == signature) {
                    if known.proven() || !reproduced {
                        known.hits += hits;
                        continue;
                    }
                    hits += known.hits;
                    findings.retain(|f| f.signature != signature);
                }
                let finding = Finding {
                    id: signature.id(),
                    signature,
                    detail: trip.detail.clone(),
                    hits,
                    reproducer: minimized,
                    reproduced,
                    stderr: last.stderr.clone(),
                    message: trip.message.clone(),
                    found_after: started.elapsed(),
                    input_index: index,
                    probes,
                };
                if let Some(dir) = &self.findings_dir {
                    if let Err(e) = write_reproducer(dir, &finding, &self.driver, self.seed) {
                        eprintln!("mcpspec fuzz: cannot write the reproducer of {}: {e}", finding.id);
                    }
                }
                findings.push(finding);
            }
        }
        let oracles =
            [Oracle::Crash, Oracle::Hang, Oracle::IdDesync, Oracle::SchemaInvalid, Oracle::StderrPanic]
                .into_iter()
                .filter(|o| *o != Oracle::SchemaInvalid || self.driver.schemas.is_some())
                .collect();
        Ok(CampaignResult {
            catalog: Catalog { revision: Some(self.driver.revision), ..Catalog::default() },
            inputs,
            windows: inputs,
            starts,
            elapsed: started.elapsed(),
            findings,
            slowest: Vec::new(),
            interrupted: stop.load(Ordering::Relaxed),
            corpus_loaded: 0,
            corpus_added: 0,
            oracles,
        })
    }

    /// Whether `--max-findings` proven findings are known ([`Finding::proven`]).
    fn enough(&self, findings: &[Finding]) -> bool {
        self.max_findings.is_some_and(|m| findings.iter().filter(|f| f.proven()).count() >= m)
    }

    /// Runs a reproducer once more (after a clean run, to compare with): its outcome.
    pub async fn replay(&self, input: &Input) -> Result<Outcome, StartError> {
        let clean = self.clean_run().await?;
        Ok(self.run(input, Some(&clean)).await?.outcome)
    }
}

fn hang(detail: String) -> Trip {
    Trip { oracle: Oracle::Hang, method: None, detail, message: None }
}

/// Writes what an input injects, in order, each as one line (a write that fails ends the
/// writing: the session is gone, and the loop reading it sees so next).
async fn inject(session: &mut ClientSession, watch: &mut Watch, injections: &[&Vec<u8>]) {
    for write in injections {
        let line = if write.ends_with(b"\n") { (*write).clone() } else { [write.as_slice(), b"\n"].concat() };
        watch.sent(&line);
        if session.send_raw(&line).await.is_err() {
            break;
        }
    }
}

/// How many more hits of a doubtful finding are tried on a fresh process before it is left as
/// found (each try is a run of the client; a proven finding is then minimized).
const DOUBTFUL_RETRIES: u64 = 3;

/// A probe: the candidate as a run of its own, failing as the target did.
struct Again<'a> {
    campaign: &'a ClientCampaign,
    clean: &'a CleanRun,
    target: Target,
    stop: &'a AtomicBool,
    probes: usize,
}

impl Probe for Again<'_> {
    async fn still_fails(&mut self, candidate: &Input) -> bool {
        if self.stop.load(Ordering::Relaxed) {
            return false;
        }
        self.probes += 1;
        match self.campaign.run(candidate, Some(self.clean)).await {
            Ok(run) => self.target.matches(&run.outcome),
            Err(_) => false,
        }
    }
}

/// The revision a client campaign speaks when none is named.
pub fn default_revision() -> Revision {
    Revision::latest_legacy()
}
