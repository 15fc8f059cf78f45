//! Secrets kept out of reports and logs. A run may carry credentials: `--header 'Authorization:
//! Bearer …'`, an API key in the implementation's environment or on its command line, a token
//! in a URL. Reports travel (CI artifacts, step summaries, bug reports), so every text mcpspec
//! writes passes through here: the values of environment variables whose names look like
//! credentials (`*_TOKEN`, `*_KEY`, `*SECRET*`, `*PASSWORD*`, `Authorization`, `Cookie`) and
//! of `--header` become `[redacted]` wherever they appear, and a command line or URL also loses
//! what its shape says is a secret (`--token=…`, `API_KEY=…`, `user:password@`, `?token=…`).

use regex::Regex;
use std::borrow::Cow;
use std::sync::{OnceLock, RwLock, RwLockReadGuard};

/// What replaces a secret.
pub const REDACTED: &str = "[redacted]";

/// Values shorter than this are not treated as secrets: replacing `1` or `yes` everywhere would
/// garble reports and protect nothing.
const SHORTEST_SECRET: usize = 4;

/// Whether an environment variable or header of this name holds a credential.
pub fn is_credential_name(name: &str) -> bool {
    let upper = name.to_ascii_uppercase().replace('-', "_");
    upper == "TOKEN"
        || upper.ends_with("_TOKEN")
        || upper == "KEY"
        || upper.ends_with("_KEY")
        || upper.ends_with("APIKEY")
        || upper.contains("SECRET")
        || upper.contains("PASSWORD")
        || upper.contains("PASSWD")
        || upper.contains("CREDENTIAL")
        || upper == "AUTHORIZATION"
        || upper == "PROXY_AUTHORIZATION"
        || upper == "COOKIE"
        || upper == "SET_COOKIE"
}

/// The secrets of a run.
#[derive(Debug, Default)]
pub struct Redactor {
    /// Longest first, so a secret that contains another is replaced whole.
    secrets: Vec<String>,
}

impl Redactor {
    /// The secrets in `env` (credential-like names), plus `extra` (e.g. `--header` values).
    pub fn new<K: AsRef<str>, V: AsRef<str>>(
        env: impl IntoIterator<Item = (K, V)>,
        extra: impl IntoIterator<Item = String>,
    ) -> Redactor {
        let mut secrets: Vec<String> = env
            .into_iter()
            .filter(|(k, _)| is_credential_name(k.as_ref()))
            .map(|(_, v)| v.as_ref().to_owned())
            .chain(extra)
            .filter(|v| v.trim().len() >= SHORTEST_SECRET)
            .collect();
        // `Bearer abc123`: the token alone may appear too.
        let parts: Vec<String> = secrets
            .iter()
            .filter_map(|s| s.split_once(' ').map(|(_, rest)| rest.trim().to_owned()))
            .filter(|v| v.len() >= SHORTEST_SECRET)
            .collect();
        secrets.extend(parts);
        secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
        secrets.dedup();
        Redactor { secrets }
    }

    /// `text` with every secret replaced.
    pub fn text<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let mut out = Cow::Borrowed(text);
        for secret in &self.secrets {
            if out.contains(secret.as_str()) {
                out = Cow::Owned(out.replace(secret.as_str(), REDACTED));
            }
        }
        out
    }

    /// A command line or URL: its secrets, and whatever its shape says is one.
    pub fn command(&self, command: &str) -> String {
        let mut out = self.text(command).into_owned();
        for (pattern, replacement) in shapes() {
            out = pattern.replace_all(&out, *replacement).into_owned();
        }
        out
    }

    /// Every string in `value`, redacted in place.
    pub fn value(&self, value: &mut serde_json::Value) {
        if self.secrets.is_empty() {
            return;
        }
        match value {
            serde_json::Value::String(s) => {
                if let Cow::Owned(r) = self.text(s) {
                    *s = r;
                }
            }
            serde_json::Value::Array(items) => items.iter_mut().for_each(|v| self.value(v)),
            serde_json::Value::Object(map) => map.values_mut().for_each(|v| self.value(v)),
            _ => {}
        }
    }
}

