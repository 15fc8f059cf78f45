//! `mcpspec init`: writes `mcpspec.toml` ([`super::config`]) and a GitHub Actions workflow
//! (`.github/workflows/mcpspec.yml`, using the repository's own action) for the implementation
//! in the current directory. How to start it is read from the project's manifest, the way its
//! ecosystem runs a project: `package.json` (`bin`, `main`, `scripts.start`), `pyproject.toml`
//! (`[project.scripts]`, else the package as a module), `Cargo.toml` (`[[bin]]`, else the
//! package). Only what cannot be read is asked on stdin; with `--yes`, or without a terminal,
//! the defaults are taken and said. No file is overwritten without `--force`.

use super::config;
use super::UsageError;
use clap::Args;
use serde_json::Value;
use std::io::{BufRead as _, IsTerminal as _, Write as _};
use std::path::{Path, PathBuf};

/// The options of `mcpspec init`.
#[derive(Args)]
pub struct InitArgs {
    /// Take the defaults for what cannot be detected instead of asking (also without a terminal).
    #[arg(short, long)]
    pub yes: bool,
    /// Overwrite mcpspec.toml and the workflow if they exist.
    #[arg(long)]
    pub force: bool,
    /// Write mcpspec.toml only, no GitHub Actions workflow.
    #[arg(long)]
    pub no_workflow: bool,
}

/// The workflow `init` writes, beside the config file.
pub const WORKFLOW: &str = ".github/workflows/mcpspec.yml";

/// What the project's manifest says of the implementation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Detected {
    /// The manifest read (`package.json`, …).
    pub manifest: &'static str,
    pub name: String,
    /// How to start it, when the manifest says.
    pub command: Option<Vec<String>>,
    /// The role, when the name says (`…client…`).
    pub role: Option<config::FileRole>,
    /// The workflow steps that make the implementation runnable on a fresh runner.
    pub setup: &'static str,
    /// What was read to find the command, in words.
    pub how: String,
}

const NODE_SETUP: &str =
    "      - uses: actions/setup-node@v4\n      - run: npm ci && npm run build --if-present\n";
const PYTHON_SETUP: &str = "      - uses: astral-sh/setup-uv@v6\n";
const CARGO_SETUP: &str = "      - run: cargo build --quiet\n";

