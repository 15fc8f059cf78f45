//! The clause inventory: every normative statement of each revision, one entry each in
//! `scenarios/clauses/<revision>.toml` (built into the library), with the checks that test it or
//! the reason none can.
//!
//! The inventory is the one source of truth for which clause a check tests: a clause lists its
//! checks, and [`Inventory::clauses_of`] derives the other direction (so a report can name the
//! clause ids behind each check). [`Inventory::coverage`] counts, per area and level, how many
//! clauses there are, how many can be observed on the wire and how many a check tests; `mcpspec
//! list --coverage` prints it. The tests that hold the inventory to the checks that exist live
//! beside the listing (`bin/mcpspec/cli/coverage.rs`), since only the binary knows the scenarios.

use mcpspec_protocol::Revision;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::sync::OnceLock;

/// The inventory files, by revision, as built into the library.
const FILES: [(Revision, &str); 6] = [
    (Revision::V2024_11_05, include_str!("../../scenarios/clauses/2024-11-05.toml")),
    (Revision::V2025_03_26, include_str!("../../scenarios/clauses/2025-03-26.toml")),
    (Revision::V2025_06_18, include_str!("../../scenarios/clauses/2025-06-18.toml")),
    (Revision::V2025_11_25, include_str!("../../scenarios/clauses/2025-11-25.toml")),
    (Revision::V2026_07_28, include_str!("../../scenarios/clauses/2026-07-28.toml")),
    (Revision::Draft, include_str!("../../scenarios/clauses/draft.toml")),
];

/// The level of a clause, as the spec words it: the negative forms are kept apart from the
/// positive ones (a verdict's [`Level`](crate::judge::verdict::Level) folds them together).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum ClauseLevel {
    #[serde(rename = "MUST")]
    Must,
    #[serde(rename = "MUST NOT")]
    MustNot,
    #[serde(rename = "SHOULD")]
    Should,
    #[serde(rename = "SHOULD NOT")]
    ShouldNot,
    #[serde(rename = "MAY")]
    May,
}

impl ClauseLevel {
    /// MUST or MUST NOT: what a certificate rests on.
    pub fn is_must(self) -> bool {
        matches!(self, ClauseLevel::Must | ClauseLevel::MustNot)
    }

    /// SHOULD or SHOULD NOT.
    pub fn is_should(self) -> bool {
        matches!(self, ClauseLevel::Should | ClauseLevel::ShouldNot)
    }
}

/// From which side a clause can be seen on the wire, if at all.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Observable {
    /// In what a server sends (mcpspec as client).
    Server,
    /// In what a client sends (mcpspec as server).
    Client,
    Both,
    /// Not on the wire: a user interface, storage, a deployment.
    None,
}

/// One normative statement of one revision.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Clause {
    /// Stable id, `area/what`, unique within its revision.
    pub id: String,
    /// Page and anchor under `docs/specification/<revision>/`, `page.mdx#anchor`.
    pub doc: String,
    pub level: ClauseLevel,
    /// Who the clause binds: client, server, both, authorization-server, host, user.
    pub subject: String,
    /// The statement, in our own words.
    pub text: String,
    pub observable: Observable,
    /// Scenario ids (without outline suffixes) and wire-rule ids that test it.
    pub checks: Vec<String>,
    /// Why no check tests it (or why the ones that do fall short).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

impl Clause {
    /// The area: the part of the id before `/`.
    pub fn area(&self) -> &str {
        self.id.split_once('/').map_or(self.id.as_str(), |(area, _)| area)
    }

    /// Can be observed on the wire from some side.
    pub fn is_observable(&self) -> bool {
        self.observable != Observable::None
    }

    /// Observable and tested by at least one check.
    pub fn is_tested(&self) -> bool {
        self.is_observable() && !self.checks.is_empty()
    }
}

/// The inventory of one revision.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Inventory {
    pub revision: String,
    #[serde(rename = "clause")]
    pub clauses: Vec<Clause>,
    /// Check id → the ids of the clauses that name it, derived at load.
    #[serde(skip)]
    by_check: HashMap<String, Vec<String>>,
}

