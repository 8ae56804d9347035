//! The user's configuration: `~/.config/agentero/config.toml` (`$XDG_CONFIG_HOME` honoured;
//! `--config FILE` overrides), SPEC Appendix B.
//!
//! ```toml
//! default_agent = "builtin"
//! keymap = "default"
//! theme = "default"
//! turn_timeout_secs = 300     # a turn that runs longer is cancelled, then the agent stopped
//!
//! [budget]
//! search_cards = 8
//! excerpt_chars = 400
//! read_chars = 8000
//! turn_chars = 40000
//!
//! [agents.claude]
//! command = "claude-agent-acp"
//! args = []
//! env = { }
//! remote = false              # true: no MCP server, prompt_only turns
//! warm_pool = 1               # pre-created prompt-only sessions (0 disables the pool)
//! native_reads = false        # true: the agent's own reads of granted files are allowed
//! adapter = "claude"          # claude | gemini | codex | other (default: from the command)
//! ```
//!
//! The built-in agent `builtin` (this executable with `--builtin-agent`) is always defined and
//! is the default; the name is reserved. The presets for the real ACP agents (see [`presets`])
//! are defined too unless the file redefines them; each runs through `npx -y <package>` when its
//! command is not installed:
//!
//! - `claude`: `claude-agent-acp` (`@zed-industries/claude-agent-acp`; a Claude login or
//!   `ANTHROPIC_API_KEY`)
//! - `gemini`: `gemini --acp` (`@google/gemini-cli`; a Google login or `GEMINI_API_KEY`)
//! - `codex`: `codex-acp` (`@zed-industries/codex-acp`; a ChatGPT login, `CODEX_API_KEY` or
//!   `OPENAI_API_KEY`)

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::context::budget::Budget;

pub const BUILTIN_AGENT: &str = "builtin";
/// The flag that makes this executable the built-in ACP agent.
pub const BUILTIN_AGENT_FLAG: &str = "--builtin-agent";
pub const DEFAULT_TURN_TIMEOUT_SECS: u64 = 300;
pub const DEFAULT_WARM_POOL: usize = 1;

/// Which ACP adapter an agent is: what agentero knows about its switches and its wire habits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Adapter {
    Builtin,
    Claude,
    Gemini,
    Codex,
    Other,
}

impl Adapter {
    /// The adapter a command line runs (by the adapters' executable and package names).
    pub fn detect(command: &Path, args: &[String]) -> Adapter {
        let name = |s: &str| {
            Path::new(s)
                .file_name()
                .map(|f| f.to_string_lossy().to_string())
                .unwrap_or_default()
        };
        let words: Vec<String> = std::iter::once(name(&command.to_string_lossy()))
            .chain(args.iter().map(|a| a.to_string()))
            .collect();
        let has = |needle: &str| words.iter().any(|w| w.contains(needle));
        if has("claude-agent-acp") || has("claude-code-acp") {
            Adapter::Claude
        } else if has("codex-acp") {
            Adapter::Codex
        } else if has("gemini-cli") || words.first().is_some_and(|w| w == "gemini") {
            Adapter::Gemini
        } else {
            Adapter::Other
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Adapter::Builtin => "builtin",
            Adapter::Claude => "claude",
            Adapter::Gemini => "gemini",
            Adapter::Codex => "codex",
            Adapter::Other => "other",
        }
    }
}

/// One agent the app can start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentDef {
    pub name: String,
    pub command: PathBuf,
    pub args: Vec<String>,
    pub env: BTreeMap<String, String>,
    /// A remote agent gets no MCP server: every turn is `prompt_only`.
    pub remote: bool,
    /// Prompt-only sessions kept ready for this agent.
    pub warm_pool: usize,
    /// What to install when the command cannot be started (presets and the built-in agent).
    pub install_hint: Option<String>,
    pub adapter: Adapter,
    /// The agent's own reads of granted files are allowed (and counted like tool reads).
    pub native_reads: bool,
    /// The npm package that runs the adapter through `npx -y` when `command` is not installed.
    pub npx_package: Option<String>,
}

impl AgentDef {
    /// The built-in agent: `exe --builtin-agent`.
    pub fn builtin(exe: &Path) -> AgentDef {
        AgentDef {
            name: BUILTIN_AGENT.into(),
            command: exe.to_path_buf(),
            args: vec![BUILTIN_AGENT_FLAG.into()],
            env: BTreeMap::new(),
            remote: false,
            warm_pool: DEFAULT_WARM_POOL,
            install_hint: Some("it is this executable; reinstall agentero".into()),
            adapter: Adapter::Builtin,
            native_reads: false,
            npx_package: None,
        }
    }

