//! Baselines: the failures an implementation is known to have, so that a CI job can gate on
//! regressions (`--expected-failures FILE`). The file is the official conformance suite's YAML
//! (`server:` and `client:` lists of `scenario` or `scenario:check-id`; mcpspec's own
//! `authorization-server:` list for `mcpspec authorization`), read unchanged; an entry
//! may also be a mapping that narrows it to a revision or a transport and says why:
//!
//! ```yaml
//! server:
//!   - lifecycle/initialize-result                  # every failure of the scenario
//!   - "sweep/tools:schema/message-valid"           # one check of it (all outline examples)
//!   - "*:http/event-id-unique"                     # a wire rule, in whichever scenario it breaks
//!   - id: jsonrpc/batch-answered
//!     revision: 2025-03-26                         # only at this revision
//!     transport: stdio                             # only over this transport
//!     clause: docs/specification/2025-03-26/basic/index.mdx
//!     reason: the SDK does not read JSON-RPC batches
//!   - id: "*:http/no-response-on-get"
//!     intermittent: true                           # a race: it fails in some runs only
//!     reason: now and then a response comes on the GET stream
//! ```
//!
//! A listed failure is expected (the run passes); an unlisted one fails; an entry whose
//! scenario ran and passed is stale and fails, so a fix is noticed and the entry removed. An
//! entry that matched nothing that ran (a revision not spoken, a scenario not selected) is
//! reported as unexercised, and so is an `intermittent` entry that did not fail this time (a
//! defect that shows in some runs only, a race, would otherwise make every other run stale).
//! The baseline never changes a certification verdict: a known failure is still a failure of
//! the spec.

