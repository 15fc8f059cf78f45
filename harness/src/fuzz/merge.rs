//! `mcpspec fuzz merge`: the outputs of a campaign's shards (`--shard I/N`, each run by a job of
//! its own) made one: their corpora united and their findings deduplicated by id.
//!
//! A shard's folder holds what the campaign wrote there: `corpus/` (the inputs `--corpus`
//! kept, named by the SHA-256 of their text, so one name is one input) and `findings/` (one
//! reproducer per finding, named by the finding's stable id, so one name is one bug). A bug
//! several shards met is kept once, with the smallest reproducer they found. Reproducers of
//! different campaigns (another implementation, role, transport, revision or seed) are refused:
//! their ids would not name the same bugs.

use crate::files::{create_dir, write_atomically, Access};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Why shards' outputs cannot be merged.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum MergeError {
    /// Nothing given.
    #[error("no shard folder given: `mcpspec fuzz merge DIR... --into OUT`")]
    Nothing,
    /// A folder with neither a corpus nor findings.
    #[error("{0} holds neither corpus/ nor findings/ (give the folders the shards wrote: `--corpus DIR/corpus --findings DIR/findings`)")]
    Empty(PathBuf),
    /// The output folder is one of the inputs.
    #[error("{0} is both a shard and the output: merge into a new folder")]
    IntoShard(PathBuf),
    /// The output already holds a corpus or findings.
    #[error("{0} is not empty: merge into a new folder")]
    NotEmpty(PathBuf),
    /// A file that cannot be read or written.
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    /// A findings file that is no reproducer.
    #[error("{path} is not a reproducer mcpspec fuzz wrote: {why}")]
    NotAReproducer { path: PathBuf, why: String },
    /// Findings of different campaigns.
    #[error("the shards are of different campaigns: {what} is {first} in {first_path}, but {other} in {other_path}")]
    Differ { what: &'static str, first: String, first_path: PathBuf, other: String, other_path: PathBuf },
}

/// One finding after the merge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MergedFinding {
    /// `crash-1a2b3c4d`.
    pub id: String,
    /// The rule it breaks and its level, as the reproducer says.
    pub rule: String,
    pub level: String,
    /// How many shards found it.
    pub shards: usize,
    /// The reproducer kept (in the output folder).
    pub file: PathBuf,
}

/// What a merge did.
#[derive(Debug, Default)]
pub struct Merged {
    pub shards: usize,
    /// Inputs in the merged corpus, and how many shards' copies were the same input.
    pub corpus: usize,
    pub corpus_duplicates: usize,
    pub findings: Vec<MergedFinding>,
}

/// What identifies a campaign in its reproducers: two reproducers of one campaign agree on each.
const CAMPAIGN_KEYS: [&str; 6] = ["role", "command", "transport", "url", "revision", "seed"];

