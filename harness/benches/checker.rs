//! Messages per second through the session checker (issue #12), on a realistic session
//! transcript: a 2025-11-25 handshake, a tools/list, then tool calls with progress and log
//! notifications, resource reads, pings and errors — both directions, as a session sees them.
//!
//! - `SessionChecker`: the envelope and session rules alone (`on_frame`, every message);
//! - `WireRecorder`: what a session runs on every message — the checker, the JSON Schema of the
//!   revision for the server's messages, the transcript log — and the checks at the end.
//!
//! Each iteration is one whole session with a fresh checker, so per-session costs (the id
//! tables growing, the transcript) are in the figure.
//!
//! `cargo bench -p mcpspec --bench checker`

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use mcpspec::judge::checker::SessionChecker;
use mcpspec::judge::recorder::WireRecorder;
use mcpspec_protocol::framing::{encode, Frame, FrameContent, LineDecoder};
use mcpspec_protocol::{Direction, Revision};
use mcpspec_schema::SchemaSet;
use serde_json::{json, Value};
use std::hint::black_box;
use std::time::Duration;

const REV: &str = "2025-11-25";

/// The session, message by message, in wire order.
fn transcript() -> Vec<(Direction, Value)> {
    let c2s = Direction::ClientToServer;
    let s2c = Direction::ServerToClient;
    let tools: Vec<Value> = ["search", "fetch", "summarize", "translate", "get_weather", "run_query"]
        .iter()
        .map(|name| {
            json!({"name": name, "description": format!("{name}: does one thing well"),
                   "inputSchema": {"type": "object", "properties": {"query": {"type": "string"},
                   "limit": {"type": "integer", "minimum": 1}}, "required": ["query"]},
                   "annotations": {"readOnlyHint": true}})
        })
        .collect();
    let mut t = vec![
        (
            c2s,
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": REV,
            "capabilities": {"roots": {"listChanged": true}, "sampling": {}},
            "clientInfo": {"name": "bench-client", "version": "1.2.3"}}}),
        ),
        (
            s2c,
            json!({"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": REV,
            "capabilities": {"tools": {"listChanged": true}, "resources": {}, "logging": {}},
            "serverInfo": {"name": "bench-server", "version": "0.9.0"}}}),
        ),
        (c2s, json!({"jsonrpc": "2.0", "method": "notifications/initialized"})),
        (c2s, json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})),
        (s2c, json!({"jsonrpc": "2.0", "id": 2, "result": {"tools": tools}})),
    ];
    for i in 0..20u64 {
        let id = 10 + 3 * i;
        let token = format!("p{id}");
        t.push((
            c2s,
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "search",
            "arguments": {"query": format!("query {i}"), "limit": 5}, "_meta": {"progressToken": token}}}),
        ));
        t.push((
            s2c,
            json!({"jsonrpc": "2.0", "method": "notifications/progress",
            "params": {"progressToken": token, "progress": 1, "total": 2}}),
        ));
        t.push((
            s2c,
            json!({"jsonrpc": "2.0", "method": "notifications/message",
            "params": {"level": "info", "logger": "search", "data": {"query": i}}}),
        ));
        t.push((
            s2c,
            json!({"jsonrpc": "2.0", "id": id, "result": {"content": [
            {"type": "text", "text": format!("5 results for query {i}")}], "isError": false}}),
        ));
        match i % 4 {
            0 => {
                t.push((
                    c2s,
                    json!({"jsonrpc": "2.0", "id": id + 1, "method": "resources/read",
                    "params": {"uri": "file:///docs/a.md"}}),
                ));
                t.push((s2c, json!({"jsonrpc": "2.0", "id": id + 1, "result": {"contents": [
                    {"uri": "file:///docs/a.md", "mimeType": "text/markdown", "text": "# A\n\nSome text."}]}})));
            }
            1 => {
                t.push((c2s, json!({"jsonrpc": "2.0", "id": id + 1, "method": "ping"})));
                t.push((s2c, json!({"jsonrpc": "2.0", "id": id + 1, "result": {}})));
            }
            2 => {
                t.push((
                    c2s,
                    json!({"jsonrpc": "2.0", "id": id + 1, "method": "tools/call",
                    "params": {"name": "nope", "arguments": {}}}),
                ));
                t.push((
                    s2c,
                    json!({"jsonrpc": "2.0", "id": id + 1, "error": {"code": -32602,
                    "message": "Unknown tool: nope"}}),
                ));
            }
            _ => {
                t.push((c2s, json!({"jsonrpc": "2.0", "id": id + 1, "method": "resources/list"})));
                t.push((s2c, json!({"jsonrpc": "2.0", "id": id + 1, "result": {"resources": [
                    {"uri": "file:///docs/a.md", "name": "a.md"}, {"uri": "file:///docs/b.md", "name": "b.md"}]}})));
            }
        }
    }
    t
}

