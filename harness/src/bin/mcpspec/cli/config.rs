//! `mcpspec.toml` and `mcpspec run` (or `mcpspec` alone): the implementations of a project, each
//! certified as `mcpspec server|client` would certify it. The file holds nothing a flag cannot
//! say: each implementation becomes the command line of `mcpspec server` or `mcpspec client`,
//! parsed by the very parser of those commands into their options ([`CertifyArgs`]), with the
//! flags given to `mcpspec run` overriding the file's, flag by flag. So the file and the flags
//! are one way of saying the same thing, and a new flag is a key of the file at once.
//!
//! ```toml
//! [[implementation]]
//! name = "server"
//! role = "server"                              # or client
//! command = ["node", "dist/server.js"]         # argv; a string is run by `sh -c`
//! # url = "http://127.0.0.1:3000/mcp"          # a running server, instead of (or with) a command
//! transports = ["stdio", "http"]               # one run each (default: the role's default)
//! revisions = ["2025-11-25", "2026-07-28"]     # default: every one
//! baseline = ".github/mcpspec-baseline.yaml"   # --expected-failures
//! report-dir = "mcpspec-report/server"         # one folder per transport when there are several
//! strict = true                                # any flag of `mcpspec server|client`, by its name
//! timeout = 20
//! ```
//!
//! Paths in the file are relative to the file's folder; the commands run in the current one.

use super::certify::{self, CertifyArgs, Role};
use super::UsageError;
use clap::{ArgAction, Args, FromArgMatches};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// The file `mcpspec run` reads when `--config` names none.
pub const FILE_NAME: &str = "mcpspec.toml";

/// The options of `mcpspec run` (and of `mcpspec` alone, which is `mcpspec run`).
#[derive(Args, Default)]
pub struct RunArgs {
    /// The config file (default: mcpspec.toml in the current directory).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Certify only the implementation named NAME in the file (repeatable).
    #[arg(long = "only", value_name = "NAME")]
    pub only: Vec<String>,
    /// Flags of `mcpspec server|client` for every implementation, overriding the file's (e.g.
    /// `--timeout 30 --revision 2025-11-25`, or `-- CMD` for the command).
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, value_name = "FLAGS")]
    pub flags: Vec<OsString>,
}

/// The file as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    implementation: Vec<Implementation>,
}

/// One implementation of the project, as the file writes it.
#[derive(Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct Implementation {
    pub name: String,
    pub role: FileRole,
    #[serde(default)]
    pub command: Option<CommandLine>,
    #[serde(default)]
    pub url: Option<String>,
    #[serde(default)]
    pub transports: Vec<String>,
    #[serde(default)]
    pub revisions: Vec<String>,
    #[serde(default)]
    pub baseline: Option<PathBuf>,
    #[serde(default)]
    pub report_dir: Option<PathBuf>,
    /// Any other flag of `mcpspec server|client`, by its long name.
    #[serde(flatten)]
    pub flags: BTreeMap<String, toml::Value>,
}

#[derive(Deserialize, Clone, Copy, PartialEq, Eq, Debug)]
#[serde(rename_all = "lowercase")]
pub enum FileRole {
    Server,
    Client,
}

impl FileRole {
    fn role(self) -> Role {
        match self {
            FileRole::Server => Role::Server,
            FileRole::Client => Role::Client,
        }
    }
}

/// A command as the file writes it: an argv, run as given, or one line, run by `sh -c`.
#[derive(Deserialize, Clone, Debug, PartialEq, Eq)]
#[serde(untagged)]
pub enum CommandLine {
    Argv(Vec<String>),
    Line(String),
}

/// The keys an implementation has besides flags.
const KEYS: &str = "name, role, command, url, transports, revisions, baseline, report-dir";

/// The flags whose values are paths, resolved against the file's folder.
const PATH_FLAGS: [&str; 4] = ["expected-failures", "report-dir", "schema-dir", "scenarios"];

/// One certification the file asks for: the implementation, its role, the transport, and its
/// options as `mcpspec server|client` would have parsed them.
pub struct Planned {
    pub name: String,
    pub role: Role,
    pub args: CertifyArgs,
}

/// The parser of `mcpspec server|client`'s options: the one [`CertifyArgs`] derives.
fn certify_parser() -> clap::Command {
    CertifyArgs::augment_args(clap::Command::new("mcpspec-certify").no_binary_name(true))
}

/// Reads the file at `path` (`mcpspec.toml`): its implementations, checked.
pub fn load(path: &Path) -> Result<Vec<Implementation>, UsageError> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        UsageError(format!(
            "cannot read the config file {}: {e} (`mcpspec init` writes one; --config FILE names another)",
            path.display()
        ))
    })?;
    parse(path, &text)
}

