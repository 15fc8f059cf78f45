//! Coverage guidance (`mcpspec fuzz --coverage node|python|sancov`): which code of the server a window
//! of inputs reached that no process of the campaign had reached before. An input that reaches
//! new code joins the campaign's corpus at once (beside the response-shape signal), so later
//! inputs mutate it; the campaign counts the units reached, over time, guided or not.
//!
//! The implementation's source is not changed: its runtime reports what ran.
//! - Node ([`node`]): started with `--inspect-brk=127.0.0.1:0` in `NODE_OPTIONS`; mcpspec speaks
//!   to the inspector (V8's precise block coverage, counts reset at each take). A unit is a
//!   byte of JavaScript source inside a block that ran. `NODE_V8_COVERAGE` is not used: Node
//!   writes it only at exit (or `v8.takeCoverage()` from inside), and a process per input
//!   would cost a start per input.
//! - Python ([`python`]): the command's interpreter runs mcpspec's wrapper, which runs the
//!   script or module and appends each line run for the first time to a file. A unit is a
//!   source line.
//! - Native code ([`sancov`]): built with SanitizerCoverage's `trace-pc-guard` and mcpspec's
//!   runtime linked in, which marks each edge run in a file shared with mcpspec. A unit is an
//!   edge.
//!
//! What is pure here: the units of a report ([`node::reached`], [`python::reached`]) and
//! whether they are new ([`CoverageMap::absorb`]). What does I/O: a [`Probe`] per process.

pub mod node;
pub mod python;
pub mod sancov;

use mcpspec_reference::transport::{ChildTransport, CommandSpec};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Where a server's runtime reports the code it ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// Node's inspector: V8's precise block coverage.
    Node,
    /// mcpspec's wrapper around a Python interpreter (`sys.monitoring`, or `sys.settrace`
    /// before 3.12).
    Python,
    /// A native server built with SanitizerCoverage and mcpspec's runtime.
    Sancov,
}

impl Source {
    pub fn name(self) -> &'static str {
        match self {
            Source::Node => "node",
            Source::Python => "python",
            Source::Sancov => "sancov",
        }
    }

    /// What one unit of this source's coverage is.
    pub fn unit(self) -> &'static str {
        match self {
            Source::Node => "bytes of JavaScript in blocks run",
            Source::Python => "lines of Python run",
            Source::Sancov => "edges of native code run",
        }
    }
}

impl std::str::FromStr for Source {
    type Err = String;
    fn from_str(s: &str) -> Result<Source, String> {
        match s {
            "node" => Ok(Source::Node),
            "python" => Ok(Source::Python),
            "sancov" => Ok(Source::Sancov),
            _ => Err(format!("{s:?} is no coverage source: node, python or sancov")),
        }
    }
}

/// A campaign's coverage: the source, a private folder for the files it needs (the Python
/// wrapper, each process's report file), and what the campaign's processes reached (shared by
/// its drivers' copies of this config).
#[derive(Debug, Clone)]
pub struct CoverageConfig {
    pub source: Source,
    dir: Arc<tempfile::TempDir>,
    pub log: Arc<Mutex<CoverageLog>>,
}

impl CoverageConfig {
    /// A private temporary folder, with the Python wrapper written into it. `guide`: whether
    /// inputs that reach new code join the corpus (`false`: measured only, the baseline a
    /// guided campaign is compared with).
    pub fn new(source: Source, guide: bool) -> std::io::Result<CoverageConfig> {
        let dir = tempfile::Builder::new().prefix("mcpspec-coverage-").tempdir()?;
        if source == Source::Python {
            crate::files::write_atomically(
                &dir.path().join(python::WRAPPER_NAME),
                python::WRAPPER.as_bytes(),
                crate::files::Access::Private,
            )?;
        }
        let log = Arc::new(Mutex::new(CoverageLog::new(source, guide)));
        Ok(CoverageConfig { source, dir: Arc::new(dir), log })
    }

    fn dir(&self) -> &Path {
        self.dir.path()
    }
}

