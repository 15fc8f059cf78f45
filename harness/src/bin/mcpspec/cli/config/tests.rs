//! The config file: its keys become the flags of `mcpspec server|client`, the command line's
//! flags override them, and a wrong file is a usage error naming the key and the file.

use super::*;

fn file(text: &str) -> Result<Vec<Implementation>, String> {
    parse(Path::new("conf/mcpspec.toml"), text).map_err(|e| e.0)
}

fn planned(text: &str, flags: &[&str]) -> Result<Vec<Planned>, String> {
    let imps = file(text)?;
    let flags: Vec<OsString> = flags.iter().map(OsString::from).collect();
    plan(Path::new("conf/mcpspec.toml"), &imps, &flags, &[]).map_err(|e| e.0)
}

const SERVER: &str = r#"
[[implementation]]
name = "srv"
role = "server"
command = ["node", "dist/server.js", "--stdio"]
revisions = ["2025-06-18", "2025-11-25"]
baseline = "known.yaml"
report-dir = "out/srv"
strict = true
timeout = 20
no-sweep = true
scenario = ["tools/*", "ping/*"]
"#;

#[test]
fn keys_become_the_options_of_mcpspec_server() {
    let [p] = <[Planned; 1]>::try_from(planned(SERVER, &[]).unwrap()).ok().unwrap();
    assert_eq!(p.name, "srv");
    assert!(matches!(p.role, Role::Server));
    let a = &p.args;
    assert_eq!(a.command, ["node", "dist/server.js", "--stdio"].map(OsString::from));
    assert!(!a.shell);
    assert_eq!(a.revisions.iter().map(|r| r.to_string()).collect::<Vec<_>>(), ["2025-06-18", "2025-11-25"]);
    // Paths are the file's folder's.
    assert_eq!(a.expected_failures.as_deref(), Some(Path::new("conf/known.yaml")));
    assert_eq!(a.report_dir.as_deref(), Some(Path::new("conf/out/srv")));
    assert!(a.strict && a.no_sweep);
    assert_eq!(a.timeout, 20.0);
    assert_eq!(a.scenario, ["tools/*", "ping/*"]);
}

#[test]
fn flags_override_the_file_flag_by_flag() {
    let flags = ["--timeout", "3", "--revision", "2026-07-28", "--report-dir", "elsewhere"];
    let p = planned(SERVER, &flags).unwrap().remove(0);
    let a = &p.args;
    assert_eq!(a.timeout, 3.0);
    // A repeatable flag given on the command line takes all its values from there.
    assert_eq!(a.revisions.iter().map(|r| r.to_string()).collect::<Vec<_>>(), ["2026-07-28"]);
    assert_eq!(a.report_dir.as_deref(), Some(Path::new("elsewhere")));
    // What the command line does not say, the file does.
    assert!(a.strict && a.no_sweep);
    assert_eq!(a.expected_failures.as_deref(), Some(Path::new("conf/known.yaml")));
    // The command too.
    let p = planned(SERVER, &["--", "python", "server.py"]).unwrap().remove(0);
    assert_eq!(p.args.command, ["python", "server.py"].map(OsString::from));
    // Without flags, the defaults of `mcpspec server` for what neither says.
    let p = planned("[[implementation]]\nname = \"a\"\nrole = \"client\"\n", &[]).unwrap().remove(0);
    assert!(matches!(p.role, Role::Client));
    assert_eq!(p.args.timeout, 10.0);
    assert!(p.args.command.is_empty() && p.args.report_dir.is_none());
}

#[test]
fn a_command_line_string_runs_in_a_shell_and_transports_get_a_run_each() {
    let text = r#"
[[implementation]]
name = "srv"
role = "server"
command = "node dist/server.js --port {port}"
transports = ["http", "sse"]
report-dir = "reports"
"#;
    let runs = planned(text, &[]).unwrap();
    assert_eq!(runs.len(), 2);
    assert_eq!(runs[0].name, "srv over http");
    assert!(runs[0].args.shell);
    assert_eq!(runs[0].args.command, [OsString::from("node dist/server.js --port {port}")]);
    assert!(matches!(runs[1].args.transport, Some(crate::cli::ServerTransport::Sse)));
    assert_eq!(runs[0].args.report_dir.as_deref(), Some(Path::new("conf/reports/http")));
    assert_eq!(runs[1].args.report_dir.as_deref(), Some(Path::new("conf/reports/sse")));
}

#[test]
fn a_wrong_file_is_an_error_naming_the_key_and_the_file() {
    let typo = file("[[implementation]]\nname = \"a\"\nrole = \"server\"\ntimout = 3\n").err().unwrap();
    assert!(typo.contains("unknown key `timout`") && typo.contains("conf/mcpspec.toml"), "{typo}");
    let top = file("[[implementations]]\nname = \"a\"\n").err().unwrap();
    assert!(top.contains("implementations") && top.contains("conf/mcpspec.toml"), "{top}");
    let role = file("[[implementation]]\nname = \"a\"\nrole = \"proxy\"\n").err().unwrap();
    assert!(role.contains("proxy") && role.contains("conf/mcpspec.toml"), "{role}");
    let empty = file("").err().unwrap();
    assert!(empty.contains("lists no implementation"), "{empty}");
    let twice = file("[[implementation]]\nname = \"a\"\nrole = \"server\"\n[[implementation]]\nname = \"a\"\nrole = \"client\"\n");
    assert!(twice.err().unwrap().contains("two implementations are named \"a\""));
    let not_toml = file("[[implementation]\n").err().unwrap();
    assert!(not_toml.contains("conf/mcpspec.toml"), "{not_toml}");

    let flag = planned("[[implementation]]\nname = \"a\"\nrole = \"server\"\nstrict = \"yes\"\n", &[]);
    assert!(flag.err().unwrap().contains("`strict` is a flag: true or false"));
    let value = planned("[[implementation]]\nname = \"a\"\nrole = \"server\"\ntimeout = -1\n", &[]);
    let value = value.err().unwrap();
    assert!(value.contains("implementation a") && value.contains("-1"), "{value}");
    let bad_flag = planned(SERVER, &["--timout", "3"]).err().unwrap();
    assert!(bad_flag.contains("the flags of `mcpspec run`") && bad_flag.contains("--timout"), "{bad_flag}");
    let same = "[[implementation]]\nname = \"a\"\nrole = \"server\"\nreport-dir = \"r\"\n[[implementation]]\nname = \"b\"\nrole = \"client\"\nreport-dir = \"r\"\n";
    assert!(planned(same, &[]).err().unwrap().contains("same directory"));
}

#[test]
fn only_picks_implementations_by_name() {
    let text = "[[implementation]]\nname = \"a\"\nrole = \"server\"\n[[implementation]]\nname = \"b\"\nrole = \"client\"\n";
    let imps = file(text).unwrap();
    let path = Path::new("mcpspec.toml");
    let picked = plan(path, &imps, &[], &["b".to_owned()]).unwrap();
    assert_eq!(picked.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(), ["b"]);
    let unknown = plan(path, &imps, &[], &["c".to_owned()]).err().unwrap().0;
    assert!(unknown.contains("no such implementation (it has a, b)"), "{unknown}");
}

#[test]
fn the_worst_exit_code_wins() {
    assert_eq!(worse(0, 1), 1);
    assert_eq!(worse(1, 4), 1);
    assert_eq!(worse(4, 3), 3);
    assert_eq!(worse(3, 2), 2);
    assert_eq!(worse(2, 130), 130);
    assert_eq!(worse(0, 4), 4);
}
