//! The session-checker, schema and server-session properties: their seed corpora replayed,
//! the inputs the fuzzer found kept as regressions, and proptest.

use crate::checker::{schema, schemas, wire_checker};
use crate::corpus::{corpus_dir, corpus_files, replay};
use crate::script::{ClientOp, Id, Script, Version};
use crate::session::*;
use mcpspec_protocol::wire::RequestId;
use mcpspec_protocol::{Direction, Revision};
use proptest::prelude::*;
use std::collections::HashMap;

fn replays(target: &str, property: fn(&[u8])) {
    let n = replay(target, property);
    assert!(n >= 20, "fuzz/corpus/{target} holds {n} files; the seed corpus is missing");
}

#[test]
fn the_wire_checker_corpus_replays() {
    replays("wire_checker", wire_checker);
}

#[test]
fn the_schema_corpus_replays() {
    replays("schema", schema);
}

#[test]
fn the_server_session_corpus_replays() {
    replays("server_session", server_session);
}

/// Regression (found by `any_script_keeps_the_session_properties`): an error answering a
/// message whose id cannot be read has no id, as JSON-RPC says, but the schemas of
/// 2024-11-05 … 2025-06-18 require `id` on `JSONRPCError`. The property accepts that one
/// violation (the spec contradicts itself); any other would fail. Corpus:
/// `fuzz/corpus/server_session/seed-regression-idless-error`.
#[test]
fn an_idless_error_breaks_only_the_required_id_of_old_schemas() {
    let script = regression_idless_error();
    for revision in Revision::LEGACY {
        play(&script, revision);
    }
    let error = serde_json::json!({"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request: x"}});
    let verdict =
        schemas().get(Revision::V2024_11_05).unwrap().validate(Direction::ServerToClient, &error, None);
    assert!(!verdict.is_valid() && idless_error_where_schema_requires_id(&error, &verdict), "{verdict:?}");
    let wrong = serde_json::json!({"jsonrpc":"2.0","error":{"code":"x","message":"y"}});
    let verdict =
        schemas().get(Revision::V2024_11_05).unwrap().validate(Direction::ServerToClient, &wrong, None);
    assert!(!idless_error_where_schema_requires_id(&wrong, &verdict), "other violations still count");
}

pub(super) fn regression_idless_error() -> Script {
    let ops = vec![
        ClientOp::Batch { ops: vec![ClientOp::Initialize { id: Id::Int(1), version: Version::Target }] },
        ClientOp::Broken { id: Id::Int(2), which: 0 },
        ClientOp::Garbage { which: 6, bytes: vec![] },
    ];
    Script { ops }
}

/// Regression (found by `any_script_after_a_handshake_keeps_the_session_properties`): in
/// 2025-03-26 a batch's answers wait for its slowest member, so the answer to a ping in a
/// batch with a slow tool is written after a later cancel of that ping. The ping was
/// finished when the cancel came, so the cancel was too late: not a breach. Corpus:
/// `fuzz/corpus/server_session/seed-regression-cancel-after-batched-answer`.
#[test]
fn a_cancel_of_a_finished_request_waiting_in_a_batch_is_too_late() {
    play(&regression_cancel_after_batched_answer(), Revision::V2025_03_26);
}

pub(super) fn regression_cancel_after_batched_answer() -> Script {
    use ClientOp::*;
    let ops = vec![
        Initialize { id: Id::Int(1), version: Version::Target },
        Initialized,
        Batch {
            ops: vec![
                Cancel { target: Id::Int(0) },
                CallTool { id: Id::Int(0), tool: 11, arg: 1 },
                Ping { id: Id::Edge(5) },
            ],
        },
        Initialize { id: Id::Int(0), version: Version::Target },
        Cancel { target: Id::Edge(5) },
    ];
    Script { ops }
}