/// The shapes of secrets on a command line or in a URL, and what they become.
fn shapes() -> &'static [(Regex, &'static str)] {
    static SHAPES: OnceLock<Vec<(Regex, &'static str)>> = OnceLock::new();
    SHAPES.get_or_init(|| {
        let credential = r"[A-Za-z0-9_]*(?:TOKEN|Token|token|_KEY|_key|SECRET|Secret|secret|PASSWORD|Password|password|PASSWD|passwd)[A-Za-z0-9_]*";
        [
            // API_KEY=abc (an environment assignment, or `env NAME=value cmd`)
            (format!(r"\b({credential})=[^\s'&]+"), "$1=[redacted]"),
            // --token=abc, --api-key abc, --password 'abc'
            (
                r"(?i)(--?[a-z0-9-]*(?:token|api-?key|secret|password|passwd)[a-z0-9-]*)(=|\s+)('[^']*'|[^\s']+)"
                    .to_owned(),
                "$1$2[redacted]",
            ),
            // Authorization: Bearer abc, Cookie: a=b
            (r"(?i)\b(authorization|cookie)(\s*[:=]\s*)[^;'\n]+".to_owned(), "$1$2[redacted]"),
            // https://user:password@host
            (r"(://[^/\s:@]+:)[^@\s/]+@".to_owned(), "$1[redacted]@"),
            // ?token=abc&api_key=def
            (
                r"(?i)([?&][a-z0-9_-]*(?:token|key|secret|password|auth)[a-z0-9_-]*=)[^&\s#']+".to_owned(),
                "$1[redacted]",
            ),
        ]
        .into_iter()
        .map(|(p, r)| (Regex::new(&p).expect("the redaction patterns compile"), r))
        .collect()
    })
}

static RUN: OnceLock<RwLock<Redactor>> = OnceLock::new();

/// Sets the run's secrets: the process environment's, plus `extra` (the `--header` values).
/// The first call wins; reports and the console use them from then on.
pub fn init(extra: impl IntoIterator<Item = String>) {
    let _ = RUN.set(RwLock::new(Redactor::new(std::env::vars(), extra)));
}

/// Adds a secret learnt during the run (an access token mcpspec minted once the server under
/// test had told it the audience): from now on it is redacted like those given at the start.
pub fn add(secret: &str) {
    let mut r = RUN.get_or_init(default).write().unwrap_or_else(|e| e.into_inner());
    if secret.trim().len() >= SHORTEST_SECRET && !r.secrets.iter().any(|s| s == secret) {
        r.secrets.push(secret.to_owned());
        r.secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
    }
}

fn default() -> RwLock<Redactor> {
    RwLock::new(Redactor::new(std::env::vars(), []))
}

/// The run's redactor (the environment's secrets, if [`init`] was not called).
pub fn run() -> RwLockReadGuard<'static, Redactor> {
    RUN.get_or_init(default).read().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn redactor() -> Redactor {
        Redactor::new(
            [("GITHUB_TOKEN", "ghp_abcdef123456"), ("HOME", "/root"), ("MY_SECRET_THING", "hunter22")],
            ["Bearer s3cr3t-token".to_owned()],
        )
    }

    #[test]
    fn credential_names() {
        for name in [
            "GITHUB_TOKEN",
            "OPENAI_API_KEY",
            "db_password",
            "Authorization",
            "Cookie",
            "x-api-key",
            "AWS_SECRET_ACCESS_KEY",
        ] {
            assert!(is_credential_name(name), "{name}");
        }
        for name in ["HOME", "PATH", "KEYBOARD", "TOKENIZER_PATH", "MONKEY_BUSINESS"] {
            assert!(!is_credential_name(name), "{name}");
        }
    }

    #[test]
    fn values_of_secret_variables_and_headers_are_replaced_wherever_they_appear() {
        let r = redactor();
        let text = "token ghp_abcdef123456 in stderr; hunter22; Authorization: Bearer s3cr3t-token; s3cr3t-token; /root stays";
        assert_eq!(
            r.text(text),
            "token [redacted] in stderr; [redacted]; Authorization: [redacted]; [redacted]; /root stays"
        );
        let mut value = serde_json::json!({"a": ["x ghp_abcdef123456"], "b": {"c": "hunter22"}, "n": 1});
        r.value(&mut value);
        assert_eq!(value, serde_json::json!({"a": ["x [redacted]"], "b": {"c": "[redacted]"}, "n": 1}));
    }

    #[test]
    fn a_secret_added_during_the_run_is_redacted_from_then_on() {
        add("eyJhbGciOiJFUzI1NiJ9.minted-late");
        assert_eq!(run().text("token eyJhbGciOiJFUzI1NiJ9.minted-late!"), "token [redacted]!");
    }

    #[test]
    fn command_lines_and_urls_lose_what_their_shape_says_is_a_secret() {
        let r = Redactor::default();
        for (command, expected) in [
            ("node server.js --token=abc123 --port 3", "node server.js --token=[redacted] --port 3"),
            ("server --api-key abc123 -v", "server --api-key [redacted] -v"),
            ("env OPENAI_API_KEY=sk-1234 python s.py", "env OPENAI_API_KEY=[redacted] python s.py"),
            ("https://bob:pa55word@example.com/mcp", "https://bob:[redacted]@example.com/mcp"),
            ("http://127.0.0.1:3000/mcp?token=abc&x=1", "http://127.0.0.1:3000/mcp?token=[redacted]&x=1"),
            ("curl -H 'Authorization: Bearer xyz' u", "curl -H 'Authorization: [redacted]' u"),
            ("node dist/index.js streamableHttp", "node dist/index.js streamableHttp"),
        ] {
            assert_eq!(r.command(command), expected, "{command}");
        }
    }
}
