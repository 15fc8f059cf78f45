//! What a scenario is, read once from its tags: a [`ScenarioPlan`] holds its id, requirement
//! level and clause, the revisions and transports it applies to, and whether it is about
//! negotiation. Everything after loading (selection, planning per revision, the hooks, the
//! reports, `mcpspec list`) asks the plan and never reads a tag again.
//!
//! Tags a scenario (or its feature) may carry: `@id:area/name`, `@MUST`/`@SHOULD`/`@MAY`,
//! `@spec:doc#anchor` (under `docs/specification/<revision>/`), `@since:R`, `@until:R`,
//! `@except:R`, `@transport:stdio|http|sse` (repeatable; none means every transport),
//! `@negotiation` (run also at a revision the server counter-offered), `@slow`, and
//! `@revision-independent` (run once, its verdict standing for every revision it applies to).

use mcpspec::judge::verdict::Level;
use mcpspec::report::scenario::NEGOTIATION_TAG;
use mcpspec::report::ScenarioReport;
use mcpspec_protocol::{Era, Revision};
use std::sync::Arc;

/// A scenario, as its tags and its feature describe it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScenarioPlan {
    /// `area/name`, extended by an outline's first example value: `jsonrpc/id-echo[zero]`.
    pub id: String,
    pub name: String,
    pub level: Level,
    /// The clause, under `docs/specification/<revision>/` (`basic/lifecycle.mdx#…`).
    pub doc: String,
    /// The feature file, under `scenarios/`.
    pub feature: String,
    /// The tags of the scenario and its feature, without `@`, each once.
    pub tags: Vec<String>,
    since: Option<Revision>,
    until: Option<Revision>,
    except: Vec<Revision>,
    /// The transports named by `@transport:` tags; empty: every transport.
    transports: Vec<String>,
    /// `@negotiation`: also run at a revision the server counter-offered.
    pub negotiation: bool,
    /// `@slow`: its runs may wait out the timeout on the server's own work (every tool called,
    /// a task's life), so the runner starts them before the others.
    pub slow: bool,
    /// Its first step starts a server process of its own, not a session the runner may
    /// share (`Given a server process`): its runs go first at their revision, so the
    /// processes they hand on once their handshakes are done serve the runs after them.
    pub own_process: bool,
    /// Its session declares client capabilities of its own (`Given an initialized session
    /// declaring the client capabilities`): the persona sweeps' sessions, which a sweep ends.
    /// It runs with the `@slow` scenarios, before them at its revision, so that the process it
    /// leaves serves the sweep of its capabilities instead of being the only one to use it.
    pub persona: bool,
    /// `@revision-independent`: what the scenario sends does not depend on the revision under
    /// test, byte for byte (it offers a version of its own to a fresh process), and what it is
    /// judged on is what the server negotiates. Run at every revision, it would start as many
    /// processes for the same exchange; it runs once, and that run stands for the others
    /// ([`ScenarioRun::stands_for`]).
    pub revision_independent: bool,
}

/// The step that starts a scenario's own server process ([`ScenarioPlan::own_process`]).
const OWN_PROCESS_STEP: &str = "a server process";

/// The step that opens a session declaring client capabilities ([`ScenarioPlan::persona`]).
const PERSONA_STEP: &str = "an initialized session declaring the client capabilities";

/// The tag of a scenario that may wait long on the server's own work ([`ScenarioPlan::slow`]).
const SLOW_TAG: &str = "slow";

/// The tag of a scenario whose exchange is the same at every revision
/// ([`ScenarioPlan::revision_independent`]).
const REVISION_INDEPENDENT_TAG: &str = "revision-independent";

const TRANSPORT_TAG: &str = "transport:";

/// Every transport a scenario may run over.
pub const TRANSPORTS: [&str; 3] = ["stdio", "http", "sse"];

