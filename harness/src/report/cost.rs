//! What a run cost: its wall time, the processes of the implementation under test it started,
//! and the CPU time spent by mcpspec and by the implementation (issue #31: starts are where a
//! certification spends its CPU, so a run says how many it made and what each cost).

use serde::Serialize;
use std::time::Duration;

/// Where the implementation's processes run, which decides whether their CPU is known.
#[derive(Debug, Clone)]
pub enum Implementation {
    /// Every process mcpspec started is the implementation's (its command over stdio, the
    /// command serving HTTP, a client): their CPU is that of mcpspec's children.
    Children,
    /// The implementation runs outside mcpspec (a server given by URL): its CPU is unknown,
    /// and this says why.
    Elsewhere(String),
}

/// The cost of a run, `cost` in report.json.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Cost {
    /// The run's wall time.
    pub wall_ms: u64,
    /// Processes of the implementation under test mcpspec started.
    pub starts: u64,
    /// CPU time (user + system) of mcpspec's own process, every thread.
    pub mcpspec_cpu_ms: u64,
    /// CPU time (user + system) of the implementation's processes; `null` when unknown.
    pub implementation_cpu_ms: Option<u64>,
    /// The implementation's CPU per process started (its start and the scenarios it served);
    /// `null` when unknown or nothing was started.
    pub implementation_cpu_per_start_ms: Option<u64>,
    /// Why the implementation's CPU is unknown, when it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub implementation_cpu_unknown: Option<String>,
}

impl Cost {
    /// The cost of the run so far, `wall` into it, having started `starts` processes of the
    /// implementation.
    ///
    /// The CPU comes from `getrusage`: `RUSAGE_SELF` for mcpspec (every thread), and
    /// `RUSAGE_CHILDREN` for the implementation, since every process a certification starts is
    /// the implementation's. `RUSAGE_CHILDREN` is the kernel's own sum over every child mcpspec
    /// has reaped, together with the descendants each of them reaped (a `sh -c` or a launcher's
    /// interpreter). Reading `/proc/<pid>/stat` before each reap instead would need a read at
    /// exactly the moment a process is a zombie, which tokio's reaper does not offer, and would
    /// count the same tree no better. So call this once the run's processes are ended (every
    /// session shut down, a served process stopped). What it misses, and so the figure is a
    /// floor: a descendant orphaned when its process group was killed, which its own parent
    /// never reaped.
    pub fn measure(wall: Duration, starts: u64, implementation: Implementation) -> Cost {
        let mcpspec = cpu_ms(nix::sys::resource::UsageWho::RUSAGE_SELF).unwrap_or(0);
        let (cpu, unknown) = match implementation {
            Implementation::Children => match cpu_ms(nix::sys::resource::UsageWho::RUSAGE_CHILDREN) {
                Some(ms) => (Some(ms), None),
                None => (None, Some("getrusage(RUSAGE_CHILDREN) failed".to_owned())),
            },
            Implementation::Elsewhere(why) => (None, Some(why)),
        };
        Cost::new(wall.as_millis() as u64, starts, mcpspec, cpu, unknown)
    }

    /// A cost from its figures (the CPU per start derived from them).
    pub fn new(
        wall_ms: u64,
        starts: u64,
        mcpspec_cpu_ms: u64,
        implementation_cpu_ms: Option<u64>,
        implementation_cpu_unknown: Option<String>,
    ) -> Cost {
        Cost {
            wall_ms,
            starts,
            mcpspec_cpu_ms,
            implementation_cpu_ms,
            implementation_cpu_per_start_ms: implementation_cpu_ms.and_then(|ms| ms.checked_div(starts)),
            implementation_cpu_unknown,
        }
    }

