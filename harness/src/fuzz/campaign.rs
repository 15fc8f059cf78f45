//! A fuzzing campaign: workers, each with its own implementation process, pull inputs by
//! index, run them in windows, and investigate every window that tripped an oracle: which
//! input did it (each alone, on a fresh process), whether it reproduces, which known finding
//! it is (by signature), and, when it is new, its smallest reproducer.
//!
//! Input `i` of a campaign is `Generator::input(seed, i, corpus)`, so a campaign is the same
//! inputs whatever the number of workers, and `--shard I/N` runs the indices `I, I+N, I+2N…`.
//! Which inputs a time-bounded campaign reaches depends on speed; a findings' reproducer does
//! not. A guided campaign (`--coverage`) adds to the corpus as it goes the inputs that reached
//! new code, so its inputs also depend on what the server's code did.

use super::coverage::{CoverageLog, Reached};
use super::driver::{Driver, DriverConfig, Outcome, StartError};
use super::generate::Generator;
use super::minimize::{self, Budget, Probe};
use super::oracle::Trip;
use super::signature::{top_frame, Oracle, Signature};
use super::{Catalog, Input, InputFile};
use crate::files::{write_atomically, Access};
use mcpspec_protocol::Revision;
use serde_json::{json, Value};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

/// When a campaign ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    Duration(Duration),
    /// This many inputs (of this shard).
    Runs(u64),
}

/// `--shard I/N`: this campaign runs the indices congruent to `index` modulo `count`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub index: u64,
    pub count: u64,
}

impl Shard {
    /// The input index of the campaign's `slot`-th input in this shard.
    pub fn index_of(self, slot: u64) -> u64 {
        self.index + slot * self.count
    }
}

impl Default for Shard {
    fn default() -> Self {
        Shard { index: 0, count: 1 }
    }
}

