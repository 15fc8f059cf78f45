//! Native servers' coverage, through SanitizerCoverage (`trace-pc-guard`).
//!
//! The server is built with the compiler's edge instrumentation and mcpspec's runtime
//! (`sancov_runtime.c`, written out by `mcpspec fuzz sancov-runtime FILE`) linked in: the
//! build changes, its source does not. mcpspec creates a file per process, names it in
//! `MCPSPEC_SANCOV_FILE`; the runtime maps it shared and sets byte N once edge N ran (byte 0
//! once mapped). After each window mcpspec reads the file and reports the edges set since the
//! last take. A unit is an edge of the server's instrumented code.

use super::Reached;
use std::io::{Read as _, Seek as _, SeekFrom};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The runtime's source.
pub const RUNTIME: &str = include_str!("sancov_runtime.c");
/// The variable that names the edge file.
pub const FILE_VARIABLE: &str = "MCPSPEC_SANCOV_FILE";
/// The edge file's size: edges numbered beyond it are not measured.
pub const MAP_BYTES: usize = 1 << 21;

/// The edges set in `current` that `reported` does not hold yet (byte 0, the runtime's mark,
/// is no edge); `reported` takes them.
pub fn new_edges(current: &[u8], reported: &mut [u8]) -> Vec<u32> {
    let mut out = Vec::new();
    // Word by word: most of the map is the same as at the last take.
    for (word, (now, before)) in current.chunks(8).zip(reported.chunks_mut(8)).enumerate() {
        if now == before {
            continue;
        }
        for (i, (n, b)) in now.iter().zip(before.iter_mut()).enumerate() {
            let edge = word * 8 + i;
            if *n != 0 && *b == 0 && edge != 0 {
                out.push(u32::try_from(edge).unwrap_or(u32::MAX));
            }
            if *n != 0 {
                *b = 1;
            }
        }
    }
    out
}

/// Creates a process's edge file, zeroed (sparse: only edges run take room).
pub fn create(path: &Path) -> std::io::Result<()> {
    let file = std::fs::OpenOptions::new().create_new(true).write(true).open(path)?;
    file.set_len(MAP_BYTES as u64)
}

/// One process's edge file.
pub struct EdgeFile {
    path: PathBuf,
    file: std::fs::File,
    current: Vec<u8>,
    reported: Vec<u8>,
}

