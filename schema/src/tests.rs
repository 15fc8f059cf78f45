//! Validator tests against the official schema files in `../shared/schemas` (skipped with a note
//! when that folder is absent) and against small hand-written directories.

use super::*;
use serde_json::json;
use std::sync::OnceLock;

const OFFICIAL: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/schemas");
const C2S: Direction = Direction::ClientToServer;
const S2C: Direction = Direction::ServerToClient;

/// The official files, compiled once for all tests; `None` (with a note) when absent.
fn official() -> Option<&'static SchemaSet> {
    static SET: OnceLock<Option<SchemaSet>> = OnceLock::new();
    SET.get_or_init(|| {
        let dir = Path::new(OFFICIAL);
        if !dir.is_dir() {
            eprintln!("note: {OFFICIAL} not found; skipping tests against the official schemas");
            return None;
        }
        Some(SchemaSet::from_dir(dir).expect("the official schemas compile"))
    })
    .as_ref()
}

fn legacy() -> Vec<&'static RevisionSchema> {
    official()
        .map(|set| Revision::LEGACY.iter().map(|r| set.get(*r).expect("revision present")).collect())
        .unwrap_or_default()
}

#[track_caller]
fn assert_valid(
    schema: &RevisionSchema,
    direction: Direction,
    msg: Value,
    answered: Option<&str>,
    def: &str,
) {
    let got = schema.validate(direction, &msg, answered);
    assert_eq!(
        got,
        Validation::Valid { definition: def.to_owned() },
        "{} {direction}: {msg}",
        schema.revision()
    );
}

/// Asserts `Invalid` against `def` with a violation at `path`; returns the violations.
#[track_caller]
fn assert_invalid_at(
    schema: &RevisionSchema,
    direction: Direction,
    msg: Value,
    answered: Option<&str>,
    def: &str,
    path: &str,
) -> Vec<Violation> {
    match schema.validate(direction, &msg, answered) {
        Validation::Invalid { definition, violations } => {
            assert_eq!(definition, def, "{}: {msg}", schema.revision());
            assert!(
                violations.iter().any(|v| v.instance_path == path),
                "{}: no violation at {path}: {violations:#?}",
                schema.revision()
            );
            violations
        }
        other => panic!("{}: expected Invalid for {msg}, got {other:?}", schema.revision()),
    }
}

fn initialize(rev: Revision) -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": rev.as_str(),
        "capabilities": {"roots": {"listChanged": true}, "sampling": {}},
        "clientInfo": {"name": "mcpspec", "version": "0.1.0"}}})
}

fn initialize_result(rev: Revision) -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "result": {
        "protocolVersion": rev.as_str(),
        "capabilities": {"tools": {"listChanged": false}, "logging": {}},
        "serverInfo": {"name": "reference", "version": "0.1.0"}}})
}

#[test]
fn every_revision_of_the_official_files_compiles() {
    let Some(set) = official() else { return };
    assert_eq!(set.revisions(), Revision::ALL.to_vec());
    for rev in Revision::ALL {
        let schema = set.get(rev).unwrap();
        assert!(schema.definitions().any(|d| d == "JSONRPCMessage"));
        assert_eq!(schema.revision(), rev);
    }
}

#[test]
fn lifecycle_messages_are_valid_in_every_legacy_revision() {
    for s in legacy() {
        let rev = s.revision();
        assert_valid(s, C2S, initialize(rev), None, "InitializeRequest");
        assert_valid(s, S2C, initialize_result(rev), Some("initialize"), "InitializeResult");
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        assert_valid(s, C2S, initialized, None, "InitializedNotification");
        let ping = json!({"jsonrpc": "2.0", "id": "p-1", "method": "ping"});
        assert_valid(s, C2S, ping.clone(), None, "PingRequest");
        assert_valid(s, S2C, ping, None, "PingRequest");
        let pong = json!({"jsonrpc": "2.0", "id": "p-1", "result": {}});
        assert_valid(s, S2C, pong.clone(), Some("ping"), "EmptyResult");
        assert_valid(s, C2S, pong, Some("ping"), "EmptyResult");
    }
}