/// What a process reached since the last take, in its source's units.
#[derive(Debug, Clone, PartialEq)]
pub enum Reached {
    /// Source lines: (file, line).
    Lines(Vec<(String, u32)>),
    /// Per script URL, the byte ranges `[start, end)` of blocks that ran.
    Ranges(Vec<(String, Vec<(u32, u32)>)>),
    /// Edges of native code, by the runtime's numbers.
    Edges(Vec<u32>),
}

/// Everything a campaign's processes reached.
#[derive(Debug, Default)]
pub struct CoverageMap {
    lines: HashSet<(String, u32)>,
    ranges: HashMap<String, IntervalSet>,
    edges: HashSet<u32>,
    units: u64,
}

impl CoverageMap {
    /// Adds what was reached; how many units of it no process had reached before.
    pub fn absorb(&mut self, reached: &Reached) -> u64 {
        let mut new = 0;
        match reached {
            Reached::Lines(lines) => {
                for line in lines {
                    if !self.lines.contains(line) {
                        self.lines.insert(line.clone());
                        new += 1;
                    }
                }
            }
            Reached::Edges(edges) => {
                for &edge in edges {
                    if self.edges.insert(edge) {
                        new += 1;
                    }
                }
            }
            Reached::Ranges(scripts) => {
                for (url, ranges) in scripts {
                    let set = self.ranges.entry(url.clone()).or_default();
                    for &(start, end) in ranges {
                        new += set.insert(start, end);
                    }
                }
            }
        }
        self.units += new;
        new
    }

    /// Units reached so far.
    pub fn units(&self) -> u64 {
        self.units
    }
}

/// A campaign's coverage over time: the map, and when the count of units changed.
#[derive(Debug)]
pub struct CoverageLog {
    pub source: Source,
    pub guided: bool,
    map: CoverageMap,
    /// (time into the campaign, units reached by then), one entry per change.
    timeline: Vec<(Duration, u64)>,
    /// Inputs that reached new code and joined the corpus.
    pub kept: u64,
}

impl CoverageLog {
    pub fn new(source: Source, guided: bool) -> CoverageLog {
        CoverageLog { source, guided, map: CoverageMap::default(), timeline: Vec::new(), kept: 0 }
    }

    /// What a process reached, `at` into the campaign; how many units were new.
    pub fn absorb(&mut self, at: Duration, reached: &Reached) -> u64 {
        let new = self.map.absorb(reached);
        if new > 0 {
            self.timeline.push((at, self.map.units()));
        }
        new
    }

    pub fn units(&self) -> u64 {
        self.map.units()
    }

    /// Units reached before the first input: the server's start, and listing what it offers.
    pub fn at_start(&self) -> u64 {
        self.timeline.first().map_or(0, |&(_, units)| units)
    }

    /// Units reached by `at` into the campaign.
    pub fn units_at(&self, at: Duration) -> u64 {
        let reached = self.timeline.partition_point(|&(when, _)| when <= at);
        reached.checked_sub(1).map_or(0, |i| self.timeline[i].1)
    }

    /// Units reached by the end of each whole minute of a campaign that lasted `elapsed`, and
    /// at its end.
    pub fn by_minute(&self, elapsed: Duration) -> Vec<(Duration, u64)> {
        let minutes = elapsed.as_secs() / 60;
        let mut out: Vec<(Duration, u64)> =
            (1..=minutes).map(|m| Duration::from_secs(m * 60)).map(|t| (t, self.units_at(t))).collect();
        // The end, unless a minute's mark is within a second of it.
        if out.last().is_none_or(|&(t, _)| elapsed.saturating_sub(t) >= Duration::from_secs(1)) {
            out.push((elapsed, self.units()));
        }
        out
    }
}

/// Disjoint, sorted half-open ranges.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct IntervalSet(Vec<(u32, u32)>);

