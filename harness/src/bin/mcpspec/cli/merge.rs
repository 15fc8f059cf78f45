//! `mcpspec merge DIR... --report-dir OUT`: the report directories of a run's shards
//! (`mcpspec server|client --shard I/N`) made one report, in every format, certified and judged
//! by the baseline as the run on one machine would have been ([`mcpspec::report::merge`]); the
//! exit code is that run's.

use super::certify::{open_console, report_and_exit};
use super::{signals, UsageError};
use clap::Args;
use mcpspec::report::baseline::Baseline;
use mcpspec::report::{Policy, Report};
use std::path::PathBuf;
use std::time::Instant;

/// The options of `mcpspec merge`.
#[derive(Args)]
pub struct MergeArgs {
    /// The report directories of every shard of one run (each holds the report.json that
    /// `--shard I/N --report-dir DIR` wrote).
    #[arg(value_name = "DIR", required = true)]
    pub dirs: Vec<PathBuf>,
    /// Where to write the merged report: report.json, junit.xml, report.html, summary.md and
    /// badge.json.
    #[arg(long, value_name = "OUT")]
    pub report_dir: PathBuf,
    /// Show only the certification and the summary.
    #[arg(short, long)]
    pub quiet: bool,
}

/// Merges; returns the merged run's exit code (shards that do not make one run: 2).
pub fn run(args: MergeArgs) -> u8 {
    match merge(args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("mcpspec merge: {e:#}");
            e.downcast_ref::<UsageError>()
                .map_or(mcpspec::report::exit::ERROR, |_| mcpspec::report::exit::USAGE)
        }
    }
}

fn merge(args: MergeArgs) -> anyhow::Result<u8> {
    let started = Instant::now();
    open_console(args.quiet, false, Vec::new());
    let merged = mcpspec::report::merge::read(&args.dirs).map_err(|e| UsageError(e.to_string()))?;
    // The shards recorded the baseline they were judged with; staleness is judged again here,
    // over every shard, so the very same file must be read again.
    let baseline = match &merged.baseline {
        None => None,
        Some(known) => {
            let baseline = Baseline::load(std::path::Path::new(&known.file)).map_err(|e| {
                UsageError(format!(
                    "the shards were judged with the baseline {}, which merge reads again: {e} (run merge \
                     in the checkout the shards ran in)",
                    known.file
                ))
            })?;
            if baseline.sha256 != known.sha256 {
                let why = format!(
                    "the baseline {} is not the file the shards were judged with (its SHA-256 differs): run \
                     merge in the checkout the shards ran in",
                    known.file
                );
                return Err(UsageError(why).into());
            }
            Some(baseline)
        }
    };
    let stop = merged.info.interrupted.and_then(signals::Stop::named);
    eprintln!(
        "mcpspec merge: {} shards, {} scenario runs, of {} {}",
        merged.shards,
        merged.scenarios.len(),
        merged.info.role,
        merged.info.command
    );
    let policy = Policy { baseline: baseline.as_ref(), strict: merged.strict, shard: false };
    let report = Report::new(merged.info, merged.scenarios, &policy);
    report_and_exit(report, Some(&args.report_dir), args.quiet, started, stop)
}