#[test]
fn tools_messages_are_valid_in_every_legacy_revision() {
    for s in legacy() {
        let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}});
        assert_valid(s, C2S, list, None, "ListToolsRequest");
        let tools = json!({"jsonrpc": "2.0", "id": 2, "result": {"tools": [
            {"name": "echo", "description": "Echoes", "inputSchema": {"type": "object",
             "properties": {"text": {"type": "string"}}, "required": ["text"]}}],
            "nextCursor": "c2"}});
        assert_valid(s, S2C, tools, Some("tools/list"), "ListToolsResult");
        let call = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
            "params": {"name": "echo", "arguments": {"text": "hi"}}});
        assert_valid(s, C2S, call, None, "CallToolRequest");
        let result = json!({"jsonrpc": "2.0", "id": 3, "result": {
            "content": [{"type": "text", "text": "hi"},
                        {"type": "image", "data": "aGk=", "mimeType": "image/png"}],
            "isError": false}});
        assert_valid(s, S2C, result, Some("tools/call"), "CallToolResult");
    }
}

#[test]
fn a_missing_protocol_version_is_reported_at_params() {
    for s in legacy() {
        let mut msg = initialize(s.revision());
        msg["params"].as_object_mut().unwrap().remove("protocolVersion");
        let v = assert_invalid_at(s, C2S, msg, None, "InitializeRequest", "/params");
        assert!(v.iter().any(|v| v.message.contains("protocolVersion")), "{v:#?}");
        assert!(v.iter().all(|v| v.schema_path.ends_with("/required")), "{v:#?}");

        let mut msg = initialize_result(s.revision());
        msg["result"].as_object_mut().unwrap().remove("protocolVersion");
        assert_invalid_at(s, S2C, msg, Some("initialize"), "InitializeResult", "/result");
    }
}

#[test]
fn a_wrong_type_is_reported_at_its_pointer() {
    for s in legacy() {
        let mut msg = initialize(s.revision());
        msg["params"]["protocolVersion"] = json!(20241105);
        let v = assert_invalid_at(s, C2S, msg, None, "InitializeRequest", "/params/protocolVersion");
        let defs = if s.revision() >= Revision::V2025_11_25 { "$defs" } else { "definitions" };
        assert!(v[0].schema_path.starts_with(&format!("/{defs}/Initialize")), "{v:#?}");
        assert!(v[0].schema_path.ends_with("/protocolVersion/type"), "{v:#?}");

        let mut msg = initialize_result(s.revision());
        msg["result"]["serverInfo"]["name"] = json!(7);
        let v =
            assert_invalid_at(s, S2C, msg, Some("initialize"), "InitializeResult", "/result/serverInfo/name");
        assert_eq!(v.len(), 1, "{v:#?}");
        assert_eq!(v[0].schema_path, format!("/{defs}/Implementation/properties/name/type"));
    }
}

#[test]
fn envelope_faults_are_reported_for_per_method_definitions() {
    for s in legacy() {
        let mut msg = initialize(s.revision());
        msg["jsonrpc"] = json!("1.0");
        assert_invalid_at(s, C2S, msg, None, "InitializeRequest", "/jsonrpc");
        let msg = json!({"jsonrpc": "2.0", "id": null, "method": "ping"});
        assert_invalid_at(s, C2S, msg, None, "PingRequest", "/id");
        let msg = json!({"jsonrpc": "2.0", "id": 4, "result": "nope"});
        assert_invalid_at(s, S2C, msg, Some("ping"), "EmptyResult", "/result");
    }
}

