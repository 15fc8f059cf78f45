//! `mcpspec list --coverage`: per revision and area, how many MUST and SHOULD clauses the spec
//! has, how many can be observed on the wire, and how many a check tests, from the clause
//! inventory (`mcpspec::judge::clauses`); the observable ones no check tests are listed.
//!
//! The tests here hold the inventory to the checks that exist: only the binary knows the
//! scenarios, so this is where a clause naming an unknown check, a check at a revision it does
//! not run at, or a check no clause names is caught.

use mcpspec::judge::clauses::{Coverage, Figures, Inventory};
use mcpspec_protocol::Revision;
use std::fmt::Write as _;

/// One revision's figures as `--format json` prints them.
#[derive(serde::Serialize)]
struct RevisionFigures<'a> {
    revision: &'a str,
    #[serde(flatten)]
    all: Figures,
    areas: std::collections::BTreeMap<&'a str, Figures>,
    /// The observable MUST and SHOULD clauses no check tests: id, level, reason.
    untested: Vec<Untested<'a>>,
}

#[derive(serde::Serialize)]
struct Untested<'a> {
    id: &'a str,
    level: mcpspec::judge::clauses::ClauseLevel,
    doc: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<&'a str>,
}

/// The coverage of `revisions` (all when empty) as a table or JSON.
pub fn coverage(revisions: &[Revision], json: bool) -> anyhow::Result<String> {
    let revisions = if revisions.is_empty() { Revision::ALL.to_vec() } else { revisions.to_vec() };
    let mut all = Vec::new();
    for r in &revisions {
        let inv = Inventory::of(*r).map_err(|e| anyhow::anyhow!("{e}"))?;
        all.push(inv.coverage());
    }
    if json {
        let out: Vec<RevisionFigures> = all.iter().map(figures).collect();
        return Ok(serde_json::to_string_pretty(&out)? + "\n");
    }
    let mut out = String::new();
    for cov in &all {
        table(&mut out, cov);
    }
    Ok(out)
}

fn figures<'a>(cov: &Coverage<'a>) -> RevisionFigures<'a> {
    RevisionFigures {
        revision: cov.revision,
        all: cov.all,
        areas: cov.areas.clone(),
        untested: cov
            .untested
            .iter()
            .map(|c| Untested { id: &c.id, level: c.level, doc: &c.doc, reason: c.reason.as_deref() })
            .collect(),
    }
}

/// One revision: a row per area, a total, then the untested clauses.
fn table(out: &mut String, cov: &Coverage) {
    let _ = writeln!(out, "{}", cov.revision);
    let _ = writeln!(
        out,
        "  {:<18} {:>10} {:>10} {:>10} {:>7}   {:>10} {:>10} {:>10}",
        "area", "MUST", "observable", "tested", "%", "SHOULD", "observable", "tested"
    );
    let row = |out: &mut String, area: &str, f: &Figures| {
        // A share of nothing observable is no share at all.
        let percent = match f.must.observable {
            0 => "-".to_string(),
            _ => format!("{:.1}%", f.must.percent()),
        };
        let _ = writeln!(
            out,
            "  {:<18} {:>10} {:>10} {:>10} {:>7}   {:>10} {:>10} {:>10}",
            area,
            f.must.total,
            f.must.observable,
            f.must.tested,
            percent,
            f.should.total,
            f.should.observable,
            f.should.tested
        );
    };
    for (area, f) in &cov.areas {
        row(out, area, f);
    }
    row(out, "all", &cov.all);
    if !cov.untested.is_empty() {
        let _ = writeln!(out, "  untested (observable, MUST and SHOULD):");
        for c in &cov.untested {
            let level = serde_json::to_value(c.level).ok();
            let level = level.as_ref().and_then(|v| v.as_str()).unwrap_or("?");
            let _ = writeln!(out, "    {:<10} {:<52} {}", level, c.id, c.doc);
        }
    }
    let _ = writeln!(out);
}

