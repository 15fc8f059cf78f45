//! Verdicts a certifier can trust: no pass where nothing was tested, no failure where nothing
//! was broken. Each test runs a peer that once got the wrong verdict.

use crate::support::*;
use std::time::Duration;

/// A server that never agrees on a revision (it counter-offers another supported one whatever
/// it is offered) once ended with every scenario skipped and exit 0. Its counter-offers are now
/// taken at their word and fail when offered back.
#[test]
fn a_server_that_always_counter_offers_fails_version_negotiation() {
    let run = certify_reference(Some("counter-offer-always"), &["--timeout", "2"], Duration::from_secs(120));
    assert_eq!(run.code, Some(1), "a broken MUST exits 1\n{}", run.describe());
    let failed: Vec<_> = run
        .checks()
        .into_iter()
        .filter(|(id, _, c)| id == "version/answer-supported" && c["verdict"] == "failed")
        .collect();
    // Offered each of the four legacy revisions, it answered with another one, which it then
    // did not echo either.
    let revisions: std::collections::BTreeSet<_> = failed.iter().map(|(_, r, _)| r.clone()).collect();
    assert_eq!(revisions.len(), 4, "{failed:#?}\n{}", run.describe());
    let c = &failed[0].2;
    assert_eq!(c["level"], "MUST");
    assert!(c["spec"].as_str().unwrap().ends_with("basic/lifecycle.mdx#version-negotiation"), "{c}");
    assert!(c["expected"].as_str().unwrap().starts_with("\"protocolVersion\": \""), "{c}");
    // Nothing passed in the legacy era; the modern one, without initialize, is untouched.
    let passed = run.report.as_ref().unwrap()["scenarios"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["verdict"] == "passed")
        .cloned()
        .collect::<Vec<_>>();
    assert!(!passed.is_empty() && passed.iter().all(|s| s["era"] == "modern"), "{}", run.describe());
    assert_no_leftovers(&run.marker);
}