/// Every input the `server_session` target found in this property itself (none was a bug
/// of the reference server), with the revision it was found at and what the property got
/// wrong. Each is also a file in `fuzz/corpus/server_session/`. Several were about telling
/// apart requests with one id: an id reused while a request with it could still be
/// answered is now judged by count (`Client::reused`), and every other id has at most one
/// answerable request, so `answer_of` need not guess; these inputs keep both paths honest.
const PROPERTY_REGRESSIONS: &[(&str, Revision, &str)] = &[
    (
        "crash-duplicate-id-answered-by-due-job",
        Revision::V2024_11_05,
        "a slow tool's answer falls due and is written when the next line comes, and that line \
         reuses the tool call's id: the answer was matched to the new request",
    ),
    (
        "crash-answers-of-a-waiting-batch",
        Revision::V2025_03_26,
        "the answers of one batch were forgotten when another batch's array was written after it",
    ),
    (
        "crash-cancel-of-a-request-that-fell-due",
        Revision::V2024_11_05,
        "a 0 ms tool finishes when the next line is read, before that line's cancel of it is \
         processed; the cancel was taken as processed first",
    ),
    (
        "crash-result-and-error-for-one-id-in-a-batch",
        Revision::V2025_03_26,
        "one batch answered a slow tool and an invalid initialize that share an id, and the \
         answers were matched crosswise",
    ),
    (
        "crash-batch-completed-by-a-later-cancel",
        Revision::V2025_03_26,
        "a batch completed by a cancel on a later line was matched to that line's requests",
    ),
    (
        "crash-batch-answered-at-once-beside-a-waiting-one",
        Revision::V2025_03_26,
        "a batch answered at once was matched to an older waiting batch that shared its ids",
    ),
    (
        "crash-cancel-in-a-rejected-batch",
        Revision::V2024_11_05,
        "a cancel inside a batch that the revision rejects whole was taken as processed",
    ),
    (
        "crash-error-matched-to-a-running-tool-call",
        Revision::V2025_03_26,
        "a waiting batch's error was matched to a tool call of the same id still running",
    ),
    (
        "crash-tool-result-matched-to-a-waiting-ping",
        Revision::V2025_03_26,
        "a slow tool's result, written as time passed, was matched to a ping of the same id \
         waiting in a batch",
    ),
    (
        "crash-tool-result-fits-a-ping-loosely",
        Revision::V2025_03_26,
        "a tool result was matched to a ping with the same id (an empty result accepts any object)",
    ),
    (
        "crash-one-id-open-for-different-methods",
        Revision::V2025_03_26,
        "one id open for requests of different methods: no rule tells which answer is which",
    ),
    (
        "crash-id-reused-across-a-held-batch-a",
        Revision::V2025_03_26,
        "an id of a batch that waits for its slowest member, reused in the batch or after it",
    ),
    ("crash-id-reused-across-a-held-batch-b", Revision::V2025_03_26, "as -a"),
    ("crash-id-reused-across-a-held-batch-c", Revision::V2025_03_26, "as -a"),
];

#[test]
fn the_inputs_the_fuzzer_found_keep_the_property() {
    for (file, revision, what) in PROPERTY_REGRESSIONS {
        let path = corpus_dir("server_session").join(file);
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        eprintln!("{file} at {revision} ({what})");
        play(&Script::from_bytes(&bytes), *revision);
    }
    let listed: Vec<&str> = PROPERTY_REGRESSIONS.iter().map(|(file, ..)| *file).collect();
    for (path, _) in corpus_files("server_session") {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        assert!(!name.starts_with("crash-") || listed.contains(&name.as_str()), "{name} is not listed");
    }
}