    /// The cost of shards run apart, as one: their figures summed (wall time too: what the
    /// jobs took together, not how long the slowest one ran). Unknown when any shard's is.
    pub fn summed<'a>(shards: impl IntoIterator<Item = &'a Cost>) -> Cost {
        let shards: Vec<&Cost> = shards.into_iter().collect();
        let cpu: Option<u64> = shards.iter().map(|c| c.implementation_cpu_ms).sum();
        let unknown = shards.iter().find_map(|c| c.implementation_cpu_unknown.clone());
        Cost::new(
            shards.iter().map(|c| c.wall_ms).sum(),
            shards.iter().map(|c| c.starts).sum(),
            shards.iter().map(|c| c.mcpspec_cpu_ms).sum(),
            cpu,
            unknown,
        )
    }

    /// The console's line: `cost: 12.3 s wall, 57 processes started; CPU: mcpspec 3.4 s, the
    /// implementation 7.9 s (0.14 s per start)`.
    pub fn line(&self) -> String {
        let s = |ms: u64| format!("{:.1} s", ms as f64 / 1000.0);
        let implementation = match (self.implementation_cpu_ms, &self.implementation_cpu_unknown) {
            (Some(ms), _) => match self.implementation_cpu_per_start_ms {
                Some(per) => format!("the implementation {} ({:.2} s per start)", s(ms), per as f64 / 1000.0),
                None => format!("the implementation {}", s(ms)),
            },
            (None, why) => {
                format!("the implementation unknown ({})", why.as_deref().unwrap_or("not measured"))
            }
        };
        format!(
            "cost: {} wall, {} process{} started; CPU: mcpspec {}, {implementation}",
            s(self.wall_ms),
            self.starts,
            if self.starts == 1 { "" } else { "es" },
            s(self.mcpspec_cpu_ms),
        )
    }
}

/// User + system CPU time of `who`, in milliseconds.
fn cpu_ms(who: nix::sys::resource::UsageWho) -> Option<u64> {
    let usage = nix::sys::resource::getrusage(who).ok()?;
    let ms = |t: nix::sys::time::TimeVal| t.tv_sec() as u64 * 1000 + t.tv_usec() as u64 / 1000;
    Some(ms(usage.user_time()) + ms(usage.system_time()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_cpu_is_said_not_zero() {
        let cost = Cost::new(12_345, 57, 3_400, Some(7_980), None);
        assert_eq!(cost.implementation_cpu_per_start_ms, Some(140));
        assert_eq!(
            cost.line(),
            "cost: 12.3 s wall, 57 processes started; CPU: mcpspec 3.4 s, the implementation 8.0 s (0.14 s per start)"
        );
        let url = Cost::new(900, 0, 200, None, Some("the server at the URL runs outside mcpspec".into()));
        assert_eq!(url.implementation_cpu_per_start_ms, None);
        assert!(url
            .line()
            .ends_with("the implementation unknown (the server at the URL runs outside mcpspec)"));
        let json = serde_json::to_value(&url).unwrap();
        assert!(json["implementation_cpu_ms"].is_null(), "unknown is null, not 0: {json}");
    }

    #[test]
    fn measures_this_process_and_its_children() {
        let measure = || Cost::measure(Duration::ZERO, 1, Implementation::Children);
        let before = measure();
        // CPU spent here shows in mcpspec's figure (bounded: a starved machine gives up).
        let deadline = std::time::Instant::now() + Duration::from_secs(20);
        while measure().mcpspec_cpu_ms < before.mcpspec_cpu_ms + 20 && std::time::Instant::now() < deadline {
            std::hint::black_box((0..10_000u64).sum::<u64>());
        }
        assert!(measure().mcpspec_cpu_ms >= before.mcpspec_cpu_ms + 20, "{before:?}");
        // CPU spent by a child, once reaped, shows in the implementation's.
        let status = std::process::Command::new("sh")
            .args(["-c", "i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done"])
            .status()
            .unwrap();
        assert!(status.success());
        let after = measure();
        assert!(after.implementation_cpu_ms > before.implementation_cpu_ms, "{before:?} {after:?}");
        let elsewhere = Cost::measure(Duration::ZERO, 0, Implementation::Elsewhere("at a URL".into()));
        assert_eq!(elsewhere.implementation_cpu_ms, None);
    }
}
