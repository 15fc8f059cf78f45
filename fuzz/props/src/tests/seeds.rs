//! The seed corpora of every fuzz target, written from real MCP messages: the schema crate's
//! spec examples, sessions played against the reference server (both directions, as
//! transcripts), and scripts of valid and broken client behaviour.

use super::session::{regression_cancel_after_batched_answer, regression_idless_error};
use crate::corpus::corpus_dir;
use crate::script::{
    ClientOp, Id, Script, Version, ANSWERS, BROKEN, GARBAGE, KNOWN, NUMBERS, OTHER_METHODS, TOOLS,
};
use mcpspec_protocol::framing::{self, LineDecoder};
use mcpspec_protocol::Revision;
use mcpspec_reference::server::{ReferenceServer, ServerConfig};
use serde_json::Value;
use std::collections::HashMap;
use std::time::{Duration, Instant};

/// Writes the seed corpora of every target into `fuzz/corpus/` (run by hand after changing
/// the seeds: `cargo test -p mcpspec-props --lib tests::seeds::write_seed_corpora -- --ignored`).
/// Seeds are real MCP messages: the schema crate's spec examples, sessions played against
/// the reference server (both directions, as transcripts), and scripts of valid and broken
/// client behaviour.
#[test]
#[ignore = "writes fuzz/corpus; run by hand"]
fn write_seed_corpora() {
    let examples_path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../schema/tests/fixtures/examples.jsonl");
    let examples: Vec<Value> = std::fs::read_to_string(&examples_path)
        .expect("the schema crate's examples")
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter_map(|mut l| l.get_mut("msg").map(Value::take))
        .collect();
    let scripts = seed_scripts();
    let transcripts: Vec<(String, Vec<u8>)> = scripts
        .iter()
        .map(|(name, script)| (name.clone(), transcript(script, Revision::V2025_06_18)))
        .collect();

    let mut corpora: HashMap<&str, Vec<(String, Vec<u8>)>> = HashMap::new();
    // framing: [limit, cuts, sizes…, stream]; real lines, plus the edges of the codec.
    let framing = corpora.entry("framing").or_default();
    for (i, (name, t)) in transcripts.iter().enumerate() {
        let limit = if i % 3 == 0 { 0x80 } else { (i * 11 % 64) as u8 };
        let mut data = vec![limit, (i % 8) as u8];
        data.extend((0..i % 8).map(|k| (k * 5 + i) as u8));
        data.extend(t);
        framing.push((format!("transcript-{name}"), data));
    }
    // Limit byte 7 is a limit of 8 bytes; 99 one of 100, over what an excerpt shows.
    for (name, limit, stream) in [
        ("crlf-blank-bom", 7, &b"{\"a\":1}\r\n\n\xef\xbb\xbf{}\n  \n"[..]),
        // Two tails without a newline: one within the limit, one over it.
        ("unterminated", 7, b"{}\n{\"id\":1"),
        ("unterminated-long", 7, b"{\"jsonrpc\":\"2.0\",\"id\":1"),
        ("invalid-utf8", 7, b"\xff\xfe{}\n\xc3\x28\n"),
        ("long-line", 7, &[b'x'; 200]),
        ("long-line-past-excerpt", 99, &[b'x'; 200]),
        ("only-newlines", 7, b"\n\n\n\n"),
        ("exactly-limit", 7, b"1234567\n12345678\n123456789\n"),
    ] {
        let mut data = vec![limit, 3, 1, 0, 5];
        data.extend(stream);
        framing.push((name.to_owned(), data));
    }
    // wire_checker and schema: a selector byte, then JSON lines.
    for target in ["wire_checker", "schema"] {
        let corpus = corpora.entry(target).or_default();
        for (i, chunk) in examples.chunks(4).enumerate() {
            let mut data = vec![(i * 37) as u8];
            for v in chunk {
                data.extend(framing::encode(v));
            }
            corpus.push((format!("spec-examples-{i:02}"), data));
        }
        for (i, (name, t)) in transcripts.iter().enumerate() {
            let mut data = vec![(i * 53 + 1) as u8];
            data.extend(t);
            corpus.push((format!("transcript-{name}"), data));
        }
    }
    corpora.insert("server_session", scripts.iter().map(|(n, s)| (n.clone(), s.to_bytes())).collect());

    for (target, files) in corpora {
        let dir = corpus_dir(target);
        std::fs::create_dir_all(&dir).unwrap();
        for (name, data) in files {
            std::fs::write(dir.join(format!("seed-{name}")), data).unwrap();
        }
    }
}

