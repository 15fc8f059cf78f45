//! Stderr tails as the runtimes print them (Rust 1.7x and 1.8x, CPython 3.12 with anyio,
//! Node 20, Go 1.22, OpenJDK 21, glibc 2.39, ASan), each preceded by the kind of log lines a
//! server writes before it dies.

use super::*;

const LOG: &str = "2026-11-23T22:41:07.123Z INFO mcp_server: listening on stdio\n\
                   2026-11-23T22:41:07.456Z DEBUG mcp_server::dispatch: request id=7 method=tools/call\n";

fn with_log(tail: &str) -> String {
    // A tail cut mid-line, as the last 16 KiB of a long stderr is.
    format!("ing for capabilities\n{LOG}{tail}")
}

#[test]
fn rust_panic_modern_form_keeps_the_crate_relative_file_and_the_message() {
    let run1 = with_log(
        "thread 'main' panicked at src/parse.rs:41:9:\n\
         index out of bounds: the len is 3 but the index is 17\n\
         note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n",
    );
    let run2 = "thread 'tokio-runtime-worker' (48213) panicked at src/parse.rs:44:13:\n\
                index out of bounds: the len is 0 but the index is 0\n\
                stack backtrace:\n   0: rust_begin_unwind\n             at /rustc/90b35a6239c3d8bdabc530a6a0816f7ff89a0aaf/library/std/src/panicking.rs:665:5\n\
                \x20  1: core::panicking::panic_bounds_check\n             at /rustc/90b35a6239c3d8bdabc530a6a0816f7ff89a0aaf/library/core/src/panicking.rs:276:5\n";
    let frame = top_frame(&run1);
    assert_eq!(frame, "rust panic at src/parse.rs: index out of bounds: the len is N but the index is N");
    assert_eq!(top_frame(run2), frame);
    assert!(has_panic(&run1) && has_panic(run2));
}

#[test]
fn rust_panic_old_form_and_dependency_paths() {
    let old = "thread 'main' panicked at 'called `Option::unwrap()` on a `None` value', src/handlers/tools.rs:88:30\n\
               note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n";
    assert_eq!(
        top_frame(old),
        "rust panic at src/handlers/tools.rs: called `Option::unwrap()` on a `None` value"
    );
    let dep = "thread 'main' panicked at /home/ci/.cargo/registry/src/index.crates.io-6f17d22bba15001f/serde_json-1.0.140/src/de.rs:2519:21:\nrecursion limit\n";
    let dep2 = "thread 'main' panicked at /Users/dev/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/serde_json-1.0.145/src/de.rs:2600:9:\nrecursion limit\n";
    assert_eq!(top_frame(dep), "rust panic at serde_json/src/de.rs: recursion limit");
    assert_eq!(top_frame(dep), top_frame(dep2));
}

#[test]
fn rust_stack_overflow_and_fatal_runtime_errors() {
    let overflow = with_log(
        "\nthread 'main' has overflowed its stack\nfatal runtime error: stack overflow, aborting\nAborted (core dumped)\n",
    );
    assert_eq!(top_frame(&overflow), "rust stack overflow");
    let fatal = "fatal runtime error: failed to initiate panic, error 5\n";
    assert_eq!(top_frame(fatal), "rust fatal runtime error: failed to initiate panic, error N");
    assert!(has_panic(&overflow) && has_panic(fatal));
}

