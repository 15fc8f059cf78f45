//! Throughput of the stdio framing decoder next to the practical limit, a bare `memchr` split
//! of the same bytes (issue #12, target: decode at least 50 % of the split's throughput).
//!
//! The input is a realistic stream: many newline-delimited JSON-RPC messages of about 1 KiB or
//! about 64 KiB each (tool results, resource contents, tool lists: text and structure mixed),
//! fed in 64 KiB chunks, as a read on a full pipe returns them (the pipe's capacity, and the
//! buffer `transport::child` reads into). Chunk edges fall anywhere, so lines straddle chunks
//! as they do on a real pipe.
//!
//! The decoder does two things, and each has its own limit, so there are two groups:
//! - `split`: [`LineDecoder::cut`] (the state machine alone) against `memchr` cutting lines
//!   (`memchr`, the reference: straddling lines only counted) and against `memchr`
//!   handing each line over whole (`memchr+copy`: straddling lines copied, which a decoder
//!   that hands a parser contiguous bytes cannot avoid — with 64 KiB messages in 64 KiB
//!   chunks that is nearly every byte, so there the bare split's 2x is the copy);
//! - `split+parse`: [`LineDecoder::push`] (cut, UTF-8 check, parse into a `Value`) against
//!   `memchr` plus `serde_json::from_slice` of each line — the same work with no state.
//!
//! `push` against the bare split is in the same group, for the literal ratio: it is bounded by
//! JSON parsing, not by framing.
//!
//! `cargo bench -p mcpspec-reference --bench framing`

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use mcpspec_protocol::framing::{encode, FrameContent, LineDecoder, RawLine};
use serde_json::{json, Value};
use std::hint::black_box;
use std::time::Duration;

/// What a read on a full pipe returns.
const CHUNK: usize = 64 * 1024;
/// Bytes of stream per size: enough messages that per-stream costs vanish, small enough to sit
/// in the last-level cache like a stream being read.
const STREAM_BYTES: usize = 2 * 1024 * 1024;

/// A `tools/call` result whose text is padded so the whole line is about `size` bytes.
fn call_result(id: u64, size: usize) -> Value {
    let text = "The quick brown fox jumps over the lazy dog; \"quoted\" and \\escaped\\ text. ";
    let mut v = json!({"jsonrpc": "2.0", "id": id, "result": {"content": [
        {"type": "text", "text": ""}], "structuredContent": {"temperature": 21.5, "unit": "C",
        "readings": [1, 2, 3, 5, 8, 13]}, "isError": false}});
    let room = size.saturating_sub(encode(&v).len());
    v["result"]["content"][0]["text"] = Value::from(text.repeat(room / text.len() + 1)[..room].to_owned());
    v
}

/// A `resources/read` result: one text resource, about `size` bytes in all.
fn read_result(id: u64, size: usize) -> Value {
    let line = "fn main() {\n    println!(\"hello, world\");\n}\n\t// a comment with unicode: é ü ✓\n";
    let mut v = json!({"jsonrpc": "2.0", "id": id, "result": {"contents": [
        {"uri": "file:///project/src/main.rs", "mimeType": "text/x-rust", "text": ""}]}});
    let mut text = String::new();
    while encode(&v).len() + text.len() + line.len() * 2 < size {
        text.push_str(line);
    }
    v["result"]["contents"][0]["text"] = Value::from(text);
    v
}

/// A `tools/list` result with as many tools as fit in about `size` bytes: structure-heavy,
/// the hardest case for the parser per byte.
fn list_result(id: u64, size: usize) -> Value {
    let mut tools = Vec::new();
    let mut v = json!({"jsonrpc": "2.0", "id": id, "result": {"tools": []}});
    for i in 0.. {
        tools.push(json!({"name": format!("tool_{i}"), "title": format!("Tool {i}"),
            "description": "Searches the index for documents that match a query.",
            "inputSchema": {"type": "object", "properties": {"query": {"type": "string"},
            "limit": {"type": "integer", "minimum": 1, "maximum": 100}}, "required": ["query"]},
            "annotations": {"readOnlyHint": true, "openWorldHint": false}}));
        v["result"]["tools"] = Value::from(tools.clone());
        if encode(&v).len() >= size {
            break;
        }
    }
    v
}

/// A stream of about [`STREAM_BYTES`] of messages of about `size` bytes each, in rotation
/// (with a progress notification and a request in between, as a session has), and how many
/// lines it holds.
fn stream(size: usize) -> (Vec<u8>, usize) {
    let mut out = Vec::with_capacity(STREAM_BYTES + size);
    let mut lines = 0;
    let mut id = 0;
    while out.len() < STREAM_BYTES {
        id += 1;
        let message = match id % 3 {
            0 => call_result(id, size),
            1 => read_result(id, size),
            _ => list_result(id, size),
        };
        out.extend(encode(&message));
        out.extend(encode(&json!({"jsonrpc": "2.0", "method": "notifications/progress",
            "params": {"progressToken": id, "progress": 1, "total": 3}})));
        out.extend(encode(&json!({"jsonrpc": "2.0", "id": id, "method": "ping"})));
        lines += 3;
    }
    (out, lines)
}

