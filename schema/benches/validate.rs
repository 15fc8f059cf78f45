//! Messages validated per second on one core, on a realistic mix (issue "Own JSON Schemas":
//! target at least 1 million per second): initialize and its result, tools/list with 50 tools,
//! tools/call and its results, notifications and errors, against our built-in schemas.
//!
//! `cargo bench -p mcpspec-schema --bench validate`

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use mcpspec_reference::{Direction, Revision};
use mcpspec_schema::SchemaSet;
use serde_json::{json, Value};

fn legacy_mix(rev: &str) -> Vec<(Direction, Value, Option<&'static str>)> {
    let c2s = Direction::ClientToServer;
    let s2c = Direction::ServerToClient;
    let tools: Vec<Value> = (0..50)
        .map(|i| {
            json!({"name": format!("tool_{i}"), "description": "Does one thing well",
                   "inputSchema": {"type": "object", "properties": {"text": {"type": "string"},
                   "count": {"type": "integer"}}, "required": ["text"]}})
        })
        .collect();
    vec![
        (
            c2s,
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": rev,
            "capabilities": {"roots": {"listChanged": true}, "sampling": {}},
            "clientInfo": {"name": "bench", "version": "1.0.0"}}}),
            None,
        ),
        (
            s2c,
            json!({"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": rev,
            "capabilities": {"tools": {"listChanged": true}, "logging": {}},
            "serverInfo": {"name": "bench", "version": "1.0.0"}}}),
            Some("initialize"),
        ),
        (c2s, json!({"jsonrpc": "2.0", "method": "notifications/initialized"}), None),
        (c2s, json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}), None),
        (s2c, json!({"jsonrpc": "2.0", "id": 2, "result": {"tools": tools}}), Some("tools/list")),
        (
            c2s,
            json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
            "params": {"name": "tool_7", "arguments": {"text": "hello"}}}),
            None,
        ),
        (
            s2c,
            json!({"jsonrpc": "2.0", "id": 3, "result": {"content": [{"type": "text", "text": "hello"}],
            "isError": false}}),
            Some("tools/call"),
        ),
        (
            s2c,
            json!({"jsonrpc": "2.0", "method": "notifications/progress",
            "params": {"progressToken": "t", "progress": 0.5, "total": 1}}),
            None,
        ),
        (
            s2c,
            json!({"jsonrpc": "2.0", "method": "notifications/message",
            "params": {"level": "info", "data": "working"}}),
            None,
        ),
        (
            s2c,
            json!({"jsonrpc": "2.0", "id": 4, "error": {"code": -32601, "message": "Method not found"}}),
            None,
        ),
        (c2s, json!({"jsonrpc": "2.0", "id": 5, "method": "ping"}), None),
        (s2c, json!({"jsonrpc": "2.0", "id": 5, "result": {}}), Some("ping")),
    ]
}

fn modern_mix() -> Vec<(Direction, Value, Option<&'static str>)> {
    let c2s = Direction::ClientToServer;
    let s2c = Direction::ServerToClient;
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}, "io.modelcontextprotocol/clientInfo":
        {"name": "bench", "version": "1.0.0"}});
    let tools: Vec<Value> = (0..50)
        .map(|i| {
            json!({"name": format!("tool_{i}"), "description": "Does one thing well",
                   "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}},
                   "required": ["text"]}})
        })
        .collect();
    vec![
        (
            c2s,
            json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": meta}}),
            None,
        ),
        (
            s2c,
            json!({"jsonrpc": "2.0", "id": 1, "result": {"resultType": "complete",
            "supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}}, "ttlMs": 60000,
            "cacheScope": "public"}}),
            Some("server/discover"),
        ),
        (c2s, json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"_meta": meta}}), None),
        (
            s2c,
            json!({"jsonrpc": "2.0", "id": 2, "result": {"resultType": "complete", "tools": tools,
            "ttlMs": 60000, "cacheScope": "public"}}),
            Some("tools/list"),
        ),
        (
            c2s,
            json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"_meta": meta,
            "name": "tool_7", "arguments": {"text": "hello"}}}),
            None,
        ),
        (
            s2c,
            json!({"jsonrpc": "2.0", "id": 3, "result": {"resultType": "complete",
            "content": [{"type": "text", "text": "hello"}]}}),
            Some("tools/call"),
        ),
        (
            s2c,
            json!({"jsonrpc": "2.0", "method": "notifications/progress",
            "params": {"progressToken": "t", "progress": 0.5}}),
            None,
        ),
        (
            s2c,
            json!({"jsonrpc": "2.0", "id": 4, "error": {"code": -32601, "message": "Method not found"}}),
            None,
        ),
    ]
}

fn bench(c: &mut Criterion) {
    let set = SchemaSet::builtin();
    let mut group = c.benchmark_group("validate");
    for rev in [Revision::V2024_11_05, Revision::V2025_06_18, Revision::V2025_11_25] {
        let schema = set.get(rev).unwrap();
        let mix = legacy_mix(rev.as_str());
        for (d, m, a) in &mix {
            assert!(schema.validate(*d, m, *a).is_valid(), "{rev}: {m}");
        }
        group.throughput(Throughput::Elements(mix.len() as u64));
        group.bench_function(format!("mix/{rev}"), |b| {
            b.iter(|| {
                for (d, m, a) in &mix {
                    std::hint::black_box(schema.validate(*d, m, *a));
                }
            })
        });
        let list = &mix[4];
        group.throughput(Throughput::Elements(1));
        group.bench_function(format!("tools-list-50/{rev}"), |b| {
            b.iter(|| std::hint::black_box(schema.validate(list.0, &list.1, list.2)))
        });
    }
    for rev in [Revision::V2026_07_28] {
        let schema = set.get(rev).unwrap();
        let mix = modern_mix();
        for (d, m, a) in &mix {
            assert!(schema.validate(*d, m, *a).is_valid(), "{rev}: {m}");
        }
        group.throughput(Throughput::Elements(mix.len() as u64));
        group.bench_function(format!("mix/{rev}"), |b| {
            b.iter(|| {
                for (d, m, a) in &mix {
                    std::hint::black_box(schema.validate(*d, m, *a));
                }
            })
        });
    }
    group.finish();

    let mut group = c.benchmark_group("compile");
    group.sample_size(10);
    group.bench_function("builtin/all-revisions", |b| b.iter(SchemaSet::builtin));
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