impl EdgeFile {
    /// The file, once the process's runtime has mapped it (its mark set), waiting at most
    /// `within` while `alive` says the process runs.
    pub async fn attach(
        path: PathBuf,
        within: Duration,
        mut alive: impl FnMut() -> bool,
    ) -> Result<EdgeFile, String> {
        let file = std::fs::File::open(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let mut edges = EdgeFile { path, file, current: vec![0; MAP_BYTES], reported: vec![0; MAP_BYTES] };
        let deadline = Instant::now() + within;
        loop {
            let mut mark = [0u8; 1];
            edges.file.seek(SeekFrom::Start(0)).map_err(|e| e.to_string())?;
            edges.file.read_exact(&mut mark).map_err(|e| e.to_string())?;
            if mark[0] != 0 {
                return Ok(edges);
            }
            if !alive() || Instant::now() >= deadline {
                return Err(format!(
                    "the server never mapped {FILE_VARIABLE}: is it built with -fsanitize-coverage=trace-pc-guard \
                     (Rust: -C passes=sancov-module -C llvm-args=-sanitizer-coverage-trace-pc-guard) and mcpspec's \
                     runtime linked in (mcpspec fuzz sancov-runtime)? See the README"
                ));
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    /// The edges set since the last take.
    pub fn take(&mut self) -> Option<Reached> {
        self.file.seek(SeekFrom::Start(0)).ok()?;
        self.file.read_exact(&mut self.current).ok()?;
        Some(Reached::Edges(new_edges(&self.current, &mut self.reported)))
    }
}

impl Drop for EdgeFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edges_are_reported_once_and_the_mark_is_no_edge() {
        let mut reported = vec![0u8; 32];
        let mut current = vec![0u8; 32];
        current[0] = 1;
        current[3] = 1;
        current[17] = 1;
        assert_eq!(new_edges(&current, &mut reported), vec![3, 17]);
        assert_eq!(new_edges(&current, &mut reported), Vec::<u32>::new(), "the same edges again");
        current[31] = 1;
        assert_eq!(new_edges(&current, &mut reported), vec![31]);
    }

    /// The runtime, compiled with the machine's C compiler into a program that calls its two
    /// functions as instrumented code would (the compiler's instrumentation is the compiler's):
    /// the edges an input runs are reported the first time only. Needs `cc` (as building
    /// mcpspec does); the file is mapped within the attach.
    #[tokio::test]
    async fn the_runtime_marks_the_edges_a_process_runs() {
        use super::super::{prepare, CoverageConfig, Pending, Source};
        use mcpspec_reference::transport::CommandSpec;
        use std::io::{BufRead as _, Write as _};
        let dir = tempfile::tempdir().expect("tempdir");
        let runtime = dir.path().join("runtime.c");
        std::fs::write(&runtime, RUNTIME).expect("runtime");
        let program = dir.path().join("program.c");
        // Five guards, as one instrumented module would have: guard 1 for start-up, 2 for any
        // line, 3 for a line that starts with "deep".
        std::fs::write(
            &program,
            r#"#include <stdint.h>
#include <stdio.h>
#include <string.h>
void __sanitizer_cov_trace_pc_guard_init(uint32_t *, uint32_t *);
void __sanitizer_cov_trace_pc_guard(uint32_t *);
static uint32_t guards[5];
int main(void) {
  char line[256];
  __sanitizer_cov_trace_pc_guard_init(guards, guards + 5);
  __sanitizer_cov_trace_pc_guard(&guards[0]);
  while (fgets(line, sizeof line, stdin)) {
    __sanitizer_cov_trace_pc_guard(&guards[1]);
    if (strncmp(line, "deep", 4) == 0) __sanitizer_cov_trace_pc_guard(&guards[2]);
    printf("ok\n");
    fflush(stdout);
  }
  return 0;
}
"#,
        )
        .expect("program");
        let binary = dir.path().join("program");
        let built = std::process::Command::new("cc")
            .arg("-O1")
            .arg(&runtime)
            .arg(&program)
            .arg("-o")
            .arg(&binary)
            .status()
            .expect("cc runs");
        assert!(built.success(), "the runtime compiles");
        let config = CoverageConfig::new(Source::Sancov, true).expect("coverage folder");
        let command = CommandSpec::from_argv([binary.into_os_string()]).expect("argv");
        let (spec, pending) = prepare(&config, &command).expect("prepared");
        let Pending::EdgeFile(path) = pending else { panic!("an edge file") };
        let mut child = std::process::Command::new(&spec.program)
            .envs(spec.env.iter().map(|(k, v)| (k, v)))
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("the program runs");
        let mut edges = EdgeFile::attach(path, Duration::from_secs(10), || true).await.expect("mapped");
        let mut stdin = child.stdin.take().expect("stdin");
        let mut stdout = std::io::BufReader::new(child.stdout.take().expect("stdout"));
        let mut ask = |line: &str| {
            stdin.write_all(line.as_bytes()).expect("write");
            let mut answer = String::new();
            stdout.read_line(&mut answer).expect("read");
            edges.take().expect("the edge file reads")
        };
        assert_eq!(ask("first\n"), Reached::Edges(vec![1, 2]), "start-up and the line's edge");
        assert_eq!(ask("second\n"), Reached::Edges(vec![]), "the same edges again");
        assert_eq!(ask("deep\n"), Reached::Edges(vec![3]), "the other branch's edge");
        drop(stdin);
        assert!(child.wait().expect("wait").success());
    }
}