/// Reads the manifests in `dir`: the first that says how to start the implementation (Node,
/// Python, then Rust), else the first found; `None` when there is none.
pub fn detect(dir: &Path) -> Result<Option<Detected>, UsageError> {
    let read = |name: &str| -> Result<Option<String>, UsageError> {
        match std::fs::read_to_string(dir.join(name)) {
            Ok(text) => Ok(Some(text)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(UsageError(format!("cannot read {}: {e}", dir.join(name).display()))),
        }
    };
    let bad = |name: &str, e: String| UsageError(format!("{} is not valid: {e}", dir.join(name).display()));
    let mut found = Vec::new();
    if let Some(text) = read("package.json")? {
        let v: Value = serde_json::from_str(&text).map_err(|e| bad("package.json", e.to_string()))?;
        found.push(node(&v));
    }
    if let Some(text) = read("pyproject.toml")? {
        let v: toml::Table = toml::from_str(&text).map_err(|e| bad("pyproject.toml", e.to_string()))?;
        found.push(python(&v, dir.join("uv.lock").is_file()));
    }
    if let Some(text) = read("Cargo.toml")? {
        let v: toml::Table = toml::from_str(&text).map_err(|e| bad("Cargo.toml", e.to_string()))?;
        if let Some(d) = cargo(&v) {
            found.push(d);
        }
    }
    let first_runnable = found.iter().position(|d| d.command.is_some());
    Ok(first_runnable.or((!found.is_empty()).then_some(0)).map(|i| found.swap_remove(i)))
}

/// The role a name says: a client when it says so, else none.
fn role_of(name: &str) -> Option<config::FileRole> {
    name.to_ascii_lowercase().contains("client").then_some(config::FileRole::Client)
}

/// `package.json`: `bin` (a path, or the entry named as the package, else the first), `main`,
/// then `scripts.start` (`npm run --silent start`: npm's own banner would be on the stdout the
/// client reads).
fn node(v: &Value) -> Detected {
    let name = v["name"].as_str().unwrap_or("server");
    let short = name.rsplit('/').next().unwrap_or(name).to_owned();
    let (command, how) = if let Some(path) = v["bin"].as_str() {
        (Some(vec!["node".to_owned(), path.to_owned()]), "package.json `bin`".to_owned())
    } else if let Some(bins) = v["bin"].as_object().filter(|b| !b.is_empty()) {
        let (key, path) =
            bins.iter().find(|(k, _)| **k == short).unwrap_or_else(|| bins.iter().next().expect("non-empty"));
        let path = path.as_str().unwrap_or_default().to_owned();
        (Some(vec!["node".to_owned(), path]), format!("package.json `bin.{key}`"))
    } else if let Some(main) = v["main"].as_str() {
        (Some(vec!["node".to_owned(), main.to_owned()]), "package.json `main`".to_owned())
    } else if v["scripts"]["start"].is_string() {
        let argv = ["npm", "run", "--silent", "start"].map(str::to_owned).to_vec();
        (Some(argv), "package.json `scripts.start`".to_owned())
    } else {
        (None, "package.json (no bin, main or scripts.start)".to_owned())
    };
    Detected { manifest: "package.json", role: role_of(&short), name: short, command, setup: NODE_SETUP, how }
}

/// `pyproject.toml`: a `[project.scripts]` entry (the one named as the project, else the first)
/// run with `uv run`, else the project as a module (`uv run python -m` in a uv project,
/// `python3 -m` otherwise).
fn python(v: &toml::Table, uv: bool) -> Detected {
    let project = v.get("project").and_then(|p| p.as_table());
    let name = project.and_then(|p| p.get("name")).and_then(|n| n.as_str()).unwrap_or("server").to_owned();
    let scripts = project.and_then(|p| p.get("scripts")).and_then(|s| s.as_table()).filter(|s| !s.is_empty());
    let (command, how) = match scripts {
        Some(scripts) => {
            let script =
                scripts.keys().find(|k| **k == name).or_else(|| scripts.keys().next()).expect("non-empty");
            let argv = vec!["uv".to_owned(), "run".to_owned(), script.clone()];
            (argv, format!("pyproject.toml `[project.scripts]` {script}"))
        }
        None => {
            let module = name.replace('-', "_");
            let mut argv: Vec<String> = match uv {
                true => ["uv", "run", "python"].map(str::to_owned).to_vec(),
                false => vec!["python3".to_owned()],
            };
            argv.extend(["-m".to_owned(), module.clone()]);
            (argv, format!("pyproject.toml `[project] name` (the module {module})"))
        }
    };
    Detected {
        manifest: "pyproject.toml",
        role: role_of(&name),
        name,
        command: Some(command),
        setup: PYTHON_SETUP,
        how,
    }
}

/// `Cargo.toml`: the first `[[bin]]`, else the package's own binary; a workspace's root
/// manifest (no `[package]`) says nothing.
fn cargo(v: &toml::Table) -> Option<Detected> {
    let package = v.get("package").and_then(|p| p.get("name")).and_then(|n| n.as_str());
    let bin = v
        .get("bin")
        .and_then(|b| b.as_array())
        .and_then(|b| b.first())
        .and_then(|b| b.get("name"))
        .and_then(|n| n.as_str());
    let (binary, how) = match (bin, package) {
        (Some(bin), _) => (bin, "Cargo.toml `[[bin]]`"),
        (None, Some(package)) => (package, "Cargo.toml `[package] name`"),
        (None, None) => return None,
    };
    let name = package.unwrap_or(binary).to_owned();
    let argv = ["cargo", "run", "--quiet", "--bin", binary].map(str::to_owned).to_vec();
    Some(Detected {
        manifest: "Cargo.toml",
        role: role_of(&name),
        name,
        command: Some(argv),
        setup: CARGO_SETUP,
        how: how.to_owned(),
    })
}

/// A TOML (and YAML) double-quoted string: JSON's escapes are a subset of both.
fn quoted(s: &str) -> String {
    serde_json::to_string(s).expect("a string serializes")
}

/// The words as one shell line (the action runs its `command` input through a shell).
fn shell_line(argv: &[String]) -> String {
    let word = |w: &String| {
        let plain =
            !w.is_empty() && w.chars().all(|c| c.is_ascii_alphanumeric() || "-_./=:@+,{}".contains(c));
        match plain {
            true => w.clone(),
            false => format!("'{}'", w.replace('\'', r"'\''")),
        }
    };
    argv.iter().map(word).collect::<Vec<_>>().join(" ")
}

/// The config file for one implementation.
pub fn config_text(d: &Detected, role: config::FileRole, command: &[String]) -> String {
    let role = match role {
        config::FileRole::Server => "server",
        config::FileRole::Client => "client",
    };
    let argv = command.iter().map(|w| quoted(w)).collect::<Vec<_>>().join(", ");
    format!(
        "# What `mcpspec` (or `mcpspec run`) certifies; written by `mcpspec init` from {manifest}.\n\
         # Every key but name, role, command, url, transports, revisions, baseline and report-dir is a\n\
         # flag of `mcpspec {role}` by its long name (strict = true, timeout = 20, no-sweep = true, ...);\n\
         # flags given to `mcpspec run` override the file's. Paths are relative to this file.\n\
         \n\
         [[implementation]]\n\
         name = {name}\n\
         role = \"{role}\"\n\
         command = [{argv}]\n\
         report-dir = {dir}\n\
         # transports = [\"stdio\"]                      # stdio, http (the command serves {{port}}), sse\n\
         # revisions = [\"2025-11-25\", \"2026-07-28\"]    # default: every released revision\n\
         # baseline = \".github/mcpspec-baseline.yaml\"   # known failures (--expected-failures)\n\
         # strict = true                               # SHOULD failures fail too\n",
        manifest = d.manifest,
        name = quoted(&d.name),
        dir = quoted(&format!("mcpspec-report/{}", d.name)),
    )
}

/// The workflow: the implementation made runnable, then the repository's action.
pub fn workflow_text(d: &Detected, role: config::FileRole, command: &[String]) -> String {
    let role = match role {
        config::FileRole::Server => "server",
        config::FileRole::Client => "client",
    };
    format!(
        "# Certifies {name} with mcpspec on every push; written by `mcpspec init` (mcpspec.toml holds\n\
         # the same settings for `mcpspec` on a developer's machine).\n\
         name: MCP conformance\n\
         on: [push, pull_request]\n\
         jobs:\n\
         \x20 mcpspec:\n\
         \x20   runs-on: ubuntu-latest\n\
         \x20   steps:\n\
         \x20     - uses: actions/checkout@v4\n\
         {setup}\
         \x20     # Until release archives are published, the action builds mcpspec with Rust.\n\
         \x20     - uses: dtolnay/rust-toolchain@stable\n\
         \x20     - uses: mcpspec/mcpspec@main\n\
         \x20       with:\n\
         \x20         role: {role}\n\
         \x20         command: {command}\n\
         \x20         report-dir: {dir}\n",
        name = d.name,
        setup = d.setup,
        command = quoted(&shell_line(command)),
        dir = quoted(&format!("mcpspec-report/{}", d.name)),
    )
}

/// Asks `question` on the terminal; the answer, trimmed (empty: the default).
fn ask(question: &str) -> Result<String, UsageError> {
    eprint!("{question} ");
    let _ = std::io::stderr().flush();
    let mut line = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut line)
        .map_err(|e| UsageError(format!("cannot read the answer: {e}")))?;
    Ok(line.trim().to_owned())
}

