//! Loading a suite: the `.feature` files of a role, built into the binary from `scenarios/` or
//! read from `--scenarios DIR`, parsed, their outlines expanded, and each scenario's tags read
//! once into its [`ScenarioPlan`].

use super::plan::ScenarioPlan;
use cucumber::feature::Ext as _;
use cucumber::gherkin::{self, GherkinEnv};
use include_dir::{include_dir, Dir};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The scenarios shipped inside the binary.
static SCENARIOS: Dir<'_> = include_dir!("$CARGO_MANIFEST_DIR/scenarios");

/// A parsed feature, outlines expanded, with the plan of each of its scenarios (in the same
/// order as `feature.scenarios`).
#[derive(Debug, Clone)]
pub struct LoadedFeature {
    pub feature: gherkin::Feature,
    pub plans: Vec<Arc<ScenarioPlan>>,
}

impl LoadedFeature {
    /// Each scenario with its plan.
    pub fn scenarios(&self) -> impl Iterator<Item = (&gherkin::Scenario, &Arc<ScenarioPlan>)> {
        self.feature.scenarios.iter().zip(&self.plans)
    }
}

/// The `role` suite (`server` or `client`): from `dir` (its `role` folder, or `dir` itself),
/// else the built-in scenarios.
pub fn load(role: &str, dir: Option<&Path>) -> anyhow::Result<Vec<LoadedFeature>> {
    sources(role, dir)?.iter().map(parse).collect()
}

/// A feature file: its path under `scenarios/` and its text.
struct Source {
    path: String,
    text: String,
}