/// A stand-in for a server of a revision mcpspec does not try by default: it answers every
/// initialize with "2099-01-01" (echoing it when offered), and pings with {}.
const FUTURE_SERVER: &str = r#"
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if "id" not in m or "method" not in m:
        continue
    if m["method"] == "initialize":
        result = {"protocolVersion": "2099-01-01", "capabilities": {},
                  "serverInfo": {"name": "future", "version": "1"}}
    else:
        result = {}
    print(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": result}), flush=True)
"#;

/// A consistent server that speaks none of the revisions tried: its counter-offer holds up, but
/// nothing else could be tested, so the run has no verdict — never exit 0, never "passed" alone.
#[test]
fn a_run_that_tests_no_revision_has_no_verdict() {
    let run = run(
        &["server", "--timeout", "2", "--", "python3", "-c", FUTURE_SERVER],
        true,
        Duration::from_secs(120),
    );
    assert_eq!(run.code, Some(4), "nothing tested exits 4\n{}", run.describe());
    let report = run.report.as_ref().expect("report.json");
    let why = report["not_tested"].as_str().expect("report.json says why nothing was tested");
    assert!(why.contains("counter-offered \"2099-01-01\""), "{why}");
    assert!(run.stdout.contains("not tested: no revision could be tested"), "{}", run.describe());
    // The one judged scenario per revision: the counter-offer, offered back, is echoed.
    let judged: Vec<_> =
        run.checks().into_iter().filter(|(id, _, _)| id == "version/answer-supported").collect();
    assert!(judged.len() >= 4 && judged.iter().all(|(_, _, c)| c["verdict"] == "passed"), "{judged:#?}");
    assert_eq!(run.summary("failed"), 0, "{}", run.describe());
    // Those passes certify no revision: each tried one is "not tested", in every format (it
    // once read "conformant (1 scenario(s) passed, 73 skipped)").
    let certification = report["certification"].as_array().expect("a certification per revision");
    assert!(!certification.is_empty());
    for c in certification {
        assert_eq!(c["verdict"], "not_tested", "{c:#}");
        assert!(c["reason"].as_str().unwrap().contains("does not speak"), "{c:#}");
    }
    assert!(!run.stdout.contains(": conformant"), "{}", run.describe());
    assert_no_leftovers(&run.marker);
}

/// A modern server that ends a subscription on its own names the listen request in
/// notifications/cancelled, as 2026-07-28 basic/patterns/cancellation.mdx requires; the checker
/// once flagged every notifications/cancelled a modern server sent (cancellation/in-flight-only).
/// Here the server ends each subscription right after acknowledging it.
#[test]
fn a_server_that_ends_a_subscription_is_innocent() {
    let args = [
        "server",
        "--verbose",
        "--timeout",
        "2",
        "--revision",
        "2026-07-28",
        "--scenario",
        "subscriptions/filter-*",
        "--",
        MCPSPEC,
        "reference",
        "server",
        "--listen-lifetime",
        "0",
    ];
    let run = run(&args, true, Duration::from_secs(120));
    assert_eq!(run.code, Some(0), "{}", run.describe());
    // The server did end a subscription (the live wire log shows what it sent).
    assert!(run.stdout.contains("the server ended the subscription"), "{}", run.describe());
    let cancels: Vec<_> =
        run.checks().into_iter().filter(|(_, _, c)| c["id"] == "cancellation/in-flight-only").collect();
    assert!(cancels.iter().all(|(_, _, c)| c["verdict"] == "passed"), "{cancels:#?}");
    assert_no_leftovers(&run.marker);
}

/// The same server ending its subscriptions with a completion result alone
/// (subscriptions.mdx#graceful-closure) and no notifications/cancelled (cancellation.mdx, MUST):
/// the pages disagree, so it is warned, citing both, not failed.
#[test]
fn a_subscription_ended_by_a_result_alone_is_warned() {
    let args = [
        "server",
        "--timeout",
        "2",
        "--revision",
        "2026-07-28",
        "--scenario",
        "subscriptions/filter-*",
        "--",
        MCPSPEC,
        "reference",
        "server",
        "--listen-lifetime",
        "0",
        "--fault",
        "modern-listen-ends-with-result",
    ];
    let run = run(&args, true, Duration::from_secs(120));
    let warned: Vec<_> = run
        .checks()
        .into_iter()
        .filter(|(_, _, c)| c["id"] == "subscriptions/end-cancelled" && c["verdict"] == "warning")
        .collect();
    assert!(!warned.is_empty(), "{}", run.describe());
    assert_eq!(run.code, Some(0), "{}", run.describe());
    assert_no_leftovers(&run.marker);
}

/// A modern server pushing `notifications/tools/list_changed` on a subscription that asked for
/// something else was seen only where the fixture's watched resource exists: each kind of
/// notification alone, and one resource's updates alone, show it on any server now.
#[test]
fn a_subscription_filter_is_judged_kind_by_kind() {
    let extra = ["--timeout", "2", "--revision", "2026-07-28", "--scenario", "subscriptions/filter-*"];
    let run = certify_reference(Some("modern-listen-unrequested"), &extra, Duration::from_secs(120));
    let failed = failed_in(&run, "subscriptions/only-requested");
    for s in [
        "subscriptions/filter-alone[promptsListChanged]",
        "subscriptions/filter-alone[resourcesListChanged]",
        "subscriptions/filter-resources-only",
    ] {
        assert!(failed.iter().any(|f| f == s), "{s} not caught: {failed:?}\n{}", run.describe());
    }
    assert!(!failed.iter().any(|f| f == "subscriptions/filter-alone[toolsListChanged]"), "{failed:?}");
    let clean = certify_reference(None, &extra, Duration::from_secs(120));
    assert_eq!(clean.code, Some(0), "{}", clean.describe());
}

/// `tools/structured-output` once failed a tool that rightly answered arguments it refused
/// with an error result (mcp-server-time, called with a made-up timezone): the output schema
/// binds successful results only, so the check is inconclusive, never failed.
#[test]
fn an_error_result_leaves_structured_output_inconclusive() {
    let run = certify_reference(
        Some("output-tool-refuses"),
        &["--timeout", "2", "--revision", "2025-11-25"],
        Duration::from_secs(120),
    );
    let scenario = run.scenarios("tools/structured-output").pop();
    let scenario = scenario.unwrap_or_else(|| panic!("no tools/structured-output\n{}", run.describe()));
    assert_eq!(scenario["verdict"], "skipped", "{scenario:#}");
    assert!(scenario["reason"]
        .as_str()
        .unwrap()
        .starts_with("inconclusive: the tool answered with an error result"));
    assert_eq!(run.code, Some(0), "{}", run.describe());
}

/// Runs the server suite at 2025-11-25 against the reference server with `fault`; `extra`
/// arguments come first.
fn certify_at_latest(fault: &str, extra: &[&str]) -> Run {
    let mut args = vec!["--timeout", "2", "-j", "8", "--revision", "2025-11-25"];
    args.extend(extra);
    certify_reference(Some(fault), &args, Duration::from_secs(120))
}

/// The failed checks `check` and the scenarios they were found in.
fn failed_in(run: &Run, check: &str) -> Vec<String> {
    run.checks()
        .into_iter()
        .filter(|(_, _, c)| c["id"] == check && c["verdict"] == "failed")
        .map(|(s, _, _)| s)
        .collect()
}

/// A server whose tools report progress for a call that asked for none (token 0, right after
/// the answer) was never seen by the sweep, which sent a progress token with every call: the
/// sweep's client that declares nothing now calls every tool without one, and only its calls
/// show the defect.
#[test]
fn the_sweep_calls_every_tool_without_a_progress_token_too() {
    let run = certify_at_latest("progress-token-zero", &["--scenario", "sweep/*"]);
    let failed = failed_in(&run, "progress/token-active");
    assert!(failed.iter().any(|s| s == "sweep/tools[nothing]"), "{failed:?}\n{}", run.describe());
    assert!(failed.iter().all(|s| s == "sweep/tools[nothing]"), "{failed:?}");
    assert_eq!(run.code, Some(1), "{}", run.describe());
}

/// Defects that only a server's own tool shows (no fixture name) are found by the sweep, which
/// calls every tool under each persona: sampling with tools sent to a client that declared
/// `sampling` without `tools`, and a tool loop that leaves a tool_use without its tool_result.
#[test]
fn the_sweep_catches_what_only_unnamed_tools_do() {
    for (fault, check, persona) in [
        ("unnamed-sampling-tools", "sampling/tools-capability", "sweep/tools[sampling]"),
        ("unnamed-unbalanced-tool-loop", "sampling/tool-result-balance", "sweep/tools[sampling-tools]"),
    ] {
        assert_only_the_sweep_catches(fault, check, persona);
    }
}

/// Roots requested through a tool: no fixture scenario calls `test_roots`, so only the sweep
/// sees it ask a client that declared no roots.
#[test]
fn the_sweep_catches_roots_asked_through_a_tool_of_a_client_without_roots() {
    assert_only_the_sweep_catches(
        "roots-without-capability",
        "capabilities/server-requests-declared",
        "sweep/tools[nothing]",
    );
}

/// The sweep's calls run a few at once (issue #31): eight tools that take 1.5 s each cost a
/// sweep scenario about one of them, not 12 s, and every call is still answered and listed.
#[test]
fn the_sweep_calls_tools_concurrently() {
    let run = sweep_slow_tools(8, 1500, &["--timeout", "5"]);
    for s in sweep_scenarios(&run) {
        assert_eq!(s["verdict"], "passed", "{s:#}");
        let grown = grown_tool_calls(s);
        assert_eq!(grown.len(), 8, "every grown tool called and listed: {s:#}");
        assert!(grown.iter().all(|c| c["verdict"] == "passed"), "{s:#}");
        // One by one the grown tools alone take 8 x 1.5 s.
        let ms = s["duration_ms"].as_u64().unwrap();
        assert!(ms < 8_000, "{} took {ms} ms: the calls did not overlap", s["id"]);
    }
}

/// A tool still running at the sweep's own timeout (`--sweep-timeout`, shorter than
/// `--timeout`) is cancelled and listed, unjudged, and the scenario does not wait it out: two
/// tools that take 4 s each, a sweep timeout of 1 s.
#[test]
fn the_sweep_cancels_and_lists_a_call_at_its_own_timeout() {
    // The live wire log shows the cancellations (and that --verbose still logs the wire).
    let run = sweep_slow_tools(2, 4000, &["--timeout", "10", "--sweep-timeout", "1", "--verbose"]);
    for s in sweep_scenarios(&run) {
        let grown = grown_tool_calls(s);
        assert_eq!(grown.len(), 2, "both slow tools listed: {s:#}");
        for c in &grown {
            assert_eq!(c["verdict"], "skipped", "{c:#}");
            let actual = c["actual"].as_str().unwrap();
            assert!(actual.contains("no answer within 1s; mcpspec cancelled it"), "{actual}");
        }
        // The fixture's own tools answer at once and are judged.
        assert_eq!(s["verdict"], "passed", "{s:#}");
        let ms = s["duration_ms"].as_u64().unwrap();
        assert!(ms < 4_000, "{} took {ms} ms: it waited the slow tools out", s["id"]);
    }
    let cancelled = format!("{}{}", run.stdout, run.stderr)
        .lines()
        .filter(|l| l.contains("notifications/cancelled") && l.contains("sweep gave up"))
        .count();
    assert!(
        cancelled >= 8,
        "each persona's two calls cancelled on the wire ({cancelled} seen)\n{}",
        run.describe()
    );
}

/// `sweep/tools` at 2025-06-18 (its four personas) on the reference server with `tools` more
/// tools that take `delay_ms` each; the run passes.
fn sweep_slow_tools(tools: u32, delay_ms: u32, flags: &[&str]) -> Run {
    let (tools, delay_ms) = (tools.to_string(), delay_ms.to_string());
    let mut args = vec!["server", "--revision", "2025-06-18", "--scenario", "sweep/tools"];
    args.extend_from_slice(flags);
    args.extend_from_slice(&["--", MCPSPEC, "reference", "server", "--catalogue", &tools]);
    args.extend_from_slice(&["--tool-delay-ms", &delay_ms]);
    let run = run(&args, true, Duration::from_secs(120));
    assert_eq!(run.code, Some(0), "{}", run.describe());
    run
}

/// The four scenarios of a [`sweep_slow_tools`] run.
fn sweep_scenarios(run: &Run) -> &[serde_json::Value] {
    let scenarios = run.report.as_ref().and_then(|r| r["scenarios"].as_array()).unwrap();
    assert_eq!(scenarios.len(), 4, "{}", run.describe());
    scenarios
}

/// A sweep scenario's checks of its calls of the grown tools.
fn grown_tool_calls(s: &serde_json::Value) -> Vec<&serde_json::Value> {
    let checks = s["checks"].as_array().unwrap().iter();
    checks.filter(|c| c["expected"].as_str().is_some_and(|e| e.contains("tools/call bulk_tool_"))).collect()
}

/// `fault` breaks `check` in the sweep scenario `persona` (and nowhere but the sweep); without
/// the sweep the run passes.
fn assert_only_the_sweep_catches(fault: &str, check: &str, persona: &str) {
    let run = certify_at_latest(fault, &[]);
    let found = failed_in(&run, check);
    assert!(
        found.iter().any(|s| s == persona),
        "{fault}: {check} not failed in {persona}: {found:?}\n{}",
        run.describe()
    );
    assert!(
        found.iter().all(|s| s.starts_with("sweep/")),
        "{fault}: only the sweep calls the tool: {found:?}"
    );
    assert_eq!(run.code, Some(1), "{}", run.describe());
    // Without the sweep nothing calls the tool, and the defect goes unseen.
    let blind = certify_at_latest(fault, &["--no-sweep"]);
    assert!(failed_in(&blind, check).is_empty(), "{}", blind.describe());
    assert_eq!(blind.code, Some(0), "{}", blind.describe());
    assert_no_leftovers(&run.marker);
}

/// URL-mode elicitation, from the server side (2025-11-25): the sweep's URL-only persona is
/// sent to a consent page; its URL must be valid, and the completion notification must name
/// the elicitation it completes.
#[test]
fn url_mode_elicitation_is_judged_on_the_server_side() {
    for (fault, check) in [
        ("elicitation-url-invalid", "elicitation/url-valid"),
        ("elicitation-complete-unknown", "elicitation/complete-known-id"),
    ] {
        let run = certify_at_latest(fault, &[]);
        let found = failed_in(&run, check);
        assert!(
            found.iter().any(|s| s == "sweep/tools[elicitation-url]"),
            "{fault}: {found:?}\n{}",
            run.describe()
        );
        assert_eq!(run.code, Some(1), "{}", run.describe());
    }
}

/// list_changed flows: a server that declared `tools.listChanged` and whose list a tool call
/// changed is warned when it did not announce the change, and passes when it did.
#[test]
fn a_list_a_call_changed_must_be_announced() {
    let silent = certify_at_latest("tool-added-silently", &[]);
    let warned: Vec<_> = silent
        .checks()
        .into_iter()
        .filter(|(s, _, c)| s.starts_with("sweep/tools") && c["id"] == "tools/list-changed-notified")
        .collect();
    assert!(!warned.is_empty() && warned.iter().all(|(_, _, c)| c["verdict"] == "warning"), "{warned:#?}");
    assert!(warned[0].2["spec"].as_str().unwrap().ends_with("server/tools.mdx#list-changed-notification"));
    assert!(warned[0].2["actual"].as_str().unwrap().contains("mcpspec_added"), "{warned:#?}");
    assert_eq!(silent.code, Some(0), "a SHOULD: warnings only\n{}", silent.describe());

    let announced = certify_at_latest("tool-added-announced", &[]);
    let judged: Vec<_> =
        announced.checks().into_iter().filter(|(_, _, c)| c["id"] == "tools/list-changed-notified").collect();
    assert!(!judged.is_empty() && judged.iter().all(|(_, _, c)| c["verdict"] == "passed"), "{judged:#?}");
    assert_eq!(announced.summary("warnings"), 0, "{}", announced.describe());
    assert_eq!(announced.code, Some(0), "{}", announced.describe());
}

/// Silence is proven by a barrier, not by the timeout: a server that ignores malformed input
/// (but answers pings) is warned for the missing -32700 and -32600 errors once a ping sent after
/// the bad message is answered, with the whole timeout to spare.
#[test]
fn silence_is_proven_by_a_ping_barrier() {
    let run = certify_reference(
        Some("silent-on-malformed"),
        &["--timeout", "60", "-j", "8", "--revision", "2025-11-25", "--no-sweep"],
        Duration::from_secs(300),
    );
    let silent: Vec<_> = run
        .checks()
        .into_iter()
        .filter(|(s, _, _)| s == "jsonrpc/parse-error" || s.starts_with("jsonrpc/invalid-request["))
        .filter(|(_, _, c)| c["verdict"] == "warning")
        .collect();
    assert_eq!(silent.len(), 6, "{silent:#?}\n{}", run.describe());
    for (_, _, c) in &silent {
        assert!(c["actual"].as_str().unwrap().contains("a ping sent after it was answered"), "{c}");
    }
    assert_eq!(run.code, Some(0), "SHOULDs only\n{}", run.describe());
}

/// Scenarios that open no session as a Given step does still leave processes others can use:
/// one that starts its own process and makes the handshake itself
/// (`lifecycle/initialize-result`); one that starts its own and never initializes it
/// (`ping/before-initialize`: mcpspec initializes it once the scenario has ended); and one that
/// the server's silence on an invalid request stopped at a SHOULD (the process then still
/// answers a ping). With `-j 1` the run starts a process for each of the first two and none for
/// the rest, where `--isolate` starts one per scenario, and every verdict is the same.
#[test]
fn own_processes_and_ignored_invalid_requests_hand_their_processes_on() {
    let args = [
        "--timeout",
        "5",
        "-j",
        "1",
        "--revision",
        "2025-06-18",
        "--no-sweep",
        "--scenario",
        "lifecycle/initialize-result",
        "--scenario",
        "ping/before-initialize",
        "--scenario",
        "jsonrpc/invalid-request",
        "--scenario",
        "ping/after-initialize",
    ];
    let shared_run = certify_reference(Some("silent-on-malformed"), &args, Duration::from_secs(120));
    let isolated = certify_reference(
        Some("silent-on-malformed"),
        &[&args[..], &["--isolate"]].concat(),
        Duration::from_secs(120),
    );
    let report = shared_run.report.as_ref().unwrap_or_else(|| panic!("no report\n{}", shared_run.describe()));
    let verdicts = |run: &Run| -> Vec<(String, String)> {
        let scenarios = run.report.as_ref().unwrap()["scenarios"].as_array().unwrap().clone();
        let mut v: Vec<_> = scenarios
            .iter()
            .map(|s| (s["id"].as_str().unwrap().to_owned(), s["verdict"].as_str().unwrap().to_owned()))
            .collect();
        v.sort();
        v
    };
    assert_eq!(verdicts(&shared_run), verdicts(&isolated), "{}", shared_run.describe());
    let scenarios = report["scenarios"].as_array().unwrap();
    assert_eq!(scenarios.len(), 8, "{}", shared_run.describe());
    let warned = scenarios.iter().filter(|s| s["verdict"] == "warning").count();
    assert_eq!(warned, 5, "each invalid request is ignored: a SHOULD\n{}", shared_run.describe());
    let note = |id: &str| {
        let s = scenarios.iter().find(|s| s["id"] == id).unwrap();
        s["session"].as_str().unwrap_or_else(|| panic!("{s:#}")).to_owned()
    };
    let handed = note("lifecycle/initialize-result");
    assert!(handed.contains("initialized at 2025-06-18 by its own handshake, was handed on"), "{handed}");
    let initialized = note("ping/before-initialize");
    assert!(initialized.contains("initialized at 2025-06-18 by mcpspec once it had ended, was handed on"));
    let own = ["lifecycle/initialize-result", "ping/before-initialize"];
    for s in scenarios.iter().filter(|s| !own.contains(&s["id"].as_str().unwrap())) {
        let session = s["session"].as_str().unwrap_or_else(|| panic!("a process of its own: {s:#}"));
        assert!(session.starts_with("shared process #"), "{session}");
    }
    // Both runs start a probe besides; the isolated one, a process per scenario.
    assert_eq!(report["cost"]["starts"], 3, "{}", shared_run.describe());
    assert_eq!(isolated.report.as_ref().unwrap()["cost"]["starts"], 9);
    assert_no_leftovers(&shared_run.marker);
}

/// The first pass (`@slow` scenarios, and those run at one revision only) starts from the
/// newest revision, which holds most of them; the second goes from the oldest, so a scenario's
/// first run shows whether it only reads before its later runs. One scenario at a time (`-j 1`)
/// and the live wire log show the order the runs began in.
#[test]
fn the_first_pass_starts_from_the_newest_revision_and_the_second_from_the_oldest() {
    let args = [
        "--verbose",
        "-j",
        "1",
        "--revision",
        "2024-11-05",
        "--revision",
        "2025-06-18",
        "--scenario",
        "sweep/tools",
        "--scenario",
        "ping/after-initialize",
    ];
    let run = certify_reference(None, &args, Duration::from_secs(120));
    assert_eq!(run.code, Some(0), "{}", run.describe());
    // A run begins where its scenario's first message crosses the wire.
    let mut began: Vec<String> = Vec::new();
    for line in run.stdout.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        let Some(arrow) = words.iter().position(|w| *w == "→") else { continue };
        if arrow < 2 || words[0] == "(probe)" {
            continue;
        }
        let at = format!("{} {}", words[0].split('[').next().unwrap(), words[1]);
        if !began.contains(&at) {
            began.push(at);
        }
    }
    assert_eq!(
        began,
        [
            "sweep/tools 2025-06-18",
            "sweep/tools 2024-11-05",
            "ping/after-initialize 2024-11-05",
            "ping/after-initialize 2025-06-18"
        ],
        "{}",
        run.describe()
    );
}

