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

impl Era {
    /// `legacy` or `modern`, the names the spec gives the eras (2026-07-28
    /// `basic/versioning.mdx`), as reports and flags use them.
    pub fn name(self) -> &'static str {
        match self {
            Era::Legacy => "legacy",
            Era::Modern => "modern",
        }
    }
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

    /// The revisions a run certifies unless told otherwise: every released one. The draft runs
    /// when named: at the spec commit mcpspec follows it is identical to 2026-07-28, whose
    /// version string it also sends (`modern::wire_version`).
    pub const RELEASED: [Revision; 5] = [
        Revision::V2024_11_05,
        Revision::V2025_03_26,
        Revision::V2025_06_18,
        Revision::V2025_11_25,
        Revision::V2026_07_28,
    ];

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

    /// The path of a document of this revision, given as the legacy revisions lay their
    /// documents out (`basic/transports.mdx#stdio`): the modern revisions moved pages
    /// (`basic/transports/stdio.mdx`, `basic/patterns/cancellation.mdx`), so a rule written
    /// once cites the page that holds it in every revision.
    pub fn doc(self, legacy_path: &str) -> String {
        let path = match self.era() {
            Era::Legacy if self == Revision::V2024_11_05 => first_page(legacy_path),
            Era::Legacy => std::borrow::Cow::Borrowed(legacy_path),
            Era::Modern => modern_page(legacy_path),
        };
        format!("{}/{path}", self.doc_root())
    }
}

/// Where a later legacy page's content lives in 2024-11-05's layout: the message kinds had a
/// page of their own (`basic/messages.mdx`), and HTTP+SSE was the HTTP transport itself, not a
/// backwards-compatibility section.
fn first_page(path: &str) -> std::borrow::Cow<'_, str> {
    match path.split_once('#') {
        Some(("basic/index.mdx", anchor @ ("requests" | "responses" | "notifications"))) => {
            std::borrow::Cow::Owned(format!("basic/messages.mdx#{anchor}"))
        }
        Some(("basic/transports.mdx", "backwards-compatibility")) => {
            std::borrow::Cow::Borrowed("basic/transports.mdx#http-with-sse")
        }
        _ => std::borrow::Cow::Borrowed(path),
    }
}

/// Where a legacy page's content lives in the modern revisions' layout.
fn modern_page(legacy_path: &str) -> std::borrow::Cow<'_, str> {
    let (page, anchor) = legacy_path.split_once('#').unwrap_or((legacy_path, ""));
    let moved = match page {
        "basic/transports.mdx" if anchor == "stdio" => "basic/transports/stdio.mdx",
        // The anchors of the old transports page name sections the new page reorganized.
        "basic/transports.mdx" => "basic/transports/streamable-http.mdx",
        "basic/utilities/cancellation.mdx" => "basic/patterns/cancellation.mdx",
        "basic/utilities/progress.mdx" => "basic/patterns/progress.mdx",
        // No handshake: what lifecycle.mdx said of versions and capabilities, versioning says.
        "basic/lifecycle.mdx" => "basic/versioning.mdx",
        // Authorization became a folder of pages; its sections kept their anchors.
        "basic/authorization.mdx" => {
            let page = authorization_page(anchor);
            return std::borrow::Cow::Owned(match anchor {
                "" => page.to_owned(),
                a => format!("{page}#{a}"),
            });
        }
        _ => return std::borrow::Cow::Borrowed(legacy_path),
    };
    std::borrow::Cow::Owned(moved.to_owned())
}