impl ScenarioPlan {
    /// Reads a scenario's tags and its feature's (`feature_tags`); `Err` names what is missing
    /// or wrong.
    pub fn read(
        feature: &str,
        feature_tags: &[String],
        scenario: &cucumber::gherkin::Scenario,
    ) -> Result<ScenarioPlan, String> {
        let own = |prefix: &str| scenario.tags.iter().find_map(|t| t.strip_prefix(prefix)).map(str::to_owned);
        let id = own("id:").ok_or("the scenario has no @id: tag")?;
        let doc = own("spec:").ok_or("the scenario has no @spec: tag")?;
        let level = scenario
            .tags
            .iter()
            .find_map(|t| t.parse::<Level>().ok())
            .ok_or("the scenario has no @MUST, @SHOULD or @MAY tag")?;
        let example = scenario
            .examples
            .first()
            .and_then(|e| e.table.as_ref())
            .and_then(|t| t.rows.get(1))
            .and_then(|row| row.first());
        let id = match example {
            Some(value) => format!("{id}[{value}]"),
            None => id,
        };
        let mut tags: Vec<String> = Vec::new();
        for t in feature_tags.iter().chain(&scenario.tags) {
            if !tags.contains(t) {
                tags.push(t.clone());
            }
        }
        let revision = |t: &str, prefix: &str| -> Result<Option<Revision>, String> {
            t.strip_prefix(prefix).map(|r| r.parse().map_err(|e| format!("@{t}: {e}"))).transpose()
        };
        let (mut since, mut until, mut except) = (None, None, Vec::new());
        for t in &tags {
            if let Some(r) = revision(t, "since:")? {
                since = Some(since.map_or(r, |s: Revision| s.max(r)));
            }
            if let Some(r) = revision(t, "until:")? {
                until = Some(until.map_or(r, |u: Revision| u.min(r)));
            }
            if let Some(r) = revision(t, "except:")? {
                except.push(r);
            }
        }
        let transports =
            tags.iter().filter_map(|t| t.strip_prefix(TRANSPORT_TAG)).map(str::to_owned).collect();
        Ok(ScenarioPlan {
            id,
            name: scenario.name.clone(),
            level,
            doc,
            feature: feature.to_owned(),
            negotiation: tags.iter().any(|t| t == NEGOTIATION_TAG),
            slow: tags.iter().any(|t| t == SLOW_TAG),
            own_process: scenario.steps.first().is_some_and(|s| s.value == OWN_PROCESS_STEP),
            persona: scenario.steps.first().is_some_and(|s| s.value == PERSONA_STEP),
            revision_independent: tags.iter().any(|t| t == REVISION_INDEPENDENT_TAG),
            tags,
            since,
            until,
            except,
            transports,
        })
    }

    /// A scenario the runner knows nothing of (its report can only say so).
    pub fn unknown(name: &str) -> ScenarioPlan {
        ScenarioPlan {
            id: "?".into(),
            name: name.to_owned(),
            level: Level::MUST,
            doc: String::new(),
            feature: String::new(),
            tags: Vec::new(),
            since: None,
            until: None,
            except: Vec::new(),
            transports: Vec::new(),
            negotiation: false,
            slow: false,
            own_process: false,
            persona: false,
            revision_independent: false,
        }
    }

    /// Whether the scenario applies to `revision` (`@since:`, `@until:`, `@except:`).
    pub fn applies(&self, revision: Revision) -> bool {
        self.since.is_none_or(|s| revision >= s)
            && self.until.is_none_or(|u| revision <= u)
            && !self.except.contains(&revision)
    }

    /// Whether the scenario runs over `transport` (`stdio`, `http`, `sse`).
    pub fn on_transport(&self, transport: &str) -> bool {
        self.transports.is_empty() || self.transports.iter().any(|t| t == transport)
    }

    /// The clause's path at `revision` (the modern era moved and removed pages).
    pub fn spec(&self, revision: Revision) -> String {
        revision.doc(&self.doc)
    }

    /// The id of the outline it is an example of (the id itself when it is none).
    pub fn outline_id(&self) -> &str {
        self.id.split_once('[').map_or(self.id.as_str(), |(base, _)| base)
    }
}

/// One run of a scenario: its plan, at one revision, and its place in the report's order
/// (feature, line, revision), whatever order it runs in.
#[derive(Debug, Clone)]
pub struct ScenarioRun {
    pub plan: Arc<ScenarioPlan>,
    pub revision: Revision,
    pub order: (usize, usize, usize),
    /// Set when the run is judged again in a process of its own: why its first run, on a
    /// process scenarios shared at once, could not be judged there.
    pub alone: Option<String>,
    /// The other revisions this run's verdict stands for, each with its place in the report's
    /// order: those a `@revision-independent` scenario would also have run at.
    pub stands_for: Vec<(Revision, usize)>,
}

