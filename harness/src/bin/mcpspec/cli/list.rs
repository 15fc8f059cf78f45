//! `mcpspec list`: every scenario and wire rule, with its level, revisions, transports, tags
//! and clause, as a table for people or JSON for tools. Scenarios come from the same feature
//! files and tag rules the runner uses; wire rules from the catalog the checker judges with.
//! `--coverage` lists the clause inventory's figures instead ([`coverage`]).

pub mod coverage;

use super::parse_revision;
use crate::suite::load::load;
use crate::suite::plan::{transport_carries, TRANSPORTS};
use clap::Args;
use mcpspec::judge::rules::Rule;
use mcpspec::judge::verdict::Level;
use mcpspec_protocol::Revision;
use std::fmt::Write as _;
use std::path::Path;
use std::path::PathBuf;

#[derive(Args)]
pub struct ListArgs {
    /// Only this role's scenarios (default: every role).
    #[arg(long, value_enum)]
    pub role: Option<ListRole>,
    /// Only scenarios that run at this revision (repeatable).
    #[arg(long = "revision", value_name = "R", value_parser = parse_revision)]
    pub revisions: Vec<Revision>,
    /// `table` for people, `json` for tools.
    #[arg(long, value_enum, default_value_t = ListFormat::Table)]
    pub format: ListFormat,
    /// Read the .feature files from DIR instead of the built-in ones.
    #[arg(long, value_name = "DIR")]
    pub scenarios: Option<PathBuf>,
    /// Per revision and area, the MUST and SHOULD clauses of the spec: in all, observable on
    /// the wire, tested by a check; and the observable ones no check tests.
    #[arg(long, conflicts_with_all = ["role", "scenarios"])]
    pub coverage: bool,
}