#[test]
fn python_traceback_gives_the_exception_type_and_the_innermost_frame() {
    let run1 = with_log(
        "Traceback (most recent call last):\n\
         \x20 File \"/usr/lib/python3.12/site-packages/mcp/server/lowlevel/server.py\", line 552, in _handle_request\n\
         \x20   response = await handler(req)\n\
         \x20              ^^^^^^^^^^^^^^^^^^\n\
         \x20 File \"/srv/app/calc_server.py\", line 31, in handle\n\
         \x20   return int(arguments[\"n\"])\n\
         \x20          ^^^^^^^^^^^^^^^^^^^^\n\
         ValueError: invalid literal for int() with base 10: 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'\n",
    );
    let run2 = "Traceback (most recent call last):\n\
                \x20 File \"C:\\Users\\ci\\venv\\Lib\\site-packages\\mcp\\server\\lowlevel\\server.py\", line 560, in _handle_request\n\
                \x20   response = await handler(req)\n\
                \x20 File \"/home/runner/work/app/calc_server.py\", line 33, in handle\n\
                \x20   return int(arguments[\"n\"])\n\
                ValueError: invalid literal for int() with base 10: '\\x00'\n\
                INFO Processing request of type ListToolsRequest\n";
    assert_eq!(top_frame(&run1), "python ValueError at calc_server.py in handle");
    assert_eq!(top_frame(run2), top_frame(&run1));
    let recursion = "Traceback (most recent call last):\n\
                     \x20 File \"/srv/app/calc_server.py\", line 12, in walk\n\
                     \x20   return walk(node[0]) + 1\n\
                     \x20          ^^^^^^^^^^^^^\n\
                     \x20 [Previous line repeated 996 more times]\n\
                     RecursionError: maximum recursion depth exceeded\n";
    assert_eq!(top_frame(recursion), "python RecursionError at calc_server.py in walk");
    assert_ne!(top_frame(recursion), top_frame(&run1));
    assert!(has_panic(&run1) && has_panic(recursion));
}

#[test]
fn python_chained_exceptions_report_the_last_traceback() {
    let chained = "Traceback (most recent call last):\n\
                   \x20 File \"/srv/app/server.py\", line 40, in call_tool\n\
                   \x20   args = Args.model_validate(raw)\n\
                   pydantic_core._pydantic_core.ValidationError: 1 validation error for Args\n\
                   \n\
                   The above exception was the direct cause of the following exception:\n\
                   \n\
                   Traceback (most recent call last):\n\
                   \x20 File \"/srv/app/server.py\", line 43, in call_tool\n\
                   \x20   raise McpError(ErrorData(code=INVALID_PARAMS, message=str(e))) from e\n\
                   mcp.shared.exceptions.McpError: 1 validation error for Args\n";
    assert_eq!(top_frame(chained), "python mcp.shared.exceptions.McpError at server.py in call_tool");
}

/// CPython 3.12 printing an unhandled error inside anyio's task group, as the MCP Python SDK's
/// stdio server dies of it.
#[test]
fn python_exception_groups_report_the_innermost_real_exception() {
    let group = with_log(
        "  + Exception Group Traceback (most recent call last):\n\
         \x20 |   File \"/srv/app/server.py\", line 88, in <module>\n\
         \x20 |     anyio.run(main)\n\
         \x20 |   File \"/usr/lib/python3.12/site-packages/anyio/_backends/_asyncio.py\", line 767, in __aexit__\n\
         \x20 |     raise BaseExceptionGroup(\n\
         \x20 | ExceptionGroup: unhandled errors in a TaskGroup (1 sub-exception)\n\
         \x20 +-+---------------- 1 ----------------\n\
         \x20   | Traceback (most recent call last):\n\
         \x20   |   File \"/usr/lib/python3.12/site-packages/mcp/server/stdio.py\", line 64, in stdin_reader\n\
         \x20   |     message = types.JSONRPCMessage.model_validate_json(line)\n\
         \x20   |   File \"/srv/app/server.py\", line 17, in parse_depth\n\
         \x20   |     return 1 + max(parse_depth(v) for v in node)\n\
         \x20   | RecursionError: maximum recursion depth exceeded while calling a Python object\n\
         \x20   +------------------------------------\n",
    );
    assert_eq!(top_frame(&group), "python RecursionError at server.py in parse_depth");
    assert!(has_panic(&group));
    // A sub-exception printed without a traceback of its own.
    let bare = "  + Exception Group Traceback (most recent call last):\n\
                \x20 |   File \"/srv/app/server.py\", line 88, in <module>\n\
                \x20 | ExceptionGroup: unhandled errors in a TaskGroup (1 sub-exception)\n\
                \x20 +-+---------------- 1 ----------------\n\
                \x20   | KeyError: 'name'\n\
                \x20   +------------------------------------\n";
    assert_eq!(top_frame(bare), "python KeyError at server.py in <module>");
}