/// Parses a config file's text (`path` names it in errors).
pub fn parse(path: &Path, text: &str) -> Result<Vec<Implementation>, UsageError> {
    let file: File = toml::from_str(text).map_err(|e| {
        UsageError(format!("the config file {}: {}", path.display(), e.to_string().trim_end()))
    })?;
    if file.implementation.is_empty() {
        let why = format!(
            "the config file {} lists no implementation: add an [[implementation]] table (`mcpspec init` writes one)",
            path.display()
        );
        return Err(UsageError(why));
    }
    let parser = certify_parser();
    let mut names: Vec<&str> = Vec::new();
    for imp in &file.implementation {
        if names.contains(&imp.name.as_str()) {
            return Err(UsageError(format!(
                "the config file {}: two implementations are named {:?}: names tell them apart",
                path.display(),
                imp.name
            )));
        }
        names.push(&imp.name);
        for key in imp.flags.keys() {
            if !parser.get_arguments().any(|a| a.get_long() == Some(key.as_str())) {
                return Err(UsageError(format!(
                    "the config file {}, implementation {:?}: unknown key `{key}` (a key is one of {KEYS}, or \
                     the long name of a flag of `mcpspec {}`, e.g. strict or timeout: `mcpspec {} --help` lists them)",
                    path.display(),
                    imp.name,
                    imp.role.role().name(),
                    imp.role.role().name()
                )));
            }
        }
    }
    Ok(file.implementation)
}

impl Implementation {
    /// The command line of `mcpspec server|client` that certifies this implementation over
    /// `transport` (none: the role's default), paths resolved against `base` (the file's
    /// folder): one list of words per flag, each named by its argument's id.
    fn words(
        &self,
        transport: Option<&str>,
        several: bool,
        base: &Path,
        file: &Path,
    ) -> Result<Vec<OsString>, UsageError> {
        let at = |p: &Path| -> OsString { base.join(p).into_os_string() };
        let mut words: Vec<OsString> = Vec::new();
        let mut flag = |name: &str, value: Option<OsString>| {
            words.push(format!("--{name}").into());
            words.extend(value);
        };
        if let Some(url) = &self.url {
            flag("url", Some(url.into()));
        }
        if let Some(t) = transport {
            flag("transport", Some(t.into()));
        }
        for r in &self.revisions {
            flag("revision", Some(r.into()));
        }
        if let Some(b) = &self.baseline {
            flag("expected-failures", Some(at(b)));
        }
        if let Some(dir) = &self.report_dir {
            let dir = match (transport, several) {
                (Some(t), true) => dir.join(t),
                _ => dir.clone(),
            };
            flag("report-dir", Some(at(&dir)));
        }
        let parser = certify_parser();
        for (key, value) in &self.flags {
            let arg =
                parser.get_arguments().find(|a| a.get_long() == Some(key.as_str())).expect("checked on load");
            let bad = |what: &str| {
                UsageError(format!(
                    "the config file {}, implementation {:?}: `{key}` {what}",
                    file.display(),
                    self.name
                ))
            };
            let takes_values =
                !matches!(arg.get_action(), ArgAction::SetTrue | ArgAction::SetFalse | ArgAction::Count);
            let scalars: Vec<&toml::Value> = match value {
                toml::Value::Array(items) => items.iter().collect(),
                one => vec![one],
            };
            for v in scalars {
                let text = match v {
                    toml::Value::Boolean(true) if !takes_values => {
                        flag(key, None);
                        continue;
                    }
                    toml::Value::Boolean(false) if !takes_values => continue,
                    _ if !takes_values => return Err(bad("is a flag: true or false")),
                    toml::Value::String(s) => s.clone(),
                    toml::Value::Integer(i) => i.to_string(),
                    toml::Value::Float(f) => f.to_string(),
                    toml::Value::Boolean(b) => b.to_string(),
                    _ => return Err(bad("takes a string, a number, or a list of them")),
                };
                let text: OsString = match PATH_FLAGS.contains(&key.as_str()) {
                    true => at(Path::new(&text)),
                    false => text.into(),
                };
                flag(key, Some(text));
            }
        }
        match &self.command {
            Some(CommandLine::Argv(argv)) if argv.is_empty() => {
                return Err(UsageError(format!(
                    "the config file {}, implementation {:?}: `command` is empty",
                    file.display(),
                    self.name
                )))
            }
            Some(CommandLine::Argv(argv)) => {
                words.push("--".into());
                words.extend(argv.iter().map(OsString::from));
            }
            Some(CommandLine::Line(line)) => {
                words.extend(["--shell".into(), "--".into(), line.into()]);
            }
            None => {}
        }
        Ok(words)
    }
}