    /// The agent of a preset.
    pub fn from_preset(p: &Preset) -> AgentDef {
        AgentDef {
            name: p.name.into(),
            command: PathBuf::from(p.command),
            args: p.args.iter().map(|a| a.to_string()).collect(),
            env: BTreeMap::new(),
            remote: false,
            warm_pool: DEFAULT_WARM_POOL,
            install_hint: Some(p.install.into()),
            adapter: p.adapter,
            native_reads: false,
            npx_package: Some(p.package.into()),
        }
    }

    /// `command arg…` for messages.
    pub fn command_line(&self) -> String {
        let mut s = self.command.display().to_string();
        for a in &self.args {
            s.push(' ');
            s.push_str(a);
        }
        s
    }
}

/// A documented preset for a real ACP agent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Preset {
    pub name: &'static str,
    pub description: &'static str,
    /// The adapter's executable when installed (`npm install -g <package>`).
    pub command: &'static str,
    pub args: &'static [&'static str],
    /// The npm package, run with `npx -y` when `command` is not installed.
    pub package: &'static str,
    pub install: &'static str,
    pub adapter: Adapter,
    /// What to do when the agent says it needs a login, per method.
    pub login: &'static str,
}

/// The presets: defined unless the config file redefines their names.
pub fn presets() -> &'static [Preset] {
    &[
        Preset {
            name: "claude",
            description: "Claude Code through Zed's ACP adapter",
            command: "claude-agent-acp",
            args: &[],
            package: "@zed-industries/claude-agent-acp",
            install: "Node.js (npx) and a Claude login or ANTHROPIC_API_KEY",
            adapter: Adapter::Claude,
            login: "run `claude /login` (Claude Code's own login; `npm install -g \
                    @anthropic-ai/claude-code` if `claude` is missing), or set ANTHROPIC_API_KEY",
        },
        Preset {
            name: "gemini",
            description: "Gemini CLI in its ACP mode",
            command: "gemini",
            args: &["--acp"],
            package: "@google/gemini-cli",
            install: "Node.js (npx) and a Google login or GEMINI_API_KEY",
            adapter: Adapter::Gemini,
            login: "set GEMINI_API_KEY (a key from https://aistudio.google.com/apikey), or run \
                    `gemini` once and choose \"Login with Google\"",
        },
        Preset {
            name: "codex",
            description: "Codex through Zed's ACP adapter",
            command: "codex-acp",
            args: &[],
            package: "@zed-industries/codex-acp",
            install: "Node.js (npx) and a ChatGPT login, CODEX_API_KEY or OPENAI_API_KEY",
            adapter: Adapter::Codex,
            login: "set CODEX_API_KEY (or OPENAI_API_KEY), or run `codex login` for a ChatGPT \
                    login",
        },
    ]
}

/// The preset whose adapter `def` runs, if any.
pub fn preset_of(def: &AgentDef) -> Option<&'static Preset> {
    presets().iter().find(|p| p.adapter == def.adapter)
}

/// A config.toml snippet that defines every preset (for error messages and the README).
pub fn presets_toml() -> String {
    let mut s = String::new();
    for p in presets() {
        let args: Vec<String> = p.args.iter().map(|a| format!("{a:?}")).collect();
        s.push_str(&format!(
            "# {} (needs {}; without `{}` installed: npx -y {})\n[agents.{}]\ncommand = {:?}\nargs = [{}]\n\n",
            p.description,
            p.install,
            p.command,
            p.package,
            p.name,
            p.command,
            args.join(", ")
        ));
    }
    s
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// The file it was read from (`None`: no file, all defaults).
    pub file: Option<PathBuf>,
    pub default_agent: String,
    pub keymap: String,
    pub theme: String,
    pub budget: Budget,
    pub turn_timeout_secs: u64,
    pub agents: BTreeMap<String, AgentDef>,
}

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read {}: {source}", file.display())]
    Read {
        file: PathBuf,
        source: std::io::Error,
    },
    #[error("{}:{line}: {message}", file.display())]
    Parse {
        file: PathBuf,
        line: usize,
        message: String,
    },
    #[error("{}: {message}", file.display())]
    Invalid { file: PathBuf, message: String },
    #[error(
        "unknown agent {name:?} (defined: {known}); to add one, put in the config file:\n\n{hint}"
    )]
    UnknownAgent {
        name: String,
        known: String,
        hint: String,
    },
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    default_agent: Option<String>,
    keymap: Option<String>,
    theme: Option<String>,
    turn_timeout_secs: Option<u64>,
    #[serde(default)]
    budget: Option<Budget>,
    #[serde(default)]
    agents: BTreeMap<String, RawAgent>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawAgent {
    command: String,
    #[serde(default)]
    args: Vec<String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    #[serde(default)]
    remote: bool,
    warm_pool: Option<usize>,
    #[serde(default)]
    native_reads: bool,
    adapter: Option<Adapter>,
}