#[test]
fn node_uncaught_errors_name_the_first_user_frame() {
    let run1 = with_log(
        "/srv/app/server.js:10\n    const n = params.arguments.text.length;\n                                    ^\n\n\
         TypeError: Cannot read properties of undefined (reading 'length')\n\
         \x20   at handle (/srv/app/server.js:10:37)\n\
         \x20   at Interface.<anonymous> (/srv/app/server.js:25:5)\n\
         \x20   at Interface.emit (node:events:517:28)\n\
         \x20   at [_onLine] [as _onLine] (node:internal/readline/interface:416:12)\n\n\
         Node.js v20.11.1\n",
    );
    let run2 = "file:///home/ci/app/server.js:12\n\n\
                TypeError: Cannot read properties of undefined (reading 'length')\n\
                \x20   at handle (file:///home/ci/app/server.js:12:41)\n\
                \x20   at Interface.<anonymous> (file:///home/ci/app/server.js:27:5)\n\n\
                Node.js v20.18.0\n";
    assert_eq!(top_frame(&run1), "node TypeError at handle (server.js)");
    assert_eq!(top_frame(run2), top_frame(&run1));
    let overflow = "/srv/app/server.js:3\nfunction depth(v) {\n              ^\n\n\
                    RangeError: Maximum call stack size exceeded\n\
                    \x20   at depth (/srv/app/server.js:3:15)\n\
                    \x20   at depth (/srv/app/server.js:4:38)\n\
                    \x20   at depth (/srv/app/server.js:4:38)\n\nNode.js v20.11.1\n";
    assert_eq!(top_frame(overflow), "node RangeError at depth (server.js)");
    let internal_only = "TypeError [ERR_INVALID_ARG_TYPE]: The \"chunk\" argument must be of type string\n\
                         \x20   at _write (node:internal/streams/writable:474:13)\n\
                         \x20   at Writable.write (node:internal/streams/writable:502:10)\n";
    assert_eq!(top_frame(internal_only), "node TypeError at _write (writable)");
    assert!(has_panic(&run1) && has_panic(overflow) && has_panic(internal_only));
}

#[test]
fn node_errors_a_program_logs_are_no_panic_unless_uncaught() {
    let logged = "McpError: MCP error -32602: Invalid arguments for tool add\n\
                  \x20   at Server.callTool (/srv/app/server.js:40:11)\n\
                  \x20   at async Server._onrequest (/srv/app/node_modules/@modelcontextprotocol/sdk/dist/cjs/shared/protocol.js:310:32)\n";
    assert!(!has_panic(logged));
    assert_eq!(top_frame(logged), "node McpError at Server.callTool (server.js)");
    let uncaught = format!("{logged}\nNode.js v22.3.0\n");
    assert!(has_panic(&uncaught));
    let rejection = "node:internal/process/promises:289\n            triggerUncaughtException(err, true /* fromPromise */);\n            ^\n\n\
                     [UnhandledPromiseRejection: This error originated either by throwing inside of an async function without a catch block, or by rejecting a promise which was not handled with .catch(). The promise rejected with the reason \"boom\".] {\n  code: 'ERR_UNHANDLED_REJECTION'\n}\n\nNode.js v20.11.1\n";
    assert_eq!(top_frame(rejection), "node UnhandledPromiseRejection: \"boom\"");
    assert!(has_panic(rejection));
    let deno = "error: Uncaught (in promise) TypeError: params is undefined\n";
    assert_eq!(top_frame(deno), "node Uncaught TypeError: params is undefined");
}