/// The practical limit of cutting: `memchr` over each chunk, a line that straddles chunks only
/// counted (no copy, no state beyond its length). Returns the lines seen, so the work is used.
fn memchr_split(chunks: &[&[u8]]) -> usize {
    let mut lines = 0;
    let mut carried = 0usize;
    for chunk in chunks {
        let mut start = 0;
        for end in memchr::memchr_iter(b'\n', chunk) {
            black_box(&chunk[start..end]);
            black_box(carried);
            carried = 0;
            lines += 1;
            start = end + 1;
        }
        carried += chunk.len() - start;
    }
    lines
}

/// The memchr split handing over each line whole: a line that straddles chunks is copied into
/// `carry` first, as any decoder must that gives a parser contiguous bytes. The limit of
/// [`LineDecoder::cut`], which does the same copy.
fn memchr_split_whole(chunks: &[&[u8]], carry: &mut Vec<u8>, mut each: impl FnMut(&[u8])) -> usize {
    let mut lines = 0;
    for chunk in chunks {
        let mut start = 0;
        for end in memchr::memchr_iter(b'\n', chunk) {
            if carry.is_empty() {
                each(&chunk[start..end]);
            } else {
                carry.extend_from_slice(&chunk[start..end]);
                each(carry);
            }
            carry.clear();
            lines += 1;
            start = end + 1;
        }
        carry.extend_from_slice(&chunk[start..]);
    }
    lines
}

/// The practical limit of decoding: the whole-line memchr split plus parsing each line into a
/// `Value`.
fn memchr_split_parse(chunks: &[&[u8]], carry: &mut Vec<u8>) -> usize {
    memchr_split_whole(chunks, carry, |line| {
        let value: Value = serde_json::from_slice(line).expect("the stream is JSON");
        black_box(value);
    })
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("framing");
    // Each iteration is a whole 2 MiB stream (about 1-10 ms): few samples suffice, and the
    // whole bench stays well under a minute.
    group.sample_size(20).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(2));
    for (label, size) in [("1KiB", 1024), ("64KiB", 64 * 1024)] {
        let (bytes, lines) = stream(size);
        let chunks: Vec<&[u8]> = bytes.chunks(CHUNK).collect();
        // Same bytes, same lines, every message JSON: the pairs compare like with like.
        assert_eq!(memchr_split(&chunks), lines);
        assert_eq!(memchr_split_whole(&chunks, &mut Vec::new(), |_| ()), lines);
        assert_eq!(memchr_split_parse(&chunks, &mut Vec::new()), lines);
        let mut frames = Vec::new();
        let mut decoder = LineDecoder::default();
        for chunk in &chunks {
            decoder.push(chunk, &mut frames);
        }
        assert_eq!(frames.len(), lines);
        assert!(frames.iter().all(|f| matches!(f.content, FrameContent::Json { .. })));

        group.throughput(Throughput::Bytes(bytes.len() as u64));
        group.bench_function(BenchmarkId::new("split/memchr", label), |b| {
            b.iter(|| memchr_split(black_box(&chunks)))
        });
        group.bench_function(BenchmarkId::new("split/memchr+copy", label), |b| {
            let mut carry = Vec::new();
            b.iter(|| {
                memchr_split_whole(black_box(&chunks), &mut carry, |line| {
                    black_box(line);
                })
            })
        });
        // One decoder for all iterations, as a reader keeps one for the session: the stream ends
        // with a newline, so each iteration starts it between lines, its buffer grown.
        group.bench_function(BenchmarkId::new("split/LineDecoder::cut", label), |b| {
            let mut decoder = LineDecoder::default();
            b.iter(|| {
                let mut n = 0usize;
                for chunk in &chunks {
                    decoder.cut(black_box(chunk), |line, raw| {
                        let RawLine::Line(bytes) = raw else { unreachable!("within the limit") };
                        black_box((line, bytes));
                        n += 1;
                    });
                }
                n
            })
        });
        group.bench_function(BenchmarkId::new("split+parse/memchr+serde_json", label), |b| {
            let mut carry = Vec::new();
            b.iter(|| memchr_split_parse(black_box(&chunks), &mut carry))
        });
        group.bench_function(BenchmarkId::new("split+parse/LineDecoder::push", label), |b| {
            let mut decoder = LineDecoder::default();
            let mut frames = Vec::with_capacity(64);
            b.iter(|| {
                let mut n = 0usize;
                for chunk in &chunks {
                    decoder.push(black_box(chunk), &mut frames);
                    n += frames.len();
                    // Dropped here, as the reader hands frames on: dropping the values is part
                    // of what a decoded message costs, in both versions.
                    frames.clear();
                }
                n
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
