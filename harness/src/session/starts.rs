//! Turns to start an implementation under test. Starting is where a scenario spends most of
//! its CPU — an interpreter loading its libraries before it says a word: a Python SDK server or
//! client takes a second of CPU there — while the rest of a scenario mostly waits on the
//! implementation. So many scenarios may run at once (`-j`) while their starts take turns, and a
//! start is not slowed by a crowd of others into looking like an implementation that never
//! answers (or never connects). The time spent waiting for a turn is not charged to the
//! implementation: its timeouts start once it is spawned. Every start is counted ([`started`]),
//! for the run's cost.
//!
//! How many starts may run at once follows what the starts measure ([`StartTurn::spawned`]):
//! one per core while they keep a core busy, as an interpreter loading its libraries does (more
//! would only share the cores: measured on 2 cores, two per core cost the Python SDK server a
//! fifth more CPU per start than one per core, for the same work); two per core once the first
//! starts show they mostly wait or are quick (a wrapper starting a container, a relay exec'd, a
//! native binary), so the cores are not left idle while starts queue.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

/// Starts measured before the turns may widen.
const MEASURED_BEFORE_WIDENING: u32 = 4;

/// The share of its wall time a start spends on a core below which starts count as mostly
/// waiting.
const WAITING_SHARE: f64 = 0.5;

/// The turns, and what the starts have shown so far.
struct Turns {
    semaphore: tokio::sync::Semaphore,
    cores: usize,
    /// Starts measured, and the sum of their CPU shares.
    measured: Mutex<(u32, f64)>,
    widened: AtomicBool,
}

fn turns() -> &'static Turns {
    static TURNS: OnceLock<Turns> = OnceLock::new();
    TURNS.get_or_init(|| Turns::new(std::thread::available_parallelism().map_or(2, |n| n.get())))
}

impl Turns {
    /// One turn per core until the starts show otherwise.
    fn new(cores: usize) -> Turns {
        Turns {
            semaphore: tokio::sync::Semaphore::new(cores),
            cores,
            measured: Mutex::new((0, 0.0)),
            widened: AtomicBool::new(false),
        }
    }

    /// Takes in one start's CPU share (CPU time over wall time); widens the turns to two per
    /// core once the starts measured so far have mostly waited.
    fn measure(&self, share: f64) {
        let mut measured = self.measured.lock().expect("turns lock");
        measured.0 += 1;
        measured.1 += share;
        let (n, sum) = *measured;
        if n >= MEASURED_BEFORE_WIDENING
            && sum / f64::from(n) < WAITING_SHARE
            && !self.widened.swap(true, Ordering::Relaxed)
        {
            self.semaphore.add_permits(self.cores);
        }
    }
}

/// A turn to start an implementation, held until its first answer (a server) or its
/// connection (a client), whichever the role waits for first; dropping it gives the turn back,
/// and measures the start if it was told which process it started ([`StartTurn::spawned`]).
pub struct StartTurn {
    _permit: tokio::sync::SemaphorePermit<'static>,
    started: Option<(i32, Instant)>,
}

impl StartTurn {
    /// The start holding this turn spawned the process group `pgid` (its leader's pid).
    pub fn spawned(&mut self, pgid: i32) {
        self.started = Some((pgid, Instant::now()));
    }
}

impl Drop for StartTurn {
    fn drop(&mut self) {
        let Some((pgid, at)) = self.started else { return };
        // The turns widen once; after that a measurement changes nothing, so /proc goes unread.
        if turns().widened.load(Ordering::Relaxed) {
            return;
        }
        // /proc counts CPU in hundredths of a second: a start quicker than a tenth of one is
        // measured over that tenth, and counts as cheap (it leaves the cores to others).
        let wall = at.elapsed().max(Duration::from_millis(100));
        if let Some(cpu) = group_cpu(pgid) {
            turns().measure(cpu.as_secs_f64() / wall.as_secs_f64());
        }
    }
}

/// The cores the turns are counted in.
pub fn cores() -> usize {
    turns().cores
}

/// Waits for a turn to start an implementation (`None` only if the turns are gone, which they
/// never are: the caller then starts without one).
pub async fn turn() -> Option<StartTurn> {
    let permit = turns().semaphore.acquire().await.ok()?;
    Some(StartTurn { _permit: permit, started: None })
}

/// The CPU the processes of group `pgid` have spent, with their children that ended (Linux's
/// /proc; `None` elsewhere).
fn group_cpu(pgid: i32) -> Option<Duration> {
    // USER_HZ, the unit of /proc's times, is 100 on every Linux a user space sees.
    const TICKS_PER_SECOND: u64 = 100;
    let mut ticks = 0u64;
    let mut found = false;
    for entry in std::fs::read_dir("/proc").ok()?.flatten() {
        let name = entry.file_name();
        if !name.to_string_lossy().bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else { continue };
        // After the command's name (in parentheses, which it may itself contain): state, ppid,
        // pgrp, …, then utime, stime, cutime, cstime as fields 12 to 15.
        let Some((_, rest)) = stat.rsplit_once(')') else { continue };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        if fields.get(2).and_then(|g| g.parse::<i32>().ok()) != Some(pgid) {
            continue;
        }
        found = true;
        let times = fields.get(11..15).unwrap_or_default();
        ticks += times.iter().filter_map(|f| f.parse::<u64>().ok()).sum::<u64>();
    }
    found.then(|| Duration::from_millis(ticks * 1000 / TICKS_PER_SECOND))
}

/// Processes of the implementation under test started in this run (mcpspec runs one
/// certification per process).
static STARTED: AtomicU64 = AtomicU64::new(0);

/// Counts a process of the implementation under test, once it is spawned.
pub fn count_start() {
    STARTED.fetch_add(1, Ordering::Relaxed);
}

/// How many processes of the implementation under test this run has started.
pub fn started() -> u64 {
    STARTED.load(Ordering::Relaxed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_busy_process_group_shows_its_cpu() {
        use std::os::unix::process::CommandExt;
        let mut busy = std::process::Command::new("sh")
            .args(["-c", "while :; do :; done"])
            .process_group(0)
            .spawn()
            .expect("sh");
        std::thread::sleep(Duration::from_millis(500));
        let cpu = group_cpu(busy.id() as i32);
        let _ = busy.kill();
        let _ = busy.wait();
        let cpu = cpu.expect("the group it leads");
        assert!(cpu >= Duration::from_millis(100), "{cpu:?}");
        assert_eq!(group_cpu(i32::MAX), None, "no such group");
    }

    #[test]
    fn starts_that_mostly_wait_widen_the_turns_once() {
        let t = Turns::new(2);
        for _ in 0..3 {
            t.measure(0.1);
        }
        assert_eq!(t.semaphore.available_permits(), 2, "too few measured yet");
        t.measure(0.1);
        assert_eq!(t.semaphore.available_permits(), 4);
        for _ in 0..8 {
            t.measure(0.0);
        }
        assert_eq!(t.semaphore.available_permits(), 4, "once");
        let busy = Turns::new(2);
        for _ in 0..10 {
            busy.measure(0.9);
        }
        assert_eq!(busy.semaphore.available_permits(), 2, "starts that keep a core busy: one per core");
    }
}