impl IntervalSet {
    /// Adds `[start, end)`; how many of its positions were not in the set.
    pub fn insert(&mut self, start: u32, end: u32) -> u64 {
        if start >= end {
            return 0;
        }
        // The ranges that touch or overlap [start, end) are merged into one.
        let first = self.0.partition_point(|&(_, e)| e < start);
        let last = self.0.partition_point(|&(s, _)| s <= end);
        let covered: u64 = self.0[first..last]
            .iter()
            .map(|&(s, e)| u64::from(e.min(end).saturating_sub(s.max(start))))
            .sum();
        let merged_start = self.0[first..last].first().map_or(start, |&(s, _)| s.min(start));
        let merged_end = self.0[first..last].last().map_or(end, |&(_, e)| e.max(end));
        self.0.splice(first..last, [(merged_start, merged_end)]);
        u64::from(end - start) - covered
    }

    pub fn ranges(&self) -> &[(u32, u32)] {
        &self.0
    }
}

/// The command to start for `config`'s source, and what is left to do once it runs:
/// `NODE_OPTIONS` gains `--inspect-brk=127.0.0.1:0` (the inspector is attached to once the
/// process announces it); a Python command runs the wrapper first, reporting to a file of its
/// own (one per process).
pub fn prepare(config: &CoverageConfig, command: &CommandSpec) -> Result<(CommandSpec, Pending), String> {
    static PROCESSES: AtomicU64 = AtomicU64::new(0);
    let mut spec = command.clone();
    match config.source {
        Source::Node => {
            let inherited = spec
                .env
                .iter()
                .rev()
                .find(|(k, _)| k == "NODE_OPTIONS")
                .map(|(_, v)| v.clone())
                .or_else(|| std::env::var_os("NODE_OPTIONS"))
                .unwrap_or_default();
            spec.env.push(("NODE_OPTIONS".into(), node::node_options(&inherited)));
            Ok((spec, Pending::Inspector))
        }
        Source::Python => {
            let wrapper = config.dir().join(python::WRAPPER_NAME);
            let argv: Vec<std::ffi::OsString> =
                std::iter::once(spec.program.clone()).chain(spec.args.iter().cloned()).collect();
            let wrapped = python::wrap_argv(&argv, wrapper.as_os_str())?;
            let process = PROCESSES.fetch_add(1, Ordering::Relaxed);
            let file = config.dir().join(format!("lines-{process}.txt"));
            let mut wrapped_spec = CommandSpec::from_argv(wrapped).expect("non-empty argv");
            wrapped_spec.env = spec.env;
            wrapped_spec.env.push((python::FILE_VARIABLE.into(), file.clone().into_os_string()));
            wrapped_spec.cwd = spec.cwd;
            Ok((wrapped_spec, Pending::LineFile(file)))
        }
        Source::Sancov => {
            let process = PROCESSES.fetch_add(1, Ordering::Relaxed);
            let file = config.dir().join(format!("edges-{process}.bin"));
            sancov::create(&file).map_err(|e| format!("{}: {e}", file.display()))?;
            spec.env.push((sancov::FILE_VARIABLE.into(), file.clone().into_os_string()));
            Ok((spec, Pending::EdgeFile(file)))
        }
    }
}

/// What a process started by [`prepare`] needs before its coverage can be taken.
pub enum Pending {
    /// Its inspector, to connect to (it waits for that before running the server).
    Inspector,
    /// Nothing: the wrapper writes this file.
    LineFile(PathBuf),
    /// Its runtime's mark in this file (it maps the file as it starts).
    EdgeFile(PathBuf),
}

impl Pending {
    /// The process's probe, once `child` runs: for Node, its inspector attached within `within`.
    pub async fn attach(self, child: &mut ChildTransport, within: Duration) -> Result<Probe, String> {
        match self {
            Pending::Inspector => node::Inspector::attach(child, within).await.map(Probe::Node),
            Pending::LineFile(file) => Ok(Probe::Python(python::LineFile::new(file))),
            Pending::EdgeFile(file) => {
                sancov::EdgeFile::attach(file, within, || child.try_exit().is_none()).await.map(Probe::Sancov)
            }
        }
    }
}