/// Every check id (scenario ids without outline suffixes, wire-rule ids), with the revisions it
/// runs at; wire rules judge every message, so they run at every revision.
#[cfg(test)]
pub fn known_checks() -> anyhow::Result<std::collections::BTreeMap<String, Vec<Revision>>> {
    let mut known: std::collections::BTreeMap<String, Vec<Revision>> = Default::default();
    for role in ["server", "client", crate::suite::run::AUTHORIZATION_SERVER] {
        for s in super::catalog(role, None, &Revision::ALL)? {
            let base = s.id.split_once('[').map_or(s.id.as_str(), |(b, _)| b).to_string();
            let at = known.entry(base).or_default();
            at.extend(s.revisions.iter().filter_map(|r| r.parse::<Revision>().ok()));
        }
    }
    let rules = mcpspec::judge::rules::ALL.iter().chain(mcpspec::judge::client::modern::ALL);
    for rule in rules {
        known.entry(rule.id.to_string()).or_default().extend(Revision::ALL);
    }
    Ok(known)
}

/// The row of `revision` in README.md's coverage table, as README's jq one-liner prints it from
/// `--format json` (the share is truncated to one decimal, as jq's `floor` does).
#[cfg(test)]
fn readme_row(revision: Revision) -> String {
    let f = Inventory::of(revision).unwrap().coverage().all;
    let per_mille = (f.must.tested * 1000).checked_div(f.must.observable).unwrap_or(1000);
    format!(
        "| {revision} | {} | {} | {} | {}.{}% | {} | {} | {} |",
        f.must.total,
        f.must.observable,
        f.must.tested,
        per_mille / 10,
        per_mille % 10,
        f.should.total,
        f.should.observable,
        f.should.tested
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// README.md's coverage table is the command's output: regenerate it with the one-liner
    /// README gives when the inventory changes.
    #[test]
    fn the_readme_table_is_current() {
        let readme = include_str!("../../../../../../README.md");
        for r in Revision::ALL {
            let row = readme_row(r);
            assert!(
                readme.contains(&row),
                "README.md lacks the current coverage row\n{row}\n(regenerate the table)"
            );
        }
    }

    /// Checks that rest on no keyword sentence of the spec, so no clause names them, each with
    /// its reason. A check leaves this list when a clause comes to name it.
    const NAMED_BY_NO_CLAUSE: &[(&str, &str)] = &[
        ("fixture/simple-text", "exercises the official conformance fixture's tool, not a clause"),
        ("fixture/prompt-with-arguments", "exercises the official conformance fixture's prompt"),
        ("fixture/watched-resource", "exercises the official conformance fixture's resource"),
        ("fixture/sampling", "exercises the official conformance fixture's sampling tool"),
        ("fixture/elicitation", "exercises the official conformance fixture's elicitation tool"),
        ("completion/at-most-100", "the schema's bound on completion values, not a keyword sentence"),
        (
            "completion/template-at-most-100",
            "the schema's bound on completion values, not a keyword sentence",
        ),
        ("resources/read", "the shape of resources/read results: schema, not a keyword sentence"),
        ("resources/subscribe", "the subscribe round trip: the page describes it without a keyword"),
        ("tools/unknown-tool", "the error for an unknown tool is an example on the page, not a rule"),
        ("logging/level-filter", "the page describes level filtering without a keyword"),
        ("lifecycle/request-before-initialize", "JSON-RPC robustness before initialize, no keyword sentence"),
        ("lifecycle/second-initialize", "a second initialize: the spec does not say; robustness"),
        ("jsonrpc/batch-rejected", "batches outside 2025-03-26: JSON-RPC robustness, no keyword sentence"),
        ("http/accept-honoured", "the answer's content type matches the Accept header: HTTP, not MCP"),
        ("http/unknown-session-404", "an id the server never issued: the spec speaks of ended sessions only"),
        ("client-http/get-405", "a client tolerating 405 on GET: the page says MAY of the server only"),
        ("mrtr/several-inputs", "several input requests in one result: a worked example, no keyword"),
        ("stdio/message-size-limit", "mcpspec's own reading limit; the spec sets none"),
        (
            "client-authorization/token-endpoint-auth",
            "OAuth 2.1 section 2.4's client authentication, by the method registered (RFC 7591 section 2); MCP's pages defer to OAuth 2.1 with no sentence of their own",
        ),
        (
            "authorization-server/resource-audience",
            "RFC 8707 section 2's SHOULD on the authorization server; MCP's pages require `resource` of clients only",
        ),
    ];

    #[test]
    fn every_check_a_clause_names_exists_and_runs_at_its_revision() {
        let known = known_checks().unwrap();
        for r in Revision::ALL {
            for c in &Inventory::of(r).unwrap().clauses {
                for check in &c.checks {
                    let at = known.get(check);
                    assert!(at.is_some(), "{r}: clause {} names {check}, which is no check", c.id);
                    assert!(
                        at.into_iter().flatten().any(|x| *x == r),
                        "{r}: clause {} names {check}, which does not run at {r}",
                        c.id
                    );
                }
            }
        }
    }

    #[test]
    fn every_check_is_named_by_a_clause_or_says_why_not() {
        let known = known_checks().unwrap();
        let named: std::collections::HashSet<&str> = Revision::ALL
            .iter()
            .flat_map(|r| &Inventory::of(*r).unwrap().clauses)
            .flat_map(|c| c.checks.iter().map(String::as_str))
            .collect();
        for id in known.keys() {
            let excused = NAMED_BY_NO_CLAUSE.iter().any(|(x, _)| x == id);
            assert!(named.contains(id.as_str()) || excused, "check {id} is named by no clause");
            assert!(
                !(named.contains(id.as_str()) && excused),
                "{id} is named by a clause: drop it from the list"
            );
        }
        for (id, reason) in NAMED_BY_NO_CLAUSE {
            assert!(known.contains_key(*id), "{id}: listed as named by no clause, but no such check");
            assert!(!reason.is_empty());
        }
    }

    #[test]
    fn prints_a_table_and_json_with_the_figures_per_revision() {
        let json = coverage(&[Revision::V2025_06_18, Revision::V2026_07_28], true).unwrap();
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        let revs = v.as_array().unwrap();
        assert_eq!(revs.len(), 2);
        assert_eq!(revs[0]["revision"], "2025-06-18");
        for r in revs {
            for level in ["must", "should"] {
                let (t, o, x) = (&r[level]["total"], &r[level]["observable"], &r[level]["tested"]);
                let (t, o, x) = (t.as_u64().unwrap(), o.as_u64().unwrap(), x.as_u64().unwrap());
                assert!(t >= o && o >= x && x > 0, "{r}");
            }
        }
        let inv = Inventory::of(Revision::V2026_07_28).unwrap();
        assert_eq!(
            revs[1]["must"]["total"].as_u64().unwrap() as usize,
            inv.clauses.iter().filter(|c| c.level.is_must()).count()
        );
        let untested = revs[1]["untested"].as_array().unwrap();
        assert_eq!(untested.len(), inv.coverage().untested.len());

        let table = coverage(&[Revision::V2026_07_28], false).unwrap();
        assert!(table.starts_with("2026-07-28\n"), "{table}");
        let total = inv.coverage().all;
        let all = table.lines().find(|l| l.trim_start().starts_with("all ")).unwrap();
        let cells: Vec<&str> = all.split_whitespace().collect();
        assert_eq!(
            cells[1..4],
            [total.must.total, total.must.observable, total.must.tested].map(|n| n.to_string())
        );
        if let Some(first) = inv.coverage().untested.first() {
            assert!(table.contains(&first.id), "{table}");
        }
    }
}