/// `$XDG_CONFIG_HOME/agentero/config.toml` (default `~/.config/agentero/config.toml`).
pub fn default_path() -> PathBuf {
    crate::paths::config_dir().join("config.toml")
}

impl Config {
    /// Defaults only: the built-in agent (started as `exe --builtin-agent`) and the presets.
    pub fn defaults(exe: &Path) -> Config {
        let mut agents = BTreeMap::new();
        agents.insert(BUILTIN_AGENT.to_string(), AgentDef::builtin(exe));
        for p in presets() {
            agents.insert(p.name.to_string(), AgentDef::from_preset(p));
        }
        Config {
            file: None,
            default_agent: BUILTIN_AGENT.into(),
            keymap: "default".into(),
            theme: "default".into(),
            budget: Budget::default(),
            turn_timeout_secs: DEFAULT_TURN_TIMEOUT_SECS,
            agents,
        }
    }

    /// Loads `explicit` (which must exist) or else the default path (which may be absent).
    /// `exe` is the executable the built-in agent runs as.
    pub fn load(explicit: Option<&Path>, exe: &Path) -> Result<Config, ConfigError> {
        let (file, must_exist) = match explicit {
            Some(f) => (f.to_path_buf(), true),
            None => (default_path(), false),
        };
        match std::fs::read_to_string(&file) {
            Ok(text) => Config::parse(&text, &file, exe),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && !must_exist => {
                Ok(Config::defaults(exe))
            }
            Err(source) => Err(ConfigError::Read { file, source }),
        }
    }

    /// Parses config text; errors name `file` and the line.
    pub fn parse(text: &str, file: &Path, exe: &Path) -> Result<Config, ConfigError> {
        let raw: RawConfig = toml::from_str(text).map_err(|e| {
            let line = e.span().map_or(1, |s| line_of(text, s.start));
            ConfigError::Parse {
                file: file.to_path_buf(),
                line,
                message: e.message().trim().to_string(),
            }
        })?;
        let mut config = Config::defaults(exe);
        config.file = Some(file.to_path_buf());
        let invalid = |message: String| ConfigError::Invalid {
            file: file.to_path_buf(),
            message,
        };
        for (name, a) in raw.agents {
            if name == BUILTIN_AGENT {
                return Err(invalid(format!(
                    "[agents.{BUILTIN_AGENT}] is reserved for the built-in agent; pick another name"
                )));
            }
            if a.command.trim().is_empty() {
                return Err(invalid(format!("[agents.{name}] has an empty command")));
            }
            let command = PathBuf::from(&a.command);
            let adapter = a
                .adapter
                .unwrap_or_else(|| Adapter::detect(&command, &a.args));
            let mut def = AgentDef {
                name: name.clone(),
                command,
                args: a.args,
                env: a.env,
                remote: a.remote,
                warm_pool: a.warm_pool.unwrap_or(DEFAULT_WARM_POOL),
                install_hint: None,
                adapter,
                native_reads: a.native_reads,
                npx_package: None,
            };
            if let Some(p) = preset_of(&def) {
                def.install_hint = Some(p.install.to_string());
                // The preset's own command line keeps its npx fallback.
                if def.command.as_os_str() == p.command {
                    def.npx_package = Some(p.package.to_string());
                }
            }
            config.agents.insert(name, def);
        }
        if let Some(d) = raw.default_agent {
            config.default_agent = d;
        }
        if !config.agents.contains_key(&config.default_agent) {
            return Err(invalid(format!(
                "default_agent = {:?} names no agent (defined: {})",
                config.default_agent,
                config.agent_names().join(", ")
            )));
        }
        if let Some(k) = raw.keymap {
            config.keymap = k;
        }
        if let Some(t) = raw.theme {
            config.theme = t;
        }
        if let Some(b) = raw.budget {
            config.budget = b.sanitized();
        }
        if let Some(t) = raw.turn_timeout_secs {
            if t == 0 {
                return Err(invalid("turn_timeout_secs must be at least 1".into()));
            }
            config.turn_timeout_secs = t;
        }
        Ok(config)
    }

    pub fn agent_names(&self) -> Vec<String> {
        self.agents.keys().cloned().collect()
    }

    /// The agent called `name` (default: the default agent).
    pub fn agent(&self, name: Option<&str>) -> Result<&AgentDef, ConfigError> {
        let name = name.unwrap_or(&self.default_agent);
        self.agents
            .get(name)
            .ok_or_else(|| ConfigError::UnknownAgent {
                name: name.to_string(),
                known: self.agent_names().join(", "),
                hint: presets_toml(),
            })
    }
}