fn sources(role: &str, dir: Option<&Path>) -> anyhow::Result<Vec<Source>> {
    let mut out = Vec::new();
    match dir {
        Some(dir) => {
            let base = dir.join(role);
            let base = if base.is_dir() { base } else { dir.to_path_buf() };
            let entries = std::fs::read_dir(&base)
                .map_err(|e| anyhow::anyhow!("cannot read the scenario folder {}: {e}", base.display()))?;
            for entry in entries {
                let path = entry?.path();
                if path.extension().is_some_and(|e| e == "feature") {
                    let text = std::fs::read_to_string(&path)
                        .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", path.display()))?;
                    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
                    out.push(Source { path: format!("{role}/{name}"), text });
                }
            }
        }
        None => {
            let folder = SCENARIOS.get_dir(role).into_iter().flat_map(|d| d.files());
            for file in folder.filter(|f| f.path().extension().is_some_and(|e| e == "feature")) {
                let text = file.contents_utf8().unwrap_or_default().to_owned();
                out.push(Source { path: file.path().to_string_lossy().into_owned(), text });
            }
        }
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    if out.is_empty() {
        anyhow::bail!("no .feature files for the {role} suite were found");
    }
    Ok(out)
}

/// Parses a feature file, expands its outlines and plans each scenario.
fn parse(source: &Source) -> anyhow::Result<LoadedFeature> {
    let path = &source.path;
    let mut feature = gherkin::Feature::parse(&source.text, GherkinEnv::default())
        .map_err(|e| anyhow::anyhow!("scenarios/{path}: {e}"))?;
    feature.path = Some(PathBuf::from(path));
    let feature = feature.expand_examples().map_err(|e| anyhow::anyhow!("scenarios/{path}: {e}"))?;
    let plans = feature
        .scenarios
        .iter()
        .map(|s| {
            ScenarioPlan::read(path, &feature.tags, s)
                .map(Arc::new)
                .map_err(|e| anyhow::anyhow!("scenarios/{path} line {}: {e}", s.position.line))
        })
        .collect::<anyhow::Result<_>>()?;
    Ok(LoadedFeature { feature, plans })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::suite::plan::{transport_carries, TRANSPORTS};
    use mcpspec_protocol::Revision;

    #[test]
    fn every_embedded_scenario_has_id_level_and_spec() {
        for (role, at_least) in [("server", 10), ("client", 8), ("authorization-server", 8)] {
            let features = load(role, None).unwrap();
            let mut ids: Vec<&str> = features.iter().flat_map(|f| &f.plans).map(|p| p.id.as_str()).collect();
            let total = ids.len();
            assert!(total >= at_least, "{total} {role} scenarios");
            ids.sort();
            ids.dedup();
            assert_eq!(ids.len(), total, "scenario ids must be unique");
        }
    }

    /// The pages and heading anchors of a revision, from `../shared/spec-index/<revision>.json`
    /// (the spec's own pages at the commit mcpspec follows); `None` when the folder is absent.
    fn spec_index(revision: Revision) -> Option<std::collections::HashMap<String, Vec<String>>> {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/spec-index");
        let text = std::fs::read_to_string(dir.join(format!("{revision}.json"))).ok()?;
        let index: serde_json::Value = serde_json::from_str(&text).expect("the spec index is JSON");
        serde_json::from_value(index["pages"].clone()).ok()
    }

    /// Why `spec` (`docs/specification/<revision>/page.mdx#anchor`) names no page or heading of
    /// `pages`, if it does not.
    fn missing(pages: &std::collections::HashMap<String, Vec<String>>, spec: &str) -> Option<String> {
        let path =
            spec.strip_prefix("docs/specification/").and_then(|p| p.split_once('/')).map_or(spec, |(_, p)| p);
        let (page, anchor) = path.split_once('#').map_or((path, None), |(p, a)| (p, Some(a)));
        match (pages.get(page), anchor) {
            (None, _) => Some(format!("no page {page}")),
            (Some(anchors), Some(a)) if !anchors.iter().any(|x| x == a) => {
                Some(format!("no heading #{a} on {page}"))
            }
            _ => None,
        }
    }

    /// Every clause a scenario or a wire rule cites names a page and heading that exist at each
    /// revision it applies to (issue #27: two rules cited `client/sampling.mdx#tool-use`, a
    /// heading no revision has, and two others sections the modern era removed).
    #[test]
    fn every_cited_clause_exists_in_its_revision() {
        let mut wrong = Vec::new();
        for revision in Revision::ALL {
            let Some(pages) = spec_index(revision) else {
                eprintln!("../shared/spec-index is absent: skipped");
                return;
            };
            for role in ["server", "client", "authorization-server"] {
                let runs_at = |p: &ScenarioPlan| {
                    p.applies(revision)
                        && TRANSPORTS
                            .iter()
                            .any(|t| p.on_transport(t) && transport_carries(t, revision).is_none())
                };
                for plan in load(role, None).unwrap().iter().flat_map(|f| &f.plans).filter(|p| runs_at(p)) {
                    if let Some(why) = missing(&pages, &plan.spec(revision)) {
                        wrong.push(format!("{revision} {role} {}: {why}", plan.id));
                    }
                }
            }
            let rules = mcpspec::judge::rules::ALL.iter().chain(mcpspec::judge::client::modern::ALL);
            for rule in rules.filter(|r| r.applies(revision)) {
                if let Some(why) = missing(&pages, &rule.spec(revision)) {
                    wrong.push(format!("{revision} rule {}: {why}", rule.id));
                }
            }
        }
        assert!(wrong.is_empty(), "{} citations name nothing:\n{}", wrong.len(), wrong.join("\n"));
    }

    /// Every clause a scenario or a wire rule cites at 2026-07-28 is a page of 2026-07-28 (the
    /// era moved and removed pages: `Revision::doc` follows them).
    #[test]
    fn every_clause_cited_at_2026_is_a_page_of_2026() {
        use mcpspec_protocol::revision::is_page_2026;
        let modern = Revision::V2026_07_28;
        for role in ["server", "client", "authorization-server"] {
            for plan in load(role, None).unwrap().iter().flat_map(|f| &f.plans).filter(|p| p.applies(modern))
            {
                assert!(is_page_2026(&plan.spec(modern)), "{role} {}: {}", plan.id, plan.spec(modern));
            }
        }
        let rules = mcpspec::judge::rules::ALL.iter().chain(mcpspec::judge::client::modern::ALL);
        // A rule that ends before 2026-07-28 (2025-11-25's tasks) cites nothing there.
        for rule in rules.filter(|r| r.applies(modern)) {
            assert!(is_page_2026(&rule.spec(modern)), "{}: {}", rule.id, rule.spec(modern));
        }
    }
}