impl ScenarioRun {
    /// The entries of the revisions the run stands for ([`Self::stands_for`]), made from its
    /// own `report`: the same verdict and checks, the scenario's own checks citing each
    /// revision's clause (the wire's checks cite the revision the session ran at, as they did).
    pub fn standing_entries(&self, report: &ScenarioReport) -> Vec<ScenarioReport> {
        let root = format!("{}/", self.revision.doc_root());
        self.stands_for
            .iter()
            .map(|(revision, index)| {
                let mut entry = report.clone();
                entry.revision = revision.to_string();
                entry.era = revision.era().name();
                entry.spec = self.plan.spec(*revision);
                entry.order.2 = *index;
                for check in entry.checks.iter_mut().filter(|c| c.id == self.plan.id) {
                    // The run's revision lays its pages out as a later one does: its path,
                    // without the root, is the path `Revision::doc` maps.
                    if let Some(path) = check.spec.strip_prefix(&root) {
                        check.spec = revision.doc(path);
                    }
                }
                let how = format!(
                    "not run at {revision}: the scenario's exchange is the same at every revision \
                     (@revision-independent), and its run at {} stands for this one",
                    self.revision
                );
                entry.session = Some(match &report.session {
                    Some(session) => format!("{how}; that run: {session}"),
                    None => how,
                });
                entry
            })
            .collect()
    }
}

/// Why `transport` cannot carry `revision`, if it cannot.
pub fn transport_carries(transport: &str, revision: Revision) -> Option<&'static str> {
    match transport {
        "http" if revision < Revision::V2025_03_26 => {
            Some("Streamable HTTP begins with 2025-03-26: 2024-11-05 defines stdio and HTTP+SSE only")
        }
        "sse" if revision.era() == Era::Modern => Some(
            "HTTP+SSE is a transport of the legacy era: the modern revisions define stdio and Streamable HTTP \
             (2026-07-28 basic/transports/streamable-http.mdx#backward-compatibility)",
        ),
        _ => None,
    }
}

/// `--scenario GLOB` and `--tag TAG`, ready to match: a scenario runs when its id (or the id
/// of its outline, without `[values]`) matches one of the globs, and it or its feature carries
/// one of the tags; an empty list does not narrow. With `--shard I/N`, of what they select, a
/// run (scenario and revision) runs only in the shard its id and revision fall in.
#[derive(Clone)]
pub struct Filter {
    pub asked: mcpspec::report::Selection,
    globs: globset::GlobSet,
    pub shard: Option<mcpspec::report::shard::Shard>,
}

impl Filter {
    pub fn new(asked: mcpspec::report::Selection) -> Result<Filter, String> {
        let mut globs = globset::GlobSetBuilder::new();
        for g in &asked.scenario {
            globs.add(globset::Glob::new(g).map_err(|e| format!("--scenario {g:?}: {e}"))?);
        }
        let globs = globs.build().map_err(|e| format!("--scenario: {e}"))?;
        Ok(Filter { asked, globs, shard: None })
    }

    /// Whether the run of `plan` at `revision` is this run's: selected, and in its shard.
    pub fn runs(&self, plan: &ScenarioPlan, revision: mcpspec_protocol::Revision) -> bool {
        self.selects(plan) && self.shard.is_none_or(|s| s.holds(&plan.id, revision.as_str()))
    }

