//! `report.html`: one self-contained page (no network: no CDN, no font, no fetch) made from a
//! `report.json` value. The verdict is written here as static HTML, so it reads without
//! JavaScript; the report itself is embedded as JSON in a `<script type="application/json">`
//! block, from which the page's inline script draws the scenario × revision matrix, its
//! filters (kept in the URL's hash, so a filtered view can be linked) and, per scenario, its
//! checks and wire transcript as a two-lane sequence diagram.
//!
//! The page works from the JSON value rather than from [`Report`](super::Report), so it renders
//! any report.json, including ones written before a field existed: every field it reads may be
//! absent.

use serde_json::Value;
use std::fmt::Write as _;

/// The page around the report: `{{slot}}`s are filled once, in one pass, by [`render`].
const PAGE: &str = include_str!("html/page.html");
const STYLE: &str = include_str!("html/report.css");
const SCRIPT: &str = include_str!("html/report.js");

/// The whole page for a report.json value.
pub fn render(report: &Value) -> String {
    page(report, &serde_json::to_string(report).unwrap_or_else(|_| "null".into()))
}

/// The whole page for a report: `head`, the report.json value whose facts the header shows
/// (its scenarios may be left out), and `report_json`, the whole report.json text embedded for
/// the page's script.
pub fn page(head: &Value, report_json: &str) -> String {
    let title = title(head);
    let header = header(head);
    let json = embedded_json(report_json);
    let mut out = String::with_capacity(PAGE.len() + STYLE.len() + SCRIPT.len() + json.len() * 11 / 10);
    let mut rest = PAGE;
    // One pass over the template: text put into a slot is never scanned again, so a `{{` in
    // the report cannot be taken for a slot.
    while let Some(open) = rest.find("{{") {
        let close = rest[open..].find("}}").map(|c| open + c).unwrap_or(rest.len());
        let name = &rest[open + 2..close];
        out.push_str(&rest[..open]);
        match name {
            "title" => out.push_str(&escape(&title)),
            "style" => out.push_str(STYLE),
            "header" => out.push_str(&header),
            "report" => out.push_str(&json),
            "script" => out.push_str(SCRIPT),
            // Not a slot of ours: kept as written.
            _ => out.push_str(&rest[open..(close + 2).min(rest.len())]),
        }
        rest = &rest[(close + 2).min(rest.len())..];
    }
    out.push_str(rest);
    out
}

/// The report as JSON that cannot end the `<script>` element it sits in: inside a script
/// element only `</script`, `<!--` and `<script` are special, and all of them need a `<`; every
/// `<`, `>` and `&` (which can only occur inside JSON strings) becomes its `\u` escape, which
/// `JSON.parse` reads back to the same text. U+2028 and U+2029 are escaped too, so the text is
/// also a valid JavaScript literal should anyone paste it into a script.
fn embedded_json(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 64);
    for c in text.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
}

/// Text made safe for an HTML text node or a double-quoted attribute.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

fn str_of<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

/// `not_conformant` → `not conformant`: a certification verdict as a person reads it.
fn certification_label(verdict: &str) -> String {
    verdict.replace('_', " ")
}

/// `mcpspec: server — not conformant (2025-06-18), conformant (2025-11-25)`
fn title(report: &Value) -> String {
    let role = str_of(report, "role").unwrap_or("report");
    let verdicts: Vec<String> = report
        .get("certification")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|c| {
            format!(
                "{} ({})",
                certification_label(str_of(c, "verdict").unwrap_or("?")),
                str_of(c, "revision").unwrap_or("?")
            )
        })
        .collect();
    if verdicts.is_empty() {
        format!("mcpspec: {role}")
    } else {
        format!("mcpspec: {role} — {}", verdicts.join(", "))
    }
}

/// `3 passed · 1 failed · …`: the counts of a summary object, the baseline's only when present.
fn counts(summary: &Value) -> String {
    const KEYS: [(&str, &str); 7] = [
        ("passed", "passed"),
        ("failed", "failed"),
        ("warnings", "warnings"),
        ("skipped", "skipped"),
        ("errors", "errors"),
        ("expected_failures", "expected failures"),
        ("stale", "stale"),
    ];
    let mut parts = Vec::new();
    for (key, label) in KEYS {
        if let Some(n) = summary.get(key).and_then(Value::as_u64) {
            parts.push(format!("{n} {label}"));
        }
    }
    parts.join(" · ")
}