use crate::judge::verdict::Verdict;
use crate::report::{BaselineMark, BaselineStatus, ScenarioReport};
use mcpspec_protocol::Revision;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Why a baseline file cannot be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BaselineError {
    /// The file could not be read.
    #[error("cannot read the baseline {path}: {source}")]
    Read { path: PathBuf, source: std::io::Error },
    /// The file is not YAML of the expected shape.
    #[error("the baseline {path} is not a baseline (`server:` and `client:` lists): {source}")]
    Parse { path: PathBuf, source: yaml_serde::Error },
    /// An entry names no scenario, or an unknown revision or transport.
    #[error("the baseline {path}, {role} entry {index}: {why}")]
    Entry { path: PathBuf, role: &'static str, index: usize, why: String },
}

/// The file as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    server: Vec<Written>,
    #[serde(default)]
    client: Vec<Written>,
    /// `mcpspec authorization`'s known failures.
    #[serde(default, rename = "authorization-server")]
    authorization_server: Vec<Written>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum Written {
    /// The official suite's form: `scenario` or `scenario:check-id`.
    Text(String),
    Full(FullEntry),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FullEntry {
    id: String,
    revision: Option<String>,
    transport: Option<String>,
    /// Where the rule is: documentation for the reader, not used for matching.
    #[allow(dead_code)]
    clause: Option<String>,
    #[allow(dead_code)]
    reason: Option<String>,
    /// The defect shows in some runs only: never stale.
    #[serde(default)]
    intermittent: bool,
}

/// One known failure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The entry as the file words it, for reports.
    pub text: String,
    /// A scenario id; an id without an outline's `[values]` covers every example.
    pub scenario: String,
    /// One check id of the scenario, or every check.
    pub check: Option<String>,
    pub revision: Option<Revision>,
    pub transport: Option<String>,
    /// Fails in some runs only (a race): when it does not fail, it is unexercised, not stale.
    pub intermittent: bool,
}

impl Entry {
    fn parse(written: Written) -> Result<Entry, String> {
        let (id, revision, transport, intermittent) = match written {
            Written::Text(id) => (id, None, None, false),
            Written::Full(full) => (full.id, full.revision, full.transport, full.intermittent),
        };
        let id = id.trim().to_owned();
        let (scenario, check) = split_check(&id);
        if scenario.is_empty() {
            return Err(format!("{id:?} names no scenario"));
        }
        // A wire rule (`http/…`, `schema/…`) is judged on every message of every scenario, so a
        // defect of one breaks it wherever it is met: `*` names every scenario, for one check
        // only (a bare `*` would list every failure there can be).
        if scenario == EVERY_SCENARIO && check.is_none() {
            return Err(format!("{id:?} names every scenario: name the check too (`*:check-id`)"));
        }
        let revision = revision.map(|r| r.parse::<Revision>().map_err(|e| e.to_string())).transpose()?;
        if let Some(t) = &transport {
            if !["stdio", "http", "sse"].contains(&t.as_str()) {
                return Err(format!("transport {t:?} is not stdio, http or sse"));
            }
        }
        let mut text = id.clone();
        for narrowed in [revision.map(|r| r.to_string()), transport.clone()].into_iter().flatten() {
            text = format!("{text} @{narrowed}");
        }
        Ok(Entry {
            text,
            scenario: scenario.to_owned(),
            check: check.map(str::to_owned),
            revision,
            transport,
            intermittent,
        })
    }

    /// Whether the entry names this scenario run.
    fn names(&self, s: &ScenarioReport) -> bool {
        self.names_id(&s.id, &s.revision, s.transport)
    }

    /// Whether the entry names the scenario `id` run at `revision` over `transport`.
    fn names_id(&self, id: &str, revision: &str, transport: &str) -> bool {
        let rest = id.strip_prefix(self.scenario.as_str());
        (self.scenario == EVERY_SCENARIO || rest.is_some_and(|rest| rest.is_empty() || rest.starts_with('[')))
            && self.revision.is_none_or(|r| r.as_str() == revision)
            && self.transport.as_deref().is_none_or(|t| t == transport)
    }

    /// Whether the entry covers the check `check_id` of a scenario it names.
    fn covers(&self, check_id: &str) -> bool {
        self.check.as_deref().is_none_or(|c| c == check_id)
    }
}

/// The scenario part of an entry that names every scenario (`*:check-id`).
const EVERY_SCENARIO: &str = "*";

/// `scenario:check-id` → (`scenario`, `check-id`); a `:` inside an outline's `[values]` is
/// part of the scenario id.
fn split_check(id: &str) -> (&str, Option<&str>) {
    let mut depth = 0usize;
    for (i, c) in id.char_indices() {
        match c {
            '[' => depth += 1,
            ']' => depth = depth.saturating_sub(1),
            ':' if depth == 0 => return (&id[..i], Some(&id[i + 1..]).filter(|c| !c.is_empty())),
            _ => {}
        }
    }
    (id, None)
}

/// A baseline file, read.
#[derive(Debug, Clone)]
pub struct Baseline {
    pub path: PathBuf,
    /// The SHA-256 of the file's text, hex: shards of one run must have read the same file
    /// (`mcpspec merge` reads it again, and checks it is still that file).
    pub sha256: String,
    pub server: Vec<Entry>,
    pub client: Vec<Entry>,
    pub authorization_server: Vec<Entry>,
}

/// What came of a baseline's entries in a run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Outcome {
    pub file: String,
    pub strict: bool,
    /// Entries for the role certified.
    pub entries: usize,
    /// Entries that matched a failure.
    pub expected: Vec<String>,
    /// Entries whose scenarios ran and passed: they fail the run until removed.
    pub stale: Vec<String>,
    /// Entries that matched nothing that ran.
    pub unexercised: Vec<String>,
}

impl Baseline {
    pub fn load(path: &Path) -> Result<Baseline, BaselineError> {
        let text = std::fs::read_to_string(path)
            .map_err(|source| BaselineError::Read { path: path.to_owned(), source })?;
        Baseline::parse(path, &text)
    }

