//! Python's coverage, through mcpspec's wrapper (`wrapper.py`, built into the binary and
//! written to the campaign's private folder at run time).
//!
//! The command stays the user's: `python [OPTIONS] script.py ARGS` becomes
//! `python [OPTIONS] WRAPPER script.py ARGS` (and `-m module` likewise), with the report file
//! named in `MCPSPEC_COVERAGE_FILE`. The wrapper appends `LINE<TAB>FILE` for each line the
//! process runs for the first time; mcpspec reads what was appended since the last take.

use super::Reached;
use std::ffi::{OsStr, OsString};
use std::io::{Read as _, Seek as _, SeekFrom};
use std::path::PathBuf;

/// The wrapper's source.
pub const WRAPPER: &str = include_str!("wrapper.py");
/// Its file name in the campaign's folder.
pub const WRAPPER_NAME: &str = "mcpspec_coverage.py";
/// The variable that names the report file.
pub const FILE_VARIABLE: &str = "MCPSPEC_COVERAGE_FILE";

/// The Python interpreter's options that take a value in the next word.
const OPTIONS_WITH_VALUE: [&str; 3] = ["-W", "-X", "--check-hash-based-pycs"];

/// `argv` with the wrapper put where the interpreter reads its script: after `env NAME=VALUE…`
/// and the interpreter's own options, before `-m module` or the script. A console script
/// (`mcp-server-time`) or `-c` has no script to wrap: an error saying what to write instead.
pub fn wrap_argv(argv: &[OsString], wrapper: &OsStr) -> Result<Vec<OsString>, String> {
    let text = |w: &OsString| w.to_string_lossy().into_owned();
    let mut at = 0;
    // `env [NAME=VALUE…] python …`, as the interop matrix writes commands.
    if argv.first().is_some_and(|w| std::path::Path::new(w).file_name() == Some(OsStr::new("env"))) {
        at = 1;
        while argv.get(at).is_some_and(|w| text(w).contains('=') && !text(w).starts_with('-')) {
            at += 1;
        }
    }
    let Some(interpreter) = argv.get(at) else {
        return Err("--coverage python needs a command: python script.py, or python -m module".into());
    };
    let name = std::path::Path::new(interpreter).file_name().map(|n| n.to_string_lossy().into_owned());
    if !name.as_deref().is_some_and(|n| n.starts_with("python")) {
        return Err(format!(
            "--coverage python needs the command to start with the Python interpreter \
             (python script.py, or python -m module), not {}",
            text(interpreter)
        ));
    }
    at += 1;
    while let Some(word) = argv.get(at).map(text) {
        match word.as_str() {
            "-m" => break,
            "-c" => return Err("--coverage python cannot wrap python -c: put the code in a file".into()),
            w if OPTIONS_WITH_VALUE.contains(&w) => at += 2,
            w if w.starts_with('-') && w != "-" => at += 1,
            _ => break,
        }
    }
    if at >= argv.len() {
        return Err("--coverage python needs a script or -m module after the interpreter".into());
    }
    let mut wrapped = argv[..at].to_vec();
    wrapped.push(wrapper.to_owned());
    wrapped.extend_from_slice(&argv[at..]);
    Ok(wrapped)
}

/// The lines a report's text names (`LINE<TAB>FILE` each), and how many of its bytes were whole
/// lines (a line being written is read next time).
pub fn reached(text: &[u8]) -> (Reached, usize) {
    let whole = text.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let lines = String::from_utf8_lossy(&text[..whole])
        .lines()
        .filter_map(|line| {
            let (number, file) = line.split_once('\t')?;
            Some((file.to_owned(), number.parse().ok()?))
        })
        .collect();
    (Reached::Lines(lines), whole)
}

/// One process's report file, read from where the last take stopped.
pub struct LineFile {
    path: PathBuf,
    offset: u64,
}

impl LineFile {
    pub fn new(path: PathBuf) -> LineFile {
        LineFile { path, offset: 0 }
    }

    /// The lines appended since the last take (none while the file does not exist yet).
    pub fn take(&mut self) -> Option<Reached> {
        let mut file = match std::fs::File::open(&self.path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Some(Reached::Lines(Vec::new())),
            Err(_) => return None,
        };
        file.seek(SeekFrom::Start(self.offset)).ok()?;
        let mut text = Vec::new();
        // Bounded: what one take reads at most (a start reports a few thousand lines).
        file.take(64 << 20).read_to_end(&mut text).ok()?;
        let (reached, whole) = reached(&text);
        self.offset += whole as u64;
        Some(reached)
    }
}