/// A scenario whose exchange is the same at every revision (`@revision-independent`: the
/// counter-offers) starts one process per run, not one per revision: at two revisions, the four
/// counter-offers of a server that echoes any version start four processes besides the two
/// probes, and fail at both revisions, each citing its own; the entries at the older one say
/// which run stands for them. `--isolate` judges them alike.
#[test]
fn a_revision_independent_scenario_runs_once_and_stands_for_every_revision() {
    let args = [
        "--timeout",
        "5",
        "-j",
        "1",
        "--revision",
        "2025-06-18",
        "--revision",
        "2024-11-05",
        "--scenario",
        "version/counter-offer*",
    ];
    let fault = Some("echo-unsupported-revision");
    let (shared_run, isolated) = shared_and_isolated(fault, &args);
    let report = shared_run.report.as_ref().unwrap_or_else(|| panic!("no report\n{}", shared_run.describe()));
    assert_eq!(report["cost"]["starts"], 6, "two probes and four counter-offers\n{}", shared_run.describe());
    let scenarios = report["scenarios"].as_array().unwrap();
    assert_eq!(scenarios.len(), 8, "{}", shared_run.describe());
    for s in scenarios {
        assert_eq!(s["verdict"], "failed", "{s:#}");
        let revision = s["revision"].as_str().unwrap();
        let own = s["checks"].as_array().unwrap().iter().find(|c| c["id"] == s["id"]).unwrap();
        let spec = own["spec"].as_str().unwrap();
        assert!(spec.starts_with(&format!("docs/specification/{revision}/")), "{spec}");
        let session = s["session"].as_str().unwrap_or_default();
        match revision {
            "2024-11-05" => assert!(
                session.starts_with("not run at 2024-11-05") && session.contains("its run at 2025-06-18"),
                "{session}"
            ),
            _ => assert!(!session.starts_with("not run"), "{session}"),
        }
    }
    assert_eq!(run_verdicts(&shared_run), run_verdicts(&isolated), "{}", isolated.describe());
    assert_no_leftovers(&shared_run.marker);
}