#[test]
fn content_block_faults_name_the_member_not_any_of() {
    for s in legacy() {
        let msg = json!({"jsonrpc": "2.0", "id": 3, "result": {
            "content": [{"type": "text", "text": 5}]}});
        let v =
            assert_invalid_at(s, S2C, msg, Some("tools/call"), "CallToolResult", "/result/content/0/text");
        assert!(v.iter().all(|v| !v.message.contains("anyOf")), "{v:#?}");
        let msg = json!({"jsonrpc": "2.0", "id": 3, "result": {"content": [{"type": "video"}]}});
        let v = assert_invalid_at(s, S2C, msg, Some("tools/call"), "CallToolResult", "/result/content/0");
        assert!(v[0].message.contains("TextContent"), "{v:#?}");
    }
}

#[test]
fn byte_fields_must_be_base64() {
    for s in legacy() {
        let msg = json!({"jsonrpc": "2.0", "id": 3, "result": {
            "content": [{"type": "image", "data": "not base64!", "mimeType": "image/png"}]}});
        match s.validate(S2C, &msg, Some("tools/call")) {
            Validation::FormatMismatch { definition, violations } => {
                assert_eq!(definition, "CallToolResult");
                assert_eq!(violations.len(), 1, "{violations:#?}");
                assert_eq!(violations[0].instance_path, "/result/content/0/data");
                assert_eq!(violations[0].format.as_deref(), Some("byte"));
            }
            other => panic!("{}: {other:?}", s.revision()),
        }
    }
    assert!(compile::is_base64("") && compile::is_base64("aGk=") && compile::is_base64("aGVsbG8h"));
    assert!(!compile::is_base64("aGk") && !compile::is_base64("a===") && !compile::is_base64("aG k="));
}

#[test]
fn unknown_and_misdirected_methods_are_unknown_not_invalid() {
    for s in legacy() {
        let msg = json!({"jsonrpc": "2.0", "id": 9, "method": "tools/frobnicate"});
        assert_eq!(
            s.validate(C2S, &msg, None),
            Validation::UnknownMethod { method: "tools/frobnicate".into() }
        );
        // A server does not send `tools/call`; a client does not send `roots/list`.
        let msg = json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": "x"}});
        assert!(matches!(s.validate(S2C, &msg, None), Validation::UnknownMethod { .. }));
        let msg = json!({"jsonrpc": "2.0", "id": 9, "method": "roots/list"});
        assert!(matches!(s.validate(C2S, &msg, None), Validation::UnknownMethod { .. }));
        assert_valid(s, S2C, msg, None, "ListRootsRequest");
        let msg = json!({"jsonrpc": "2.0", "method": "notifications/whatever"});
        assert!(matches!(s.validate(S2C, &msg, None), Validation::UnknownMethod { .. }));
        let msg = json!({"jsonrpc": "2.0", "id": 9, "result": {}});
        assert_eq!(
            s.validate(S2C, &msg, Some("nope/nope")),
            Validation::UnknownMethod { method: "nope/nope".into() }
        );
    }
}

#[test]
fn error_responses_are_checked_against_the_error_definition() {
    for s in legacy() {
        let def = if s.revision() >= Revision::V2025_11_25 { "JSONRPCErrorResponse" } else { "JSONRPCError" };
        let msg =
            json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "Method not found"}});
        assert_valid(s, S2C, msg.clone(), None, def);
        assert_valid(s, S2C, msg, Some("tools/call"), def);
        let msg = json!({"jsonrpc": "2.0", "id": 1, "error": {"code": "-32601", "message": "x"}});
        assert_invalid_at(s, S2C, msg, None, def, "/error/code");
        let msg = json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32601}});
        assert_invalid_at(s, S2C, msg, None, def, "/error");
    }
}

#[test]
fn results_without_a_request_and_batches_are_unmatched() {
    for s in legacy() {
        let msg = json!({"jsonrpc": "2.0", "id": 1, "result": {}});
        assert!(matches!(s.validate(S2C, &msg, None), Validation::Unmatched { .. }));
        let batch = json!([{"jsonrpc": "2.0", "method": "notifications/initialized"}]);
        assert_eq!(
            s.validate(C2S, &batch, None),
            Validation::Unmatched { reason: "batch: validate each element".into() }
        );
    }
}

