//! `mcpspec fuzz` and `mcpspec replay`: the command line around `mcpspec::fuzz`.

use crate::{schema_set, FuzzArgs, ReplayArgs};
use mcpspec::fuzz::campaign::{self, CampaignConfig, Limit};
use mcpspec::fuzz::driver::{tail, DriverConfig};
use mcpspec::fuzz::minimize::Budget;
use mcpspec::fuzz::replay::{self, Replayed, Reproducer};
use mcpspec::report::exit;
use mcpspec::report::Policy;
use mcpspec_protocol::Revision;
use mcpspec_reference::transport::CommandSpec;
use std::ffi::OsString;
use std::io::IsTerminal as _;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// The implementation's command, or the reference server's.
fn command_or_reference(argv: Vec<OsString>) -> Result<CommandSpec, String> {
    if let Some(command) = CommandSpec::from_argv(argv) {
        return Ok(command);
    }
    let me = std::env::current_exe().map_err(|e| format!("cannot find mcpspec's own executable: {e}"))?;
    eprintln!("mcpspec: no server command given; using the built-in reference server");
    Ok(CommandSpec::from_argv([me.into_os_string(), "reference".into(), "server".into()])
        .expect("non-empty argv"))
}

pub async fn fuzz(args: FuzzArgs) -> u8 {
    let usage = |why: String| {
        eprintln!("mcpspec fuzz: {why}");
        exit::USAGE
    };
    let command = match command_or_reference(args.command) {
        Ok(c) => c,
        Err(why) => return usage(why),
    };
    let schemas = match schema_set(args.schema_dir.as_ref()) {
        Ok(s) => s,
        Err(why) => return usage(why),
    };
    let baseline = match args.expected_failures.as_deref().map(mcpspec::baseline::Baseline::load).transpose()
    {
        Ok(b) => b,
        Err(e) => return usage(e.to_string()),
    };
    let hang_timeout = Duration::from_secs_f64(args.hang_timeout);
    let driver = Arc::new(DriverConfig {
        command,
        revision: args.revision.unwrap_or(Revision::latest_legacy()),
        schemas: Some(schemas),
        hang_timeout,
        start_timeout: hang_timeout.max(Duration::from_secs(10)),
        max_message_bytes: args.max_message_bytes,
    });
    let limit = match (args.runs, args.duration) {
        (Some(runs), _) => Limit::Runs(runs),
        (None, Some(secs)) => Limit::Duration(Duration::from_secs_f64(secs)),
        (None, None) => Limit::Duration(Duration::from_secs(60)),
    };
    let config = CampaignConfig {
        driver: driver.clone(),
        seed: args.seed,
        limit,
        jobs: args.jobs.max(1),
        shard: args.shard,
        corpus_dir: args.corpus,
        findings_dir: Some(args.findings.clone()),
        window: args.window.max(1),
        minimize: Budget { probes: args.minimize_probes, time: Duration::from_secs(60) },
        destructive: args.destructive,
        progress: std::io::stderr().is_terminal(),
        max_findings: args.max_findings,
    };
    // Ctrl-C (or SIGTERM, SIGHUP) stops the campaign after the windows in flight; what was
    // found is written. A second signal quits at once.
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    let stopped_by = Arc::new(std::sync::OnceLock::new());
    let by = stopped_by.clone();
    let first = crate::signals::stopped();
    tokio::spawn(async move {
        let signal = first.await;
        let _ = by.set(signal);
        flag.store(true, Ordering::Relaxed);
        eprintln!(
            "\nmcpspec fuzz: stopped by {} (a second signal quits at once); writing what was found",
            signal.name()
        );
        let again = crate::signals::stopped().await;
        std::process::exit(again.exit_code().into());
    });
    let result = match campaign::run(config, stop.clone()).await {
        Ok(r) => r,
        Err(e) => {
            eprintln!("mcpspec fuzz: {e}");
            return exit::ERROR;
        }
    };
    let findings_dir = Some(args.findings.as_path()).filter(|_| !result.findings.is_empty());
    print!("{}", mcpspec::fuzz::report::console(&result, findings_dir));
    let policy = Policy { baseline: baseline.as_ref(), strict: false };
    let mut report = mcpspec::fuzz::report::report(&result, &driver, args.seed, findings_dir, &policy);
    report.redact(mcpspec::redact::run());
    if let Some(dir) = &args.report_dir {
        match report.write_all(dir) {
            Ok(_) => eprintln!("mcpspec fuzz: reports written to {}", dir.display()),
            Err(e) => {
                eprintln!("mcpspec fuzz: cannot write the report to {}: {e}", dir.display());
                return exit::ERROR;
            }
        }
    }
    if let Some(signal) = stopped_by.get() {
        return signal.exit_code();
    }
    report.exit_code()
}

pub async fn replay(args: ReplayArgs) -> u8 {
    let text = match std::fs::read_to_string(&args.file) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("mcpspec replay: cannot read {}: {e}", args.file.display());
            return exit::USAGE;
        }
    };
    let (reproducer, revision, input) = match Reproducer::parse(&text) {
        Ok(r) => r,
        Err(why) => {
            eprintln!("mcpspec replay: {}: {why}", args.file.display());
            return exit::USAGE;
        }
    };
    let command = match command_or_reference(args.command) {
        Ok(c) => c,
        Err(why) => {
            eprintln!("mcpspec replay: {why}");
            return exit::USAGE;
        }
    };
    let schemas = match schema_set(args.schema_dir.as_ref()) {
        Ok(s) => s,
        Err(why) => {
            eprintln!("mcpspec replay: {why}");
            return exit::USAGE;
        }
    };
    let hang_timeout = Duration::from_secs_f64(args.hang_timeout);
    let config = DriverConfig {
        command,
        revision,
        schemas: Some(schemas),
        hang_timeout,
        start_timeout: hang_timeout.max(Duration::from_secs(10)),
        max_message_bytes: mcpspec_protocol::framing::DEFAULT_MAX_MESSAGE_BYTES,
    };
    let id = &reproducer.finding;
    match replay::replay(config, &reproducer, &input).await {
        Ok(Replayed::StillFails(o)) => {
            let trip = o.primary().map(|t| t.detail.clone()).unwrap_or_default();
            println!("{id}: still fails ({}): {trip}", reproducer.oracle);
            if !o.stderr.trim().is_empty() {
                println!("  stderr: {}", tail(&o.stderr));
            }
            exit::MUST_FAILED
        }
        Ok(Replayed::FailsDifferently(o)) => {
            let trip = o.primary().map(|t| format!("{:?}: {}", t.oracle, t.detail)).unwrap_or_default();
            println!("{id}: fails differently from the recorded {}: {trip}", reproducer.oracle);
            exit::MUST_FAILED
        }
        Ok(Replayed::Fixed(_)) => {
            println!("{id}: fixed (nothing tripped)");
            exit::OK
        }
        Err(e) => {
            eprintln!("mcpspec replay: {e}");
            exit::ERROR
        }
    }
}