#[derive(Clone, Copy, clap::ValueEnum)]
pub enum ListRole {
    Server,
    Client,
    AuthorizationServer,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ListFormat {
    Table,
    Json,
}

/// One scenario of a suite as `mcpspec list` shows it: where it applies, what it rests on.
#[derive(Debug, serde::Serialize)]
pub struct Listed {
    pub id: String,
    pub name: String,
    pub role: &'static str,
    pub level: Level,
    pub feature: String,
    /// The revisions it runs at (its `@since`, `@until`, `@except` tags).
    pub revisions: Vec<String>,
    /// The transports it runs over (its `@transport:` tags, and what each revision defines).
    pub transports: Vec<&'static str>,
    pub tags: Vec<String>,
    /// The clause, at the newest revision it runs at.
    pub spec: String,
}

/// Every scenario of the `role` suite (from `dir`, or the built-in ones) that runs at one of
/// `revisions`.
pub fn catalog(
    role: &'static str,
    dir: Option<&Path>,
    revisions: &[Revision],
) -> anyhow::Result<Vec<Listed>> {
    let mut out = Vec::new();
    for plan in load(role, dir)?.iter().flat_map(|f| &f.plans) {
        let at: Vec<Revision> = revisions.iter().copied().filter(|r| plan.applies(*r)).collect();
        let Some(newest) = at.iter().max() else { continue };
        let transports = TRANSPORTS
            .into_iter()
            .filter(|t| plan.on_transport(t))
            .filter(|t| at.iter().any(|r| transport_carries(t, *r).is_none()))
            .collect();
        out.push(Listed {
            id: plan.id.clone(),
            name: plan.name.clone(),
            role,
            level: plan.level,
            feature: plan.feature.clone(),
            revisions: at.iter().map(|r| r.to_string()).collect(),
            transports,
            tags: plan.tags.clone(),
            spec: plan.spec(*newest),
        });
    }
    Ok(out)
}

/// `mcpspec list`.
pub fn run(args: ListArgs) -> u8 {
    let roles: &[&'static str] = match args.role {
        Some(ListRole::Server) => &["server"],
        Some(ListRole::Client) => &["client"],
        Some(ListRole::AuthorizationServer) => &[crate::suite::run::AUTHORIZATION_SERVER],
        None => &["server", "client", crate::suite::run::AUTHORIZATION_SERVER],
    };
    let json = args.format == ListFormat::Json;
    let listed = if args.coverage {
        coverage::coverage(&args.revisions, json)
    } else {
        list(roles, &args.revisions, args.scenarios.as_deref(), json)
    };
    match listed {
        Ok(text) => {
            print!("{text}");
            mcpspec::report::exit::OK
        }
        Err(e) => {
            eprintln!("mcpspec list: {e:#}");
            mcpspec::report::exit::USAGE
        }
    }
}

/// A wire rule as listed: judged on every message of every scenario.
#[derive(serde::Serialize)]
struct ListedRule {
    id: &'static str,
    role: &'static str,
    level: Level,
    /// The level before 2025-06-18, when it was weaker.
    #[serde(skip_serializing_if = "Option::is_none")]
    level_before_2025_06_18: Option<Level>,
    /// The revisions that have it, of those listed.
    revisions: Vec<String>,
    /// The clause, at the newest of those revisions.
    spec: String,
    requirement: &'static str,
}

#[derive(serde::Serialize)]
struct Listing {
    scenarios: Vec<Listed>,
    rules: Vec<ListedRule>,
}

/// The listing of `roles` at `revisions` (all when empty), from `dir` or the built-in
/// scenarios, as `json` or a table.
pub fn list(
    roles: &[&'static str],
    revisions: &[Revision],
    dir: Option<&Path>,
    json: bool,
) -> anyhow::Result<String> {
    let revisions = if revisions.is_empty() { Revision::ALL.to_vec() } else { revisions.to_vec() };
    let mut scenarios = Vec::new();
    for role in roles {
        scenarios.extend(catalog(role, dir, &revisions)?);
    }
    // Wire rules judge whatever the implementation under test sends, in either role; the
    // modern era's client rules judge clients only.
    let rule = |r: &'static Rule, role: &'static str| {
        let at: Vec<Revision> = revisions.iter().copied().filter(|v| r.applies(*v)).collect();
        let newest = at.iter().copied().max()?;
        Some(ListedRule {
            id: r.id,
            role,
            level: r.level,
            level_before_2025_06_18: r.level_before_2025_06_18,
            revisions: at.iter().map(|v| v.to_string()).collect(),
            spec: r.spec(newest),
            requirement: r.requirement,
        })
    };
    let mut rules: Vec<ListedRule> =
        mcpspec::judge::rules::ALL.iter().filter_map(|r| rule(r, "any")).collect();
    if roles.contains(&"client") {
        rules.extend(mcpspec::judge::client::modern::ALL.iter().filter_map(|r| rule(r, "client")));
    }
    let listing = Listing { scenarios, rules };
    if json {
        return Ok(serde_json::to_string_pretty(&listing)? + "\n");
    }
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<7} {:<6} {:<48} {:<34} {:<14} clause",
        "role", "level", "scenario", "revisions", "transports"
    );
    for s in &listing.scenarios {
        let _ = writeln!(
            out,
            "{:<7} {:<6} {:<48} {:<34} {:<14} {}",
            s.role,
            s.level.to_string(),
            s.id,
            span(&s.revisions),
            s.transports.join(","),
            s.spec
        );
    }
    let _ = writeln!(
        out,
        "\n{:<7} {:<6} {:<48} clause  (wire rules: judged on every message)",
        "role", "level", "rule"
    );
    for r in &listing.rules {
        let _ = writeln!(out, "{:<7} {:<6} {:<48} {}", r.role, r.level.to_string(), r.id, r.spec);
    }
    let _ = writeln!(out, "\n{} scenarios, {} wire rules", listing.scenarios.len(), listing.rules.len());
    Ok(out)
}

/// `2024-11-05…2025-11-25` for a run of consecutive revisions, else the list.
fn span(revisions: &[String]) -> String {
    let all: Vec<String> = Revision::ALL.iter().map(|r| r.to_string()).collect();
    let first = revisions.first().and_then(|f| all.iter().position(|a| a == f));
    match first {
        Some(i) if revisions.len() > 2 && all[i..].starts_with(revisions) => {
            format!("{}…{}", revisions[0], revisions[revisions.len() - 1])
        }
        _ => revisions.join(","),
    }
}
