//! Real third-party servers as implementations under test. `.ci/run` installs them and names
//! their command lines in environment variables; run with `cargo test -- --ignored interop`.

use crate::support::*;
use std::time::Duration;

/// Certifies the server named by `var` (a command line, split on spaces) at every legacy
/// revision and expects a clean pass.
fn certify(var: &str) {
    let command = std::env::var(var).unwrap_or_else(|_| panic!("{var} is not set: .ci/run sets it"));
    let schemas = shared_schemas().map(|p| p.display().to_string());
    let mut args = vec!["server", "--timeout", "20"];
    if let Some(s) = &schemas {
        args.extend(["--schema-dir", s.as_str()]);
    }
    args.push("--");
    args.extend(command.split_whitespace());
    let run = run(&args, true, Duration::from_secs(300));
    assert_eq!(run.code, Some(0), "{}", run.describe());
    assert_eq!(run.summary("failed") + run.summary("errors"), 0, "{}", run.describe());
    assert!(run.summary("passed") >= 40, "{}", run.describe());
    assert_no_leftovers(&run.marker);
}

#[test]
#[ignore = "needs @modelcontextprotocol/server-everything from npm (see .ci/run)"]
fn interop_server_everything_from_npm() {
    certify("MCPSPEC_IUT_EVERYTHING");
}

#[test]
#[ignore = "needs the Python `mcp` SDK from PyPI (see .ci/run)"]
fn interop_python_sdk_server() {
    certify("MCPSPEC_IUT_PYTHON");
}
