//! MCP protocol revisions and their eras.
//!
//! A revision is a parameter of everything mcpspec does (which schema, which rules, which
//! handshake), never a copy of code. The "legacy" era (2024-11-05 … 2025-11-25) opens a session
//! with `initialize`; the "modern" era (2026-07-28 and the draft) is stateless
//! (`docs/specification/2026-07-28/basic/versioning.mdx`).

use std::fmt;
use std::str::FromStr;

/// One published (or draft) revision of the MCP specification.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Revision {
    V2024_11_05,
    V2025_03_26,
    V2025_06_18,
    V2025_11_25,
    V2026_07_28,
    Draft,
}

/// The two handshake models of MCP.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Era {
    /// `initialize` / `notifications/initialized`, sessions, server-to-client requests.
    Legacy,
    /// Stateless: per-request `_meta` version and capabilities, `server/discover`.
    Modern,
}

impl Revision {
    /// Every revision mcpspec knows, oldest first.
    pub const ALL: [Revision; 6] = [
        Revision::V2024_11_05,
        Revision::V2025_03_26,
        Revision::V2025_06_18,
        Revision::V2025_11_25,
        Revision::V2026_07_28,
        Revision::Draft,
    ];

    /// The revisions negotiated with `initialize`, oldest first.
    pub const LEGACY: [Revision; 4] =
        [Revision::V2024_11_05, Revision::V2025_03_26, Revision::V2025_06_18, Revision::V2025_11_25];

    /// The string sent on the wire (`protocolVersion`) and used in the spec's doc paths.
    pub fn as_str(self) -> &'static str {
        match self {
            Revision::V2024_11_05 => "2024-11-05",
            Revision::V2025_03_26 => "2025-03-26",
            Revision::V2025_06_18 => "2025-06-18",
            Revision::V2025_11_25 => "2025-11-25",
            Revision::V2026_07_28 => "2026-07-28",
            Revision::Draft => "draft",
        }
    }

    pub fn era(self) -> Era {
        if self >= Revision::V2026_07_28 {
            Era::Modern
        } else {
            Era::Legacy
        }
    }

    /// The newest revision negotiated with `initialize`.
    pub fn latest_legacy() -> Revision {
        Revision::V2025_11_25
    }

    /// Whether JSON-RPC batches (arrays) are part of this revision
    /// (`docs/specification/2025-03-26/basic/index.mdx`; removed in 2025-06-18).
    pub fn allows_batches(self) -> bool {
        self == Revision::V2025_03_26
    }

    /// The folder of this revision's documents in the specification repository.
    pub fn doc_root(self) -> String {
        format!("docs/specification/{}", self.as_str())
    }
}

impl fmt::Display for Revision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A revision string that names no revision mcpspec knows.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown MCP revision {0:?} (known: 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28, draft)"
)]
pub struct UnknownRevision(pub String);

impl FromStr for Revision {
    type Err = UnknownRevision;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Revision::ALL.into_iter().find(|r| r.as_str() == s).ok_or_else(|| UnknownRevision(s.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_revision_it_prints() {
        for r in Revision::ALL {
            assert_eq!(r.as_str().parse::<Revision>(), Ok(r));
        }
        assert!("2025-13-01".parse::<Revision>().is_err());
    }

    #[test]
    fn eras_split_at_2026() {
        assert!(Revision::LEGACY.iter().all(|r| r.era() == Era::Legacy));
        assert_eq!(Revision::Draft.era(), Era::Modern);
        assert_eq!(Revision::V2026_07_28.era(), Era::Modern);
    }
}