    pub fn selects(&self, plan: &ScenarioPlan) -> bool {
        let by_id = self.asked.scenario.is_empty()
            || self.globs.is_match(&plan.id)
            || self.globs.is_match(plan.outline_id());
        let by_tag = self.asked.tag.is_empty()
            || plan
                .tags
                .iter()
                .any(|t| self.asked.tag.iter().any(|asked| asked.strip_prefix('@').unwrap_or(asked) == t));
        by_id && by_tag
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cucumber::gherkin::{Feature, GherkinEnv};

    fn plan_of(text: &str) -> Result<ScenarioPlan, String> {
        let feature = Feature::parse(text, GherkinEnv::default()).unwrap();
        ScenarioPlan::read("server/x.feature", &feature.tags, &feature.scenarios[0])
    }

    #[test]
    fn tags_are_read_once_into_the_plan() {
        let plan = plan_of(
            "@since:2025-03-26 @transport:http\nFeature: f\n\n  @id:a/b @SHOULD @spec:basic/index.mdx#x @until:2025-11-25 @except:2025-06-18 @negotiation\n  Scenario: s\n    Given a session\n",
        )
        .unwrap();
        assert_eq!(
            (plan.id.as_str(), plan.level, plan.doc.as_str()),
            ("a/b", Level::SHOULD, "basic/index.mdx#x")
        );
        assert!(plan.negotiation);
        let at: Vec<Revision> = Revision::ALL.into_iter().filter(|r| plan.applies(*r)).collect();
        assert_eq!(at, [Revision::V2025_03_26, Revision::V2025_11_25]);
        assert!(plan.on_transport("http") && !plan.on_transport("stdio"));
    }

    #[test]
    fn a_missing_or_wrong_tag_is_named() {
        let no_id = "Feature: f\n\n  @MUST @spec:x\n  Scenario: s\n    Given a session\n";
        assert_eq!(plan_of(no_id).unwrap_err(), "the scenario has no @id: tag");
        let bad =
            "Feature: f\n\n  @id:a @MUST @spec:x @since:1999-01-01\n  Scenario: s\n    Given a session\n";
        assert!(plan_of(bad).unwrap_err().starts_with("@since:1999-01-01: "), "{:?}", plan_of(bad));
    }

    #[test]
    fn a_session_declaring_client_capabilities_makes_a_persona_scenario() {
        let persona = "Feature: f\n\n  @id:a @MUST @spec:x\n  Scenario: s\n    Given an initialized session declaring the client capabilities\n      \"\"\"\n      {\"sampling\": {}}\n      \"\"\"\n";
        assert!(plan_of(persona).unwrap().persona);
        let plain = "Feature: f\n\n  @id:a @MUST @spec:x\n  Scenario: s\n    Given an initialized session\n";
        assert!(!plan_of(plain).unwrap().persona);
    }

    /// A revision-independent run's entry, copied to each revision it stands for, cites that
    /// revision's clause for the scenario's own checks (2024-11-05's own layout included) and
    /// keeps the wire's checks at the revision the session ran at.
    #[test]
    fn a_run_standing_for_other_revisions_gives_each_its_entry_citing_its_clause() {
        use mcpspec::judge::verdict::{Check, Verdict};
        let plan = plan_of(
            "Feature: f

  @id:a/b @MUST @spec:basic/index.mdx#responses @revision-independent
  Scenario: s
    Given a server process
",
        )
        .unwrap();
        assert!(plan.revision_independent && plan.own_process);
        let run = ScenarioRun {
            plan: Arc::new(plan.clone()),
            revision: Revision::V2025_11_25,
            order: (3, 7, 3),
            alone: None,
            stands_for: vec![(Revision::V2024_11_05, 0), (Revision::V2025_06_18, 2)],
        };
        let wire_spec = Revision::V2025_11_25.doc("basic/index.mdx");
        let report = ScenarioReport {
            id: plan.id.clone(),
            name: plan.name.clone(),
            feature: plan.feature.clone(),
            revision: "2025-11-25".into(),
            transport: "stdio",
            era: Revision::V2025_11_25.era().name(),
            level: plan.level,
            spec: plan.spec(Revision::V2025_11_25),
            tags: plan.tags.clone(),
            verdict: Verdict::Failed,
            reason: None,
            baseline: None,
            checks: vec![
                Check::judge("a/b", Level::MUST, plan.spec(Revision::V2025_11_25), false, "x", "y"),
                Check::judge("jsonrpc/envelope", Level::MUST, wire_spec.clone(), true, "x", "y"),
            ],
            duration_ms: 12,
            shutdown: None,
            session: Some("its process, handed on".into()),
            stderr: None,
            transcript: None,
            order: run.order,
        };
        let entries = run.standing_entries(&report);
        let at: Vec<(&str, (usize, usize, usize))> =
            entries.iter().map(|e| (e.revision.as_str(), e.order)).collect();
        assert_eq!(at, [("2024-11-05", (3, 7, 0)), ("2025-06-18", (3, 7, 2))]);
        let first = &entries[0];
        assert_eq!(first.verdict, Verdict::Failed);
        assert_eq!(first.spec, "docs/specification/2024-11-05/basic/messages.mdx#responses");
        assert_eq!(first.checks[0].spec, "docs/specification/2024-11-05/basic/messages.mdx#responses");
        assert_eq!(first.checks[1].spec, wire_spec, "the wire's checks stay where the session ran");
        assert_eq!(entries[1].checks[0].spec, "docs/specification/2025-06-18/basic/index.mdx#responses");
        let session = first.session.as_deref().unwrap();
        assert!(
            session.starts_with("not run at 2024-11-05: ") && session.contains("its run at 2025-11-25"),
            "{session}"
        );
        assert!(session.ends_with("that run: its process, handed on"), "{session}");
    }
}