#[test]
fn non_messages_are_invalid_json_rpc_messages() {
    for s in legacy() {
        assert_invalid_at(s, C2S, json!("hello"), None, "JSONRPCMessage", "");
        assert_invalid_at(s, C2S, json!({"jsonrpc": "2.0", "id": 1}), None, "JSONRPCMessage", "");
        assert_invalid_at(
            s,
            C2S,
            json!({"jsonrpc": "2.0", "id": 1, "method": 5}),
            None,
            "JSONRPCRequest",
            "/method",
        );
    }
}

#[test]
fn task_augmented_results_use_create_task_result_in_2025_11_25() {
    let Some(s) = official().and_then(|set| set.get(Revision::V2025_11_25)) else {
        return;
    };
    let msg = json!({"jsonrpc": "2.0", "id": 5, "result": {"task": {
        "taskId": "t1", "status": "working", "createdAt": "2025-11-25T10:00:00Z",
        "lastUpdatedAt": "2025-11-25T10:00:00Z", "ttl": 60000}}});
    assert_valid(s, S2C, msg, Some("tools/call"), "CreateTaskResult");
    let msg = json!({"jsonrpc": "2.0", "id": 5, "result": {"task": {"taskId": 1}}});
    assert_invalid_at(s, S2C, msg, Some("tools/call"), "CreateTaskResult", "/result/task/taskId");
}

#[test]
fn modern_results_are_picked_by_result_type() {
    for rev in [Revision::V2026_07_28, Revision::Draft] {
        let Some(s) = official().and_then(|set| set.get(rev)) else {
            return;
        };
        let ok = json!({"jsonrpc": "2.0", "id": 3, "result": {"resultType": "complete",
            "content": [{"type": "text", "text": "hi"}]}});
        assert_valid(s, S2C, ok, Some("tools/call"), "CallToolResult");
        // Valid under the file's `CallToolResultResponse` union (as an `InputRequiredResult`),
        // but `resultType` says which branch it claims to be.
        let bad = json!({"jsonrpc": "2.0", "id": 3, "result": {"resultType": "complete", "content": 5}});
        assert_invalid_at(s, S2C, bad, Some("tools/call"), "CallToolResult", "/result/content");
        let input = json!({"jsonrpc": "2.0", "id": 3, "result": {"resultType": "input_required",
            "requestState": "s1"}});
        assert_valid(s, S2C, input, Some("tools/call"), "InputRequiredResult");
        let missing = json!({"jsonrpc": "2.0", "id": 3, "result": {"content": []}});
        assert_invalid_at(s, S2C, missing, Some("tools/call"), "CallToolResult", "/result");
        // No `initialize`, and no server-to-client requests at all.
        assert!(matches!(s.validate(C2S, &initialize(rev), None), Validation::UnknownMethod { .. }));
        let msg = json!({"jsonrpc": "2.0", "id": 9, "method": "roots/list"});
        assert!(matches!(s.validate(S2C, &msg, None), Validation::UnknownMethod { .. }));
        let discover = json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": {
            "io.modelcontextprotocol/protocolVersion": rev.as_str(),
            "io.modelcontextprotocol/clientCapabilities": {}}}});
        assert!(
            matches!(s.validate(C2S, &discover, None), Validation::Valid { .. }),
            "{:?}",
            s.validate(C2S, &discover, None)
        );
    }
}

#[test]
fn validate_as_checks_one_named_definition() {
    let Some(s) = legacy().first().copied() else {
        return;
    };
    assert_eq!(s.is_valid_as("RequestId", &json!(1)), Some(true));
    assert_eq!(s.is_valid_as("RequestId", &json!(null)), Some(false));
    assert_eq!(s.is_valid_as("NoSuchThing", &json!(1)), None);
    let got = s.validate_as("Implementation", &json!({"name": "x"})).unwrap();
    assert!(
        matches!(got, Validation::Invalid { ref violations, .. } if violations[0].instance_path.is_empty())
    );
}

mod bad_dirs {
    use super::*;

