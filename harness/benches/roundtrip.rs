//! Round trips per second with the reference server over the real stdio transport (issue #12):
//! `mcpspec reference server` runs as a child process, as `mcpspec server` runs it, and one
//! request at a time goes out on its stdin and its answer comes back on its stdout.
//!
//! - `transport/<method>`: the bare transport ([`ChildTransport`]: encode, pipe, the server's
//!   decode-handle-encode, pipe, the reader task's decode and hand-over);
//! - `session/<method>`: the suite's own path ([`ServerSession::request`]), which adds the wire
//!   recorder — session checker and JSON Schema — on both messages.
//!
//! `ping` is the cheapest request; `tools/list` answers with a page of real tools. Each is
//! measured in one long session after `initialize`, so spawning is not in the figure (a spawn
//! costs what the runtime of the implementation costs; the suite's spawns are issue #12's
//! other half).
//!
//! `cargo bench -p mcpspec --bench roundtrip`

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use mcpspec::session::server::ServerSession;
use mcpspec_protocol::framing::FrameContent;
use mcpspec_protocol::Revision;
use mcpspec_reference::transport::{ChildOptions, ChildTransport, CommandSpec};
use mcpspec_schema::SchemaSet;
use serde_json::{json, Value};
use std::time::{Duration, Instant};

const REV: Revision = Revision::V2025_11_25;
const WITHIN: Duration = Duration::from_secs(5);

fn server() -> CommandSpec {
    CommandSpec::from_argv([env!("CARGO_BIN_EXE_mcpspec"), "reference", "server"]).expect("argv")
}

fn initialize_params() -> Value {
    json!({"protocolVersion": REV.as_str(), "capabilities": {},
           "clientInfo": {"name": "bench", "version": "1.0.0"}})
}

/// One request on the bare transport; the answer must be a result with the same id.
async fn round_trip(t: &mut ChildTransport, id: u64, method: &str) {
    t.send(&json!({"jsonrpc": "2.0", "id": id, "method": method})).await.expect("send");
    let frame = t.recv(WITHIN).await.expect("an answer");
    let FrameContent::Json { value, .. } = frame.content else { panic!("not JSON: {:?}", frame.content) };
    assert!(value["id"] == id && value.get("result").is_some(), "{value}");
}

fn bench(c: &mut Criterion) {
    // The suite's runtime: `main` uses `Runtime::new()` (one worker per core).
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let mut group = c.benchmark_group("roundtrip");
    group.warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3));
    group.throughput(Throughput::Elements(1));

    let mut transport = rt.block_on(async {
        let mut t = ChildTransport::spawn(&server(), ChildOptions::default()).expect("spawn");
        t.send(&json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": initialize_params()}))
            .await
            .expect("send");
        t.recv(WITHIN).await.expect("initialize answered");
        t.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await.expect("send");
        t
    });
    let mut next_id = 1u64;
    for method in ["ping", "tools/list"] {
        group.bench_function(format!("transport/{method}"), |b| {
            b.iter_custom(|iters| {
                rt.block_on(async {
                    let start = Instant::now();
                    for _ in 0..iters {
                        next_id += 1;
                        round_trip(&mut transport, next_id, method).await;
                    }
                    start.elapsed()
                })
            })
        });
    }
    rt.block_on(transport.shutdown());

    let mut session = rt.block_on(async {
        let target = mcpspec::session::target::Target::Stdio(server());
        let mut s =
            ServerSession::start(&target, ChildOptions::default(), REV, Some(SchemaSet::shared_builtin()))
                .await
                .expect("spawn");
        s.request("initialize", Some(initialize_params()), WITHIN).await.expect("initialize answered");
        s.send_value(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await.expect("send");
        s
    });
    for method in ["ping", "tools/list"] {
        group.bench_function(format!("session/{method}"), |b| {
            b.iter_custom(|iters| {
                rt.block_on(async {
                    let start = Instant::now();
                    for _ in 0..iters {
                        let r = session.request(method, None, WITHIN).await.expect("answered");
                        assert!(matches!(r.outcome, mcpspec_protocol::wire::Outcome::Result(_)));
                    }
                    start.elapsed()
                })
            })
        });
    }
    // Every answer was judged: nothing but passes (a finding would mean the bench measured an
    // error path).
    let checks = session.recorder().checks();
    assert!(checks.iter().all(|c| c.verdict == mcpspec::judge::verdict::Verdict::Passed), "{checks:?}");
    rt.block_on(session.shutdown());
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
