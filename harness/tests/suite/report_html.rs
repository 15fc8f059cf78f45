//! `report.html`: the page is self-contained, its static verdict reads without JavaScript,
//! hostile text in a report stays text, and in a real headless Chromium (Debian's `chromium`,
//! when installed) it loads without an error, shows the verdict, draws one matrix row per
//! scenario and follows a filter given in the URL's hash.

use crate::support::*;
use mcpspec::report::html::render;
use serde_json::{json, Value};
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

/// A report with every field of the contract, the new ones included (baseline, expected
/// failures, a stale entry, an interrupted run, message indices), written by hand, with hostile
/// text in checks, transcripts and stderr.
fn fixture() -> Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/suite/fixtures/report_new_fields.json");
    serde_json::from_str(&std::fs::read_to_string(path).expect("read the fixture"))
        .expect("the fixture is JSON")
}

/// The text of the one `<script type="application/json" id="report">` element.
fn embedded(page: &str) -> &str {
    let open = "<script type=\"application/json\" id=\"report\">";
    let start = page.find(open).expect("the report's script element") + open.len();
    let end = start + page[start..].find("</script>").expect("its end");
    &page[start..end]
}

/// `<header id="verdict">…</header>`: the part of the page written without JavaScript.
fn static_header(page: &str) -> &str {
    let start = page.find("<header id=\"verdict\">").expect("the header");
    let end = start + page[start..].find("</header>").expect("its end") + "</header>".len();
    &page[start..end]
}

#[test]
fn report_html_static_verdict() {
    let page = render(&fixture());
    let header = static_header(&page);
    for text in [
        "<strong>not conformant</strong>",
        "<strong>inconclusive</strong>",
        "1 scenario could not be judged",
        "<strong>Interrupted</strong> by SIGINT",
        "mcpspec 0.1.0",
        "2026-11-25T10:41:07Z",
        "<code>tools/list-paginated</code>",
        "1 expected failures",
    ] {
        assert!(header.contains(text), "{text:?} is not in the header:\n{header}");
    }
    assert!(page
        .contains("<title>mcpspec: server — not conformant (2025-06-18), inconclusive (2025-11-25)</title>"));
    insta::assert_snapshot!(header);
}

#[test]
fn report_html_without_the_new_fields() {
    // A report as mcpspec wrote them before certification, baselines and timing: the page
    // says there is no certification rather than making one up, and keeps the counts.
    let mut old = fixture();
    let top = old.as_object_mut().unwrap();
    for key in ["certification", "baseline", "interrupted", "transport", "started_at", "scenario_set"] {
        top.remove(key);
    }
    top.insert("summary".into(), json!({"passed": 3, "failed": 2, "warnings": 1, "skipped": 1, "errors": 1}));
    let page = render(&old);
    let header = static_header(&page);
    assert!(header.contains("no certification in this report"), "{header}");
    assert!(header.contains("3 passed · 2 failed · 1 warnings · 1 skipped · 1 errors"), "{header}");
    assert!(!header.contains("Interrupted"));
    // Nothing at all: still a page, not a panic.
    let empty = render(&Value::Null);
    assert!(static_header(&empty).contains("no certification in this report"));
}

#[test]
fn report_html_hostile_text_stays_text() {
    let hostile =
        "</script><script>alert(1)</script> <!-- <script> \u{2028}\u{2029} </SCRIPT> <b>&amp;</b> {{script}}";
    let report = json!({
        "role": "server",
        "command": hostile,
        "not_tested": hostile,
        "interrupted": hostile,
        "revisions": [hostile],
        "certification": [{"revision": hostile, "transport": hostile, "verdict": hostile, "reason": hostile, "summary": {}}],
        "baseline": {"file": hostile, "stale": [hostile], "unexercised": [hostile]},
        "scenarios": [{
            "id": hostile, "name": hostile, "revision": hostile, "verdict": "failed", "reason": hostile,
            "stderr": hostile, "tags": [hostile],
            "checks": [{"id": hostile, "verdict": "failed", "expected": hostile, "actual": hostile, "spec": hostile, "message": 0}],
            "transcript": [{"dir": "←", "text": hostile}, {"dir": hostile, "text": hostile}],
        }],
    });
    let page = render(&report);
    // The report reads back whole from its element ...
    let back: Value = serde_json::from_str(embedded(&page)).expect("the embedded report is JSON");
    assert_eq!(back, report);
    // ... and no element was opened or closed by it: the page's three scripts, no more.
    let lower = page.to_ascii_lowercase();
    assert_eq!(lower.matches("<script").count(), 3, "{page}");
    assert_eq!(lower.matches("</script").count(), 3);
    assert!(!embedded(&page).contains('<') && !embedded(&page).contains('\u{2028}'));
    assert!(!static_header(&page).contains("<script"));
}

