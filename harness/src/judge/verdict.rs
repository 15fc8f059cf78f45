//! Levels, verdicts and checks: the vocabulary of every result mcpspec reports.

use serde::{Deserialize, Serialize};
use std::fmt;

/// The requirement level of a rule, as the spec words it (RFC 2119).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Level {
    MUST,
    SHOULD,
    MAY,
}

impl Level {
    /// The verdict of a broken rule at this level: MUST → failed, otherwise a warning.
    pub fn broken(self) -> Verdict {
        match self {
            Level::MUST => Verdict::Failed,
            Level::SHOULD | Level::MAY => Verdict::Warning,
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

impl std::str::FromStr for Level {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "MUST" => Ok(Level::MUST),
            "SHOULD" => Ok(Level::SHOULD),
            "MAY" => Ok(Level::MAY),
            other => Err(format!("unknown level {other:?} (MUST, SHOULD or MAY)")),
        }
    }
}

/// The verdict of a check or a scenario. Ordered by severity, so the verdict of a group is its
/// maximum (with [`Verdict::Skipped`] below [`Verdict::Passed`]: one pass outweighs skips).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Not run: not applicable, or the implementation does not offer the feature.
    Skipped,
    Passed,
    /// Of a scenario only: it did not pass, and every check that broke a rule is listed in the
    /// baseline (`--expected-failures`). It passes the run; the certification still counts the
    /// failure.
    ExpectedFailure,
    /// A SHOULD (or MAY) was not met, or the spec itself is ambiguous about what was seen.
    Warning,
    /// A MUST was broken.
    Failed,
    /// mcpspec could not judge: the implementation could not be started, or the harness failed.
    Error,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Skipped => "skipped",
            Verdict::Passed => "passed",
            Verdict::ExpectedFailure => "expected_failure",
            Verdict::Warning => "warning",
            Verdict::Failed => "failed",
            Verdict::Error => "error",
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One judged requirement: what was expected, what was seen, and the clause it rests on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Check {
    /// Stable id, e.g. `lifecycle/initialize-result` or `jsonrpc/response-id-matches-request`.
    pub id: String,
    pub level: Level,
    /// The spec document (and section) the check rests on, e.g.
    /// `docs/specification/2025-06-18/basic/lifecycle.mdx#initialization`.
    pub spec: String,
    pub verdict: Verdict,
    pub expected: String,
    pub actual: String,
    /// The index, in its scenario's transcript, of the message that broke the rule (wire rules).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<usize>,
    /// Listed in the baseline: a failure expected (`--expected-failures`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub baselined: bool,
    /// The ids of the clauses of the entry's revision that name this check in the clause
    /// inventory ([`crate::judge::clauses`]); filled in by the report.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub clauses: Vec<String>,
}

impl Check {
    /// A check that passed when `ok`, and otherwise failed at its level.
    pub fn judge(
        id: impl Into<String>,
        level: Level,
        spec: impl Into<String>,
        ok: bool,
        expected: impl Into<String>,
        actual: impl Into<String>,
    ) -> Check {
        Check {
            id: id.into(),
            level,
            spec: spec.into(),
            verdict: if ok { Verdict::Passed } else { level.broken() },
            expected: expected.into(),
            actual: actual.into(),
            message: None,
            baselined: false,
            clauses: Vec::new(),
        }
    }

    /// Whether the check broke its rule (a failure or a warning).
    pub fn broken(&self) -> bool {
        matches!(self.verdict, Verdict::Failed | Verdict::Warning)
    }
}

/// A word of a fixed vocabulary (a transport, an era, an arrow) that reports hold. Named so
/// that serde reads it with [`one_of`] rather than borrowing it from the input, which a
/// `&'static str` written out would make it try (and no owned JSON can lend for `'static`).
pub type Word = &'static str;

/// Reads back a word a report was written with from a fixed vocabulary (`known`): the
/// report's types hold such words as `&'static str`, which owned JSON cannot lend, so a word is
/// matched to its constant (`mcpspec merge` reads shards' reports). Any other word is an error
/// naming it and what was expected.
pub fn one_of<'de, D: serde::Deserializer<'de>>(
    d: D,
    known: &[&'static str],
) -> Result<&'static str, D::Error> {
    let word = String::deserialize(d)?;
    known
        .iter()
        .find(|k| **k == word)
        .copied()
        .ok_or_else(|| serde::de::Error::custom(format!("{word:?} is not one of {}", known.join(", "))))
}
