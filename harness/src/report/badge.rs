//! `badge.json`: the certification as a shields.io endpoint badge
//! (<https://shields.io/badges/endpoint-badge>: `schemaVersion`, `label`, `message`, `color`),
//! so a project shows its status with one URL pointing at the file its CI publishes. The
//! message names each revision tested with its verdict; the colour is the worst verdict's.

use super::{Conformance, Report};
use serde_json::{json, Value};

/// How bad a verdict is, for the badge's colour: the worst one colours it.
fn severity(c: Conformance) -> u8 {
    match c {
        Conformance::Conformant => 0,
        Conformance::ConformantWithWarnings => 1,
        Conformance::NotTested => 2,
        Conformance::Inconclusive => 3,
        Conformance::NotConformant => 4,
    }
}

fn mark(c: Conformance) -> &'static str {
    match c {
        Conformance::Conformant => "✓",
        Conformance::ConformantWithWarnings => "✓ (warnings)",
        Conformance::NotConformant => "✗",
        Conformance::NotTested => "not tested",
        Conformance::Inconclusive => "?",
    }
}

pub fn render(report: &Report) -> Value {
    // Revisions not tested say nothing of the implementation (it does not speak them): left
    // out, unless nothing was tested at all.
    let tested: Vec<_> =
        report.certification.iter().filter(|c| c.verdict != Conformance::NotTested).collect();
    let worst = tested.iter().map(|c| c.verdict).max_by_key(|c| severity(*c));
    let (message, color) = match (report.interrupted, worst) {
        (Some(_), _) => ("stopped before the end".to_owned(), "lightgrey"),
        (None, None) => ("not tested".to_owned(), "lightgrey"),
        (None, Some(worst)) => {
            let parts: Vec<String> =
                tested.iter().map(|c| format!("{} {}", c.revision, mark(c.verdict))).collect();
            let color = match worst {
                Conformance::Conformant => "brightgreen",
                Conformance::ConformantWithWarnings => "yellowgreen",
                Conformance::NotConformant => "red",
                Conformance::NotTested | Conformance::Inconclusive => "orange",
            };
            (parts.join(" · "), color)
        }
    };
    json!({
        "schemaVersion": 1,
        "label": format!("MCP {} ({})", report.role, report.transport),
        "message": message,
        "color": color,
    })
}
