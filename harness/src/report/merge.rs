//! `mcpspec merge`: the reports of a run's shards (`--shard I/N`, [`crate::report::shard`]) made
//! back into the run. Each shard's scenarios are taken back to what was judged on the wire (the
//! policy a shard applied, `--strict` and the baseline, undone: both act on each entry alone and
//! leave its checks as they were), so that [`crate::report::Report::new`] judges the whole as
//! one machine would have: the certification of each revision, the baseline's stale entries
//! (which no shard can tell alone) and the exit code. Shards of different runs are refused,
//! saying what differs and where.

use super::run::{RunInfo, ScenarioSet, STRICT_REASON};
use super::shard::{BaselineRef, Shard, ShardInfo};
use super::ScenarioReport;
use crate::judge::verdict::Verdict;
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// Why shards cannot be merged.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum MergeError {
    /// A report directory holds no readable `report.json`.
    #[error("cannot read {path}: {source} (give the directories the shards wrote with --report-dir)")]
    Read { path: PathBuf, source: std::io::Error },
    /// `report.json` is not a report this mcpspec can read.
    #[error("{path} is not an mcpspec report: {source}")]
    Parse { path: PathBuf, source: serde_json::Error },
    /// A report of a whole run, not of a shard.
    #[error(
        "{path} is the report of a whole run, not of a shard: only the reports of `--shard I/N` runs merge"
    )]
    NotAShard { path: PathBuf },
    /// Written by another version of mcpspec.
    #[error("{path} was written by mcpspec {theirs}, this is mcpspec {ours}: merge with the mcpspec that ran the shards")]
    Version { path: PathBuf, theirs: String, ours: &'static str },
    /// The shards are not of one run.
    #[error(
        "the shards are of different runs: {what}: {first} in {first_path}, but {other} in {other_path}"
    )]
    Differ { what: &'static str, first: String, first_path: PathBuf, other: String, other_path: PathBuf },
    /// A shard given twice.
    #[error("shard {shard} is given twice: {first} and {other}")]
    Twice { shard: String, first: PathBuf, other: PathBuf },
    /// A scenario run that is not the shard's (a report edited, or of another split).
    #[error("{path}: the scenario {id} at {revision} belongs to shard {belongs}/{count}, not to shard {index}/{count}")]
    Foreign { path: PathBuf, id: String, revision: String, belongs: usize, index: usize, count: usize },
    /// Shards missing from the run.
    #[error("shard(s) {missing} of {count} missing: give the report directory of every shard, 1 to {count}")]
    Missing { missing: String, count: usize },
    /// Nothing given.
    #[error("no report directory given: `mcpspec merge DIR... --report-dir OUT`")]
    Nothing,
}

/// What a shard's `report.json` holds that a merge needs. What a report derives from its
/// scenarios (certification, summary, the baseline's outcome) is judged again, not read.
#[derive(Deserialize)]
struct ShardReport {
    mcpspec: Tool,
    role: String,
    command: String,
    transport: String,
    started_at: String,
    revisions: Vec<String>,
    #[serde(default)]
    scenario_set: Option<ScenarioSet>,
    scenarios: Vec<ScenarioReport>,
    duration_ms: u64,
    #[serde(default)]
    not_tested: Option<String>,
    #[serde(default)]
    interrupted: Option<String>,
    #[serde(default)]
    shard: Option<ShardInfo>,
    #[serde(default)]
    cost: Option<super::Cost>,
}

#[derive(Deserialize)]
struct Tool {
    version: String,
}

/// The shards as one run: its facts, its scenarios as judged on the wire, and the policy to
/// judge them by (the caller reads the baseline again, and checks it is the same file).
pub struct Merged {
    pub info: RunInfo,
    pub scenarios: Vec<ScenarioReport>,
    pub strict: bool,
    pub baseline: Option<BaselineRef>,
    pub shards: usize,
}

/// Reads the `report.json` of each of `dirs` and merges them.
pub fn read(dirs: &[PathBuf]) -> Result<Merged, MergeError> {
    let mut shards = Vec::new();
    for dir in dirs {
        let path = dir.join("report.json");
        let text = std::fs::read_to_string(&path)
            .map_err(|source| MergeError::Read { path: path.clone(), source })?;
        let report: ShardReport =
            serde_json::from_str(&text).map_err(|source| MergeError::Parse { path: path.clone(), source })?;
        shards.push((path, report));
    }
    merge(shards)
}

