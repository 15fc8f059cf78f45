//! The smallest input that still fails the same way. (Contract; the implementation lands with
//! issue #15.)
//!
//! A [`Probe`] runs a candidate against the implementation (a fresh process each time) and
//! says whether it still fails with the same signature. Minimization is budgeted in probes
//! and in time: a hang costs a timeout per probe.

use super::Input;
use std::time::Duration;

/// Runs a candidate and tells whether it fails as the original did.
#[allow(async_fn_in_trait)]
pub trait Probe {
    async fn still_fails(&mut self, candidate: &Input) -> bool;
}

/// How much minimization may spend on one finding.
#[derive(Debug, Clone, Copy)]
pub struct Budget {
    pub probes: usize,
    pub time: Duration,
}

impl Default for Budget {
    fn default() -> Self {
        Budget { probes: 500, time: Duration::from_secs(30) }
    }
}

/// Shrinks `input` (which fails) while `probe` says the candidate still fails.
pub async fn minimize(input: Input, probe: &mut impl Probe, budget: Budget) -> Input {
    let _ = (probe, budget);
    input
}