#[test]
fn go_panics_name_the_panicking_function() {
    let run1 = "panic: runtime error: index out of range [5] with length 3\n\n\
                goroutine 1 [running]:\n\
                main.(*Server).handleCall(0xc0000a6000, {0xc0000b4000, 0x10, 0x10})\n\
                \t/home/ci/app/server.go:88 +0x1d4\n\
                main.main()\n\t/home/ci/app/main.go:30 +0x85\nexit status 2\n";
    let run2 = "panic: runtime error: index out of range [9] with length 0\n\n\
                goroutine 7 [running]:\n\
                main.(*Server).handleCall(0xc000012345, {0xc000100000, 0x2, 0x2})\n\
                \t/srv/server.go:91 +0x2a0\n";
    assert_eq!(
        top_frame(run1),
        "go panic: runtime error: index out of range [N] with length N in main.(*Server).handleCall"
    );
    assert_eq!(top_frame(run2), top_frame(run1));
    let nil = "panic: runtime error: invalid memory address or nil pointer dereference\n\
               [signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x48f2a5]\n\n\
               goroutine 1 [running]:\npanic({0x4a1b20?, 0xc000012345?})\n\t/usr/local/go/src/runtime/panic.go:914 +0x21f\n\
               main.decode(...)\n\t/srv/main.go:12\n";
    assert_eq!(
        top_frame(nil),
        "go panic: runtime error: invalid memory address or nil pointer dereference in main.decode"
    );
    assert!(has_panic(run1) && has_panic(nil));
}

#[test]
fn java_reports_the_root_cause_and_its_top_frame() {
    let so = "Exception in thread \"main\" java.lang.StackOverflowError\n\
              \tat com.fasterxml.jackson.databind.deser.std.JsonNodeDeserializer._deserializeContainerNoRecursion(JsonNodeDeserializer.java:550)\n\
              \tat com.fasterxml.jackson.databind.deser.std.JsonNodeDeserializer.deserialize(JsonNodeDeserializer.java:100)\n";
    assert_eq!(
        top_frame(so),
        "java java.lang.StackOverflowError at com.fasterxml.jackson.databind.deser.std.JsonNodeDeserializer._deserializeContainerNoRecursion"
    );
    let caused = "Exception in thread \"main\" java.lang.RuntimeException: handler failed\n\
                  \tat io.mcp.Server.run(Server.java:55)\n\
                  Caused by: java.lang.NullPointerException: Cannot invoke \"String.length()\" because \"name\" is null\n\
                  \tat io.mcp.Tools.call(Tools.java:21)\n\t... 3 more\n";
    assert_eq!(top_frame(caused), "java java.lang.NullPointerException at io.mcp.Tools.call");
    assert!(has_panic(so) && has_panic(caused));
    let logged = "2026-11-23 22:41:07.123 WARN  i.m.server.McpServer - tool call failed\n\
                  io.modelcontextprotocol.spec.McpError: Unknown tool: nope\n\
                  \tat io.modelcontextprotocol.server.McpAsyncServer.callTool(McpAsyncServer.java:310)\n\
                  Caused by: java.lang.IllegalArgumentException: Unknown tool: nope\n\
                  \tat io.mcp.Tools.lookup(Tools.java:12)\n";
    assert!(!has_panic(logged));
}

