//! Messages validated per second on one core (the bench runs on one thread), against our
//! built-in schemas. Target (issues "Own JSON Schemas" and #12): at least 1 million per second
//! per core on a realistic mix.
//!
//! - `session/<rev>`: the realistic mix of issue #12, a session's worth of traffic in both
//!   directions — the client's requests and notifications, an initialize result, a tools/list
//!   result with several tools, tool, resource and prompt results, progress and log
//!   notifications, errors, and two invalid messages (which cost an explanation each);
//! - `mix/<rev>`: the earlier mix, valid messages only, with a 50-tool tools/list result;
//! - `tools-list-50/<rev>`: that one big result alone.
//!
//! `cargo bench -p mcpspec-schema --bench validate`

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use mcpspec_protocol::{Direction, Revision};
use mcpspec_schema::SchemaSet;
use serde_json::{json, Value};
use std::time::Duration;

/// One message of a mix: its direction, the message, the method a result answers, and whether
/// it is valid (checked before measuring, so the bench measures what it says).
type Sample = (Direction, Value, Option<&'static str>, bool);

/// A session's traffic at a legacy revision (2024-11-05 to 2025-11-25): what a client and a
/// typical tool server exchange, in order, with two invalid server messages among them.
fn session_mix(rev: &str) -> Vec<Sample> {
    let c2s = Direction::ClientToServer;
    let s2c = Direction::ServerToClient;
    let tools: Vec<Value> =
        ["search", "fetch", "summarize", "translate", "get_weather", "run_query", "list_files", "read_file"]
            .iter()
            .map(|name| {
                json!({"name": name, "description": format!("{name}: does one thing well"),
                   "inputSchema": {"type": "object", "properties": {"query": {"type": "string",
                   "description": "What to look for"}, "limit": {"type": "integer", "minimum": 1}},
                   "required": ["query"]}})
            })
            .collect();
    vec![
        (
            c2s,
            json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": rev,
            "capabilities": {"roots": {"listChanged": true}, "sampling": {}},
            "clientInfo": {"name": "bench-client", "version": "1.2.3"}}}),
            None,
            true,
        ),
        (
            s2c,
            json!({"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": rev,
            "capabilities": {"tools": {"listChanged": true}, "resources": {"subscribe": true},
            "prompts": {}, "logging": {}}, "serverInfo": {"name": "bench-server", "version": "0.9.0"},
            "instructions": "Search first, then fetch."}}),
            Some("initialize"),
            true,
        ),
        (c2s, json!({"jsonrpc": "2.0", "method": "notifications/initialized"}), None, true),
        (c2s, json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}), None, true),
        (s2c, json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": tools}}), Some("tools/list"), true),
        (
            c2s,
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "search",
            "arguments": {"query": "mcp", "limit": 5}, "_meta": {"progressToken": "p2"}}}),
            None,
            true,
        ),
        (
            s2c,
            json!({"jsonrpc": "2.0", "method": "notifications/progress",
            "params": {"progressToken": "p2", "progress": 1, "total": 2}}),
            None,
            true,
        ),
        (
            s2c,
            json!({"jsonrpc": "2.0", "method": "notifications/message",
            "params": {"level": "info", "logger": "search", "data": {"hits": 5}}}),
            None,
            true,
        ),
        (
            s2c,
            json!({"jsonrpc": "2.0", "id": 2, "result": {"content": [
            {"type": "text", "text": "5 results for mcp"},
            {"type": "resource", "resource": {"uri": "file:///docs/a.md", "mimeType": "text/markdown",
             "text": "# A"}}], "isError": false}}),
            Some("tools/call"),
            true,
        ),
        (c2s, json!({"jsonrpc": "2.0", "id": 3, "method": "resources/list"}), None, true),
        (
            s2c,
            json!({"jsonrpc": "2.0", "id": 3, "result": {"resources": [
            {"uri": "file:///docs/a.md", "name": "a.md", "mimeType": "text/markdown"},
            {"uri": "file:///docs/b.md", "name": "b.md", "mimeType": "text/markdown"}],
            "nextCursor": "c2"}}),
            Some("resources/list"),
            true,
        ),
        (
            c2s,
            json!({"jsonrpc": "2.0", "id": 4, "method": "resources/read",
            "params": {"uri": "file:///docs/a.md"}}),
            None,
            true,
        ),
        (
            s2c,
            json!({"jsonrpc": "2.0", "id": 4, "result": {"contents": [{"uri": "file:///docs/a.md",
            "mimeType": "text/markdown", "text": "# A\n\nSome text."}]}}),
            Some("resources/read"),
            true,
        ),
        (
            c2s,
            json!({"jsonrpc": "2.0", "id": 5, "method": "prompts/get",
            "params": {"name": "review", "arguments": {"code": "fn main() {}"}}}),
            None,
            true,
        ),
        (
            s2c,
            json!({"jsonrpc": "2.0", "id": 5, "result": {"description": "Code review",
            "messages": [{"role": "user", "content": {"type": "text", "text": "Review: fn main() {}"}}]}}),
            Some("prompts/get"),
            true,
        ),
        (
            c2s,
            json!({"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": {"name": "nope",
            "arguments": {}}}),
            None,
            true,
        ),
        (
            s2c,
            json!({"jsonrpc": "2.0", "id": 6, "error": {"code": -32602,
            "message": "Unknown tool: nope", "data": {"tool": "nope"}}}),
            None,
            true,
        ),
        (
            c2s,
            json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": {"requestId": 2, "reason": "user"}}),
            None,
            true,
        ),
        (s2c, json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}), None, true),
        (c2s, json!({"jsonrpc": "2.0", "id": 7, "method": "ping"}), None, true),
        (s2c, json!({"jsonrpc": "2.0", "id": 7, "result": {}}), Some("ping"), true),
        (
            s2c,
            json!({"jsonrpc": "2.0", "id": 8, "error": {"code": -32601, "message": "Method not found"}}),
            None,
            true,
        ),
        // Invalid: a text content block without its text.
        (
            s2c,
            json!({"jsonrpc": "2.0", "id": 9, "result": {"content": [{"type": "text"}]}}),
            Some("tools/call"),
            false,
        ),
        // Invalid: an initialize result without capabilities, its version a number.
        (
            s2c,
            json!({"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": 20250618,
            "serverInfo": {"name": "bench-server", "version": "0.9.0"}}}),
            Some("initialize"),
            false,
        ),
    ]
}

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
    // Microseconds per iteration: a short run is plenty, and keeps `cargo bench` quick.
    group.warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3));
    for rev in [Revision::V2024_11_05, Revision::V2025_06_18, Revision::V2025_11_25] {
        let schema = set.get(rev).unwrap();
        let mix = session_mix(rev.as_str());
        for (d, m, a, valid) in &mix {
            let verdict = schema.validate(*d, m, *a);
            assert_eq!(verdict.is_valid(), *valid, "{rev}: {m}: {verdict}");
        }
        group.throughput(Throughput::Elements(mix.len() as u64));
        group.bench_function(format!("session/{rev}"), |b| {
            b.iter(|| {
                for (d, m, a, _) in &mix {
                    std::hint::black_box(schema.validate(*d, m, *a));
                }
            })
        });
    }
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
