//! `mcpspec validate`: judges a JSON Lines file of messages against a revision's schema, one
//! verdict per line. Reading goes through the stdio line decoder, so a huge or binary line is
//! reported, never buffered without bound.

use super::{parse_revision, schema_set};
use clap::Args;
use mcpspec::report::exit;
use mcpspec_protocol::framing::DEFAULT_MAX_MESSAGE_BYTES;
use mcpspec_protocol::framing::{FrameContent, LineDecoder};
use mcpspec_protocol::{Direction, Revision};
use mcpspec_schema::{SchemaSet, StreamValidator, Validation};
use std::io::{Read, Write};
use std::path::PathBuf;

#[derive(Args)]
pub struct ValidateArgs {
    /// The revision whose schema judges the messages.
    #[arg(long, value_name = "R", value_parser = parse_revision)]
    pub revision: Revision,
    /// Which way every message travels; by default inferred per message (a response goes the
    /// other way from its request; a request the way its method is defined for).
    #[arg(long, value_name = "DIR", value_parser = parse_direction)]
    pub direction: Option<Direction>,
    /// Use the schemas in DIR/<revision>/schema.json instead of mcpspec's own.
    #[arg(long, value_name = "DIR", env = "MCPSPEC_SCHEMA_DIR")]
    pub schema_dir: Option<PathBuf>,
    /// The longest line read, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_MESSAGE_BYTES)]
    pub max_message_bytes: usize,
    /// The JSON Lines file (`-` or nothing: standard input).
    #[arg(value_name = "FILE")]
    pub file: Option<PathBuf>,
}

fn parse_direction(s: &str) -> Result<Direction, String> {
    match s {
        "client-to-server" => Ok(Direction::ClientToServer),
        "server-to-client" => Ok(Direction::ServerToClient),
        other => Err(format!("{other:?} is not a direction (client-to-server or server-to-client)")),
    }
}

/// `mcpspec validate`.
pub fn run(args: ValidateArgs) -> u8 {
    let schemas = match schema_set(args.schema_dir.as_ref()) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("mcpspec validate: {e}");
            return exit::USAGE;
        }
    };
    let input: Box<dyn std::io::Read> = match args.file.as_deref() {
        None => Box::new(std::io::stdin().lock()),
        Some(p) if p.as_os_str() == "-" => Box::new(std::io::stdin().lock()),
        Some(p) => match std::fs::File::open(p) {
            Ok(f) => Box::new(f),
            Err(e) => {
                eprintln!("mcpspec validate: cannot read {}: {e}", p.display());
                return exit::USAGE;
            }
        },
    };
    let out = std::io::stdout().lock();
    match judge(&schemas, args.revision, args.direction, input, out, args.max_message_bytes) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("mcpspec validate: {e}");
            exit::ERROR
        }
    }
}

/// Validates every line of `input`; writes one verdict per line to `out`; returns the exit code.
fn judge(
    schemas: &SchemaSet,
    revision: Revision,
    direction: Option<Direction>,
    mut input: impl Read,
    mut out: impl Write,
    max_message_bytes: usize,
) -> std::io::Result<u8> {
    let Some(schema) = schemas.get(revision) else {
        writeln!(out, "no schema for {revision} is loaded")?;
        return Ok(exit::USAGE);
    };
    let mut validator = StreamValidator::new(schema);
    let mut decoder = LineDecoder::new(max_message_bytes);
    let mut frames = Vec::new();
    let mut buf = vec![0u8; 64 * 1024];
    let (mut valid, mut formats, mut invalid) = (0usize, 0usize, 0usize);
    loop {
        let n = input.read(&mut buf)?;
        if n == 0 {
            frames.extend(decoder.finish());
        } else {
            decoder.push(&buf[..n], &mut frames);
        }
        for frame in frames.drain(..) {
            let line = frame.line;
            match frame.content {
                FrameContent::Blank => {}
                FrameContent::Invalid(e) => {
                    invalid += 1;
                    writeln!(out, "line {line}: not a message: {e}")?;
                }
                FrameContent::Json { value, .. } => {
                    let dir = direction.unwrap_or_else(|| validator.infer_direction(&value));
                    for verdict in validator.validate(dir, &value) {
                        match verdict {
                            Validation::Valid { .. } => valid += 1,
                            Validation::FormatMismatch { .. } => formats += 1,
                            _ => invalid += 1,
                        }
                        writeln!(out, "line {line}: {}", describe(&verdict, dir))?;
                    }
                }
            }
        }
        if n == 0 {
            break;
        }
    }
    writeln!(out, "{valid} valid, {formats} valid but for formats, {invalid} invalid ({revision})")?;
    // `format` is an annotation (JSON Schema 2020-12): like a warning of `mcpspec server`, a
    // format mismatch alone does not fail the run.
    Ok(if invalid == 0 { exit::OK } else { exit::MUST_FAILED })
}