/// Merges the shards' folders into `into` (`into/corpus`, `into/findings`), in the order given.
pub fn merge(shards: &[PathBuf], into: &Path) -> Result<Merged, MergeError> {
    if shards.is_empty() {
        return Err(MergeError::Nothing);
    }
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| MergeError::Io { path, source }
    };
    for shard in shards {
        if same_folder(shard, into) {
            return Err(MergeError::IntoShard(shard.clone()));
        }
        if !shard.join("corpus").is_dir() && !shard.join("findings").is_dir() {
            return Err(MergeError::Empty(shard.clone()));
        }
    }

    for out in [into.join("corpus"), into.join("findings")] {
        if std::fs::read_dir(&out).is_ok_and(|mut entries| entries.next().is_some()) {
            return Err(MergeError::NotEmpty(out));
        }
    }

    // Read everything first: nothing is written when a shard is refused.
    let mut corpus: BTreeMap<String, Vec<u8>> = BTreeMap::new();
    let mut corpus_copies = 0;
    let mut findings: BTreeMap<String, (Reproducer, usize)> = BTreeMap::new();
    let mut campaign: Option<(Value, PathBuf)> = None;
    for shard in shards {
        for path in json_files(&shard.join("corpus")).map_err(io(&shard.join("corpus")))? {
            let bytes = std::fs::read(&path).map_err(io(&path))?;
            corpus_copies += 1;
            corpus.entry(file_name(&path)).or_insert(bytes);
        }
        for path in json_files(&shard.join("findings")).map_err(io(&shard.join("findings")))? {
            let found = Reproducer::read(&path)?;
            match &campaign {
                None => campaign = Some((found.campaign.clone(), path.clone())),
                Some((first, first_path)) => {
                    if let Some(what) =
                        CAMPAIGN_KEYS.into_iter().find(|k| first.get(k) != found.campaign.get(k))
                    {
                        return Err(MergeError::Differ {
                            what,
                            first: shown(first.get(what)),
                            first_path: first_path.clone(),
                            other: shown(found.campaign.get(what)),
                            other_path: path,
                        });
                    }
                }
            }
            match findings.get_mut(&found.id) {
                None => {
                    findings.insert(found.id.clone(), (found, 1));
                }
                Some((kept, seen)) => {
                    *seen += 1;
                    // The smallest reproducer is the easiest to read; on a tie, the first shard's.
                    if found.input_len < kept.input_len {
                        *kept = found;
                    }
                }
            }
        }
    }

    let corpus_dir = into.join("corpus");
    let findings_dir = into.join("findings");
    for dir in [&corpus_dir, &findings_dir] {
        create_dir(dir, Access::Private).map_err(io(dir))?;
    }
    for (name, bytes) in &corpus {
        let path = corpus_dir.join(name);
        write_atomically(&path, bytes, Access::Private).map_err(io(&path))?;
    }
    let mut merged = Merged {
        shards: shards.len(),
        corpus: corpus.len(),
        corpus_duplicates: corpus_copies - corpus.len(),
        findings: Vec::new(),
    };
    for (id, (kept, seen)) in findings {
        let path = findings_dir.join(format!("{id}.json"));
        write_atomically(&path, &kept.bytes, Access::Private).map_err(io(&path))?;
        merged.findings.push(MergedFinding {
            id,
            rule: kept.rule,
            level: kept.level,
            shards: seen,
            file: path,
        });
    }
    Ok(merged)
}

/// A reproducer file, as far as a merge reads it.
struct Reproducer {
    id: String,
    rule: String,
    level: String,
    /// The campaign's identity: [`CAMPAIGN_KEYS`].
    campaign: Value,
    /// The size of the input it replays (its JSON text).
    input_len: usize,
    bytes: Vec<u8>,
}

impl Reproducer {
    fn read(path: &Path) -> Result<Self, MergeError> {
        let bytes =
            std::fs::read(path).map_err(|source| MergeError::Io { path: path.to_path_buf(), source })?;
        let not = |why: &str| MergeError::NotAReproducer { path: path.to_path_buf(), why: why.to_owned() };
        let value: Value = serde_json::from_slice(&bytes).map_err(|e| not(&e.to_string()))?;
        let text = |key: &str| value.get(key).and_then(Value::as_str).map(str::to_owned);
        let id = text("finding").ok_or_else(|| not("no \"finding\" id"))?;
        if file_name(path) != format!("{id}.json") {
            return Err(not(&format!("its finding is {id}, but the file is not named {id}.json")));
        }
        let input = value.get("input").ok_or_else(|| not("no \"input\""))?;
        let campaign = Value::Object(
            CAMPAIGN_KEYS
                .iter()
                .map(|k| ((*k).to_owned(), value.get(*k).cloned().unwrap_or(Value::Null)))
                .collect(),
        );
        Ok(Reproducer {
            rule: text("rule").unwrap_or_default(),
            level: text("level").unwrap_or_default(),
            input_len: input.to_string().len(),
            campaign,
            id,
            bytes,
        })
    }
}

/// The `.json` files of `dir`, sorted; none when it does not exist.
fn json_files(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    if !dir.exists() {
        return Ok(Vec::new());
    }
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_file() && path.extension().is_some_and(|x| x == "json") {
            files.push(path);
        }
    }
    files.sort();
    Ok(files)
}

fn file_name(path: &Path) -> String {
    path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
}

fn shown(value: Option<&Value>) -> String {
    value.map_or_else(|| "absent".to_owned(), Value::to_string)
}

fn same_folder(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

#[cfg(test)]
mod tests;