/// The 2026-07-28 page of a section of the legacy `basic/authorization.mdx`.
fn authorization_page(anchor: &str) -> &'static str {
    match anchor {
        "authorization-server-location"
        | "protected-resource-metadata-discovery-requirements"
        | "authorization-server-metadata-discovery"
        | "sequence-diagram" => "basic/authorization/authorization-server-discovery.mdx",
        "client-id-metadata-documents"
        | "implementation-requirements"
        | "example-metadata-document"
        | "client-id-metadata-documents-flow"
        | "advertising-cimd-support"
        | "pre-registration"
        | "dynamic-client-registration"
        | "application-type-and-redirect-uri-constraints"
        | "authorization-server-binding" => "basic/authorization/client-registration.mdx",
        "token-audience-binding-and-validation"
        | "token-theft"
        | "communication-security"
        | "authorization-code-protection"
        | "mix-up-attacks"
        | "open-redirection"
        | "client-id-metadata-document-security"
        | "authorization-server-abuse-protection"
        | "localhost-redirect-uri-risks"
        | "trust-policies"
        | "confused-deputy-problem"
        | "access-token-privilege-restriction" => "basic/authorization/security-considerations.mdx",
        _ => "basic/authorization/index.mdx",
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

/// Every page of 2026-07-28 (`git ls-tree` of the spec repository at the commit the digest
/// follows): a moved page must land on one of them.
pub const PAGES_2026_07_28: &[&str] = &[
    "architecture/index.mdx",
    "basic/authorization/authorization-server-discovery.mdx",
    "basic/authorization/client-registration.mdx",
    "basic/authorization/index.mdx",
    "basic/authorization/security-considerations.mdx",
    "basic/index.mdx",
    "basic/patterns/cancellation.mdx",
    "basic/patterns/index.mdx",
    "basic/patterns/mrtr.mdx",
    "basic/patterns/progress.mdx",
    "basic/patterns/subscriptions.mdx",
    "basic/transports/index.mdx",
    "basic/transports/stdio.mdx",
    "basic/transports/streamable-http.mdx",
    "basic/versioning.mdx",
    "changelog.mdx",
    "client/elicitation.mdx",
    "client/roots.mdx",
    "client/sampling.mdx",
    "deprecated.mdx",
    "index.mdx",
    "schema.mdx",
    "server/discover.mdx",
    "server/index.mdx",
    "server/prompts.mdx",
    "server/resources.mdx",
    "server/tools.mdx",
    "server/utilities/caching.mdx",
    "server/utilities/completion.mdx",
    "server/utilities/logging.mdx",
    "server/utilities/pagination.mdx",
];

/// Whether `path` (a full `docs/specification/2026-07-28/…` path, maybe with an anchor)
/// names a page that exists in 2026-07-28.
pub fn is_page_2026(path: &str) -> bool {
    let page = path.split('#').next().unwrap_or_default();
    let page = page.strip_prefix("docs/specification/2026-07-28/").unwrap_or(page);
    PAGES_2026_07_28.contains(&page)
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
    fn moved_pages_are_cited_where_they_now_are() {
        let r = Revision::V2026_07_28;
        assert_eq!(
            r.doc("basic/transports.mdx#stdio"),
            "docs/specification/2026-07-28/basic/transports/stdio.mdx"
        );
        assert_eq!(
            r.doc("basic/utilities/cancellation.mdx#timing-considerations"),
            "docs/specification/2026-07-28/basic/patterns/cancellation.mdx"
        );
        assert_eq!(
            r.doc("server/tools.mdx#error-handling"),
            "docs/specification/2026-07-28/server/tools.mdx#error-handling"
        );
        assert_eq!(
            Revision::V2025_06_18.doc("basic/transports.mdx#stdio"),
            "docs/specification/2025-06-18/basic/transports.mdx#stdio"
        );
        assert_eq!(
            r.doc("basic/authorization.mdx#authorization-server-location"),
            "docs/specification/2026-07-28/basic/authorization/authorization-server-discovery.mdx#authorization-server-location"
        );
        assert_eq!(
            r.doc("basic/authorization.mdx#token-handling"),
            "docs/specification/2026-07-28/basic/authorization/index.mdx#token-handling"
        );
        for legacy in [
            "basic/transports.mdx#x",
            "basic/utilities/progress.mdx",
            "basic/lifecycle.mdx#operation",
            "basic/authorization.mdx#token-theft",
        ] {
            assert!(is_page_2026(&r.doc(legacy)), "{legacy}");
        }
    }

    /// 2024-11-05 kept the message kinds on a page of their own and had HTTP+SSE as its HTTP
    /// transport: a clause written for later legacy revisions is cited where 2024-11-05 has it.
    #[test]
    fn the_first_revision_cites_its_own_pages() {
        let first = Revision::V2024_11_05;
        assert_eq!(
            first.doc("basic/index.mdx#responses"),
            "docs/specification/2024-11-05/basic/messages.mdx#responses"
        );
        assert_eq!(
            first.doc("basic/transports.mdx#backwards-compatibility"),
            "docs/specification/2024-11-05/basic/transports.mdx#http-with-sse"
        );
        assert_eq!(first.doc("basic/lifecycle.mdx"), "docs/specification/2024-11-05/basic/lifecycle.mdx");
        assert_eq!(
            Revision::V2025_03_26.doc("basic/index.mdx#responses"),
            "docs/specification/2025-03-26/basic/index.mdx#responses"
        );
    }

    #[test]
    fn eras_split_at_2026() {
        assert!(Revision::LEGACY.iter().all(|r| r.era() == Era::Legacy));
        assert_eq!(Revision::Draft.era(), Era::Modern);
        assert_eq!(Revision::V2026_07_28.era(), Era::Modern);
    }
}