/// The transcript as each side's decoder hands it over: frames numbered per direction.
fn frames(transcript: &[(Direction, Value)]) -> Vec<(Direction, Frame)> {
    let mut decoders = [LineDecoder::default(), LineDecoder::default()];
    let mut out = Vec::new();
    for (direction, value) in transcript {
        let mut frames = Vec::new();
        decoders[*direction as usize].push(&encode(value), &mut frames);
        out.extend(frames.into_iter().map(|f| (*direction, f)));
    }
    out
}

fn bench(c: &mut Criterion) {
    let transcript = transcript();
    let frames = frames(&transcript);
    assert_eq!(frames.len(), transcript.len());
    assert!(frames.iter().all(|(_, f)| matches!(f.content, FrameContent::Json { .. })));
    let schemas = SchemaSet::shared_builtin();

    // The transcript is clean: every rule holds, every server message is schema-valid. A bench
    // of a checker that finds faults would measure the reporting, not the checking.
    let mut checker = SessionChecker::new(Revision::V2025_11_25);
    for (d, f) in &frames {
        for i in checker.on_frame(*d, f.content.clone()) {
            assert!(i.violations.is_empty(), "{:?}", i.violations);
        }
    }
    let recorder = record(&frames, &schemas);
    let checks = recorder.checks();
    assert!(checks.iter().all(|c| c.verdict == mcpspec::judge::verdict::Verdict::Passed), "{checks:?}");
    assert!(checks.iter().any(|c| c.id == "schema/message-valid"), "{checks:?}");

    let mut group = c.benchmark_group("checker");
    group.warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3));
    group.throughput(Throughput::Elements(frames.len() as u64));
    group.bench_function("SessionChecker", |b| {
        b.iter(|| {
            let mut checker = SessionChecker::new(Revision::V2025_11_25);
            for (d, f) in &frames {
                // A frame is judged by value, as a session hands it over; the copy stands for
                // the decoding that made it (which the checker once did itself, as a clone).
                black_box(checker.on_frame(*d, black_box(f.content.clone())));
            }
            checker
        })
    });
    group.bench_function("WireRecorder+schemas", |b| {
        b.iter(|| {
            let recorder = record(black_box(&frames), &schemas);
            black_box(recorder.checks())
        })
    });
    group.finish();
}

/// A session's recorder judging the server: the client's messages recorded as sent (values),
/// the server's as read (frames), as `session::ServerSession` does.
fn record(frames: &[(Direction, Frame)], schemas: &std::sync::Arc<SchemaSet>) -> WireRecorder {
    let mut r = WireRecorder::new(Revision::V2025_11_25, Direction::ServerToClient, Some(schemas.clone()));
    for (d, f) in frames {
        match (d, &f.content) {
            (Direction::ClientToServer, FrameContent::Json { value, .. }) => {
                black_box(r.record_value(*d, value));
            }
            _ => {
                black_box(r.record_frame(*d, f.clone()));
            }
        }
    }
    r
}

criterion_group!(benches, bench);
criterion_main!(benches);
