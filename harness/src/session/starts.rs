//! Turns to start an implementation under test. Starting is where a scenario spends most of
//! its CPU — an interpreter loading its libraries before it says a word: a Python SDK server or
//! client takes a second of CPU there — while the rest of a scenario mostly waits on the
//! implementation. So many scenarios may run at once (`-j`) while their starts take turns, a few
//! per core, and a start is not slowed by a crowd of others into looking like an implementation
//! that never answers (or never connects). The time spent waiting for a turn is not charged to
//! the implementation: its timeouts start once it is spawned. Every start is counted
//! ([`started`]), for the run's cost.

/// Implementations that may be starting at once, per core: a start is not all CPU (an
/// interpreter reads its files, a relay is exec'd), so a core takes two at a time.
const TURNS_PER_CORE: usize = 2;

/// A turn to start an implementation, held until its first answer (a server) or its
/// connection (a client), whichever the role waits for first; dropping it gives the turn back.
pub type StartTurn = tokio::sync::SemaphorePermit<'static>;

/// Waits for a turn to start an implementation (`None` only if the turns are gone, which they
/// never are: the caller then starts without one).
pub async fn turn() -> Option<StartTurn> {
    static TURNS: std::sync::OnceLock<tokio::sync::Semaphore> = std::sync::OnceLock::new();
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    TURNS.get_or_init(|| tokio::sync::Semaphore::new(TURNS_PER_CORE * cores)).acquire().await.ok()
}

/// Processes of the implementation under test started in this run (mcpspec runs one
/// certification per process).
static STARTED: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Counts a process of the implementation under test, once it is spawned.
pub fn count_start() {
    STARTED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
}

/// How many processes of the implementation under test this run has started.
pub fn started() -> u64 {
    STARTED.load(std::sync::atomic::Ordering::Relaxed)
}
