//! The run report: one entry per scenario and revision with its checks, a certification
//! verdict per revision, and a summary. The console shows it line by line as scenarios finish;
//! `--report-dir` writes it in every format, each from the same [`Report`]: `report.json` (the
//! contract, its schema in `harness/report.schema.json`), `junit.xml`, `report.html`,
//! `summary.md` and `badge.json` (a shields.io endpoint badge). A run split over machines
//! (`--shard I/N`, [`shard`]) is made one report again by [`merge`].

pub mod badge;
pub mod console;
pub mod html;
pub mod junit;
pub mod markdown;

pub mod baseline;
pub mod cost;
pub mod merge;
pub mod redact;
pub mod results;
pub mod run;
pub mod scenario;
pub mod shard;

pub use cost::Cost;
pub use results::Results;
pub use run::{exit, Certification, Conformance, Policy, Report, RunInfo, ScenarioSet, Selection, Summary};
pub use scenario::{BaselineMark, BaselineStatus, ScenarioReport};

use std::path::Path;

impl Report {
    /// Writes `dir/report.json`, creating `dir`.
    pub fn write_json(&self, dir: &Path) -> std::io::Result<std::path::PathBuf> {
        let mut text = serde_json::to_string_pretty(self).map_err(std::io::Error::other)?;
        text.push('\n');
        write_atomically(dir, "report.json", text.as_bytes())
    }

    /// Writes every format into `dir` (creating it), each file whole or not at all:
    /// `report.json`, `junit.xml`, `report.html`, `summary.md`, `badge.json`. Returns the paths
    /// written.
    pub fn write_all(&self, dir: &Path) -> std::io::Result<Vec<std::path::PathBuf>> {
        let json = self.write_json(dir)?;
        // The page's header reads the run's facts as a value; its embedded report is written
        // from the report itself. A value of the whole report would be the run's largest
        // allocation: a map per transcript line (for 115 failing scenarios of 200 lines each,
        // 14.5 MiB of a 34 MiB heap peak; heaptrack, the hostile endless-SSE row).
        let head = serde_json::to_value(self.without_scenarios()).map_err(std::io::Error::other)?;
        let page = html::page(&head, &serde_json::to_string(self).map_err(std::io::Error::other)?);
        Ok(vec![
            json,
            write_atomically(dir, "junit.xml", junit::render(self).as_bytes())?,
            write_atomically(dir, "report.html", page.as_bytes())?,
            write_atomically(dir, "summary.md", markdown::render(self).as_bytes())?,
            write_atomically(dir, "badge.json", badge::render(self).to_string().as_bytes())?,
        ])
    }
}

/// Writes `dir/name` whole or not at all (see [`crate::files`]). A report is for sharing
/// (secrets are redacted): readable as any output file is.
pub fn write_atomically(dir: &Path, name: &str, bytes: &[u8]) -> std::io::Result<std::path::PathBuf> {
    let path = dir.join(name);
    crate::files::write_atomically(&path, bytes, crate::files::Access::Shared)?;
    Ok(path)
}

#[cfg(test)]
pub(crate) mod tests;