impl std::str::FromStr for Shard {
    type Err = String;
    fn from_str(s: &str) -> Result<Shard, String> {
        let bad = || format!("{s:?} is not a shard: I/N with 0 ≤ I < N, e.g. 0/4");
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let (index, count) =
            (i.trim().parse::<u64>().map_err(|_| bad())?, n.trim().parse::<u64>().map_err(|_| bad())?);
        if count == 0 || index >= count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

pub struct CampaignConfig {
    pub driver: Arc<DriverConfig>,
    pub seed: u64,
    pub limit: Limit,
    /// Workers, each with a process of its own.
    pub jobs: usize,
    pub shard: Shard,
    /// Inputs kept between runs: read at the start, and inputs that brought back a response
    /// shape never seen before are added.
    pub corpus_dir: Option<PathBuf>,
    /// Where each finding's reproducer is written, the moment it is found.
    pub findings_dir: Option<PathBuf>,
    /// Inputs per barrier.
    pub window: usize,
    pub minimize: Budget,
    /// Call tools that say `destructiveHint: true`.
    pub destructive: bool,
    /// A progress line on stderr, once a second.
    pub progress: bool,
    /// Stop once this many distinct proven findings are known (a CI job that only needs to know;
    /// see [`Finding::proven`]).
    pub max_findings: Option<usize>,
}

/// One bug, however often it was hit.
#[derive(Debug, Clone)]
pub struct Finding {
    /// `crash-1a2b3c4d`: stable across runs (see [`Signature::id`]).
    pub id: String,
    pub signature: Signature,
    pub detail: String,
    /// How many windows tripped on it.
    pub hits: u64,
    /// The smallest input found that trips it on a fresh process (the window it was found in,
    /// when no single input did and the window did not trip again: see `reproduced`).
    pub reproducer: Input,
    /// Whether the reproducer tripped it again on a fresh process.
    pub reproduced: bool,
    /// What the implementation wrote to stderr when the reproducer last ran.
    pub stderr: String,
    /// The offending message, for oracles that judge one.
    pub message: Option<Value>,
    /// How far into the campaign it was first found.
    pub found_after: Duration,
    /// The index of the input that first tripped it.
    pub input_index: u64,
    /// Probes spent minimizing it.
    pub probes: usize,
}

impl Finding {
    /// The method a finding is shown with: its signature's, or — for one that names no request
    /// (a crash, a hang) — the requests its reproducer sends. The signature, and so the id, is
    /// left as found, so ids stay stable.
    pub fn method(&self) -> String {
        match self.reproducer.request_methods() {
            sent if self.signature.method == NO_REQUEST && !sent.is_empty() => sent.join(", "),
            _ => self.signature.method.clone(),
        }
    }

    /// Whether it fails the campaign: it tripped again on a fresh process, or the process died
    /// (a death is proof enough on its own). What did not trip again may be the fuzzer's own
    /// (the attribution of answers across windows, or a slow start under load): it is reported
    /// as a warning, and it does not count toward `--max-findings`, so a campaign that only
    /// needs one finding is not stopped by a doubtful one.
    pub fn proven(&self) -> bool {
        self.reproduced || self.signature.oracle == super::signature::Oracle::Crash
    }
}

/// What a campaign did.
#[derive(Debug, Clone)]
pub struct CampaignResult {
    pub catalog: Catalog,
    pub inputs: u64,
    pub windows: u64,
    /// Processes started, for windows and for investigations.
    pub starts: u64,
    pub elapsed: Duration,
    pub findings: Vec<Finding>,
    /// The slowest windows (information, not findings): how long, and the first input's label.
    pub slowest: Vec<(Duration, String)>,
    pub interrupted: bool,
    pub corpus_loaded: usize,
    pub corpus_added: usize,
    /// Every oracle that was watching (all but the schema's when there is no schema).
    pub oracles: Vec<Oracle>,
}

/// Learns what the implementation offers: one process, its session, the lists it declares.
pub async fn discover(config: &Arc<DriverConfig>) -> Result<Catalog, StartError> {
    Ok(discover_reached(config).await?.0)
}

/// [`discover`], with what the server's code reached while starting and listing (`--coverage`):
/// the campaign's baseline, no input's.
async fn discover_reached(config: &Arc<DriverConfig>) -> Result<(Catalog, Option<Reached>), StartError> {
    let mut driver = Driver::new(config.clone());
    driver.ensure_started().await?;
    let description = driver.server_description().cloned().unwrap_or(Value::Null);
    let capabilities = description.get("capabilities").cloned().unwrap_or_else(|| json!({}));
    // A legacy server may counter-offer: the campaign speaks what was agreed.
    let negotiated = description.get("protocolVersion").and_then(Value::as_str).and_then(|v| v.parse().ok());
    let revision =
        negotiated.filter(|r: &Revision| r.era() == config.revision.era()).unwrap_or(config.revision);
    let mut catalog =
        Catalog { revision: Some(revision), capabilities: capabilities.clone(), ..Catalog::default() };
    let lists: [(&str, &str, &str, &mut Vec<Value>); 4] = [
        ("tools", "tools/list", "tools", &mut catalog.tools),
        ("prompts", "prompts/list", "prompts", &mut catalog.prompts),
        ("resources", "resources/list", "resources", &mut catalog.resources),
        ("resources", "resources/templates/list", "resourceTemplates", &mut catalog.templates),
    ];
    for (capability, method, key, into) in lists {
        if capabilities.get(capability).is_none() {
            continue;
        }
        let mut cursor: Option<Value> = None;
        // A bounded number of pages: a server that pages forever still gets fuzzed.
        for _ in 0..20 {
            let params = match &cursor {
                Some(c) => json!({"cursor": c}),
                None => json!({}),
            };
            let Some(page) = driver.call(method, params).await else { break };
            if let Some(Value::Array(items)) = page.get(key) {
                into.extend(items.iter().cloned());
            }
            cursor = page.get("nextCursor").filter(|c| c.is_string()).cloned();
            if cursor.is_none() {
                break;
            }
        }
    }
    let reached = driver.take_coverage().await;
    driver.stop().await;
    Ok((catalog, reached))
}

/// Everything the workers share.
struct Shared {
    config: CampaignConfig,
    generator: Generator,
    /// What mutations draw on: the corpus read at the start, and in a guided campaign every
    /// input that reached new code since (shared whole, replaced when one joins).
    corpus: RwLock<Arc<Vec<Input>>>,
    corpus_loaded: usize,
    coverage: Option<Arc<Mutex<CoverageLog>>>,
    next_slot: AtomicU64,
    inputs: AtomicU64,
    windows: AtomicU64,
    starts: AtomicU64,
    stop: Arc<AtomicBool>,
    started: Instant,
    findings: Mutex<Findings>,
    shapes: Mutex<HashSet<String>>,
    corpus_added: AtomicU64,
    slowest: Mutex<Vec<(Duration, String)>>,
}

#[derive(Default)]
struct Findings {
    by_id: BTreeMap<String, Finding>,
    /// Signatures seen before minimization, to the finding they turned out to be.
    aliases: HashMap<Signature, String>,
    /// Oracle and stderr frame, for findings that have a frame, to the finding.
    by_frame: HashMap<(Oracle, String), String>,
}

/// Runs a campaign until its limit, or until `stop` is set (Ctrl-C: what was found is kept).
pub async fn run(mut config: CampaignConfig, stop: Arc<AtomicBool>) -> Result<CampaignResult, StartError> {
    let started = Instant::now();
    let (catalog, baseline) = discover_reached(&config.driver).await?;
    let coverage = config.driver.coverage.as_ref().map(|c| c.log.clone());
    if let (Some(log), Some(reached)) = (&coverage, &baseline) {
        log.lock().expect("coverage").absorb(started.elapsed(), reached);
    }
    if let Some(agreed) = catalog.revision.filter(|r| *r != config.driver.revision) {
        eprintln!("mcpspec fuzz: the server negotiated {agreed}; fuzzing at {agreed}");
        config.driver = Arc::new(DriverConfig { revision: agreed, ..(*config.driver).clone() });
    }
    let corpus = match &config.corpus_dir {
        Some(dir) => load_corpus(dir),
        None => Vec::new(),
    };
    let generator = Generator::new(catalog.clone(), mcpspec_schema::SchemaSet::shared_builtin())
        .with_destructive(config.destructive)
        .with_http(config.driver.target.transport() != "stdio");
    let jobs = config.jobs.max(1);
    let shared = Arc::new(Shared {
        generator,
        corpus_loaded: corpus.len(),
        corpus: RwLock::new(Arc::new(corpus)),
        coverage,
        next_slot: AtomicU64::new(0),
        inputs: AtomicU64::new(0),
        windows: AtomicU64::new(0),
        starts: AtomicU64::new(1),
        stop,
        started,
        findings: Mutex::new(Findings::default()),
        shapes: Mutex::new(HashSet::new()),
        corpus_added: AtomicU64::new(0),
        slowest: Mutex::new(Vec::new()),
        config,
    });
    let progress = shared.config.progress.then(|| tokio::spawn(progress(shared.clone())));
    let mut workers = Vec::new();
    for _ in 0..jobs {
        workers.push(tokio::spawn(worker(shared.clone())));
    }
    let mut first_error = None;
    for w in workers {
        match w.await {
            Ok(Ok(())) => {}
            Ok(Err(e)) => first_error = first_error.or(Some(e)),
            Err(e) => first_error = first_error.or(Some(StartError::Spawn(format!("a worker failed: {e}")))),
        }
    }
    if let Some(p) = progress {
        p.abort();
        eprintln!();
    }
    let inputs = shared.inputs.load(Ordering::Relaxed);
    match (first_error, inputs) {
        (Some(e), 0) => return Err(e),
        // What ran is reported; that the campaign ended before its limit is said.
        (Some(e), _) => eprintln!("mcpspec fuzz: a worker stopped before the campaign's end: {e}"),
        (None, _) => {}
    }
    let findings: Vec<Finding> = shared.findings.lock().expect("findings").by_id.values().cloned().collect();
    let mut slowest = shared.slowest.lock().expect("slowest").clone();
    slowest.sort_by_key(|entry| std::cmp::Reverse(entry.0));
    let oracles = Oracle::ALL
        .iter()
        .copied()
        .filter(|o| *o != Oracle::SchemaInvalid || shared.config.driver.schemas.is_some())
        .filter(|o| o.watches(shared.config.driver.target.transport()))
        .collect();
    Ok(CampaignResult {
        catalog,
        inputs,
        windows: shared.windows.load(Ordering::Relaxed),
        starts: shared.starts.load(Ordering::Relaxed),
        elapsed: started.elapsed(),
        findings,
        slowest,
        interrupted: shared.stop.load(Ordering::Relaxed),
        corpus_loaded: shared.corpus_loaded,
        corpus_added: shared.corpus_added.load(Ordering::Relaxed) as usize,
        oracles,
    })
}

impl Shared {
    fn enough_findings(&self) -> bool {
        self.config.max_findings.is_some_and(|max| {
            self.findings
                .lock()
                .map(|f| f.by_id.values().filter(|f| f.proven()).count() >= max)
                .unwrap_or(true)
        })
    }

    /// The next window's input indices, or none when the campaign is over.
    fn claim(&self) -> Vec<u64> {
        if self.stop.load(Ordering::Relaxed) || self.enough_findings() {
            return Vec::new();
        }
        let window = self.config.window.max(1) as u64;
        let first = self.next_slot.fetch_add(window, Ordering::Relaxed);
        let last = match self.config.limit {
            Limit::Runs(runs) => (first + window).min(runs),
            Limit::Duration(d) if self.started.elapsed() >= d => return Vec::new(),
            Limit::Duration(_) => first + window,
        };
        let shard = self.config.shard;
        (first..last).map(|slot| shard.index_of(slot)).collect()
    }
}

async fn worker(shared: Arc<Shared>) -> Result<(), StartError> {
    let mut main = Driver::new(shared.config.driver.clone());
    let mut alone = Driver::new(shared.config.driver.clone());
    let result = work(&shared, &mut main, &mut alone).await;
    shared.starts.fetch_add(main.starts() + alone.starts(), Ordering::Relaxed);
    main.stop().await;
    alone.stop().await;
    result
}

async fn work(shared: &Shared, main: &mut Driver, alone: &mut Driver) -> Result<(), StartError> {
    // The window before: a late answer (a slow tool, a request held past its barrier) trips
    // the window after the one that caused it.
    let mut previous: Vec<(u64, Input)> = Vec::new();
    loop {
        let indices = shared.claim();
        if indices.is_empty() {
            return Ok(());
        }
        let corpus = shared.corpus.read().expect("corpus").clone();
        let inputs: Vec<(u64, Input)> =
            indices.iter().map(|&i| (i, shared.generator.input(shared.config.seed, i, &corpus))).collect();
        let (fresh, pipelined): (Vec<_>, Vec<_>) = inputs.iter().partition(|(_, input)| input.fresh);
        if !pipelined.is_empty() {
            let refs: Vec<&Input> = pipelined.iter().map(|(_, input)| input).collect();
            let outcome = match main.run(&refs).await {
                Ok(outcome) => outcome,
                // A start that failed (a server slow to start on a loaded machine) is tried
                // once more before the worker gives up.
                Err(_) => main.run(&refs).await?,
            };
            shared.windows.fetch_add(1, Ordering::Relaxed);
            note_slow(shared, &outcome, &refs[0].label);
            let shapes = main.take_shapes();
            let window: Vec<(u64, Input)> = pipelined.iter().map(|&entry| entry.clone()).collect();
            let reached_new_code = match &shared.coverage {
                Some(_) => new_code(shared, main.take_coverage().await),
                None => false,
            };
            if outcome.trips.is_empty() {
                keep_novel(shared, &refs, shapes);
                if reached_new_code {
                    keep_reaching(shared, &refs);
                }
            } else {
                investigate(shared, alone, &window, &previous, &outcome).await;
            }
            previous = window;
        }
        for &&(index, ref input) in &fresh {
            let outcome = alone.run_alone(input).await?;
            if !outcome.trips.is_empty() {
                investigate(shared, alone, &[(index, input.clone())], &[], &outcome).await;
            }
        }
        shared.inputs.fetch_add(indices.len() as u64, Ordering::Relaxed);
    }
}

fn note_slow(shared: &Shared, outcome: &Outcome, label: &str) {
    const KEEP: usize = 5;
    let mut slowest = shared.slowest.lock().expect("slowest");
    if slowest.len() < KEEP || slowest.iter().any(|(d, _)| *d < outcome.elapsed) {
        slowest.push((outcome.elapsed, label.to_owned()));
        slowest.sort_by_key(|entry| std::cmp::Reverse(entry.0));
        slowest.truncate(KEEP);
    }
}

/// Adds to the corpus the inputs that brought back a response shape never seen before.
fn keep_novel(shared: &Shared, inputs: &[&Input], mut shapes: Vec<(usize, String)>) {
    const MAX_ADDED: u64 = 1000;
    const MAX_BYTES: usize = 64 * 1024;
    let Some(dir) = &shared.config.corpus_dir else { return };
    // Answers arrive in the order the server finishes them: a new shape is credited to the first
    // input of the window that brought it back, so that a seed keeps the same corpus.
    shapes.sort();
    let mut seen = shared.shapes.lock().expect("shapes");
    let mut kept = HashSet::new();
    for (place, shape) in shapes {
        if seen.insert(shape) && kept.insert(place) {
            let Some(input) = inputs.get(place) else { continue };
            if input.len_bytes() > MAX_BYTES || shared.corpus_added.load(Ordering::Relaxed) >= MAX_ADDED {
                continue;
            }
            if write_input(dir, input).unwrap_or(false) {
                shared.corpus_added.fetch_add(1, Ordering::Relaxed);
            }
        }
    }
}

/// Whether a window's process reached code no process of the campaign had (counted either
/// way: a campaign that is not guided measures the same).
fn new_code(shared: &Shared, reached: Option<Reached>) -> bool {
    let (Some(log), Some(reached)) = (&shared.coverage, reached) else { return false };
    log.lock().expect("coverage").absorb(shared.started.elapsed(), &reached) > 0
}

/// A guided campaign's inputs that reached new code: into the corpus later inputs mutate, and
/// the corpus folder. With `--coverage` a window is one input, so the code is that input's.
fn keep_reaching(shared: &Shared, inputs: &[&Input]) {
    const MAX_KEPT: usize = 1000;
    const MAX_BYTES: usize = 64 * 1024;
    let Some(log) = &shared.coverage else { return };
    if !log.lock().expect("coverage").guided {
        return;
    }
    let mut corpus = shared.corpus.write().expect("corpus");
    let mut grown: Vec<Input> = corpus.as_ref().clone();
    for input in inputs.iter().filter(|i| i.len_bytes() <= MAX_BYTES) {
        if grown.len() >= shared.corpus_loaded + MAX_KEPT {
            break;
        }
        grown.push((*input).clone());
        log.lock().expect("coverage").kept += 1;
        if let Some(dir) = &shared.config.corpus_dir {
            if write_input(dir, input).unwrap_or(false) {
                shared.corpus_added.fetch_add(1, Ordering::Relaxed);
            }
        }
    }
    *corpus = Arc::new(grown);
}

/// A window tripped: find the input, reproduce it, name it, minimize it once.
async fn investigate(
    shared: &Shared,
    alone: &mut Driver,
    window: &[(u64, Input)],
    previous: &[(u64, Input)],
    outcome: &Outcome,
) {
    let Some(primary) = outcome.primary().cloned() else { return };
    // A bug already known costs a count, not an investigation.
    let seen_as = signature_of(&primary, &outcome.stderr);
    {
        let mut findings = shared.findings.lock().expect("findings");
        // Within a window, the request a crash or a stderr report is charged to is a guess;
        // its stderr frame, when it has one, is not.
        let by_frame = (!seen_as.frame.is_empty())
            .then(|| findings.by_frame.get(&(seen_as.oracle, seen_as.frame.clone())).cloned())
            .flatten();
        if let Some(id) = findings.aliases.get(&seen_as).cloned().or(by_frame) {
            if let Some(f) = findings.by_id.get_mut(&id) {
                f.hits += 1;
            }
            return;
        }
    }
    let first_frame = top_frame(&outcome.stderr);
    let target = Target { oracle: primary.oracle, method: primary.method.clone(), frame: first_frame };
    // The inputs in the order they were written: the window before, then this one.
    let candidates: Vec<&(u64, Input)> = previous.iter().chain(window).collect();
    let culprit = bisect(shared, alone, &target, &candidates).await;
    let (index, input, reproduced_outcome, reproduced) = match culprit {
        Some((index, input, o)) => (index, input, o, true),
        None => {
            let together = Input {
                label: format!(
                    "window of {} inputs from {} (did not trip again on a fresh process)",
                    window.len(),
                    window[0].1.label
                ),
                writes: window.iter().flat_map(|entry| entry.1.writes.iter().cloned()).collect(),
                fresh: window[0].1.fresh,
                http: window.iter().find_map(|entry| entry.1.http.clone()),
            };
            (window[0].0, together, outcome.clone(), false)
        }
    };
    let trip =
        reproduced_outcome.trips.iter().find(|t| t.oracle == target.oracle).cloned().unwrap_or(primary);
    let signature = signature_of(&trip, &reproduced_outcome.stderr);
    {
        let mut findings = shared.findings.lock().expect("findings");
        let known = findings.aliases.get(&signature).cloned();
        if let Some(id) = known {
            if let Some(f) = findings.by_id.get_mut(&id) {
                f.hits += 1;
            }
            return;
        }
    }
    let (minimized, probes, final_outcome) = if reproduced {
        let same = Target::of(&trip, &reproduced_outcome);
        let mut probe = SameFailure { driver: alone, target: same.clone(), stop: &shared.stop, probes: 0 };
        let minimized = minimize::minimize(input.clone(), &mut probe, shared.config.minimize).await;
        let probes = probe.probes;
        // The minimized input, run once more: its stderr and its trip are the finding's. Should
        // it not trip (a probe slowed past the hang barrier on a loaded machine passes for the
        // bug, and minimizing may have kept such a one), the input that tripped twice stays
        // the reproducer.
        let (mut kept, last) = match alone.run_alone(&minimized).await {
            Ok(o) if same.matches(&o) => (minimized, o),
            _ => (input, reproduced_outcome.clone()),
        };
        // The driver ends an unterminated last line before its barrier: written into the
        // reproducer, the same bytes read as the message they are.
        if let Some(last) = kept.writes.last_mut().filter(|w| !w.ends_with(b"\n")) {
            last.push(b'\n');
        }
        (kept, probes, last)
    } else {
        (input, 0, reproduced_outcome)
    };
    let final_trip = final_outcome.trips.iter().find(|t| t.oracle == target.oracle).cloned().unwrap_or(trip);
    let final_signature = signature_of(&final_trip, &final_outcome.stderr);
    let id = final_signature.id();
    let finding = Finding {
        id: id.clone(),
        signature: final_signature.clone(),
        detail: final_trip.detail.clone(),
        hits: 1,
        reproducer: minimized,
        reproduced,
        stderr: final_outcome.stderr.clone(),
        message: final_trip.message.clone(),
        found_after: shared.started.elapsed(),
        input_index: index,
        probes,
    };
    let mut findings = shared.findings.lock().expect("findings");
    findings.aliases.insert(seen_as, id.clone());
    findings.aliases.insert(signature, id.clone());
    if !final_signature.frame.is_empty() {
        findings.by_frame.insert((final_signature.oracle, final_signature.frame.clone()), id.clone());
    }
    findings.aliases.insert(final_signature, id.clone());
    if let Some(f) = findings.by_id.get_mut(&id) {
        f.hits += 1;
        return;
    }
    if let Some(dir) = &shared.config.findings_dir {
        if let Err(e) = write_reproducer(dir, &finding, shared.config.driver.as_ref(), shared.config.seed) {
            eprintln!("mcpspec fuzz: could not write the reproducer of {id}: {e}");
        }
    }
    findings.by_id.insert(id, finding);
}

/// The inputs together, as one input (in their order).
fn joined(entries: &[&(u64, Input)]) -> Input {
    let first = &entries[0].1;
    let label = match entries.len() {
        1 => first.label.clone(),
        n => format!("{n} inputs from {}", first.label),
    };
    Input {
        label,
        writes: entries.iter().flat_map(|e| e.1.writes.iter().cloned()).collect(),
        fresh: first.fresh,
        // One shape for all: over HTTP, inputs bent differently join as the first bent one's.
        // A join is only ever kept when it still trips (a probe runs it), so this can lose a
        // reproducer, never make a wrong one.
        http: entries.iter().find_map(|e| e.1.http.clone()),
    }
}

/// The smallest run of `candidates` that trips `target` on a fresh process: all of them first
/// (if they do not, nothing will), then halves while one half does alone. A few probes where
/// trying each input costs one each, and a probe may cost a process start of a second. When
/// neither half trips alone, the bug needs inputs from both: that run is the culprit.
async fn bisect(
    shared: &Shared,
    alone: &mut Driver,
    target: &Target,
    candidates: &[&(u64, Input)],
) -> Option<(u64, Input, Outcome)> {
    let trips = |o: &Result<Outcome, StartError>| o.as_ref().is_ok_and(|o| target.matches(o));
    let mut run: &[&(u64, Input)] = candidates;
    if run.is_empty() {
        return None;
    }
    // Over HTTP, inputs bent differently do not join (one shape covers a joined input): those
    // that carry a shape of their own are tried alone first, newest first, a bounded few.
    let shapes: std::collections::HashSet<_> = run.iter().map(|entry| &entry.1.http).collect();
    if shapes.len() > 1 {
        const SHAPED_PROBES: usize = 16;
        for entry in run.iter().rev().filter(|entry| entry.1.http.is_some()).take(SHAPED_PROBES) {
            if shared.stop.load(Ordering::Relaxed) {
                break;
            }
            let outcome = alone.run_alone(&entry.1).await;
            if trips(&outcome) {
                return Some((entry.0, entry.1.clone(), outcome.expect("tripped")));
            }
        }
    }
    let whole = joined(run);
    let mut found = match alone.run_alone(&whole).await {
        Ok(o) if target.matches(&o) => (run[0].0, whole, o),
        _ => return None,
    };
    while run.len() > 1 && !shared.stop.load(Ordering::Relaxed) {
        let (left, right) = run.split_at(run.len() / 2);
        let mut narrowed = false;
        for half in [left, right] {
            let input = joined(half);
            let outcome = alone.run_alone(&input).await;
            if trips(&outcome) {
                found = (half[0].0, input, outcome.expect("tripped"));
                run = half;
                narrowed = true;
                break;
            }
        }
        if !narrowed {
            break;
        }
    }
    Some(found)
}

/// What a probe must trip to be "the same failure".
#[derive(Debug, Clone)]
pub(super) struct Target {
    pub(super) oracle: Oracle,
    pub(super) method: Option<String>,
    pub(super) frame: String,
}

impl Target {
    pub(super) fn of(trip: &Trip, outcome: &Outcome) -> Target {
        Target { oracle: trip.oracle, method: trip.method.clone(), frame: top_frame(&outcome.stderr) }
    }

    /// The same oracle, with the same stderr frame when there was one; for oracles that judge
    /// a message, on the same method.
    pub(super) fn matches(&self, outcome: &Outcome) -> bool {
        let judges_a_message = !matches!(self.oracle, Oracle::Crash | Oracle::Hang | Oracle::StderrPanic);
        outcome.trips.iter().any(|t| {
            t.oracle == self.oracle
                && (!judges_a_message || t.method == self.method)
                && (self.frame.is_empty() || top_frame(&outcome.stderr) == self.frame)
        })
    }
}

struct SameFailure<'a> {
    driver: &'a mut Driver,
    target: Target,
    /// Ctrl-C: minimization ends with what it has.
    stop: &'a AtomicBool,
    probes: usize,
}

impl Probe for SameFailure<'_> {
    async fn still_fails(&mut self, candidate: &Input) -> bool {
        if self.stop.load(Ordering::Relaxed) {
            return false;
        }
        self.probes += 1;
        match self.driver.run_alone(candidate).await {
            Ok(outcome) => self.target.matches(&outcome),
            Err(_) => false,
        }
    }
}