/// An inventory file that does not parse, or parses to the wrong revision.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ClauseError {
    /// The TOML is malformed or an entry lacks a field (or has one unknown).
    #[error("the clause inventory of {revision} does not parse: {message}")]
    Parse { revision: Revision, message: String },
    /// The file's `revision` field names another revision than its file name.
    #[error("the clause inventory of {revision} says it is of {found}")]
    WrongRevision { revision: Revision, found: String },
}

impl Inventory {
    /// Parses the inventory of `revision` from `text`, deriving the check → clauses map.
    pub fn parse(revision: Revision, text: &str) -> Result<Inventory, ClauseError> {
        let mut inv: Inventory =
            toml::from_str(text).map_err(|e| ClauseError::Parse { revision, message: e.to_string() })?;
        if inv.revision != revision.as_str() {
            return Err(ClauseError::WrongRevision { revision, found: inv.revision });
        }
        for clause in &inv.clauses {
            for check in &clause.checks {
                inv.by_check.entry(check.clone()).or_default().push(clause.id.clone());
            }
        }
        Ok(inv)
    }

    /// The built-in inventory of `revision`, parsed once.
    pub fn of(revision: Revision) -> Result<&'static Inventory, &'static ClauseError> {
        static PARSED: OnceLock<Vec<Result<Inventory, ClauseError>>> = OnceLock::new();
        let all = PARSED.get_or_init(|| FILES.iter().map(|(r, text)| Inventory::parse(*r, text)).collect());
        let i = FILES.iter().position(|(r, _)| *r == revision).unwrap_or(0);
        all[i].as_ref()
    }

    /// The ids of the clauses that name `check` (a scenario id, outline suffix and all, or a
    /// wire-rule id); empty when none does.
    pub fn clauses_of(&self, check: &str) -> &[String] {
        let base = check.split_once('[').map_or(check, |(base, _)| base);
        self.by_check.get(base).map_or(&[], Vec::as_slice)
    }

    /// The figures of this revision, per area and in all.
    pub fn coverage(&self) -> Coverage<'_> {
        let mut areas: BTreeMap<&str, Figures> = BTreeMap::new();
        let mut all = Figures::default();
        let mut untested = Vec::new();
        for clause in &self.clauses {
            areas.entry(clause.area()).or_default().add(clause);
            all.add(clause);
            if clause.is_observable() && !clause.is_tested() && !clause.level.eq(&ClauseLevel::May) {
                untested.push(clause);
            }
        }
        Coverage { revision: &self.revision, all, areas, untested }
    }
}

/// Clauses total, observable and tested, for one level group.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    pub total: usize,
    pub observable: usize,
    pub tested: usize,
}

impl Counts {
    fn add(&mut self, clause: &Clause) {
        self.total += 1;
        self.observable += usize::from(clause.is_observable());
        self.tested += usize::from(clause.is_tested());
    }

    /// Tested over observable, in percent (100 when nothing is observable).
    pub fn percent(&self) -> f64 {
        if self.observable == 0 {
            100.0
        } else {
            100.0 * self.tested as f64 / self.observable as f64
        }
    }
}

/// The counts of MUST (and MUST NOT) and SHOULD (and SHOULD NOT) clauses; MAY clauses are
/// permissions, counted nowhere.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Figures {
    pub must: Counts,
    pub should: Counts,
}

impl Figures {
    fn add(&mut self, clause: &Clause) {
        if clause.level.is_must() {
            self.must.add(clause);
        } else if clause.level.is_should() {
            self.should.add(clause);
        }
    }
}