    /// A directory of schema folders, removed when the test ends.
    fn temp_dir() -> tempfile::TempDir {
        tempfile::Builder::new().prefix("mcpspec-schema-").tempdir().unwrap()
    }

    fn write(dir: &Path, rev: &str, text: &str) {
        std::fs::create_dir_all(dir.join(rev)).unwrap();
        std::fs::write(dir.join(rev).join("schema.json"), text).unwrap();
    }

    fn err(dir: &Path) -> String {
        match SchemaSet::from_dir(dir) {
            Ok(_) => panic!("{} loaded", dir.display()),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn a_missing_dir_says_so() {
        let e = err(Path::new("/nonexistent/mcpspec-schemas"));
        assert!(e.contains("does not exist") && e.contains("/nonexistent/mcpspec-schemas"), "{e}");
    }

    #[test]
    fn a_dir_without_revision_folders_says_what_it_expected() {
        let tmp = temp_dir();
        let dir = tmp.path();
        std::fs::create_dir_all(dir.join("not-a-revision")).unwrap();
        let e = err(dir);
        assert!(e.contains("no revision folder") && e.contains("2025-06-18"), "{e}");
    }

    #[test]
    fn a_revision_folder_without_schema_json_names_the_file() {
        let tmp = temp_dir();
        let dir = tmp.path();
        std::fs::create_dir_all(dir.join("2025-06-18")).unwrap();
        let e = err(dir);
        assert!(e.contains("2025-06-18/schema.json") && e.contains("cannot read"), "{e}");
    }

    #[test]
    fn invalid_json_names_the_file() {
        let tmp = temp_dir();
        let dir = tmp.path();
        write(dir, "2024-11-05", "{\"definitions\": ");
        let e = err(dir);
        assert!(e.contains("2024-11-05/schema.json") && e.contains("not valid JSON"), "{e}");
    }

    #[test]
    fn a_file_without_definitions_says_so() {
        let tmp = temp_dir();
        let dir = tmp.path();
        write(dir, "2024-11-05", "{\"type\": \"object\"}");
        assert!(err(dir).contains("no top-level `definitions` or `$defs`"));
    }

    #[test]
    fn a_definition_that_does_not_compile_is_an_error() {
        let tmp = temp_dir();
        let dir = tmp.path();
        let doc = json!({"$schema": "http://json-schema.org/draft-07/schema#",
            "definitions": {"JSONRPCMessage": {"type": 5}}});
        write(dir, "2024-11-05", &doc.to_string());
        let e = err(dir);
        assert!(e.contains("does not compile"), "{e}");
        let doc = json!({"definitions": {"JSONRPCMessage": {"$ref": "#/definitions/Nowhere"}}});
        write(dir, "2024-11-05", &doc.to_string());
        let e = err(dir);
        assert!(e.contains("does not compile"), "{e}");
    }

    #[test]
    fn a_file_missing_a_needed_definition_names_it() {
        let tmp = temp_dir();
        let dir = tmp.path();
        let doc = json!({"$schema": "http://json-schema.org/draft-07/schema#",
            "definitions": {"JSONRPCMessage": {"type": "object"}}});
        write(dir, "2024-11-05", &doc.to_string());
        let e = err(dir);
        assert!(e.contains("`JSONRPCRequest`"), "{e}");
    }

    #[test]
    fn unknown_folders_are_ignored_next_to_a_good_one() {
        let Some(_) = official() else { return };
        let tmp = temp_dir();
        let dir = tmp.path();
        std::fs::create_dir_all(dir.join("notes")).unwrap();
        let text = std::fs::read_to_string(Path::new(OFFICIAL).join("2024-11-05/schema.json")).unwrap();
        write(dir, "2024-11-05", &text);
        let set = SchemaSet::from_dir(dir).unwrap();
        assert_eq!(set.revisions(), vec![Revision::V2024_11_05]);
        assert!(set.get(Revision::V2025_06_18).is_none());
    }
}

mod builtin {
    use super::*;

    fn builtin() -> &'static SchemaSet {
        static SET: OnceLock<SchemaSet> = OnceLock::new();
        SET.get_or_init(SchemaSet::builtin)
    }

    #[test]
    fn holds_every_revision() {
        assert_eq!(builtin().revisions(), Revision::ALL.to_vec());
        let shared = SchemaSet::shared_builtin();
        assert!(std::sync::Arc::ptr_eq(&shared, &SchemaSet::shared_builtin()));
        assert_eq!(shared.revisions(), Revision::ALL.to_vec());
        let s = builtin().get(Revision::V2025_06_18).unwrap();
        assert_eq!(s.origin(), Path::new("<builtin>/2025-06-18/schema.json"));
    }

    #[test]
    fn judges_the_lifecycle_like_the_official_files() {
        for rev in Revision::LEGACY {
            let s = builtin().get(rev).unwrap();
            assert_valid(s, C2S, initialize(rev), None, "InitializeRequest");
            assert_valid(s, S2C, initialize_result(rev), Some("initialize"), "InitializeResult");
            let pong = json!({"jsonrpc": "2.0", "id": "p-1", "result": {}});
            assert_valid(s, S2C, pong, Some("ping"), "EmptyResult");
            let mut msg = initialize(rev);
            msg["params"]["protocolVersion"] = json!(20241105);
            assert_invalid_at(s, C2S, msg, None, "InitializeRequest", "/params/protocolVersion");
            let mut msg = initialize_result(rev);
            msg["result"]["serverInfo"]["name"] = json!(7);
            let v = assert_invalid_at(
                s,
                S2C,
                msg,
                Some("initialize"),
                "InitializeResult",
                "/result/serverInfo/name",
            );
            let defs = if rev >= Revision::V2025_11_25 { "$defs" } else { "definitions" };
            assert_eq!(v[0].schema_path, format!("/{defs}/Implementation/properties/name/type"));
        }
    }

    /// `format` is an annotation (JSON Schema 2020-12): a message whose only defect is a
    /// format is structurally valid, and says which format failed where; inside an `anyOf`
    /// (resource contents are text or blob) too, once per place.
    #[test]
    fn a_format_mismatch_is_told_apart_from_a_structural_violation() {
        // (From 2026-07-28 a read result needs more members than this example has.)
        for rev in Revision::LEGACY {
            let s = builtin().get(rev).unwrap();
            let read =
                |contents: Value| json!({"jsonrpc": "2.0", "id": 2, "result": {"contents": [contents]}});
            let bad_uri = read(json!({"uri": "not a uri", "text": "hi"}));
            let got = s.validate(S2C, &bad_uri, Some("resources/read"));
            let Validation::FormatMismatch { definition, violations } = &got else {
                panic!("{rev}: {got:?}")
            };
            assert_eq!(definition, "ReadResourceResult");
            assert!(got.is_structurally_valid() && !got.is_valid());
            assert_eq!(violations.len(), 1, "{rev}: {violations:#?}");
            let v = &violations[0];
            assert_eq!(
                (v.instance_path.as_str(), v.format.as_deref()),
                ("/result/contents/0/uri", Some("uri"))
            );
            assert!(v.message.contains("is not a \"uri\""), "{}", v.message);
            assert!(got.to_string().ends_with("but for 1 format mismatch"), "{got}");
            // A structural defect next to it: invalid, the format still named as such.
            let both = read(json!({"uri": "not a uri", "text": 5}));
            let got = s.validate(S2C, &both, Some("resources/read"));
            let Validation::Invalid { violations, .. } = &got else { panic!("{rev}: {got:?}") };
            assert!(!got.is_structurally_valid() && !violations.is_empty());
            assert!(violations.iter().any(|v| v.format.is_none()), "{rev}: {violations:#?}");
        }
    }

    #[test]
    fn accepts_fractional_elicitation_answers_unlike_the_official_files() {
        // digest §T5: the TS says `number`; the official files say integer.
        let msg =
            json!({"jsonrpc": "2.0", "id": 1, "result": {"action": "accept", "content": {"temp": 21.5}}});
        let s = builtin().get(Revision::V2025_06_18).unwrap();
        assert_valid(s, C2S, msg.clone(), Some("elicitation/create"), "ElicitResult");
        if let Some(official) = official().and_then(|set| set.get(Revision::V2025_06_18)) {
            assert_invalid_at(
                official,
                C2S,
                msg,
                Some("elicitation/create"),
                "ElicitResult",
                "/result/content/temp",
            );
        }
    }
}

mod stream {
    use super::*;