fn line_of(text: &str, byte: usize) -> usize {
    text.as_bytes()[..byte.min(text.len())]
        .iter()
        .filter(|b| **b == b'\n')
        .count()
        + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exe() -> PathBuf {
        PathBuf::from("/opt/agentero")
    }

    #[test]
    fn defaults_have_the_builtin_agent() {
        let c = Config::defaults(&exe());
        let a = c.agent(None).unwrap();
        assert_eq!(a.name, "builtin");
        assert_eq!(a.command_line(), "/opt/agentero --builtin-agent");
        assert!(!a.remote);
    }

    #[test]
    fn parses_agents_budget_and_default() {
        let text = r#"
default_agent = "claude"
turn_timeout_secs = 20
[budget]
search_cards = 3
[agents.claude]
command = "npx"
args = ["-y", "@zed-industries/claude-agent-acp"]
env = { A = "1" }
native_reads = true
[agents.far]
command = "/bin/far"
remote = true
warm_pool = 2
"#;
        let c = Config::parse(text, Path::new("c.toml"), &exe()).unwrap();
        assert_eq!(c.default_agent, "claude");
        assert_eq!(c.turn_timeout_secs, 20);
        assert_eq!(c.budget.search_cards, 3);
        assert_eq!(c.budget.read_chars, Budget::default().read_chars);
        let claude = c.agent(None).unwrap();
        assert_eq!(claude.env.get("A").map(String::as_str), Some("1"));
        assert!(claude.install_hint.as_deref().unwrap().contains("Node.js"));
        assert_eq!(claude.adapter, Adapter::Claude);
        assert!(claude.native_reads);
        // Written by hand through npx: no second npx fallback.
        assert_eq!(claude.npx_package, None);
        let far = c.agent(Some("far")).unwrap();
        assert!(far.remote);
        assert_eq!(far.warm_pool, 2);
        assert!(c.agent(Some("builtin")).is_ok());
    }

    #[test]
    fn errors_name_file_and_line() {
        let text = "default_agent = \"builtin\"\n[agents.x]\ncommand = 3\n";
        let e = Config::parse(text, Path::new("/h/config.toml"), &exe()).unwrap_err();
        let msg = e.to_string();
        assert!(msg.starts_with("/h/config.toml:3:"), "{msg}");
        let e = Config::parse("bogus = 1\n", Path::new("f.toml"), &exe()).unwrap_err();
        assert!(e.to_string().starts_with("f.toml:1:"), "{e}");
        let e =
            Config::parse("default_agent = \"nope\"\n", Path::new("f.toml"), &exe()).unwrap_err();
        assert!(e.to_string().contains("names no agent"), "{e}");
        let e = Config::parse(
            "[agents.builtin]\ncommand = \"x\"\n",
            Path::new("f.toml"),
            &exe(),
        )
        .unwrap_err();
        assert!(e.to_string().contains("reserved"), "{e}");
    }

    #[test]
    fn presets_are_defined_and_unknown_agents_list_them() {
        let c = Config::defaults(&exe());
        let claude = c.agent(Some("claude")).unwrap();
        assert_eq!(claude.command_line(), "claude-agent-acp");
        assert_eq!(
            claude.npx_package.as_deref(),
            Some("@zed-industries/claude-agent-acp")
        );
        assert_eq!(
            c.agent(Some("gemini")).unwrap().command_line(),
            "gemini --acp"
        );
        assert_eq!(c.agent(Some("codex")).unwrap().adapter, Adapter::Codex);
        let e = c.agent(Some("nope")).unwrap_err().to_string();
        assert!(e.contains("@zed-industries/claude-agent-acp"), "{e}");
        assert!(e.contains("--acp"), "{e}");
        assert!(e.contains("codex-acp"), "{e}");
    }

    #[test]
    fn adapters_are_recognized_by_command_and_package() {
        let d = |c: &str, a: &[&str]| {
            Adapter::detect(
                Path::new(c),
                &a.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
            )
        };
        assert_eq!(
            d("npx", &["-y", "@zed-industries/claude-agent-acp@0.23.1"]),
            Adapter::Claude
        );
        assert_eq!(d("/opt/bin/claude-agent-acp", &[]), Adapter::Claude);
        assert_eq!(d("/usr/local/bin/gemini", &["--acp"]), Adapter::Gemini);
        assert_eq!(d("npx", &["@google/gemini-cli", "--acp"]), Adapter::Gemini);
        assert_eq!(d("codex-acp", &["-c", "x=1"]), Adapter::Codex);
        assert_eq!(d("/bin/my-agent", &[]), Adapter::Other);
    }

    #[test]
    fn explicit_missing_file_is_an_error_default_missing_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("nope.toml");
        assert!(Config::load(Some(&missing), &exe()).is_err());
    }
}