/// What a fresh process is sent before `initialize` cannot depend on the revision under test,
/// so the scenarios made of it run once (`@revision-independent`); and a server that echoed the
/// revision offered has shown, in that same exchange, that the revision it answered with is
/// echoed: `version/answer-supported` starts no second process for it. At two revisions the
/// reference server then costs six starts: two probes, one process per revision for
/// `version/answer-supported`, one for each scenario before `initialize`, where a process per
/// revision each, and a second one per run of `version/answer-supported`, made ten. `--isolate`
/// judges them alike.
#[test]
fn exchanges_that_cannot_differ_are_not_repeated_in_fresh_processes() {
    let args = [
        "--timeout",
        "5",
        "-j",
        "1",
        "--revision",
        "2025-06-18",
        "--revision",
        "2024-11-05",
        "--scenario",
        "version/answer-supported",
        "--scenario",
        "ping/before-initialize",
        "--scenario",
        "lifecycle/request-before-initialize",
    ];
    let (shared_run, isolated) = shared_and_isolated(None, &args);
    let report = shared_run.report.as_ref().unwrap_or_else(|| panic!("no report\n{}", shared_run.describe()));
    assert_eq!(report["cost"]["starts"], 6, "{}", shared_run.describe());
    assert_eq!(isolated.report.as_ref().unwrap()["cost"]["starts"], 6, "{}", isolated.describe());
    let scenarios = report["scenarios"].as_array().unwrap();
    assert_eq!(scenarios.len(), 6, "{}", shared_run.describe());
    for s in scenarios {
        assert_eq!(s["verdict"], "passed", "{s:#}");
        let session = s["session"].as_str().unwrap_or_default();
        let standing = s["id"] != "version/answer-supported" && s["revision"] == "2024-11-05";
        assert_eq!(session.starts_with("not run at 2024-11-05"), standing, "{s:#}");
    }
    let echoed: Vec<_> = shared_run
        .checks()
        .into_iter()
        .filter(|(id, _, c)| id == "version/answer-supported" && c["id"] == "version/answer-supported")
        .filter(|(_, _, c)| c["expected"].as_str().unwrap().contains("echoed when offered"))
        .collect();
    assert_eq!(echoed.len(), 2, "{echoed:#?}");
    for (_, revision, c) in &echoed {
        assert_eq!(c["verdict"], "passed", "{c}");
        assert_eq!(
            c["actual"],
            format!("\"{revision}\" was the revision offered, and the server echoed it"),
            "{c}"
        );
    }
    assert_eq!(run_verdicts(&shared_run), run_verdicts(&isolated), "{}", isolated.describe());
    assert_no_leftovers(&shared_run.marker);
}

