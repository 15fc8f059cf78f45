//! `mcpspec replay FILE -- CMD`: runs a reproducer again, on a fresh process, the way it was
//! found. It still fails while any oracle trips (the same one, or, after a partial fix,
//! another); it is fixed when nothing trips. So a reproducer checked into an SDK's repository
//! is a regression test.

use super::client::ClientCampaign;
use super::driver::{Driver, DriverConfig, FuzzRole, Outcome, StartError};
use super::signature::top_frame;
use super::{Input, InputFile};
use mcpspec_protocol::Revision;
use serde::Deserialize;
use std::sync::Arc;

/// The parts of a reproducer file that replay needs.
#[derive(Debug, Clone, Deserialize)]
pub struct Reproducer {
    pub finding: String,
    pub oracle: String,
    #[serde(default)]
    pub frame: String,
    pub revision: String,
    /// `server` or `client` (reproducers written before clients were fuzzed have none: servers).
    #[serde(default)]
    pub role: Option<String>,
    pub input: InputFile,
}

impl Reproducer {
    pub fn parse(text: &str) -> Result<(Reproducer, Revision, Input), String> {
        let file: Reproducer =
            serde_json::from_str(text).map_err(|e| format!("not a reproducer file: {e}"))?;
        let revision: Revision = file.revision.parse().map_err(|e| format!("{e}"))?;
        let input = Input::try_from(&file.input)?;
        Ok((file, revision, input))
    }
}

/// What replaying found.
#[derive(Debug)]
pub enum Replayed {
    /// The recorded oracle tripped again (with the recorded stderr frame, when there was one).
    StillFails(Outcome),
    /// Something else tripped.
    FailsDifferently(Outcome),
    Fixed(Outcome),
}

pub async fn replay(
    config: DriverConfig,
    reproducer: &Reproducer,
    input: &Input,
) -> Result<Replayed, StartError> {
    let outcome = match config.role {
        FuzzRole::Server => Driver::new(Arc::new(config)).run_alone(input).await?,
        FuzzRole::Client => {
            let me = std::env::current_exe().map_err(|e| StartError::Spawn(e.to_string()))?;
            let campaign = ClientCampaign {
                driver: Arc::new(config),
                relay: vec![me.display().to_string(), "peer".into()],
                seed: 0,
                limit: super::campaign::Limit::Runs(0),
                shard: super::campaign::Shard::default(),
                findings_dir: None,
                minimize: super::minimize::Budget::default(),
                max_findings: None,
                jobs: 1,
            };
            campaign.replay(input).await?
        }
    };
    let same = outcome.trips.iter().any(|t| t.oracle.name() == reproducer.oracle)
        && (reproducer.frame.is_empty() || top_frame(&outcome.stderr) == reproducer.frame);
    Ok(if same {
        Replayed::StillFails(outcome)
    } else if outcome.trips.is_empty() {
        Replayed::Fixed(outcome)
    } else {
        Replayed::FailsDifferently(outcome)
    })
}