// ---- In a real browser. ----

const CHROMIUM: &str = "/usr/bin/chromium";
/// A page that has not loaded after this is a failure, and Chromium is killed.
const BROWSER_LIMIT: Duration = Duration::from_secs(30);

/// The DOM of a page after its scripts ran, as `chromium --dump-dom` prints it.
#[derive(Debug)]
struct Dom(String);

impl Dom {
    /// `(id, hidden)` of every row of the scenario matrix.
    fn rows(&self) -> Vec<(String, bool)> {
        let re = regex::Regex::new(r#"<tr data-id="([^"]*)"([^>]*)>"#).unwrap();
        re.captures_iter(&self.0).map(|c| (unescape(&c[1]), c[2].contains("hidden"))).collect()
    }

    fn visible(&self) -> Vec<String> {
        self.rows().into_iter().filter(|(_, hidden)| !hidden).map(|(id, _)| id).collect()
    }
}

fn unescape(attr: &str) -> String {
    attr.replace("&quot;", "\"").replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
}

/// Loads `page` (written to a file of its own) with `hash` in headless Chromium and returns
/// its DOM, or why the page failed: an uncaught error (kept on `<html data-errors>` by the
/// page's first script), any console message (the page logs none, so any is a fault: a CSP
/// refusal, an error), or a script that did not run to its end (no `<html data-ready>`).
fn load(page: &str, hash: &str) -> Result<Dom, String> {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("report.html");
    std::fs::write(&file, page).expect("write the page");
    let profile = dir.path().join("profile");
    let url = format!("file://{}{hash}", file.display());
    let mut command = Command::new(CHROMIUM);
    command
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg("--dump-dom")
        .arg(&url);
    let (status, dom, log) = output_within(command, BROWSER_LIMIT, |_, _| {});
    let Some(status) = status else {
        return Err(format!("chromium did not finish within {BROWSER_LIMIT:?} on {url}\n{log}"));
    };
    if !status.success() {
        return Err(format!("chromium exited with {status} on {url}\n{log}"));
    }
    let console: Vec<&str> = log.lines().filter(|l| l.contains(":CONSOLE")).collect();
    if !console.is_empty() {
        return Err(format!("console messages on {url}:\n{}", console.join("\n")));
    }
    let html_tag =
        &dom[dom.find("<html").ok_or_else(|| format!("no <html> in the DOM of {url}:\n{dom}"))?..];
    let html_tag = &html_tag[..html_tag.find('>').unwrap_or(html_tag.len())];
    if let Some(at) = html_tag.find("data-errors=") {
        return Err(format!("errors on {url}: {}", &html_tag[at..]));
    }
    if !html_tag.contains("data-ready=\"1\"") {
        return Err(format!("the page's script did not finish on {url}: {html_tag}"));
    }
    Ok(Dom(dom))
}

/// `mcpspec server` at two revisions against the reference server with string ids: a report
/// as the binary writes it today.
fn real_report() -> Value {
    let run = run(
        &[
            "server",
            "--revision",
            "2025-06-18",
            "--revision",
            "2025-11-25",
            "--",
            MCPSPEC,
            "reference",
            "server",
            "--fault",
            "stringify-ids",
        ],
        true,
        Duration::from_secs(120),
    );
    assert_eq!(run.code, Some(1), "{}", run.describe());
    run.report.expect("report.json")
}

/// The scenario ids of a report, each once, in order.
/// The scenario ids in the order the page lists them: by the worst verdict of any of their runs
/// (failures first), the suite's order within.
fn ids(report: &Value) -> Vec<String> {
    const WORST_FIRST: [&str; 6] = ["failed", "error", "warning", "expected_failure", "skipped", "passed"];
    let mut out: Vec<(String, usize)> = Vec::new();
    for s in report["scenarios"].as_array().unwrap() {
        let id = s["id"].as_str().unwrap().to_owned();
        let rank = WORST_FIRST.iter().position(|v| s["verdict"] == *v).unwrap_or(WORST_FIRST.len());
        match out.iter_mut().find(|(seen, _)| *seen == id) {
            Some((_, worst)) => *worst = (*worst).min(rank),
            None => out.push((id, rank)),
        }
    }
    // A stable sort keeps the suite's order among scenarios of the same rank.
    out.sort_by_key(|(_, worst)| *worst);
    out.into_iter().map(|(id, _)| id).collect()
}

/// Whether the browser test can run. `.ci/run` installs Chromium and sets
/// `MCPSPEC_REQUIRE_CHROMIUM`: there a missing browser fails the test instead of skipping it.
fn chromium_installed() -> bool {
    if Path::new(CHROMIUM).exists() {
        return true;
    }
    assert!(
        std::env::var_os("MCPSPEC_REQUIRE_CHROMIUM").is_none(),
        "MCPSPEC_REQUIRE_CHROMIUM is set and {CHROMIUM} is missing"
    );
    eprintln!("skipped: chromium not installed ({CHROMIUM}; `apt-get install -y chromium`)");
    false
}

#[test]
fn report_html_in_chromium() {
    if !chromium_installed() {
        return;
    }
    let started = Instant::now();

    // The detector detects: a page with an uncaught error, and one whose script cannot even be
    // parsed, are refused.
    let good = render(&fixture());
    let thrown = good.replacen("</body>", "<script>notAFunction()</script></body>", 1);
    let err = load(&thrown, "").expect_err("an uncaught error is noticed");
    assert!(err.contains("notAFunction"), "{err}");
    let broken = good.replacen("'use strict';", "'use strict'; )(", 1);
    assert_ne!(broken, good);
    load(&broken, "").expect_err("a script that does not parse is noticed");

    // A report of the binary as it is.
    let report = real_report();
    let page = render(&report);
    let dom = load(&page, "").unwrap_or_else(|e| panic!("{e}"));
    let rows = dom.rows();
    assert_eq!(rows.iter().map(|(id, _)| id.clone()).collect::<Vec<_>>(), ids(&report));
    assert!(rows.iter().all(|(_, hidden)| !hidden), "no filter hides nothing");
    let verdict = match report["certification"].as_array() {
        Some(entries) => entries
            .iter()
            .map(|c| format!("<strong>{}</strong>", c["verdict"].as_str().unwrap().replace('_', " ")))
            .collect(),
        None => vec!["<strong>no certification in this report</strong>".to_owned()],
    };
    for v in &verdict {
        assert!(dom.0.contains(v.as_str()), "{v} is not shown");
    }
    assert!(dom.0.contains(&format!("Showing {0} of {0} scenarios", rows.len())));
    // `#verdict=passed`: the rows of scenarios that passed at some revision, the others hidden.
    let passed: Vec<String> = ids(&report)
        .into_iter()
        .filter(|id| {
            report["scenarios"].as_array().unwrap().iter().any(|s| s["id"] == *id && s["verdict"] == "passed")
        })
        .collect();
    let dom = load(&page, "#verdict=passed").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(dom.visible(), passed);
    assert_eq!(dom.rows().len(), ids(&report).len());

    // The hand-written report with every new field.
    let report = fixture();
    let dom = load(&good, "").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(dom.visible(), ids(&report));
    for text in ["<strong>not conformant</strong>", "<strong>inconclusive</strong>", "by SIGINT"] {
        assert!(dom.0.contains(text), "{text} is not shown");
    }
    let dom = load(&good, "#verdict=failed").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(dom.visible(), ["ping/after-initialize", "tools/list-paginated"]);
    let hidden: Vec<String> = dom.rows().into_iter().filter(|r| r.1).map(|r| r.0).collect();
    assert_eq!(hidden, ["resources/subscribe", "lifecycle/initialize-result", "logging/set-level"]);
    // Text, level and tag filters, together.
    let dom = load(&good, "#q=PING&level=MUST&tag=jsonrpc").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(dom.visible(), ["ping/after-initialize"]);
    let dom = load(&good, "#level=SHOULD").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(dom.visible(), ["tools/list-paginated"]);

    // A scenario opened from the hash: its checks, and its transcript as a sequence with the
    // messages its failed checks point at flagged; the hostile text is text.
    let dom = load(&good, "#open=2").unwrap_or_else(|e| panic!("{e}"));
    let detail = &dom.0[dom.0.find("<section id=\"detail\"").unwrap()..];
    assert!(!detail.starts_with("<section id=\"detail\" hidden"), "the detail is open");
    assert!(detail.contains("ping/after-initialize @ 2025-06-18 (http)"));
    assert!(detail.contains(r#"<li id="m1" tabindex="-1" class="in flag">"#), "message 1 is flagged");
    assert!(detail.contains(r#"<li id="m4" tabindex="-1" class="in flag">"#), "message 4 is flagged");
    assert!(detail.contains(r#"<li id="m0" tabindex="-1" class="out">"#), "message 0 is not");
    assert!(detail.contains(r#"<li id="m5" tabindex="-1" class="note">"#));
    assert!(detail.contains("message #1") && detail.contains("+5"), "links and timing");
    assert!(detail.contains("&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert_eq!(dom.0.to_ascii_lowercase().matches("<script").count(), 3, "no script was added");

    // What a reader does, by a script of the test's after the page's own: a click on a cell
    // opens its scenario, unticking "passed" filters; both are written to the hash, so the view
    // can be linked.
    let driven = good.replacen(
        "</body>",
        "<script>\
           document.querySelector('#matrix tbody tr:nth-child(1) td button').click();\
           var box = document.querySelector('#filters input[value=passed]');\
           box.checked = false;\
           box.dispatchEvent(new Event('change'));\
           document.documentElement.setAttribute('data-hash', location.hash);\
         </script></body>",
        1,
    );
    let dom = load(&driven, "").unwrap_or_else(|e| panic!("{e}"));
    assert!(
        dom.0.contains(
            r##"data-hash="#verdict=failed,error,warning,expected_failure,skipped,stale&amp;open=2""##
        ),
        "{}",
        &dom.0[..dom.0.find('>').unwrap()]
    );
    assert!(dom.0.contains("ping/after-initialize @ 2025-06-18 (http)"));
    assert_eq!(dom.visible(), ["ping/after-initialize", "tools/list-paginated", "resources/subscribe"]);

    // A long transcript is drawn a chunk at a time.
    let mut long = fixture();
    let entries: Vec<Value> = (0..5000)
        .map(|i| json!({"dir": if i % 2 == 0 { "→" } else { "←" }, "at_ms": i, "text": format!("{{\"jsonrpc\":\"2.0\",\"id\":{i},\"method\":\"ping\"}}")}))
        .collect();
    long["scenarios"][2]["transcript"] = Value::Array(entries);
    let opened = Instant::now();
    let dom = load(&render(&long), "#open=2").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(dom.0.matches("<li id=\"m").count(), 200, "the first chunk only");
    assert!(dom.0.contains("4800 more entries"));
    eprintln!("a 5000-entry transcript opened in {:?}", opened.elapsed());
    // A check's link to a message beyond the first chunk draws up to it and goes there.
    long["scenarios"][2]["checks"][2]["message"] = json!(4000);
    let driven = render(&long).replacen(
        "</body>",
        "<script>\
           var links = document.querySelectorAll('.checks button.link');\
           links[links.length - 1].click();\
         </script></body>",
        1,
    );
    let dom = load(&driven, "#open=2").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(dom.0.matches("<li id=\"m").count(), 4001, "drawn up to the message");
    assert!(dom.0.contains(r#"<li id="m4000" tabindex="-1" class="out flag focus">"#), "flagged and focused");

    eprintln!("report_html_in_chromium: {:?}", started.elapsed());
}
