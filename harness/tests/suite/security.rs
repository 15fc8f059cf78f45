//! Security (issue #17): command lines run without a shell unless `--shell` is given.

use crate::support::*;
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(30);

#[test]
fn a_command_line_runs_without_a_shell_unless_shell_is_given() {
    // Without --shell the words are an argv: `exit 7` is a program name nothing can start.
    let plain = run(&["server", "--timeout", "1", "--revision", "2025-06-18", "--", "exit 7"], true, LIMIT);
    assert_eq!(plain.code, Some(3), "{}", plain.describe());
    assert!(plain.stdout.contains("could not start 'exit 7'"), "{}", plain.describe());
    assert_no_leftovers(&plain.marker);
    // With --shell, `sh -c` runs them: the shell's builtin exits with 7.
    let shell = run(
        &["server", "--shell", "--timeout", "1", "--revision", "2025-06-18", "--", "exit", "7"],
        true,
        LIMIT,
    );
    assert_eq!(shell.code, Some(3), "{}", shell.describe());
    let not_tested = shell.report.as_ref().and_then(|r| r["not_tested"].as_str()).unwrap_or_default();
    assert!(not_tested.contains("exited with status 7"), "{}", shell.describe());
    assert_eq!(shell.report.as_ref().unwrap()["command"], "sh -c 'exit 7'");
    assert_no_leftovers(&shell.marker);
}
