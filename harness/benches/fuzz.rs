//! Fuzzing throughput against the reference server over stdio (issue #15: at least 10 000
//! inputs/s on the 2-core development machine) and over Streamable HTTP (issue #30: each write
//! one request, waited for).
//!
//! Each measurement is a whole campaign (`campaign::run` with `Limit::Runs`), as `mcpspec
//! fuzz --runs N` runs it: discovery (one process start and the lists), input generation, the
//! pipelined windows with their barriers, and the oracles (schema validation of every answer
//! included). The reference server is one long-lived child process: a start is paid once per
//! campaign and after a crash or hang only, and a barrier once per window, so
//! `window/1` (a barrier after every input) and `window/32` (the default) show what the
//! amortization buys. A finding (time spent investigating, not fuzzing) is printed.
//!
//! `cargo bench -p mcpspec --bench fuzz` (build the release binary first: the bench spawns the
//! `mcpspec` of its own profile).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use mcpspec::fuzz::campaign::{self, CampaignConfig, Limit, Shard};
use mcpspec::fuzz::driver::{DriverConfig, FuzzTarget, HttpTarget};
use mcpspec::fuzz::minimize::Budget;
use mcpspec_protocol::framing::DEFAULT_MAX_MESSAGE_BYTES;
use mcpspec_protocol::Revision;
use mcpspec_reference::transport::{CommandSpec, Flavor};
use mcpspec_schema::SchemaSet;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

/// The reference server over stdio, or over Streamable HTTP on a free port.
fn target(transport: &str) -> FuzzTarget {
    let me = env!("CARGO_BIN_EXE_mcpspec");
    match transport {
        "stdio" => FuzzTarget::Stdio(CommandSpec::from_argv([me, "reference", "server"]).expect("argv")),
        _ => FuzzTarget::Http(HttpTarget {
            flavor: Flavor::Streamable,
            url: "http://127.0.0.1:{port}/mcp".into(),
            command: CommandSpec::from_argv([
                me,
                "reference",
                "server",
                "--transport",
                "http",
                "--port",
                "{port}",
            ]),
            headers: Vec::new(),
        }),
    }
}

fn config(transport: &str, revision: Revision, window: usize, runs: u64) -> CampaignConfig {
    CampaignConfig {
        driver: Arc::new(DriverConfig {
            role: mcpspec::fuzz::driver::FuzzRole::Server,
            target: target(transport),
            revision,
            schemas: Some(SchemaSet::shared_builtin()),
            hang_timeout: Duration::from_secs(5),
            start_timeout: Duration::from_secs(10),
            max_message_bytes: DEFAULT_MAX_MESSAGE_BYTES,
            coverage: None,
        }),
        seed: 1,
        limit: Limit::Runs(runs),
        jobs: 1,
        shard: Shard::default(),
        corpus_dir: None,
        findings_dir: None,
        window,
        minimize: Budget::default(),
        destructive: false,
        progress: false,
        max_findings: None,
    }
}

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let mut group = c.benchmark_group("fuzz");
    group.sample_size(10).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(10));
    for (transport, revision, window) in [
        ("stdio", Revision::V2025_11_25, 1),
        ("stdio", Revision::V2025_11_25, 32),
        ("stdio", Revision::V2026_07_28, 32),
        ("http", Revision::V2025_11_25, 32),
        ("http", Revision::V2026_07_28, 32),
    ] {
        group.throughput(Throughput::Elements(1));
        let name = match transport {
            "stdio" => format!("{revision}/window/{window}"),
            other => format!("{other}/{revision}/window/{window}"),
        };
        group.bench_function(name, |b| {
            b.iter_custom(|iters| {
                rt.block_on(async {
                    let stop = Arc::new(AtomicBool::new(false));
                    let result = campaign::run(config(transport, revision, window, iters), stop)
                        .await
                        .expect("campaign");
                    // A finding means part of the time went to an investigation: shown, so a
                    // figure is never read without it.
                    for f in &result.findings {
                        eprintln!("finding during the bench: {} {} ({})", f.id, f.detail, f.reproducer.label);
                    }
                    assert_eq!(result.inputs, iters);
                    result.elapsed
                })
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