/// A call of a tool no server offers runs nothing, whatever the server answers: a server that
/// answers it with an `isError` result instead of a protocol error breaks a SHOULD, and leaves
/// itself as it was. With `-j 1` its process, the probe's, then serves the next scenario
/// (`resources/read`): one start, where taking that result for a tool carried out ended the
/// process and started another. `--isolate` judges them alike.
#[test]
fn a_call_of_a_tool_nobody_offers_leaves_the_process_to_others() {
    let args = [
        "--timeout",
        "5",
        "-j",
        "1",
        "--revision",
        "2025-06-18",
        "--scenario",
        "tools/unknown-tool",
        "--scenario",
        "resources/read",
    ];
    let fault = Some("unknown-tool-is-error-result");
    let (shared_run, isolated) = shared_and_isolated(fault, &args);
    let report = shared_run.report.as_ref().unwrap_or_else(|| panic!("no report\n{}", shared_run.describe()));
    assert_eq!(report["cost"]["starts"], 1, "{}", shared_run.describe());
    let unknown = &shared_run.scenarios("tools/unknown-tool")[0];
    assert_eq!(unknown["verdict"], "warning", "{unknown:#}");
    let session = unknown["session"].as_str().unwrap_or_default();
    assert!(session.ends_with("kept for others"), "{session}");
    let read = &shared_run.scenarios("resources/read")[0];
    assert_eq!(read["verdict"], "passed", "{read:#}");
    assert_eq!(run_verdicts(&shared_run), run_verdicts(&isolated), "{}", isolated.describe());
    assert_no_leftovers(&shared_run.marker);
}

