//! Security (issue #17): command lines run without a shell unless `--shell` is given; listeners
//! bind loopback only; relay sockets are private.

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

/// The local addresses of the TCP sockets listening on `port` (IPv4 and IPv6), from
/// /proc/net/tcp{,6}: `127.0.0.1`, `::1`, `0.0.0.0`, … (what a process actually bound, not
/// what it says it bound).
fn listening_on(port: u16) -> Vec<std::net::IpAddr> {
    let mut found = Vec::new();
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
        let text = std::fs::read_to_string(table).unwrap_or_default();
        for line in text.lines().skip(1) {
            let fields: Vec<&str> = line.split_whitespace().collect();
            // sl local_address rem_address st …; st 0A is LISTEN.
            let (Some(local), Some("0A")) = (fields.get(1), fields.get(3).copied()) else { continue };
            let Some((address, p)) = local.split_once(':') else { continue };
            if u16::from_str_radix(p, 16) != Ok(port) {
                continue;
            }
            found.push(proc_net_address(address));
        }
    }
    found
}

/// An address as /proc/net/tcp{,6} prints it: 32-bit words in hex, each in host byte order.
fn proc_net_address(hex: &str) -> std::net::IpAddr {
    let words: Vec<[u8; 4]> = (0..hex.len() / 8)
        .map(|i| u32::from_str_radix(&hex[i * 8..i * 8 + 8], 16).expect("hex").to_ne_bytes())
        .collect();
    match words.as_slice() {
        [w] => std::net::IpAddr::from(*w),
        four => {
            let bytes: Vec<u8> = four.iter().flatten().copied().collect();
            std::net::IpAddr::from(<[u8; 16]>::try_from(bytes).expect("16 bytes"))
        }
    }
}

#[test]
fn proc_net_addresses_read_as_written() {
    assert_eq!(proc_net_address("0100007F"), std::net::IpAddr::from([127, 0, 0, 1]));
    assert_eq!(proc_net_address("00000000"), std::net::IpAddr::from([0, 0, 0, 0]));
    let v6_loopback = proc_net_address("00000000000000000000000001000000");
    assert_eq!(v6_loopback, "::1".parse::<std::net::IpAddr>().unwrap());
}

fn assert_loopback_only(what: &str, port: u16) {
    let bound = listening_on(port);
    assert!(!bound.is_empty(), "{what}: nothing listens on port {port}");
    assert!(bound.iter().all(|a| a.is_loopback()), "{what} listens on {bound:?}, not loopback only");
}

/// A client command (`sh SCRIPT`) that writes what it sees of the harness's listener to `out`:
/// over stdio the mode of the relay socket's folder and of the socket, over HTTP the listening
/// sockets of the scenario server's port. It then exits without speaking MCP.
fn spy_client(dir: &std::path::Path) -> (String, std::path::PathBuf) {
    let out = dir.join("seen");
    let script = dir.join("spy.sh");
    let text = format!(
        r#"out='{out}'
if [ -n "$MCP_CONFORMANCE_SERVER_URL" ]; then
  echo "$MCP_CONFORMANCE_SERVER_URL" > "$out"
  sleep 2 # the test reads the listening sockets meanwhile
else
  socket=$(printf %s "$MCP_CONFORMANCE_SERVER_COMMAND" | sed 's/.*"--connect","\([^"]*\)".*/\1/')
  stat -c '%a' "$(dirname "$socket")" "$socket" > "$out"
fi
"#,
        out = out.display()
    );
    std::fs::write(&script, text).expect("write the script");
    (script.display().to_string(), out)
}

#[test]
fn the_scenario_servers_listen_on_loopback_and_relay_sockets_are_private() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (script, seen) = spy_client(dir.path());
    let one = ["client", "--revision", "2025-06-18", "--scenario", "client-lifecycle/ping"];

    let stdio = run(&[&one[..], &["--timeout", "2", "--", "sh", &script]].concat(), false, LIMIT);
    let modes =
        std::fs::read_to_string(&seen).unwrap_or_else(|_| panic!("the spy ran: {}", stdio.describe()));
    let modes: Vec<&str> = modes.lines().collect();
    assert_eq!(modes.first(), Some(&"700"), "the relay socket's folder: {modes:?}");
    assert_eq!(modes.len(), 2, "the socket itself exists: {modes:?}");
    assert_no_leftovers(&stdio.marker);

    // Over HTTP the spy reads the URL; the port is checked while mcpspec still listens (it waits
    // for the client's contact until --timeout).
    std::fs::remove_file(&seen).expect("remove");
    let args: Vec<String> = [&one[..], &["--transport", "http", "--timeout", "5", "--", "sh", &script]]
        .concat()
        .into_iter()
        .map(str::to_owned)
        .collect();
    let handle =
        std::thread::spawn(move || run(&args.iter().map(String::as_str).collect::<Vec<_>>(), false, LIMIT));
    let started = std::time::Instant::now();
    let url = loop {
        if let Ok(url) = std::fs::read_to_string(&seen) {
            if url.ends_with('\n') {
                break url.trim().to_owned();
            }
        }
        assert!(started.elapsed() < LIMIT, "the spy never ran");
        std::thread::sleep(Duration::from_millis(20));
    };
    let port: u16 = url::Url::parse(&url).expect("a URL").port().expect("a port");
    assert_loopback_only("the client's scenario server", port);
    let http = handle.join().expect("the run");
    assert_no_leftovers(&http.marker);
}

#[test]
fn the_reference_http_server_listens_on_loopback_by_default() {
    let server = ServedReference::start(&[]);
    assert_loopback_only("mcpspec reference server --transport http", server.port());
}