/// One process's coverage, taken after each window.
pub enum Probe {
    Node(node::Inspector),
    Python(python::LineFile),
    Sancov(sancov::EdgeFile),
}

impl Probe {
    /// What the process reached since the last take; `None` when it cannot say (it died, its
    /// inspector went silent for `within`).
    pub async fn take(&mut self, within: Duration) -> Option<Reached> {
        match self {
            Probe::Node(inspector) => inspector.take(within).await,
            Probe::Python(file) => file.take(),
            Probe::Sancov(file) => file.take(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_interval_set_counts_only_positions_it_did_not_hold() {
        let mut set = IntervalSet::default();
        assert_eq!(set.insert(10, 20), 10);
        assert_eq!(set.insert(10, 20), 0, "the same range again is nothing new");
        assert_eq!(set.insert(15, 25), 5);
        assert_eq!(set.insert(30, 40), 10);
        assert_eq!(set.insert(0, 50), 50 - 25);
        assert_eq!(set.ranges(), &[(0, 50)]);
        assert_eq!(set.insert(5, 5), 0, "an empty range");
        let mut touching = IntervalSet::default();
        touching.insert(0, 5);
        touching.insert(5, 9);
        touching.insert(20, 30);
        assert_eq!(touching.ranges(), &[(0, 9), (20, 30)]);
        assert_eq!(touching.insert(8, 21), 11);
        assert_eq!(touching.ranges(), &[(0, 30)]);
    }

    #[test]
    fn a_map_counts_units_new_to_the_campaign() {
        let mut map = CoverageMap::default();
        let lines = Reached::Lines(vec![("a.py".into(), 1), ("a.py".into(), 2), ("b.py".into(), 1)]);
        assert_eq!(map.absorb(&lines), 3);
        assert_eq!(map.absorb(&lines), 0, "another process reaching the same lines");
        assert_eq!(map.absorb(&Reached::Lines(vec![("a.py".into(), 3), ("a.py".into(), 3)])), 1);
        let ranges = Reached::Ranges(vec![("file:///s.js".into(), vec![(0, 10), (5, 15)])]);
        assert_eq!(map.absorb(&ranges), 15);
        assert_eq!(map.absorb(&ranges), 0);
        assert_eq!(map.absorb(&Reached::Edges(vec![1, 2, 2])), 2);
        assert_eq!(map.absorb(&Reached::Edges(vec![2, 3])), 1);
        assert_eq!(map.units(), 22);
    }

    #[test]
    fn a_log_says_how_many_units_were_reached_by_when() {
        let mut log = CoverageLog::new(Source::Python, true);
        let at = Duration::from_secs;
        assert_eq!(log.absorb(at(0), &Reached::Lines(vec![("a.py".into(), 1)])), 1);
        assert_eq!(log.absorb(at(30), &Reached::Lines(vec![("a.py".into(), 1)])), 0);
        assert_eq!(log.absorb(at(70), &Reached::Lines(vec![("a.py".into(), 2), ("a.py".into(), 3)])), 2);
        assert_eq!((log.units_at(at(0)), log.units_at(at(69)), log.units_at(at(70))), (1, 1, 3));
        assert_eq!(log.at_start(), 1);
        assert_eq!(log.by_minute(at(150)), vec![(at(60), 1), (at(120), 3), (at(150), 3)]);
        assert_eq!(log.by_minute(at(120)), vec![(at(60), 1), (at(120), 3)]);
        assert_eq!(log.by_minute(Duration::from_millis(120_300)), vec![(at(60), 1), (at(120), 3)]);
        assert_eq!(log.by_minute(Duration::from_millis(300)), vec![(Duration::from_millis(300), 3)]);
    }

    #[test]
    fn sources_parse() {
        assert_eq!("node".parse::<Source>(), Ok(Source::Node));
        assert_eq!("python".parse::<Source>(), Ok(Source::Python));
        assert_eq!("sancov".parse::<Source>(), Ok(Source::Sancov));
        assert!("ruby".parse::<Source>().is_err());
    }
}