/// The signature method of a trip that names no request.
const NO_REQUEST: &str = "(no request)";

pub(super) fn signature_of(trip: &Trip, stderr: &str) -> Signature {
    let method = trip.method.clone().unwrap_or_else(|| NO_REQUEST.to_owned());
    let frame = match trip.oracle {
        Oracle::Crash | Oracle::Hang | Oracle::StderrPanic | Oracle::Reset | Oracle::ServerError => {
            top_frame(stderr)
        }
        _ => String::new(),
    };
    Signature { oracle: trip.oracle, method, frame }
}

async fn progress(shared: Arc<Shared>) {
    let mut last = (Instant::now(), 0u64);
    loop {
        tokio::time::sleep(Duration::from_secs(1)).await;
        let inputs = shared.inputs.load(Ordering::Relaxed);
        let now = Instant::now();
        let rate = (inputs - last.1) as f64 / now.duration_since(last.0).as_secs_f64();
        last = (now, inputs);
        let findings = shared.findings.lock().map(|f| f.by_id.len()).unwrap_or(0);
        eprint!(
            "\r\x1b[2K{inputs} inputs · {rate:.0}/s · {findings} finding{} · {:.0} s",
            if findings == 1 { "" } else { "s" },
            shared.started.elapsed().as_secs_f64()
        );
    }
}