/// Both directions of a script played against the reference server, as stdio lines.
fn transcript(script: &Script, revision: Revision) -> Vec<u8> {
    let mut server = ReferenceServer::new(ServerConfig::default());
    let mut now = Instant::now();
    let mut out = Vec::new();
    let mut server_requests: Vec<Value> = Vec::new();
    for op in &script.ops {
        let answers = match op {
            ClientOp::Advance { step } => {
                now += Duration::from_millis(u64::from(*step).pow(2));
                server.poll(now)
            }
            op => {
                if let ClientOp::Answer { .. } = op {
                    server_requests.pop();
                }
                let Some(line) = op.to_line_in(revision, server_requests.last()) else { continue };
                out.extend(&line);
                LineDecoder::decode_all(usize::MAX, &line)
                    .iter()
                    .flat_map(|frame| server.on_frame_at(&frame.content, now))
                    .collect()
            }
        };
        for answer in answers {
            if answer.get("method").is_some() && answer.get("id").is_some() {
                server_requests.push(answer["id"].clone());
            }
            out.extend(framing::encode(&answer));
        }
    }
    out
}

/// Named client sessions: the handshake at each revision, every tool, pings before and after,
/// cancels, duplicate and twin ids, out-of-order and broken messages, garbage, batches.
fn seed_scripts() -> Vec<(String, Script)> {
    use ClientOp::*;
    let init = |id| Initialize { id, version: Version::Target };
    let mut seeds: Vec<(String, Vec<ClientOp>)> = vec![
        ("handshake".into(), vec![init(Id::Int(1)), Initialized]),
        (
            "ping-first".into(),
            vec![Ping { id: Id::Name(0) }, init(Id::Int(1)), Initialized, Ping { id: Id::Int(2) }],
        ),
        (
            "tools".into(),
            vec![
                init(Id::Int(0)),
                Initialized,
                ToolsList { id: Id::Int(1) },
                CallEcho { id: Id::Int(2), text: 0 },
                CallAdd { id: Id::Int(3), a: 1, b: 3 },
            ],
        ),
        (
            "tools-before-initialized".into(),
            vec![init(Id::Int(0)), ToolsList { id: Id::Int(1) }, Initialized],
        ),
        (
            "requests-before-initialize".into(),
            vec![
                ToolsList { id: Id::Int(1) },
                CallEcho { id: Id::Int(2), text: 1 },
                Initialized,
                init(Id::Int(3)),
            ],
        ),
        ("initialize-twice".into(), vec![init(Id::Int(1)), init(Id::Int(2)), Initialized]),
        (
            "cancel-answered".into(),
            vec![
                init(Id::Int(1)),
                Initialized,
                CallEcho { id: Id::Int(2), text: 0 },
                Cancel { target: Id::Int(2) },
            ],
        ),
        (
            "cancel-before".into(),
            vec![
                init(Id::Int(1)),
                Initialized,
                Cancel { target: Id::Int(9) },
                CallEcho { id: Id::Int(9), text: 0 },
            ],
        ),
        (
            "cancel-initialize".into(),
            vec![Cancel { target: Id::Int(1) }, init(Id::Int(1)), Cancel { target: Id::Int(1) }, Initialized],
        ),
        (
            "cancel-unknown".into(),
            vec![
                init(Id::Int(1)),
                Initialized,
                Cancel { target: Id::Name(77) },
                Cancel { target: Id::Edge(4) },
            ],
        ),
        (
            "duplicate-ids".into(),
            vec![
                init(Id::Int(1)),
                Initialized,
                Ping { id: Id::Int(1) },
                Ping { id: Id::Int(1) },
                ToolsList { id: Id::Int(1) },
            ],
        ),
        (
            "twin-ids".into(),
            vec![
                init(Id::Int(1)),
                Initialized,
                Ping { id: Id::Int(7) },
                Ping { id: Id::Digits(7) },
                Cancel { target: Id::Digits(7) },
            ],
        ),
        ("edge-ids".into(), (0..6).map(|i| Ping { id: Id::Edge(i) }).collect()),
        ("bad-calls".into(), {
            let mut ops = vec![init(Id::Int(0)), Initialized];
            ops.extend((0..8).map(|i| CallBad { id: Id::Int(i + 1), which: i }));
            ops
        }),
        ("add-edges".into(), {
            let mut ops = vec![init(Id::Int(0)), Initialized];
            ops.extend((0..NUMBERS as u8).map(|i| CallAdd {
                id: Id::Int(i + 1),
                a: i,
                b: NUMBERS as u8 - 1 - i,
            }));
            ops
        }),
        ("echo-texts".into(), {
            let mut ops = vec![init(Id::Int(0)), Initialized];
            ops.extend((0..7).map(|i| CallEcho { id: Id::Name(i), text: i }));
            ops
        }),
        ("other-methods".into(), {
            let mut ops = vec![init(Id::Int(0)), Initialized];
            ops.extend(
                (0..OTHER_METHODS.len() as u8)
                    .map(|i| Other { id: (i % 3 != 0).then_some(Id::Int(i + 1)), method: i }),
            );
            ops
        }),
        ("broken".into(), {
            let mut ops = vec![init(Id::Int(0)), Initialized];
            ops.extend((0..BROKEN.len() as u8).map(|i| Broken { id: Id::Int(i + 1), which: i }));
            ops
        }),
        (
            "broken-before-initialize".into(),
            (0..BROKEN.len() as u8).map(|i| Broken { id: Id::Name(i), which: i }).collect(),
        ),
        ("garbage".into(), {
            let mut ops: Vec<ClientOp> =
                (0..GARBAGE.len() as u8).map(|which| Garbage { which, bytes: vec![] }).collect();
            ops.push(Garbage { which: GARBAGE.len() as u8, bytes: b"not json at all".to_vec() });
            ops.extend([init(Id::Int(1)), Initialized, Ping { id: Id::Int(2) }]);
            ops
        }),
        (
            "batch".into(),
            vec![
                init(Id::Int(1)),
                Initialized,
                Batch { ops: vec![Ping { id: Id::Int(2) }, ToolsList { id: Id::Int(3) }, Initialized] },
            ],
        ),
        (
            "batch-edges".into(),
            vec![
                Batch { ops: vec![init(Id::Int(1))] },
                init(Id::Int(1)),
                Initialized,
                Batch { ops: vec![] },
                Batch {
                    ops: vec![
                        Batch { ops: vec![Ping { id: Id::Int(5) }] },
                        Broken { id: Id::Int(6), which: 6 },
                    ],
                },
                Batch { ops: vec![Initialized, Cancel { target: Id::Int(5) }] },
                Batch {
                    ops: vec![
                        Garbage { which: 0, bytes: vec![] },
                        Ping { id: Id::Int(5) },
                        Ping { id: Id::Int(5) },
                    ],
                },
            ],
        ),
        ("regression-idless-error".into(), regression_idless_error().ops),
        ("regression-cancel-after-batched-answer".into(), regression_cancel_after_batched_answer().ops),
        ("every-tool".into(), {
            let mut ops = vec![init(Id::Int(0)), Initialized];
            ops.extend((0..TOOLS.len() as u8).map(|i| CallTool { id: Id::Int(i + 1), tool: i, arg: 2 }));
            ops.extend([Advance { step: 40 }, Answer { shape: 0 }, Answer { shape: 1 }, Answer { shape: 2 }]);
            ops.push(Advance { step: 255 });
            ops
        }),
        ("every-known-request".into(), {
            let mut ops = vec![init(Id::Int(0)), Initialized];
            ops.extend((0..KNOWN.len() as u8).map(|i| Known { id: Id::Name(i), which: i }));
            ops
        }),
        (
            "slow-cancelled-in-flight".into(),
            vec![
                init(Id::Int(0)),
                Initialized,
                CallTool { id: Id::Int(5), tool: 11, arg: 10 },
                Cancel { target: Id::Int(5) },
                Advance { step: 50 },
                Ping { id: Id::Int(6) },
            ],
        ),
        (
            "slow-finishes".into(),
            vec![
                init(Id::Int(0)),
                Initialized,
                CallTool { id: Id::Digits(5), tool: 11, arg: 5 },
                Ping { id: Id::Int(5) },
                Advance { step: 30 },
                Cancel { target: Id::Digits(5) },
            ],
        ),
        (
            "slow-duplicate-ids".into(),
            vec![
                init(Id::Int(0)),
                Initialized,
                CallTool { id: Id::Int(1), tool: 11, arg: 3 },
                CallTool { id: Id::Int(1), tool: 11, arg: 1 },
                Ping { id: Id::Int(1) },
                Cancel { target: Id::Int(1) },
                Advance { step: 40 },
            ],
        ),
        (
            "sampling-answered".into(),
            vec![
                init(Id::Int(0)),
                Initialized,
                CallTool { id: Id::Int(7), tool: 8, arg: 0 },
                Answer { shape: 0 },
            ],
        ),
        (
            "sampling-times-out".into(),
            vec![
                init(Id::Int(0)),
                Initialized,
                CallTool { id: Id::Int(7), tool: 8, arg: 0 },
                Advance { step: 80 },
                Answer { shape: 0 },
            ],
        ),
        (
            "sampling-wrong-answers".into(),
            vec![
                init(Id::Int(0)),
                Initialized,
                CallTool { id: Id::Int(7), tool: 8, arg: 1 },
                Answer { shape: 4 },
                Answer { shape: ANSWERS.len() as u8 },
            ],
        ),
        (
            "elicitation-answered".into(),
            vec![
                init(Id::Int(0)),
                Initialized,
                CallTool { id: Id::Int(8), tool: 9, arg: 0 },
                Answer { shape: 1 },
                CallTool { id: Id::Int(9), tool: 9, arg: 0 },
                Answer { shape: 5 },
            ],
        ),
        (
            "roots-answered".into(),
            vec![
                init(Id::Int(0)),
                Initialized,
                CallTool { id: Id::Int(8), tool: 10, arg: 0 },
                Answer { shape: 2 },
            ],
        ),
        ("progress".into(), {
            let mut ops = vec![init(Id::Int(0)), Initialized, CallTool { id: Id::Int(3), tool: 6, arg: 1 }];
            ops.extend((0..6).map(|_| Advance { step: 4 }));
            ops
        }),
        (
            "subscribe-watched".into(),
            vec![
                init(Id::Int(0)),
                Initialized,
                Known { id: Id::Int(1), which: 5 },
                Advance { step: 10 },
                CallTool { id: Id::Int(2), tool: 12, arg: 0 },
                Known { id: Id::Int(3), which: 6 },
                Advance { step: 10 },
            ],
        ),
        (
            "logging".into(),
            vec![
                init(Id::Int(0)),
                Initialized,
                Known { id: Id::Int(1), which: 10 },
                CallTool { id: Id::Int(2), tool: 5, arg: 0 },
                Known { id: Id::Int(3), which: 11 },
                CallTool { id: Id::Int(4), tool: 5, arg: 0 },
            ],
        ),
        (
            "client-responses".into(),
            vec![
                init(Id::Int(1)),
                Initialized,
                Response { id: Id::Int(1), error: false },
                Response { id: Id::Name(3), error: true },
            ],
        ),
    ];
    // `Version::Listed(i)` indexes VERSIONS; the two past its end send a number or nothing.
    let listed = crate::script::VERSIONS.into_iter().chain(["number", "missing"]);
    for (i, r) in listed.enumerate() {
        seeds.push((
            format!("initialize-asks-{}", if r.is_empty() { "empty" } else { r }),
            vec![
                Initialize { id: Id::Int(1), version: Version::Listed(i as u8) },
                Initialized,
                ToolsList { id: Id::Int(2) },
                CallAdd { id: Id::Int(3), a: 3, b: 8 },
            ],
        ));
    }
    seeds.into_iter().map(|(n, ops)| (n, Script { ops })).collect()
}