fn duration(ms: u64) -> String {
    if ms < 1000 {
        format!("{ms} ms")
    } else {
        format!("{:.1} s", ms as f64 / 1000.0)
    }
}

/// The static part of the page: what ran, against what, and the verdict per revision and
/// transport, with the notices a reader must not miss (interrupted, not tested, baseline).
fn header(report: &Value) -> String {
    let mut h = String::new();
    let role = str_of(report, "role").unwrap_or("?");
    let _ = writeln!(h, "<h1>mcpspec report: {}</h1>", escape(role));

    // What ran, against what.
    h.push_str("<dl class=\"facts\">\n");
    let mut fact = |name: &str, value: String| {
        let _ = writeln!(h, "<div><dt>{name}</dt><dd>{value}</dd></div>");
    };
    if let Some(tool) = report.get("mcpspec") {
        fact(
            "mcpspec",
            escape(&format!(
                "{} {}",
                str_of(tool, "name").unwrap_or("mcpspec"),
                str_of(tool, "version").unwrap_or("?")
            )),
        );
    }
    fact("role", escape(role));
    if let Some(command) = str_of(report, "command") {
        fact(
            if command.starts_with("http://") || command.starts_with("https://") { "URL" } else { "command" },
            format!("<code>{}</code>", escape(command)),
        );
    }
    if let Some(transport) = str_of(report, "transport") {
        fact("transport", escape(transport));
    }
    if let Some(revisions) = report.get("revisions").and_then(Value::as_array) {
        let names: Vec<&str> = revisions.iter().filter_map(Value::as_str).collect();
        fact("revisions", escape(&names.join(", ")));
    }
    if let Some(at) = str_of(report, "started_at") {
        fact("started", format!("<time datetime=\"{0}\">{0}</time>", escape(at)));
    }
    if let Some(ms) = report.get("duration_ms").and_then(Value::as_u64) {
        fact("duration", duration(ms));
    }
    if let Some(set) = report.get("scenario_set") {
        let mut text = str_of(set, "source").unwrap_or("?").to_owned();
        if let Some(n) = set.get("scenarios").and_then(Value::as_u64) {
            let _ = write!(text, ", {n} scenarios");
        }
        let mut selection = Vec::new();
        for (key, flag) in [("scenario", "--scenario"), ("tag", "--tag")] {
            let values = set.get("selection").and_then(|s| s.get(key)).and_then(Value::as_array);
            for v in values.into_iter().flatten().filter_map(Value::as_str) {
                selection.push(format!("{flag} {v}"));
            }
        }
        if !selection.is_empty() {
            let _ = write!(text, ", selected by {}", selection.join(" "));
        }
        fact("scenario set", escape(&text));
    }
    h.push_str("</dl>\n");

    // Notices before the verdict: a verdict of an interrupted run covers only what ran.
    if let Some(signal) = str_of(report, "interrupted") {
        let _ = writeln!(
            h,
            "<p class=\"notice\" role=\"alert\"><strong>Interrupted</strong> by {}: this report \
             holds only the scenarios that ran before.</p>",
            escape(signal)
        );
    }
    if let Some(why) = str_of(report, "not_tested") {
        let _ = writeln!(
            h,
            "<p class=\"notice\" role=\"alert\"><strong>Not tested</strong>: {}</p>",
            escape(why)
        );
    }

    // The verdict, per revision and transport.
    let certification = report.get("certification").and_then(Value::as_array);
    h.push_str("<table class=\"certification\" id=\"certification\">\n<caption>Certification</caption>\n");
    h.push_str(
        "<thead><tr><th scope=\"col\">Revision</th><th scope=\"col\">Transport</th>\
         <th scope=\"col\">Verdict</th><th scope=\"col\">Scenarios</th></tr></thead>\n<tbody>\n",
    );
    match certification {
        Some(entries) if !entries.is_empty() => {
            for c in entries {
                let verdict = str_of(c, "verdict").unwrap_or("?");
                let mut cell = format!("<strong>{}</strong>", escape(&certification_label(verdict)));
                if let Some(reason) = str_of(c, "reason") {
                    let _ = write!(cell, "<br><span class=\"reason\">{}</span>", escape(reason));
                }
                let _ = writeln!(
                    h,
                    "<tr class=\"cert-{}\"><th scope=\"row\">{}{}</th><td>{}</td><td class=\"verdict\">{cell}</td>\
                     <td>{}</td></tr>",
                    escape(verdict),
                    escape(str_of(c, "revision").unwrap_or("?")),
                    str_of(c, "era").map(|e| format!(" <small>({})</small>", escape(e))).unwrap_or_default(),
                    escape(str_of(c, "transport").or(str_of(report, "transport")).unwrap_or("—")),
                    escape(&counts(c.get("summary").unwrap_or(&Value::Null))),
                );
            }
        }
        _ => {
            // A report from before certification verdicts: no verdict is made up here; the
            // counts are the report's own.
            let _ = writeln!(
                h,
                "<tr class=\"cert-none\"><th scope=\"row\">all</th><td>{}</td><td class=\"verdict\">\
                 <strong>no certification in this report</strong></td><td>{}</td></tr>",
                escape(str_of(report, "transport").unwrap_or("—")),
                escape(&counts(report.get("summary").unwrap_or(&Value::Null))),
            );
        }
    }
    h.push_str("</tbody>\n</table>\n");
    if let Some(summary) = report.get("summary") {
        let _ = writeln!(h, "<p class=\"summary\">All scenarios: {}</p>", escape(&counts(summary)));
    }

    // The baseline: what it excused and what it listed that no longer fails.
    if let Some(baseline) = report.get("baseline").filter(|b| b.is_object()) {
        let _ = write!(
            h,
            "<section class=\"baseline\" aria-label=\"Baseline\"><p>Baseline <code>{}</code>{}",
            escape(str_of(baseline, "file").unwrap_or("?")),
            if baseline.get("strict").and_then(Value::as_bool) == Some(true) { " (strict)" } else { "" },
        );
        if let Some(n) = baseline.get("entries").and_then(Value::as_u64) {
            let _ = write!(h, ": {n} entries");
        }
        if let Some(n) =
            report.get("summary").and_then(|s| s.get("expected_failures")).and_then(Value::as_u64)
        {
            let _ = write!(h, ", {n} expected failures");
        }
        h.push_str(".</p>\n");
        for (key, what) in [
            ("stale", "Stale entries (listed, but now passing: remove them)"),
            ("unexercised", "Entries no scenario of this run exercised"),
        ] {
            let entries: Vec<&str> = baseline
                .get(key)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            if entries.is_empty() {
                continue;
            }
            let _ = write!(h, "<p class=\"{key}\">{what}:</p><ul class=\"{key}\">");
            for e in entries {
                let _ = write!(h, "<li><code>{}</code></li>", escape(e));
            }
            h.push_str("</ul>\n");
        }
        h.push_str("</section>\n");
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The slots [`render`] fills.
    const SLOTS: [&str; 5] = ["title", "style", "header", "report", "script"];

    #[test]
    fn every_slot_is_in_the_page_once() {
        for slot in SLOTS {
            assert_eq!(PAGE.matches(&format!("{{{{{slot}}}}}")).count(), 1, "slot {slot}");
        }
        assert_eq!(PAGE.matches("{{").count(), SLOTS.len(), "a slot render does not fill");
    }

    #[test]
    fn the_script_and_style_cannot_end_their_element() {
        // They are pasted into the page as they are.
        assert!(!SCRIPT.to_ascii_lowercase().contains("</script"));
        assert!(!SCRIPT.contains("<!--"));
        assert!(!STYLE.to_ascii_lowercase().contains("</style"));
    }

    #[test]
    fn the_page_asks_the_network_for_nothing() {
        for part in [PAGE, STYLE, SCRIPT] {
            for needle in
                ["http://", "https://", "url(", "@import", "@font-face", "fetch(", "XMLHttpRequest", " src="]
            {
                assert!(!part.contains(needle), "{needle}");
            }
        }
        // And should a report's text ever be taken for markup, the browser refuses to load it.
        assert!(PAGE.contains("content=\"default-src 'none';"));
    }

    #[test]
    fn embedded_json_reads_back_the_same() {
        let v = serde_json::json!({"a": "</script><!-- & \u{2028}\u{2029} <b>", "<k>": [1, 2.5]});
        let text = embedded_json(&v.to_string());
        assert!(!text.contains('<') && !text.contains('>') && !text.contains('&'));
        assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), v);
    }

    #[test]
    fn a_braced_report_text_is_not_taken_for_a_slot() {
        let page = render(&serde_json::json!({"role": "server", "command": "x {{script}} {{title}}"}));
        let first_line = SCRIPT.lines().next().unwrap();
        assert_eq!(page.matches(first_line).count(), 1);
        assert!(page.contains("x {{script}} {{title}}"));
    }
}