    fn schema(rev: Revision) -> &'static RevisionSchema {
        static SET: OnceLock<SchemaSet> = OnceLock::new();
        SET.get_or_init(SchemaSet::builtin).get(rev).unwrap()
    }

    #[test]
    fn results_are_matched_to_their_requests_by_direction_and_id() {
        let rev = Revision::V2025_06_18;
        let mut stream = StreamValidator::new(schema(rev));
        assert!(stream.validate_one(C2S, &initialize(rev)).is_valid());
        let got = stream.validate_one(S2C, &initialize_result(rev));
        assert_eq!(got, Validation::Valid { definition: "InitializeResult".into() });
        // Answered once: a second result with that id has no request to match.
        assert!(matches!(stream.validate_one(S2C, &initialize_result(rev)), Validation::Unmatched { .. }));
        // A server's ping is answered by the client; `"1"` is not `1`.
        stream.validate_one(S2C, &json!({"jsonrpc": "2.0", "id": "1", "method": "ping"}));
        let pong = json!({"jsonrpc": "2.0", "id": 1, "result": {}});
        assert!(matches!(stream.validate_one(C2S, &pong), Validation::Unmatched { .. }));
        let pong = json!({"jsonrpc": "2.0", "id": "1", "result": {}});
        assert_eq!(stream.validate_one(C2S, &pong), Validation::Valid { definition: "EmptyResult".into() });
        assert_eq!(stream.unanswered().count(), 0);
    }