fn describe(verdict: &Validation, direction: Direction) -> String {
    match verdict {
        Validation::Valid { definition } => format!("valid {definition} ({direction})"),
        Validation::Invalid { definition, violations } => {
            format!("INVALID {definition} ({direction}): {}", list(violations))
        }
        Validation::FormatMismatch { definition, violations } => {
            format!("FORMAT {definition} ({direction}): {}", list(violations))
        }
        Validation::UnknownMethod { method } => format!("INVALID: unknown method {method:?} ({direction})"),
        Validation::Unmatched { reason } => format!("INVALID: {reason} ({direction})"),
    }
}

/// `/params/uri: "x" is not a "uri" [format uri; schema …]`, `;`-separated.
fn list(violations: &[mcpspec_schema::Violation]) -> String {
    let one = |v: &mcpspec_schema::Violation| {
        let at = if v.instance_path.is_empty() { "/" } else { &v.instance_path };
        match &v.format {
            Some(format) => format!("{at}: {} [format {format}; schema {}]", v.message, v.schema_path),
            None => format!("{at}: {} [schema {}]", v.message, v.schema_path),
        }
    };
    violations.iter().map(one).collect::<Vec<_>>().join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn validate(revision: Revision, input: &str) -> (u8, String) {
        let mut out = Vec::new();
        let code =
            judge(&SchemaSet::shared_builtin(), revision, None, input.as_bytes(), &mut out, 1 << 20).unwrap();
        (code, String::from_utf8(out).unwrap())
    }

    #[test]
    fn a_valid_session_passes_line_by_line() {
        let input = concat!(
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#,
            "\n",
            r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}"#,
            "\n\n",
        );
        let (code, out) = validate(Revision::V2025_06_18, input);
        assert_eq!(code, 0, "{out}");
        assert!(out.contains("line 1: valid InitializeRequest (client-to-server)"), "{out}");
        assert!(out.contains("line 2: valid InitializeResult (server-to-client)"), "{out}");
        assert!(out.ends_with("2 valid, 0 valid but for formats, 0 invalid (2025-06-18)\n"), "{out}");
    }

    #[test]
    fn bad_lines_are_reported_with_their_numbers() {
        let input =
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{}}\nnot json\n\u{ff}\n";
        let (code, out) = validate(Revision::V2025_06_18, input);
        assert_eq!(code, 1, "{out}");
        assert!(out.contains("line 1: INVALID InitializeRequest"), "{out}");
        assert!(out.contains("line 2: not a message: line is not JSON"), "{out}");
        assert!(out.contains("line 3: not a message"), "{out}");
    }

    /// A format mismatch alone is reported as such and exits 0; beside an invalid line, 1.
    #[test]
    fn format_mismatches_are_reported_apart_and_exit_0() {
        let bad_url = concat!(
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"#,
            r#""clientInfo":{"name":"c","version":"1","websiteUrl":"not a uri"}}}"#,
            "\n"
        );
        let (code, out) = validate(Revision::V2025_11_25, bad_url);
        assert_eq!(code, 0, "{out}");
        assert!(
            out.contains(
                "line 1: FORMAT InitializeRequest (client-to-server): /params/clientInfo/websiteUrl: \
                 \"not a uri\" is not a \"uri\" [format uri; schema "
            ),
            "{out}"
        );
        assert!(out.ends_with("0 valid, 1 valid but for formats, 0 invalid (2025-11-25)\n"), "{out}");
        let (code, out) = validate(Revision::V2025_11_25, &format!("{bad_url}{{}}\n"));
        assert_eq!(code, 1, "{out}");
        assert!(out.ends_with("0 valid, 1 valid but for formats, 1 invalid (2025-11-25)\n"), "{out}");
    }
}