fn merge(shards: Vec<(PathBuf, ShardReport)>) -> Result<Merged, MergeError> {
    let ours = env!("CARGO_PKG_VERSION");
    let Some((first_path, first)) = shards.first() else { return Err(MergeError::Nothing) };
    let mut infos: Vec<&ShardInfo> = Vec::new();
    for (path, report) in &shards {
        if report.mcpspec.version != ours {
            return Err(MergeError::Version {
                path: path.clone(),
                theirs: report.mcpspec.version.clone(),
                ours,
            });
        }
        let info = report.shard.as_ref().ok_or_else(|| MergeError::NotAShard { path: path.clone() })?;
        infos.push(info);
        let first_info =
            first.shard.as_ref().ok_or_else(|| MergeError::NotAShard { path: first_path.clone() })?;
        let differ = |what: &'static str, a: String, b: String| -> Result<(), MergeError> {
            match a == b {
                true => Ok(()),
                false => Err(MergeError::Differ {
                    what,
                    first: a,
                    first_path: first_path.clone(),
                    other: b,
                    other_path: path.clone(),
                }),
            }
        };
        differ("the role", first.role.clone(), report.role.clone())?;
        differ("the implementation", first.command.clone(), report.command.clone())?;
        differ("the transport", first.transport.clone(), report.transport.clone())?;
        differ("the revisions", first.revisions.join(", "), report.revisions.join(", "))?;
        let set = |s: &Option<ScenarioSet>| {
            s.as_ref().map_or("unknown".to_owned(), |s| format!("{} {:?}", s.source, s.selection))
        };
        differ("the scenario set and selection", set(&first.scenario_set), set(&report.scenario_set))?;
        differ("the number of shards", first_info.count.to_string(), info.count.to_string())?;
        differ("--strict", first_info.strict.to_string(), info.strict.to_string())?;
        let baseline = |b: &Option<BaselineRef>| {
            b.as_ref().map_or("none".to_owned(), |b| format!("{} (SHA-256 {})", b.file, b.sha256))
        };
        differ("the baseline", baseline(&first_info.baseline), baseline(&info.baseline))?;
        if info.order.len() != report.scenarios.len() {
            let source = serde::de::Error::custom("shard.order does not give each scenario's position");
            return Err(MergeError::Parse { path: path.clone(), source });
        }
    }
    let count = infos[0].count;
    let mut seen: Vec<Option<&PathBuf>> = vec![None; count];
    for ((path, _), info) in shards.iter().zip(&infos) {
        match seen.get_mut(info.index - 1) {
            Some(Some(first)) => {
                return Err(MergeError::Twice {
                    shard: format!("{}/{count}", info.index),
                    first: first.to_path_buf(),
                    other: path.clone(),
                })
            }
            Some(slot) => *slot = Some(path),
            None => {
                let source = serde::de::Error::custom(format!("shard {}/{count} does not exist", info.index));
                return Err(MergeError::Parse { path: path.clone(), source });
            }
        }
    }
    let missing: Vec<String> =
        seen.iter().enumerate().filter(|(_, p)| p.is_none()).map(|(i, _)| (i + 1).to_string()).collect();
    if !missing.is_empty() {
        return Err(MergeError::Missing { missing: missing.join(", "), count });
    }

    let started_at = |r: &ShardReport, path: &Path| {
        humantime::parse_rfc3339(&r.started_at).map_err(|e| MergeError::Parse {
            path: path.to_owned(),
            source: serde::de::Error::custom(format!("started_at {:?}: {e}", r.started_at)),
        })
    };
    let mut start = None;
    let mut end = None;
    for (path, r) in &shards {
        let at = started_at(r, path)?;
        let until = at + std::time::Duration::from_millis(r.duration_ms);
        start = Some(start.map_or(at, |s: std::time::SystemTime| s.min(at)));
        end = Some(end.map_or(until, |e: std::time::SystemTime| e.max(until)));
    }
    let (start, end) = (start.expect("a shard"), end.expect("a shard"));

    // Every shard probed the revisions itself: they agree on whether any could be tested,
    // unless the implementation answered them differently (then some revision was tested).
    let not_tested = match shards.iter().all(|(_, r)| r.not_tested == first.not_tested) {
        true => first.not_tested.clone(),
        false => None,
    };
    let interrupted = shards.iter().find_map(|(_, r)| r.interrupted.as_deref()).map(signal_name);
    let scenario_set = first.scenario_set.as_ref().map(|s| ScenarioSet {
        source: s.source.clone(),
        scenarios: shards.iter().filter_map(|(_, r)| r.scenario_set.as_ref()).map(|s| s.scenarios).sum(),
        selection: s.selection.clone(),
    });
    let info = RunInfo {
        role: known(&first.role, &["server", "client", "authorization-server"], first_path, "role")?,
        command: first.command.clone(),
        transport: known(&first.transport, &super::scenario::TRANSPORTS, first_path, "transport")?,
        started_at: start,
        duration_ms: end.duration_since(start).unwrap_or_default().as_millis() as u64,
        revisions: first.revisions.clone(),
        scenario_set,
        not_tested,
        interrupted: interrupted.flatten(),
        // What the shards cost together (a shard written before costs were kept counts none).
        cost: super::Cost::summed(shards.iter().filter_map(|(_, r)| r.cost.as_ref())),
    };
    let (strict, baseline) = (infos[0].strict, infos[0].baseline.clone());

    let mut scenarios = Vec::new();
    let mut runs: std::collections::HashMap<(String, String), &PathBuf> = std::collections::HashMap::new();
    for ((path, report), info) in shards.iter().zip(&infos) {
        let shard = Shard { index: info.index, count };
        for (s, order) in report.scenarios.iter().zip(&info.order) {
            if !shard.holds(&s.id, &s.revision) {
                return Err(MergeError::Foreign {
                    path: path.clone(),
                    id: s.id.clone(),
                    revision: s.revision.clone(),
                    belongs: Shard::of(&s.id, &s.revision, count),
                    index: info.index,
                    count,
                });
            }
            if let Some(other) = runs.insert((s.id.clone(), s.revision.clone()), path) {
                return Err(MergeError::Twice {
                    shard: format!("{}/{count} (the scenario {} at {})", info.index, s.id, s.revision),
                    first: other.clone(),
                    other: path.clone(),
                });
            }
            let mut s = s.clone();
            s.order = (order[0], order[1], order[2]);
            as_judged_on_the_wire(&mut s);
            scenarios.push(s);
        }
    }
    Ok(Merged { info, scenarios, strict, baseline, shards: shards.len() })
}