impl Drop for LineFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<OsString> {
        s.split_whitespace().map(OsString::from).collect()
    }

    fn wrapped(s: &str) -> Result<String, String> {
        wrap_argv(&words(s), OsStr::new("W"))
            .map(|w| w.iter().map(|x| x.to_string_lossy().into_owned()).collect::<Vec<_>>().join(" "))
    }

    #[test]
    fn the_wrapper_goes_where_python_reads_its_script() {
        assert_eq!(wrapped("python3 server.py --port 1").unwrap(), "python3 W server.py --port 1");
        assert_eq!(
            wrapped("/v/bin/python -u -X dev -m mcp_server_time").unwrap(),
            "/v/bin/python -u -X dev W -m mcp_server_time"
        );
        assert_eq!(wrapped("env A=1 B=2 python3.11 s.py").unwrap(), "env A=1 B=2 python3.11 W s.py");
    }

    #[test]
    fn what_cannot_be_wrapped_says_why() {
        for (argv, says) in [
            ("node server.js", "Python interpreter"),
            ("/v/bin/mcp-server-time", "Python interpreter"),
            ("python -c print(1)", "-c"),
            ("python -u", "a script or -m module"),
            ("env A=1", "needs a command"),
        ] {
            let why = wrapped(argv).unwrap_err();
            assert!(why.contains(says), "{argv}: {why}");
        }
    }

    /// The wrapper, run around a script as a campaign runs it: the first input reports the lines
    /// it ran, the same input again nothing new, an input down the other branch exactly that
    /// branch's line. Needs python3 (as the suite's other Python fixtures do).
    #[test]
    fn the_wrapper_reports_each_line_the_first_time_it_runs() {
        use super::super::{prepare, CoverageConfig, CoverageMap, Source};
        use mcpspec_reference::transport::CommandSpec;
        use std::io::{BufRead as _, Write as _};
        let config = CoverageConfig::new(Source::Python, true).expect("coverage folder");
        let script = tempfile::tempdir().expect("tempdir");
        let path = script.path().join("branches.py");
        let text = "import sys\n\ndef answer(line):\n    if line.startswith(\"deep\"):\n        return \"deep\"\n    return \"shallow\"\n\nfor line in sys.stdin:\n    print(answer(line), flush=True)\n";
        std::fs::write(&path, text).expect("script");
        let command =
            CommandSpec::from_argv(["python3".into(), path.clone().into_os_string()]).expect("argv");
        let (spec, pending) = prepare(&config, &command).expect("a python command wraps");
        let super::super::Pending::LineFile(file) = pending else { panic!("python reports to a file") };
        let mut child = std::process::Command::new(&spec.program)
            .args(&spec.args)
            .envs(spec.env.iter().map(|(k, v)| (k, v)))
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("python3 runs");
        let mut stdin = child.stdin.take().expect("stdin");
        let mut stdout = std::io::BufReader::new(child.stdout.take().expect("stdout"));
        let mut report = LineFile::new(file);
        let mut map = CoverageMap::default();
        let mut ask = |line: &str| {
            stdin.write_all(line.as_bytes()).expect("write");
            let mut answer = String::new();
            stdout.read_line(&mut answer).expect("read");
            let reached = report.take().expect("the report file reads");
            let Reached::Lines(lines) = &reached else { panic!("lines") };
            let ours: Vec<u32> =
                lines.iter().filter(|(f, _)| f.ends_with("branches.py")).map(|(_, l)| *l).collect();
            (answer.trim().to_owned(), map.absorb(&reached), ours)
        };
        let (answer, new, ours) = ask("first\n");
        assert_eq!(answer, "shallow");
        assert!(new > 0 && ours.contains(&6) && !ours.contains(&5), "{new} new, lines {ours:?}");
        assert_eq!(ask("second\n"), ("shallow".into(), 0, vec![]), "the same path again is nothing new");
        assert_eq!(ask("deep\n"), ("deep".into(), 1, vec![5]), "the other branch: its one line");
        drop(stdin);
        assert!(child.wait().expect("wait").success());
    }

    #[test]
    fn a_report_is_read_up_to_its_last_whole_line() {
        let (lines, whole) = reached(b"3\t/s/a.py\n4\t/s/a.py\nnot a line\n12\t/s/b");
        assert_eq!(lines, Reached::Lines(vec![("/s/a.py".into(), 3), ("/s/a.py".into(), 4)]));
        assert_eq!(whole, "3\t/s/a.py\n4\t/s/a.py\nnot a line\n".len());
        assert_eq!(reached(b""), (Reached::Lines(vec![]), 0));
    }
}