/// `mcpspec init` in the current directory.
pub fn run(args: InitArgs) -> u8 {
    match init(Path::new("."), &args) {
        Ok(()) => mcpspec::report::exit::OK,
        Err(e) => {
            eprintln!("mcpspec init: {e}");
            mcpspec::report::exit::USAGE
        }
    }
}

fn init(dir: &Path, args: &InitArgs) -> Result<(), UsageError> {
    let targets: Vec<PathBuf> = std::iter::once(dir.join(config::FILE_NAME))
        .chain((!args.no_workflow).then(|| dir.join(WORKFLOW)))
        .collect();
    if !args.force {
        if let Some(there) = targets.iter().find(|p| p.exists()) {
            return Err(UsageError(format!(
                "{} exists: nothing written (--force overwrites it{})",
                there.display(),
                if args.no_workflow { "" } else { "; --no-workflow leaves the workflow out" }
            )));
        }
    }
    let interactive = !args.yes && std::io::stdin().is_terminal();
    let detected = detect(dir)?;
    let mut assumed = Vec::new();
    let mut d = match detected {
        Some(d) => {
            eprintln!("mcpspec init: {} ({}): found in {}", d.name, d.manifest, d.how);
            d
        }
        None => {
            let name = dir
                .canonicalize()
                .ok()
                .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
                .unwrap_or_else(|| "server".to_owned());
            Detected {
                manifest: "no manifest",
                role: role_of(&name),
                name,
                command: None,
                setup: "",
                how: String::new(),
            }
        }
    };
    let command = match d.command.clone() {
        Some(c) => c,
        None if interactive => {
            let answer = ask(&format!("The command that starts {} (e.g. node dist/index.js):", d.name))?;
            let words: Vec<String> = answer.split_whitespace().map(str::to_owned).collect();
            if words.is_empty() {
                return Err(UsageError("no command given: nothing written".into()));
            }
            words
        }
        None => {
            return Err(UsageError(format!(
                "cannot tell how to start the implementation in {} (no package.json with bin, main or \
                 scripts.start, no pyproject.toml, no Cargo.toml package): run `mcpspec init` in a terminal \
                 to be asked, or write {} by hand (README: \"The config file\"); nothing written",
                dir.canonicalize().unwrap_or_else(|_| dir.to_owned()).display(),
                config::FILE_NAME
            )))
        }
    };
    let role = match d.role {
        Some(role) => role,
        None if interactive => {
            match ask(&format!("Is {} a server or a client? [server]", d.name))?.as_str() {
                "" | "server" | "s" => config::FileRole::Server,
                "client" | "c" => config::FileRole::Client,
                other => {
                    return Err(UsageError(format!("{other:?} is not server or client: nothing written")))
                }
            }
        }
        None => {
            assumed.push(format!("role server (the name {:?} does not say client)", d.name));
            config::FileRole::Server
        }
    };
    d.command = Some(command.clone());
    let config = config_text(&d, role, &command);
    // What is written is what `mcpspec run` reads: checked before it is written.
    let implementations = config::parse(&dir.join(config::FILE_NAME), &config)?;
    config::plan(&dir.join(config::FILE_NAME), &implementations, &[], &[])?;
    let mut files = vec![(targets[0].clone(), config)];
    if !args.no_workflow {
        files.push((dir.join(WORKFLOW), workflow_text(&d, role, &command)));
    }
    for (path, text) in &files {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| UsageError(format!("cannot create {}: {e}", parent.display())))?;
        }
        std::fs::write(path, text)
            .map_err(|e| UsageError(format!("cannot write {}: {e}", path.display())))?;
        println!("wrote {}", path.display());
    }
    for a in &assumed {
        println!("assumed: {a}; edit {} to change it", config::FILE_NAME);
    }
    println!("next: `mcpspec` certifies it (mcpspec run --help: flags that override the file)");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir_with(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (name, text) in files {
            std::fs::write(dir.path().join(name), text).unwrap();
        }
        dir
    }

    fn command_of(files: &[(&str, &str)]) -> Option<Vec<String>> {
        detect(dir_with(files).path()).unwrap().and_then(|d| d.command)
    }

    fn argv(words: &[&str]) -> Option<Vec<String>> {
        Some(words.iter().map(|w| w.to_string()).collect())
    }

    #[test]
    fn node_projects_start_from_bin_main_or_start() {
        let bin_map =
            r#"{"name": "@acme/weather-server", "bin": {"other": "o.js", "weather-server": "dist/cli.js"}}"#;
        assert_eq!(command_of(&[("package.json", bin_map)]), argv(&["node", "dist/cli.js"]));
        let bin = r#"{"name": "x", "bin": "./bin/x.js", "main": "index.js"}"#;
        assert_eq!(command_of(&[("package.json", bin)]), argv(&["node", "./bin/x.js"]));
        assert_eq!(
            command_of(&[("package.json", r#"{"main": "lib/main.js"}"#)]),
            argv(&["node", "lib/main.js"])
        );
        let start = r#"{"scripts": {"start": "tsx src/index.ts"}}"#;
        assert_eq!(command_of(&[("package.json", start)]), argv(&["npm", "run", "--silent", "start"]));
        assert_eq!(command_of(&[("package.json", r#"{"name": "x"}"#)]), None);
        let d = detect(dir_with(&[("package.json", r#"{"name": "@a/mcp-client", "main": "c.js"}"#)]).path());
        let d = d.unwrap().unwrap();
        assert_eq!((d.name.as_str(), d.role), ("mcp-client", Some(config::FileRole::Client)));
    }

    #[test]
    fn python_projects_start_from_scripts_or_the_module() {
        let scripts = "[project]\nname = \"weather\"\n[project.scripts]\nserve = \"weather:main\"\nweather = \"weather:run\"\n";
        assert_eq!(command_of(&[("pyproject.toml", scripts)]), argv(&["uv", "run", "weather"]));
        let module = "[project]\nname = \"my-server\"\n";
        assert_eq!(command_of(&[("pyproject.toml", module)]), argv(&["python3", "-m", "my_server"]));
        assert_eq!(
            command_of(&[("pyproject.toml", module), ("uv.lock", "")]),
            argv(&["uv", "run", "python", "-m", "my_server"])
        );
    }

    #[test]
    fn rust_projects_start_from_a_bin_or_the_package() {
        let bins = "[package]\nname = \"pkg\"\n[[bin]]\nname = \"mcp-srv\"\npath = \"src/main.rs\"\n";
        assert_eq!(
            command_of(&[("Cargo.toml", bins)]),
            argv(&["cargo", "run", "--quiet", "--bin", "mcp-srv"])
        );
        let package = "[package]\nname = \"pkg\"\nversion = \"0.1.0\"\n";
        assert_eq!(
            command_of(&[("Cargo.toml", package)]),
            argv(&["cargo", "run", "--quiet", "--bin", "pkg"])
        );
        assert_eq!(command_of(&[("Cargo.toml", "[workspace]\nmembers = []\n")]), None);
        // A manifest that says how to start wins over one that does not.
        let both = [("package.json", r#"{"name": "x"}"#), ("Cargo.toml", package)];
        assert_eq!(command_of(&both), argv(&["cargo", "run", "--quiet", "--bin", "pkg"]));
        let broken = detect(dir_with(&[("Cargo.toml", "[package")]).path()).err().unwrap().0;
        assert!(broken.contains("Cargo.toml is not valid"), "{broken}");
    }

    #[test]
    fn the_files_written_read_back_as_written() {
        let d = detect(dir_with(&[("package.json", r#"{"name": "it's \"odd\"", "main": "a b.js"}"#)]).path())
            .unwrap()
            .unwrap();
        let command = d.command.clone().unwrap();
        let text = config_text(&d, config::FileRole::Server, &command);
        let imps = config::parse(Path::new("mcpspec.toml"), &text).unwrap();
        assert_eq!(imps[0].name, "it's \"odd\"");
        assert_eq!(imps[0].command, Some(config::CommandLine::Argv(command.clone())));
        assert_eq!(shell_line(&command), "node 'a b.js'");
        let workflow = workflow_text(&d, config::FileRole::Server, &command);
        assert!(
            workflow.contains("command: \"node 'a b.js'\"")
                && workflow.contains("uses: mcpspec/mcpspec@main")
        );
        assert!(workflow.contains("actions/setup-node@v4"), "{workflow}");
    }
}