fn load_corpus(dir: &Path) -> Vec<Input> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut paths: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    // Sorted, so a campaign's inputs depend on the corpus's content, not on the directory's order.
    paths.sort();
    paths
        .iter()
        .filter_map(|p| std::fs::read(p).ok())
        .filter_map(|bytes| serde_json::from_slice::<InputFile>(&bytes).ok())
        .filter_map(|file| Input::try_from(&file).ok())
        .collect()
}

/// Writes an input into the corpus folder under the digest of its file; whether it is new there
/// (an input kept for its shape and for its code is one file, counted once).
fn write_input(dir: &Path, input: &Input) -> std::io::Result<bool> {
    let file = InputFile::from(input);
    let text = serde_json::to_vec_pretty(&file).map_err(std::io::Error::other)?;
    let digest = ring::digest::digest(&ring::digest::SHA256, &text);
    let name: String = digest.as_ref()[..8].iter().map(|b| format!("{b:02x}")).collect();
    let path = dir.join(format!("{name}.json"));
    if path.exists() {
        return Ok(false);
    }
    write_atomically(&path, &text, Access::Private)?;
    Ok(true)
}

/// The reproducer file of a finding: readable, and what `mcpspec replay` runs.
pub fn reproducer_json(finding: &Finding, driver: &DriverConfig, seed: u64) -> Value {
    let rule = super::rule_of(finding.signature.oracle, driver.revision);
    json!({
        "mcpspec": {"name": "mcpspec", "version": env!("CARGO_PKG_VERSION")},
        "finding": finding.id,
        "oracle": finding.signature.oracle,
        "method": finding.signature.method,
        "frame": finding.signature.frame,
        "rule": rule.id,
        "level": rule.level_at(driver.revision),
        "spec": rule.spec(driver.revision),
        "detail": finding.detail,
        "revision": driver.revision.as_str(),
        "reproduced": finding.reproduced,
        "seed": seed,
        "input_index": finding.input_index,
        "role": driver.role.name(),
        "command": driver.target.display(),
        "transport": driver.target.transport(),
        "url": driver.target.url(),
        "input": InputFile::from(&finding.reproducer),
        "message": finding.message,
        "stderr": finding.stderr,
    })
}

pub(super) fn write_reproducer(
    dir: &Path,
    finding: &Finding,
    driver: &DriverConfig,
    seed: u64,
) -> std::io::Result<PathBuf> {
    let path = dir.join(format!("{}.json", finding.id));
    let mut text =
        serde_json::to_vec_pretty(&reproducer_json(finding, driver, seed)).map_err(std::io::Error::other)?;
    text.push(b'\n');
    write_atomically(&path, &text, Access::Private)?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_parse_and_reject_what_is_no_shard() {
        assert_eq!("1/4".parse::<Shard>(), Ok(Shard { index: 1, count: 4 }));
        for bad in ["4/4", "0/0", "1", "a/2", "-1/2"] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
    }

    /// The shards of a campaign together run every index once.
    #[test]
    fn shards_split_the_indices_without_overlap() {
        let mut all = Vec::new();
        for index in 0..3 {
            let shard = Shard { index, count: 3 };
            let claimed: Vec<u64> = (0..4u64).map(|slot| shard.index_of(slot)).collect();
            all.extend(claimed);
        }
        all.sort_unstable();
        assert_eq!(all, (0..12).collect::<Vec<u64>>());
    }
}