    /// Reads a baseline's text (`path` names it in errors and reports).
    pub fn parse(path: &Path, text: &str) -> Result<Baseline, BaselineError> {
        // An empty file (or one holding only comments) lists nothing.
        let file: File = match yaml_serde::from_str::<Option<File>>(text) {
            Ok(file) => file.unwrap_or(File {
                server: Vec::new(),
                client: Vec::new(),
                authorization_server: Vec::new(),
            }),
            Err(source) => return Err(BaselineError::Parse { path: path.to_owned(), source }),
        };
        let entries = |role: &'static str, written: Vec<Written>| {
            written
                .into_iter()
                .enumerate()
                .map(|(i, w)| {
                    Entry::parse(w).map_err(|why| BaselineError::Entry {
                        path: path.to_owned(),
                        role,
                        index: i + 1,
                        why,
                    })
                })
                .collect::<Result<Vec<_>, _>>()
        };
        let sha256 = ring::digest::digest(&ring::digest::SHA256, text.as_bytes())
            .as_ref()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        Ok(Baseline {
            path: path.to_owned(),
            sha256,
            server: entries("server", file.server)?,
            client: entries("client", file.client)?,
            authorization_server: entries("authorization-server", file.authorization_server)?,
        })
    }

    /// Judges a run's scenarios by the baseline of `role`: a scenario whose every broken check
    /// is listed becomes an expected failure; listed checks are marked; a scenario named by an
    /// entry that matched no failure, and that passed, fails as stale. `strict`: warnings fail
    /// (they have already been turned into failures).
    pub fn apply(&self, role: &str, scenarios: &mut [ScenarioReport], strict: bool) -> Outcome {
        self.judge(role, scenarios, strict, true)
    }

    /// [`Baseline::apply`] for one shard of a run (`--shard`): no entry is judged stale, for
    /// one that matched no failure here may match one in another shard. Such entries are
    /// listed as unexercised; `mcpspec merge` judges them over every shard's scenarios.
    pub fn apply_in_shard(&self, role: &str, scenarios: &mut [ScenarioReport], strict: bool) -> Outcome {
        self.judge(role, scenarios, strict, false)
    }

    /// Judges by the baseline; `stale`: whether entries that matched no failure but named a
    /// scenario that ran are stale (a whole run) or undecided (a shard).
    fn judge(&self, role: &str, scenarios: &mut [ScenarioReport], strict: bool, stale: bool) -> Outcome {
        let entries = match role {
            "client" => &self.client,
            "authorization-server" => &self.authorization_server,
            _ => &self.server,
        };
        let mut used = vec![false; entries.len()];
        for s in scenarios.iter_mut().filter(|s| matches!(s.verdict, Verdict::Failed | Verdict::Warning)) {
            let mut matched: Vec<String> = Vec::new();
            for check in s.checks.iter_mut().filter(|c| c.broken()) {
                for (i, e) in entries.iter().enumerate() {
                    if e.names_id(&s.id, &s.revision, s.transport) && e.covers(&check.id) {
                        check.baselined = true;
                        used[i] = true;
                        if !matched.contains(&e.text) {
                            matched.push(e.text.clone());
                        }
                    }
                }
            }
            if matched.is_empty() {
                continue;
            }
            // What the listed checks leave: the scenario's verdict is that of the others.
            let rest = s
                .checks
                .iter()
                .filter(|c| c.broken() && !c.baselined)
                .map(|c| if strict && c.verdict == Verdict::Warning { Verdict::Failed } else { c.verdict })
                .max();
            s.verdict = rest.unwrap_or(Verdict::ExpectedFailure);
            s.baseline = Some(BaselineMark { status: BaselineStatus::Expected, entries: matched });
        }
        let mut outcome = Outcome {
            file: self.path.display().to_string(),
            strict,
            entries: entries.len(),
            expected: Vec::new(),
            stale: Vec::new(),
            unexercised: Vec::new(),
        };
        for (entry, used) in entries.iter().zip(used) {
            if used {
                outcome.expected.push(entry.text.clone());
                continue;
            }
            let mut ran = scenarios.iter_mut().filter(|s| s.ran() && entry.names(s)).peekable();
            if ran.peek().is_none() || entry.intermittent || !stale {
                outcome.unexercised.push(entry.text.clone());
                continue;
            }
            outcome.stale.push(entry.text.clone());
            if entry.scenario == EVERY_SCENARIO {
                // The rule held in every scenario: the stale entry fails the run (the summary
                // counts it) without marking each scenario that ran.
                continue;
            }
            for s in ran {
                if matches!(s.verdict, Verdict::Passed | Verdict::ExpectedFailure) {
                    s.verdict = Verdict::Failed;
                    s.reason = Some(format!(
                        "stale baseline entry {:?}: listed as failing, it no longer fails (remove it from {})",
                        entry.text,
                        self.path.display()
                    ));
                }
                match &mut s.baseline {
                    Some(mark) if mark.status == BaselineStatus::Stale => {
                        mark.entries.push(entry.text.clone())
                    }
                    _ => {
                        s.baseline = Some(BaselineMark {
                            status: BaselineStatus::Stale,
                            entries: vec![entry.text.clone()],
                        })
                    }
                }
            }
        }
        outcome
    }
}

#[cfg(test)]
mod tests;