/// The coverage of one revision: in all, per area, and the observable MUST and SHOULD clauses
/// no check tests yet.
#[derive(Debug, Clone)]
pub struct Coverage<'a> {
    pub revision: &'a str,
    pub all: Figures,
    pub areas: BTreeMap<&'a str, Figures>,
    pub untested: Vec<&'a Clause>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_revision_parses_and_ids_are_unique() {
        for (revision, _) in FILES {
            let inv = Inventory::of(revision).unwrap_or_else(|e| panic!("{e}"));
            assert!(!inv.clauses.is_empty(), "{revision}: no clauses");
            let mut seen = std::collections::HashSet::new();
            for c in &inv.clauses {
                assert!(seen.insert(&c.id), "{revision}: duplicate clause id {}", c.id);
                let (area, what) = c.id.split_once('/').unwrap_or_default();
                let shape = |s: &str| {
                    !s.is_empty()
                        && s.chars().all(|ch| ch.is_ascii_lowercase() || ch.is_ascii_digit() || ch == '-')
                };
                assert!(shape(area) && shape(what), "{revision}: malformed clause id {}", c.id);
                assert!(!c.text.trim().is_empty(), "{revision}: {} has no text", c.id);
            }
        }
    }

    #[test]
    fn every_clause_without_checks_or_unobservable_says_why() {
        for (revision, _) in FILES {
            for c in &Inventory::of(revision).unwrap().clauses {
                if c.checks.is_empty() || !c.is_observable() {
                    let reason = c.reason.as_deref().unwrap_or("").trim();
                    assert!(
                        !reason.is_empty(),
                        "{revision}: {} ({:?}) has neither checks nor a reason",
                        c.id,
                        c.level
                    );
                }
                assert!(
                    c.is_observable() || c.checks.is_empty(),
                    "{revision}: {} is not observable yet names checks",
                    c.id
                );
                for check in &c.checks {
                    assert!(!check.contains('['), "{revision}: {} names an outline example {check}", c.id);
                }
            }
        }
    }

    /// Every `doc#anchor` is a page and heading of the spec: the index of the spec pages'
    /// headings is read from `../shared/spec-index` (skipped with a note when it is absent).
    #[test]
    fn every_doc_and_anchor_is_in_the_spec_index() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/spec-index");
        if !dir.is_dir() {
            eprintln!("note: {} is absent; the clauses' anchors are not checked", dir.display());
            return;
        }
        for (revision, _) in FILES {
            let path = dir.join(format!("{revision}.json"));
            let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let index: serde_json::Value = serde_json::from_str(&text).unwrap();
            let pages = &index["pages"];
            for c in &Inventory::of(revision).unwrap().clauses {
                let (page, anchor) = c.doc.split_once('#').unwrap_or((c.doc.as_str(), ""));
                let anchors = pages[page].as_array();
                assert!(anchors.is_some(), "{revision}: {} cites {page}, not a page of the spec", c.id);
                if !anchor.is_empty() {
                    assert!(
                        anchors.into_iter().flatten().any(|a| a == anchor),
                        "{revision}: {} cites {}, not a heading of the spec",
                        c.id,
                        c.doc
                    );
                }
            }
        }
    }

    #[test]
    fn the_reverse_map_names_the_clauses_of_a_check() {
        let text = r#"
            revision = "2025-06-18"
            [[clause]]
            id = "a/one"
            doc = "basic/index.mdx#requests"
            level = "MUST"
            subject = "both"
            text = "One."
            observable = "both"
            checks = ["x/y", "z/w"]
            [[clause]]
            id = "a/two"
            doc = "basic/index.mdx"
            level = "SHOULD NOT"
            subject = "server"
            text = "Two."
            observable = "none"
            checks = []
            reason = "not on the wire"
        "#;
        let inv = Inventory::parse(Revision::V2025_06_18, text).unwrap();
        assert_eq!(inv.clauses_of("x/y[1999-01-01]"), ["a/one"]);
        assert!(inv.clauses_of("q/r").is_empty());
        let cov = inv.coverage();
        assert_eq!(cov.all.must, Counts { total: 1, observable: 1, tested: 1 });
        assert_eq!(cov.all.should, Counts { total: 1, observable: 0, tested: 0 });
        assert!(cov.untested.is_empty());
        assert!(matches!(
            Inventory::parse(Revision::V2025_03_26, text),
            Err(ClauseError::WrongRevision { .. })
        ));
        assert!(matches!(
            Inventory::parse(Revision::V2025_06_18, "revision = 3"),
            Err(ClauseError::Parse { .. })
        ));
    }
}