    #[test]
    fn batches_are_split_in_2025_03_26_and_invalid_elsewhere() {
        let batch = json!([
            {"jsonrpc": "2.0", "id": 1, "method": "ping"},
            {"jsonrpc": "2.0", "method": "notifications/initialized"}
        ]);
        let mut stream = StreamValidator::new(schema(Revision::V2025_03_26));
        let got = stream.validate(C2S, &batch);
        assert_eq!(got.len(), 2);
        assert!(got.iter().all(Validation::is_valid), "{got:?}");
        assert!(matches!(stream.validate(C2S, &json!([]))[..], [Validation::Unmatched { .. }]));
        for rev in [Revision::V2024_11_05, Revision::V2025_06_18, Revision::V2026_07_28] {
            let got = StreamValidator::new(schema(rev)).validate(C2S, &batch);
            match &got[..] {
                [Validation::Invalid { definition, violations }] => {
                    assert_eq!(definition, "JSONRPCMessage");
                    assert!(violations[0].message.contains("only in 2025-03-26"), "{violations:?}");
                }
                other => panic!("{rev}: {other:?}"),
            }
        }
    }
}

mod lines {
    use super::*;

    #[test]
    fn a_json_lines_transcript_is_judged_line_by_line_with_inferred_directions() {
        let schema = SchemaSet::builtin();
        let schema = schema.get(Revision::V2025_06_18).unwrap();
        let mut stream = StreamValidator::new(schema);
        let text = [
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}"#,
            "",
            r#"{"jsonrpc":"2.0","id":"r1","method":"roots/list"}"#,
            r#"{"jsonrpc":"2.0","id":"r1","result":{"roots":[{"uri":"file:///a"}]}}"#,
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{}}"#,
            r#"{"jsonrpc": "2.0", "id": 3, "#,
        ];
        let got: Vec<LineOutcome> = text.iter().map(|l| stream.validate_line(None, l)).collect();
        let judged = |o: &LineOutcome| match o {
            LineOutcome::Judged { direction, verdicts } => (*direction, verdicts[0].clone()),
            other => panic!("{other:?}"),
        };
        assert_eq!(judged(&got[0]), (C2S, Validation::Valid { definition: "InitializeRequest".into() }));
        assert_eq!(judged(&got[1]), (S2C, Validation::Valid { definition: "InitializeResult".into() }));
        assert_eq!(got[2], LineOutcome::Blank);
        assert_eq!(judged(&got[3]), (S2C, Validation::Valid { definition: "ListRootsRequest".into() }));
        assert_eq!(judged(&got[4]), (C2S, Validation::Valid { definition: "ListRootsResult".into() }));
        let (direction, verdict) = judged(&got[5]);
        assert_eq!(direction, C2S);
        assert!(
            matches!(verdict, Validation::Invalid { ref violations, .. } if violations[0].instance_path == "/params")
        );
        assert!(matches!(&got[6], LineOutcome::Malformed { error } if error.contains("EOF")), "{:?}", got[6]);
    }
}