/// A scenario that connects again (`modern/lists-stable`) gives the process it held back as a
/// scenario that ends gives one back, and reaches the server afresh on a process it starts
/// itself: with `-j 1` the next scenario (`mrtr/elicitation`) is the third to use the probe's
/// process, and the run starts that process and the new connection's only. A process left held
/// when its scenario connected again was lost to every later scenario, each starting its own.
/// `--isolate` judges them alike.
#[test]
fn a_scenario_that_connects_again_gives_its_shared_process_back() {
    let args = [
        "--timeout",
        "5",
        "-j",
        "1",
        "--revision",
        "2026-07-28",
        "--scenario",
        "modern/lists-stable",
        "--scenario",
        "mrtr/elicitation",
    ];
    let (shared_run, isolated) = shared_and_isolated(None, &args);
    let report = shared_run.report.as_ref().unwrap_or_else(|| panic!("no report\n{}", shared_run.describe()));
    assert_eq!(report["cost"]["starts"], 2, "the probe and the new connection\n{}", shared_run.describe());
    let stable = &shared_run.scenarios("modern/lists-stable")[0];
    assert_eq!(stable["verdict"], "passed", "{stable:#}");
    let next = &shared_run.scenarios("mrtr/elicitation")[0];
    assert_eq!(next["verdict"], "passed", "{next:#}");
    let session = next["session"].as_str().unwrap_or_default();
    assert!(session.starts_with("shared process #1, scenario 3 to use it"), "{session}");
    assert_eq!(run_verdicts(&shared_run), run_verdicts(&isolated), "{}", isolated.describe());
    assert_no_leftovers(&shared_run.marker);
}