/// The flags of `mcpspec server|client` from `file` (a config file's words), each overridden by
/// the same flag in `given` (the command line's): an argument given on the command line takes
/// all its values from there, the others from the file.
fn overlay(file: &clap::ArgMatches, given: &clap::ArgMatches) -> Vec<OsString> {
    use clap::parser::ValueSource::CommandLine as Given;
    let parser = certify_parser();
    let mut words: Vec<OsString> = Vec::new();
    let mut command: Vec<OsString> = Vec::new();
    for arg in parser.get_arguments() {
        let id = arg.get_id().as_str();
        let from = match (given.value_source(id), file.value_source(id)) {
            (Some(Given), _) => given,
            (_, Some(Given)) => file,
            _ => continue,
        };
        let values: Vec<OsString> =
            from.get_raw(id).into_iter().flatten().map(|v| v.to_os_string()).collect();
        if arg.is_positional() {
            command = values;
            continue;
        }
        let name = match (arg.get_long(), arg.get_short()) {
            (Some(long), _) => format!("--{long}"),
            (None, Some(short)) => format!("-{short}"),
            (None, None) => continue,
        };
        match arg.get_action() {
            ArgAction::SetTrue | ArgAction::SetFalse => words.push(name.into()),
            ArgAction::Count => words.extend((0..from.get_count(id)).map(|_| OsString::from(&name))),
            _ => {
                for v in values {
                    words.push(name.clone().into());
                    words.push(v);
                }
            }
        }
    }
    if !command.is_empty() {
        words.push("--".into());
        words.extend(command);
    }
    words
}

/// The certifications the file at `path` asks for, `flags` (words of `mcpspec server|client`)
/// overriding its own, only those of `only` when it names some.
pub fn plan(
    path: &Path,
    implementations: &[Implementation],
    flags: &[OsString],
    only: &[String],
) -> Result<Vec<Planned>, UsageError> {
    for name in only {
        if !implementations.iter().any(|i| &i.name == name) {
            let names: Vec<&str> = implementations.iter().map(|i| i.name.as_str()).collect();
            return Err(UsageError(format!(
                "--only {name:?}: the config file {} has no such implementation (it has {})",
                path.display(),
                names.join(", ")
            )));
        }
    }
    let parser = certify_parser();
    let given = parser.clone().try_get_matches_from(flags).map_err(|e| {
        UsageError(format!("the flags of `mcpspec run`: {}", e.render().to_string().trim_end()))
    })?;
    let base = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let mut planned = Vec::new();
    let mut report_dirs: Vec<(PathBuf, String)> = Vec::new();
    for imp in implementations.iter().filter(|i| only.is_empty() || only.contains(&i.name)) {
        let transports: Vec<Option<&str>> = match imp.transports.is_empty() {
            true => vec![None],
            false => imp.transports.iter().map(|t| Some(t.as_str())).collect(),
        };
        for transport in &transports {
            let words = imp.words(*transport, transports.len() > 1, base, path)?;
            let label = match transport {
                Some(t) => format!("{} over {t}", imp.name),
                None => imp.name.clone(),
            };
            let file = parser.clone().try_get_matches_from(&words).map_err(|e| {
                UsageError(format!(
                    "the config file {}, implementation {label}: {}",
                    path.display(),
                    e.render().to_string().trim_end()
                ))
            })?;
            let words = overlay(&file, &given);
            let matches = parser.clone().try_get_matches_from(&words).map_err(|e| {
                UsageError(format!("implementation {label}: {}", e.render().to_string().trim_end()))
            })?;
            let args = CertifyArgs::from_arg_matches(&matches)
                .map_err(|e| UsageError(format!("implementation {label}: {e}")))?;
            if let Some(dir) = &args.report_dir {
                if let Some((_, other)) = report_dirs.iter().find(|(d, _)| d == dir) {
                    return Err(UsageError(format!(
                        "implementations {other} and {label} would write their reports to the same \
                         directory {}: give each its own report-dir",
                        dir.display()
                    )));
                }
                report_dirs.push((dir.clone(), label.clone()));
            }
            planned.push(Planned { name: label, role: imp.role.role(), args });
        }
    }
    Ok(planned)
}

/// `mcpspec run`: certifies every implementation of the config file in turn; the exit code is
/// the worst of theirs (a stopping signal ends the rest).
pub async fn run(args: RunArgs) -> u8 {
    let path = args.config.clone().unwrap_or_else(|| PathBuf::from(FILE_NAME));
    let planned = match load(&path).and_then(|imps| plan(&path, &imps, &args.flags, &args.only)) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("mcpspec: {e}");
            return mcpspec::report::exit::USAGE;
        }
    };
    let mut worst = mcpspec::report::exit::OK;
    for Planned { name, role, args } in planned {
        eprintln!("mcpspec: certifying {name} ({}), from {}", role.name(), path.display());
        let code = certify::run(role, args).await;
        worst = worse(worst, code);
        if code > 128 {
            break;
        }
    }
    worst
}

/// The worse of two exit codes: a signal, then a usage error, no verdict, a broken MUST, nothing
/// tested, a pass.
fn worse(a: u8, b: u8) -> u8 {
    use mcpspec::report::exit::*;
    let rank = |c: u8| match c {
        c if c > 128 => 6,
        USAGE => 5,
        ERROR => 4,
        MUST_FAILED => 3,
        NOT_TESTED => 2,
        OK => 0,
        _ => 1,
    };
    if rank(b) > rank(a) {
        b
    } else {
        a
    }
}

#[cfg(test)]
mod tests;