#[test]
fn a_reused_id_gets_no_more_answers_than_requests() {
    let (mut sent, mut reused) = (HashMap::new(), HashMap::new());
    let ping = serde_json::json!({"jsonrpc":"2.0","id":7,"method":"ping"});
    note_sent(&ping, 1, |_| true, &mut sent, &mut reused);
    assert!(reused.is_empty(), "one request with the id is not a reuse");
    note_sent(&ping, 2, |_| true, &mut sent, &mut reused);
    let id = RequestId::from(7);
    assert_eq!(reused.get(&id), Some(&(2, 0)));
    answer_reused(&id, &mut sent, &mut reused).unwrap();
    answer_reused(&id, &mut sent, &mut reused).unwrap();
    let why = answer_reused(&id, &mut sent, &mut reused).unwrap_err();
    assert!(why.starts_with("answer 3 to the 2 request(s)"), "{why}");
    // An id reused only after its request was cancelled can still be matched exactly.
    let (mut sent, mut reused) = (HashMap::new(), HashMap::new());
    let call = serde_json::json!({"jsonrpc":"2.0","id":"c","method":"tools/call"});
    let cancel =
        serde_json::json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"c"}});
    note_sent(&call, 1, |_| true, &mut sent, &mut reused);
    note_sent(&cancel, 2, |_| true, &mut sent, &mut reused);
    note_sent(&call, 3, |_| true, &mut sent, &mut reused);
    assert!(reused.is_empty());
}

#[test]
fn a_full_session_passes_at_every_revision() {
    server_session(&handshake(vec![
        ClientOp::ToolsList { id: Id::Int(2) },
        ClientOp::CallEcho { id: Id::Int(3), text: 3 },
        ClientOp::CallAdd { id: Id::Name(4), a: 3, b: 1 },
        ClientOp::Cancel { target: Id::Int(3) },
    ]));
}

#[test]
#[should_panic(expected = "which no unanswered request has")]
fn an_answer_nobody_asked_for_is_caught() {
    let (mut sent, mut reused) = (HashMap::new(), HashMap::new());
    note_sent(
        &serde_json::json!({"jsonrpc":"2.0","id":1,"method":"ping"}),
        1,
        |_| true,
        &mut sent,
        &mut reused,
    );
    assert_eq!(answer_of(&RequestId::from(1), &mut sent), Ok(Some("ping".to_owned())));
    answer_of(&RequestId::from(1), &mut sent).unwrap();
}

#[test]
fn an_answer_after_a_processed_cancel_is_caught() {
    let (mut sent, mut reused) = (HashMap::new(), HashMap::new());
    let call = serde_json::json!({"jsonrpc":"2.0","id":"a","method":"tools/call"});
    let cancel =
        serde_json::json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"a"}});
    note_sent(&call, 1, |_| true, &mut sent, &mut reused);
    note_sent(&cancel, 2, |_| false, &mut sent, &mut reused);
    assert_eq!(answer_of(&RequestId::from("a"), &mut sent), Ok(Some("tools/call".to_owned())), "too late");
    note_sent(&call, 4, |_| true, &mut sent, &mut reused);
    note_sent(&cancel, 5, |_| true, &mut sent, &mut reused);
    let why = answer_of(&RequestId::from("a"), &mut sent).unwrap_err();
    assert!(why.contains("after its cancellation"), "{why}");
}

fn handshake(rest: Vec<ClientOp>) -> Vec<u8> {
    let mut ops =
        vec![ClientOp::Initialize { id: Id::Int(1), version: Version::Target }, ClientOp::Initialized];
    ops.extend(rest);
    Script { ops }.to_bytes()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Any bytes, as a client script: the session properties hold at every revision.
    #[test]
    fn any_script_keeps_the_session_properties(bytes in proptest::collection::vec(any::<u8>(), 0..160)) {
        server_session(&bytes);
    }

    /// Any bytes before a handshake: the scripts that get furthest.
    #[test]
    fn any_script_after_a_handshake_keeps_the_session_properties(bytes in proptest::collection::vec(any::<u8>(), 0..160)) {
        let mut data = handshake(vec![]);
        data.extend(bytes);
        server_session(&data);
    }

    /// The checker on JSON-RPC-looking streams never panics and describes what it saw.
    #[test]
    fn the_checker_holds_on_json_like_streams(bytes in proptest::collection::vec(
        prop_oneof![Just(b'\n'), Just(b'{'), Just(b'}'), Just(b'['), Just(b'"'), Just(b'1'), Just(b':'), any::<u8>()], 0..200)) {
        wire_checker(&bytes);
    }
}