/// The probe of a revision the server speaks hands its process to the scenarios: a run of one
/// scenario per era starts no process besides the probes (each scenario is the second to use
/// one, after its probe), where `--isolate` starts one more per scenario; the verdicts are the
/// same.
#[test]
fn a_probe_hands_its_process_to_the_scenarios() {
    let args = [
        "--timeout",
        "5",
        "-j",
        "1",
        "--revision",
        "2025-06-18",
        "--revision",
        "2026-07-28",
        "--scenario",
        "ping/after-initialize",
        "--scenario",
        "modern/id-reused-after-answer",
    ];
    let (shared_run, isolated) = shared_and_isolated(None, &args);
    let report = shared_run.report.as_ref().unwrap_or_else(|| panic!("no report\n{}", shared_run.describe()));
    let scenarios = report["scenarios"].as_array().unwrap();
    assert_eq!(scenarios.len(), 2, "{}", shared_run.describe());
    for s in scenarios {
        assert_eq!(s["verdict"], "passed", "{s:#}");
        let session = s["session"].as_str().unwrap_or_else(|| panic!("a process of its own: {s:#}"));
        assert!(
            session.starts_with("shared process #") && session.contains("scenario 2 to use it"),
            "{session}"
        );
    }
    assert_eq!(report["cost"]["starts"], 2, "the two probes only\n{}", shared_run.describe());
    let isolated = isolated.report.as_ref().unwrap_or_else(|| panic!("no report\n{}", isolated.describe()));
    assert_eq!(isolated["cost"]["starts"], 4);
    assert!(isolated["scenarios"].as_array().unwrap().iter().all(|s| s["verdict"] == "passed"));
    assert_no_leftovers(&shared_run.marker);
}

