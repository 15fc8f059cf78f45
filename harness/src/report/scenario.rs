//! One scenario run at one revision, as every report format shows it.

use crate::judge::recorder::TranscriptEntry;
use crate::judge::verdict::{Check, Level, Verdict, Word};
use serde::{Deserialize, Serialize};

/// The tag of the scenarios about version negotiation itself, which run also at a revision the
/// server counter-offered (what it answers with is evidence of what it speaks) and so never
/// certify a revision on their own.
pub const NEGOTIATION_TAG: &str = "negotiation";

/// One scenario run at one revision.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScenarioReport {
    /// Stable id from the scenario's `@id:` tag; outline examples append `[values]`.
    pub id: String,
    pub name: String,
    /// The feature file, relative to `scenarios/`.
    pub feature: String,
    pub revision: String,
    /// `stdio`, `http` (Streamable HTTP) or `sse` (HTTP+SSE): the transport it ran over.
    #[serde(deserialize_with = "transport")]
    pub transport: Word,
    /// `legacy` (the initialize handshake, 2024-11-05 … 2025-11-25) or `modern` (stateless,
    /// 2026-07-28 on): the era the verdict belongs to (`basic/versioning.mdx#terminology`).
    #[serde(deserialize_with = "era")]
    pub era: Word,
    pub level: Level,
    pub spec: String,
    /// The tags of the scenario and its feature, without `@` (what `--tag` selects by).
    pub tags: Vec<String>,
    pub verdict: Verdict,
    /// Why the scenario was skipped or could not be judged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// What the baseline said of the scenario: its failures expected, or an entry gone stale.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub baseline: Option<BaselineMark>,
    pub checks: Vec<Check>,
    pub duration_ms: u64,
    /// How the implementation's process ended (absent when it went on to the next scenario).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shutdown: Option<String>,
    /// The shared process the scenario ran in, when it shared one with other scenarios: which,
    /// the scenario's place on it, and whether it was handed on or why not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    /// The end of the implementation's stderr, kept when the scenario did not pass.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stderr: Option<String>,
    /// The wire log, kept when the scenario did not pass.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transcript: Option<Vec<TranscriptEntry>>,
    /// Position in the suite, for a stable order; not part of the report.
    #[serde(skip)]
    pub order: (usize, usize, usize),
}

/// The transports a scenario runs over, as reports name them.
pub const TRANSPORTS: [&str; 3] = ["stdio", "http", "sse"];

fn transport<'de, D: serde::Deserializer<'de>>(d: D) -> Result<&'static str, D::Error> {
    crate::judge::verdict::one_of(d, &TRANSPORTS)
}

fn era<'de, D: serde::Deserializer<'de>>(d: D) -> Result<&'static str, D::Error> {
    use mcpspec_protocol::Era;
    crate::judge::verdict::one_of(d, &[Era::Legacy.name(), Era::Modern.name()])
}

impl ScenarioReport {
    /// The verdict of a scenario from its checks: an error reason wins, a scenario that
    /// exercised no check is an error (never a pass), otherwise the worst check decides.
    pub fn verdict_of(checks: &[Check], error: Option<&str>) -> Verdict {
        if error.is_some() || checks.is_empty() {
            return Verdict::Error;
        }
        checks.iter().map(|c| c.verdict).max().unwrap_or(Verdict::Error)
    }

    /// Whether the scenario ran (was not skipped and could be judged).
    pub fn ran(&self) -> bool {
        !matches!(self.verdict, Verdict::Skipped | Verdict::Error)
    }

    /// Whether the scenario is about version negotiation itself ([`NEGOTIATION_TAG`]).
    pub fn is_negotiation(&self) -> bool {
        self.tags.iter().any(|t| t == NEGOTIATION_TAG)
    }
}

/// The baseline's word on a scenario.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BaselineMark {
    pub status: BaselineStatus,
    /// The entries that matched, as the baseline file words them.
    pub entries: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BaselineStatus {
    /// Every broken check is listed: the failure is known.
    Expected,
    /// An entry names this scenario as failing, and what it names passed: the entry must go.
    Stale,
}