mod never_panics {
    use super::*;
    use proptest::prelude::*;

    fn json_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(Value::from),
            prop_oneof![
                Just("2.0".to_owned()),
                Just("initialize".to_owned()),
                Just("tools/call".to_owned()),
                Just("ping".to_owned()),
                ".{0,8}"
            ]
            .prop_map(Value::from),
        ];
        leaf.prop_recursive(4, 32, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
                prop::collection::vec(
                    (
                        prop_oneof![
                            Just("jsonrpc".to_owned()),
                            Just("id".to_owned()),
                            Just("method".to_owned()),
                            Just("params".to_owned()),
                            Just("result".to_owned()),
                            Just("error".to_owned()),
                            "[a-z]{1,4}"
                        ],
                        inner
                    ),
                    0..6
                )
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
            ]
        })
    }

    fn builtin() -> &'static SchemaSet {
        static SET: OnceLock<SchemaSet> = OnceLock::new();
        SET.get_or_init(SchemaSet::builtin)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn validate_never_panics(value in json_value(), answered in prop::option::of(prop_oneof![
            Just("initialize"), Just("tools/call"), Just("ping"), Just("nope")])) {
            for rev in Revision::ALL {
                let schema = builtin().get(rev).unwrap();
                for direction in [C2S, S2C] {
                    let got = schema.validate(direction, &value, answered);
                    if let Validation::Invalid { violations, .. } = got {
                        prop_assert!(!violations.is_empty());
                    }
                    StreamValidator::new(schema).validate(direction, &value);
                }
            }
        }

        #[test]
        fn validate_line_never_panics(line in ".{0,64}") {
            let schema = builtin().get(Revision::V2025_03_26).unwrap();
            StreamValidator::new(schema).validate_line(None, &line);
        }
    }
}

#[test]
fn an_inline_union_member_is_named_after_its_twin_definition() {
    let Some(s) = official().and_then(|set| set.get(Revision::V2026_07_28)) else { return };
    let msg = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}});
    assert_valid(s, C2S, msg, None, "CancelledNotification");
}

#[test]
fn verdicts_and_violations_print_on_one_line() {
    let v = Violation {
        instance_path: "/params/protocolVersion".into(),
        schema_path: "/definitions/InitializeRequest/properties/params/properties/protocolVersion/type"
            .into(),
        message: "3 is not of type \"string\"".into(),
        format: None,
    };
    assert_eq!(
        v.to_string(),
        "at /params/protocolVersion: 3 is not of type \"string\" (schema: \
         /definitions/InitializeRequest/properties/params/properties/protocolVersion/type)"
    );
    let invalid = Validation::Invalid { definition: "InitializeRequest".into(), violations: vec![v] };
    assert_eq!(invalid.to_string(), "invalid against InitializeRequest: 1 violation");
    assert_eq!(Validation::Valid { definition: "PingRequest".into() }.to_string(), "valid (PingRequest)");
    assert_eq!(Validation::UnknownMethod { method: "x/y".into() }.to_string(), "unknown method \"x/y\"");
}