/// In the modern era a process serves scenarios of any client capabilities, each request
/// declaring its own: the scenarios that declare elicitation or sampling (`mrtr/*`) share
/// processes with ones that declare nothing, and every verdict is `--isolate`'s — on the
/// reference server and on one that asks for input a request did not declare (which only a
/// session declaring its own capabilities judges right).
#[test]
fn modern_processes_serve_any_capabilities_as_isolate_does() {
    let verdicts = |run: &Run| -> std::collections::BTreeMap<String, String> {
        let report = run.report.as_ref().unwrap_or_else(|| panic!("no report\n{}", run.describe()));
        let scenarios = report["scenarios"].as_array().unwrap().iter();
        scenarios
            .map(|s| (s["id"].as_str().unwrap().to_owned(), s["verdict"].as_str().unwrap().to_owned()))
            .collect()
    };
    for fault in [None, Some("modern-input-request-undeclared")] {
        let args = ["--timeout", "2", "-j", "8", "--revision", "2026-07-28"];
        let shared_run = certify_reference(fault, &args, Duration::from_secs(120));
        let isolated =
            certify_reference(fault, &[&args[..], &["--isolate"]].concat(), Duration::from_secs(120));
        assert_eq!(verdicts(&shared_run), verdicts(&isolated), "{fault:?}\n{}", shared_run.describe());
        assert_eq!(shared_run.code, isolated.code, "{fault:?}");
        // The scenarios of each shared process.
        let mut processes: std::collections::BTreeMap<String, Vec<String>> = Default::default();
        for s in shared_run.report.as_ref().unwrap()["scenarios"].as_array().unwrap() {
            let Some(rest) = s["session"].as_str().and_then(|t| t.strip_prefix("shared process #")) else {
                continue;
            };
            let process = rest.split(',').next().unwrap().to_owned();
            processes.entry(process).or_default().push(s["id"].as_str().unwrap().to_owned());
        }
        let declaring = |id: &String| id.starts_with("mrtr/") && !id.starts_with("mrtr/undeclared");
        let mixed = processes.values().filter(|ids| ids.iter().any(declaring) && !ids.iter().all(declaring));
        assert!(mixed.count() > 0, "{fault:?}: {processes:?}");
        assert_no_leftovers(&shared_run.marker);
    }
}

/// Shared sessions change no verdict: on the reference server and on faulty ones, a run that
/// shares processes (one after another, and — from a scenario's second revision on, once its
/// first showed it only reads — at once) and one with `--isolate` judge every scenario alike.
/// The shared run did share, and the isolated one did not. `listing-fails-after-call` is the
/// one that shows why a process must not go on after a request its server carried out: its tool
/// calls break the next scenario's listing; `crash-on-unknown-cancel` ends a process others may
/// be reading from at once.
#[test]
fn shared_sessions_judge_every_scenario_as_isolate_does() {
    let verdicts = |run: &Run| -> std::collections::BTreeMap<(String, String), String> {
        let report = run.report.as_ref().unwrap_or_else(|| panic!("no report\n{}", run.describe()));
        let scenarios = report["scenarios"].as_array().unwrap().iter();
        scenarios
            .map(|s| {
                let key = (s["id"].as_str().unwrap().to_owned(), s["revision"].as_str().unwrap().to_owned());
                (key, s["verdict"].as_str().unwrap().to_owned())
            })
            .collect()
    };
    let shared = |run: &Run, at_once: bool| {
        let report = run.report.as_ref().unwrap();
        let scenarios = report["scenarios"].as_array().unwrap().iter();
        scenarios.filter(|s| shared_use(s).is_some_and(|(once, n)| n > 1 && once == at_once)).count()
    };
    let faults = [
        "listing-fails-after-call",
        "pagination-duplicates",
        "crash-on-unknown-cancel",
        "unknown-method-wrong-code",
    ];
    for fault in std::iter::once(None).chain(faults.map(Some)) {
        let args = ["--timeout", "2", "-j", "8", "--revision", "2025-06-18", "--revision", "2025-11-25"];
        let shared_run = certify_reference(fault, &args, Duration::from_secs(120));
        let isolated =
            certify_reference(fault, &[&args[..], &["--isolate"]].concat(), Duration::from_secs(120));
        assert_eq!(verdicts(&shared_run), verdicts(&isolated), "{fault:?}\n{}", shared_run.describe());
        assert_eq!(shared_run.code, isolated.code, "{fault:?}");
        for at_once in [false, true] {
            let n = shared(&shared_run, at_once);
            assert!(n >= 10, "{fault:?}: {n} scenarios shared a process (at once: {at_once})");
            assert_eq!(shared(&isolated, at_once), 0, "{fault:?}");
        }
        assert_no_leftovers(&shared_run.marker);
    }
}

/// Every scenario run's id, revision and verdict, sorted: what two runs of the same scenarios
/// must agree on.
fn run_verdicts(run: &Run) -> Vec<(String, String, String)> {
    let scenarios = run.report.as_ref().unwrap()["scenarios"].as_array().unwrap().clone();
    let field = |s: &serde_json::Value, k: &str| s[k].as_str().unwrap().to_owned();
    let mut v: Vec<_> =
        scenarios.iter().map(|s| (field(s, "id"), field(s, "revision"), field(s, "verdict"))).collect();
    v.sort();
    v
}

/// The reference server (with `fault`) certified with `args` twice: as by default, and with
/// `--isolate`.
fn shared_and_isolated(fault: Option<&str>, args: &[&str]) -> (Run, Run) {
    let shared = certify_reference(fault, args, Duration::from_secs(120));
    let isolated = certify_reference(fault, &[args, &["--isolate"]].concat(), Duration::from_secs(120));
    (shared, isolated)
}