/// The static name of a report's word among `known`, or an error naming the file.
fn known(word: &str, known: &[&'static str], path: &Path, what: &str) -> Result<&'static str, MergeError> {
    known.iter().find(|k| **k == word).copied().ok_or_else(|| MergeError::Parse {
        path: path.to_owned(),
        source: serde::de::Error::custom(format!("{what} {word:?} is not one of {}", known.join(", "))),
    })
}

/// `SIGINT`, `SIGTERM` or `SIGHUP`, as the report names the signal that stopped a shard (an
/// unknown name is kept out: the run is then not taken as stopped).
fn signal_name(name: &str) -> Option<&'static str> {
    ["SIGINT", "SIGTERM", "SIGHUP"].into_iter().find(|s| *s == name)
}

/// Takes an entry back to what was judged on the wire, before the policy of its shard: its
/// checks unmarked by the baseline, its verdict that of its checks, no `--strict` reason. Exact,
/// because a shard's policy acts on each entry alone: `--strict` turns a warning into a failure
/// (adding [`STRICT_REASON`] when it had no reason), the baseline marks listed checks and makes
/// the entry's verdict that of its unlisted ones; a shard marks nothing stale
/// ([`crate::report::baseline::Baseline::apply_in_shard`]). Skipped and error entries are
/// never touched by either. A judged entry's verdict is the worst of its checks.
pub fn as_judged_on_the_wire(s: &mut ScenarioReport) {
    for c in &mut s.checks {
        c.baselined = false;
    }
    s.baseline = None;
    if matches!(s.verdict, Verdict::Failed | Verdict::Warning | Verdict::ExpectedFailure) {
        if let Some(worst) = s.checks.iter().map(|c| c.verdict).max() {
            s.verdict = worst;
        }
    }
    if s.reason.as_deref() == Some(STRICT_REASON) {
        s.reason = None;
    }
}

#[cfg(test)]
mod tests;