#[test]
fn native_crashes_from_glibc_the_shell_and_asan() {
    assert_eq!(top_frame("reading request\nSegmentation fault (core dumped)\n"), "native Segmentation fault");
    let smash = "*** stack smashing detected ***: terminated\nAborted (core dumped)\n";
    assert_eq!(top_frame(smash), "native stack smashing detected");
    let double = "free(): double free detected in tcache 2\nAborted\n";
    assert_eq!(top_frame(double), "native double free");
    let bash = "bash: line 1: 48213 Segmentation fault      (core dumped) ./server --stdio\n";
    assert_eq!(top_frame(bash), "native Segmentation fault");
    let asan = "=================================================================\n\
                ==48213==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x602000000011 at pc 0x55d5c8 bp 0x7ffd sp 0x7ffd\n\
                READ of size 1 at 0x602000000011 thread T0\n\
                \x20   #0 0x55d5c7 in parse_string /src/server/json.c:77:12\n\
                \x20   #1 0x55d9a1 in handle_line /src/server/main.c:40:5\n";
    assert_eq!(top_frame(asan), "native AddressSanitizer heap-buffer-overflow in parse_string");
    assert!(has_panic(smash) && has_panic(double) && has_panic(asan));
}

#[test]
fn the_shells_aborted_names_the_bug_only_when_nothing_else_does() {
    let rust_abort = "thread 'main' panicked at src/main.rs:9:5:\nboom\nAborted (core dumped)\n";
    assert_eq!(top_frame(rust_abort), "rust panic at src/main.rs: boom");
    assert_eq!(top_frame("Aborted (core dumped)\n"), "native Aborted");
}

#[test]
fn the_fallback_is_the_last_line_normalized() {
    let tail = "starting\nfatal: cannot open /var/run/mcp/4711.sock after 1500ms (id 123e4567-e89b-12d3-a456-426614174000) at 0x7ffde3a0\n\n";
    assert_eq!(top_frame(tail), "fatal: cannot open N.sock after <duration> (id <uuid>) at <addr>");
    assert_eq!(top_frame(""), "");
    assert_eq!(top_frame("\n \n"), "");
    let long = format!("error: {}", "x".repeat(400));
    assert_eq!(top_frame(&long).chars().count(), MAX_FRAME_CHARS);
}

#[test]
fn ordinary_log_lines_are_no_panic() {
    for line in [
        "Error: Method not found",
        "WARNING: Failed to validate request: 1 validation error for JSONRPCMessage",
        "INFO Processing request of type ListToolsRequest",
        "[error] tool add failed: division by zero",
        "2026-11-23T22:41:07Z ERROR mcp_server: request 7 failed: invalid params",
        "Error handling request: McpError: MCP error -32601: Method not found",
        "panic mode disabled; errors are returned as JSON-RPC errors",
        "Received exception from stream: Invalid JSON: EOF while parsing a value",
        "Aborted connection to the upstream API, retrying",
    ] {
        assert!(!has_panic(&with_log(line)), "{line}");
    }
}

#[test]
fn a_panic_payload_that_varies_with_the_input_is_one_bug() {
    let panic = |payload: &str| {
        top_frame(&format!(
            "thread 'main' panicked at src/framing.rs:273:51:\ncalled `Result::unwrap()` on an `Err` value: Utf8Error {payload}\n"
        ))
    };
    let a = panic("{ valid_up_to: 0, error_len: None }");
    assert_eq!(a, panic("{ valid_up_to: 12, error_len: Some(1) }"));
    assert!(a.ends_with("on an `Err` value: Utf8Error"), "{a}");
}

/// Ids end up in issue trackers: this value must never change.
#[test]
fn signature_ids_are_pinned() {
    let sig =
        Signature { oracle: Oracle::Crash, method: "tools/call".into(), frame: "rust stack overflow".into() };
    assert_eq!(sig.id(), "crash-a6710702");
    let other = Signature { oracle: Oracle::StderrPanic, ..sig.clone() };
    assert!(other.id().starts_with("stderr-panic-"));
    assert_ne!(other.id()[13..], sig.id()[6..]);
}

#[test]
fn oracle_names_are_their_serialized_names() {
    for oracle in Oracle::ALL {
        assert_eq!(serde_json::to_value(oracle).unwrap(), oracle.name());
    }
}
