//! Shards: one certification split over several machines (`--shard I/N`), and put back together
//! (`mcpspec merge`, [`crate::report::merge`]). Which shard runs a scenario run is a function of
//! the run's scenario id and revision alone (a hash), never of timing or of the order runs are
//! found in, so every shard of a run agrees on it without talking to the others, and every run
//! is in exactly one shard. A shard's report says which shard it is, how it was judged, and where
//! each of its entries stands in the suite, which is what a merge needs to judge the whole run
//! as one machine would have.

use super::Report;
use serde::{Deserialize, Serialize};
use std::fmt;

/// Shard `index` of `count` (1-based): `--shard 2/3`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

/// The most shards a run is split into: more machines than that would each run a handful of
/// scenarios and spend their time starting up.
pub const MAX_SHARDS: usize = 256;

impl std::str::FromStr for Shard {
    type Err = String;

    fn from_str(s: &str) -> Result<Shard, String> {
        let bad = || {
            format!("--shard {s:?}: expected I/N, shard I of N, with 1 <= I <= N <= {MAX_SHARDS} (e.g. 2/3)")
        };
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let (index, count) =
            (i.trim().parse::<usize>().map_err(|_| bad())?, n.trim().parse::<usize>().map_err(|_| bad())?);
        if index == 0 || count == 0 || index > count || count > MAX_SHARDS {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl Shard {
    /// The shard (1-based) of `count` that runs the scenario `id` at `revision`.
    pub fn of(id: &str, revision: &str, count: usize) -> usize {
        (mix(fnv1a(&[id.as_bytes(), &[0], revision.as_bytes()])) % count as u64) as usize + 1
    }

    /// Whether this shard runs the scenario `id` at `revision`.
    pub fn holds(&self, id: &str, revision: &str) -> bool {
        Shard::of(id, revision, self.count) == self.index
    }
}

/// FNV-1a, 64 bits: a hash that is the same on every machine, build and version of Rust (the
/// standard library's hashers promise none of that), and spreads short ids evenly enough.
fn fnv1a(parts: &[&[u8]]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in parts.iter().flat_map(|p| p.iter()) {
        hash ^= u64::from(*byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

/// MurmurHash3's finalizer: FNV-1a's low bits follow its last bytes' (its parity is that of the
/// sum of every byte's low bit: two shards split by it put every run of one revision in one
/// shard), so every bit of the hash is spread over all of them before the modulo.
fn mix(mut h: u64) -> u64 {
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ (h >> 33)
}

/// The baseline a shard was judged with: where it was, and what it held.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BaselineRef {
    /// The file as given to `--expected-failures` (relative to where the shard ran).
    pub file: String,
    /// The SHA-256 of its text, hex.
    pub sha256: String,
}

/// What `report.json` says of the shard it holds: which, how it was judged, and the suite
/// position of each entry (merged reports list scenarios in suite order, as a whole run does).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShardInfo {
    pub index: usize,
    pub count: usize,
    /// `--strict`.
    pub strict: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<BaselineRef>,
    /// The suite position of each entry of `scenarios`, in the same order (feature, line,
    /// revision): not part of an entry, for it means nothing outside a merge.
    pub order: Vec<[usize; 3]>,
}

impl ShardInfo {
    /// Marks `report` as shard `shard` of its run: its info, and a note on each certification
    /// that ran something (a shard certifies nothing alone: `mcpspec merge` does, over all).
    pub fn stamp(
        report: &mut Report,
        shard: Shard,
        strict: bool,
        baseline: Option<&crate::report::baseline::Baseline>,
    ) {
        let order = report.scenarios.iter().map(|s| [s.order.0, s.order.1, s.order.2]).collect();
        for c in report.certification.iter_mut().filter(|c| c.verdict != super::Conformance::NotTested) {
            c.reason = format!(
                "{}; shard {shard} only: `mcpspec merge` of every shard's report certifies the run",
                c.reason
            );
        }
        report.shard = Some(ShardInfo {
            index: shard.index,
            count: shard.count,
            strict,
            baseline: baseline
                .map(|b| BaselineRef { file: b.path.display().to_string(), sha256: b.sha256.clone() }),
            order,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shard_is_read_from_i_of_n_and_bad_ones_are_refused() {
        assert_eq!("2/3".parse::<Shard>(), Ok(Shard { index: 2, count: 3 }));
        assert_eq!("1/1".parse::<Shard>(), Ok(Shard { index: 1, count: 1 }));
        for bad in ["0/3", "4/3", "3", "a/3", "1/0", "", "1/257", "-1/3"] {
            let err = bad.parse::<Shard>().unwrap_err();
            assert!(err.contains("expected I/N"), "{bad}: {err}");
        }
    }

    #[test]
    fn every_run_is_in_exactly_one_shard_and_always_the_same_one() {
        let runs: Vec<(String, &str)> = (0..300)
            .flat_map(|i| ["2025-06-18", "2025-11-25"].map(|r| (format!("area/scenario-{i}[x={i}]"), r)))
            .collect();
        for count in 1..=5 {
            let mut sizes = vec![0usize; count];
            for (id, revision) in &runs {
                let holders: Vec<usize> =
                    (1..=count).filter(|&index| Shard { index, count }.holds(id, revision)).collect();
                assert_eq!(holders.len(), 1, "{id} at {revision} of {count}: {holders:?}");
                sizes[holders[0] - 1] += 1;
            }
            // Even enough that no machine of a matrix does twice another's share.
            let (min, max) = (*sizes.iter().min().unwrap(), *sizes.iter().max().unwrap());
            assert!(max <= 2 * min.max(1), "{count} shards: {sizes:?}");
        }
        // Pinned: a shard is a function of the id and revision only, the same in every build.
        assert_eq!(fnv1a(&[b"a"]), 0xaf63_dc4c_8601_ec8c);
        assert_ne!(
            Shard::of("lifecycle/ping", "2025-06-18", 1000),
            Shard::of("lifecycle/ping", "2025-11-25", 1000)
        );
    }
}
