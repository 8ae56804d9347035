//! The user's configuration: `~/.config/agentero/config.toml` (`$XDG_CONFIG_HOME` honoured;
//! `--config FILE` overrides).
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
//! [search]
//! embeddings = "minishlab/potion-base-8M"   # or a model folder, or "off" (default: the first
//!                                           # model2vec model in the Hugging Face cache)
//!
//! [ocr]
//! enabled = true              # read scanned pages with tesseract when it is installed
//! languages = ["eng"]         # e.g. ["eng", "jpn"]; each needs its tesseract-ocr-LANG pack
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
//! - `local`: `codex-acp` with a model served by Ollama on this machine, set under `[local]`
//!   (see [`local`]); no login, nothing leaves the machine

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::context::budget::Budget;

mod lines;
pub mod local;
pub mod ocr;
mod presets;
mod recover;

use lines::{find_agent_line, find_key_line, line_of, spans_of, split_sections};
pub use lines::{toml_error_line, toml_key_line};
pub use local::{LOCAL_AGENT, LocalModel};
pub use presets::{Adapter, Preset, preset_of, presets, presets_toml};

pub const BUILTIN_AGENT: &str = "builtin";
/// The flag that makes this executable the built-in ACP agent.
pub const BUILTIN_AGENT_FLAG: &str = "--builtin-agent";
pub const DEFAULT_TURN_TIMEOUT_SECS: u64 = 300;
pub const DEFAULT_WARM_POOL: usize = 1;

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
    /// The Ollama model the agent runs (the `local` preset): checked by `agentero agents`.
    pub local_model: Option<LocalModel>,
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
            local_model: None,
        }
    }

    /// The `local` preset's agent for `model`: codex-acp pointed at Ollama.
    pub fn local(model: &LocalModel) -> AgentDef {
        let p = presets()
            .iter()
            .find(|p| p.name == LOCAL_AGENT)
            .expect("the local preset");
        let mut def = AgentDef::from_preset(p);
        def.args = model.codex_args();
        def.local_model = Some(model.clone());
        def
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
            local_model: None,
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
    /// The `local` preset's model and Ollama server (`[local]`).
    pub local_model: LocalModel,
    /// `[search] embeddings`: the static embedding model of hybrid search, as written (see
    /// `vault::embed::resolve`).
    pub embeddings: Option<String>,
    /// `[ocr]`: reading scanned pages with tesseract.
    pub ocr: ocr::OcrConfig,
    /// The agents the file sets up: its `[agents.NAME]` sections, and `local` for `[local]`
    /// (see [`Config::configured`]).
    pub set_up: BTreeSet<String>,
    /// Mistakes in the file, each `file:line: message`, skipped so the rest still works.
    pub problems: Vec<String>,
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

/// An `[agents.NAME]` section as read (see [`recover::raw_agent`]).
#[derive(Debug)]
struct RawAgent {
    command: String,
    args: Vec<String>,
    env: BTreeMap<String, String>,
    remote: bool,
    warm_pool: Option<usize>,
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
        let local_model = LocalModel::from_env();
        agents.insert(LOCAL_AGENT.to_string(), AgentDef::local(&local_model));
        Config {
            file: None,
            default_agent: BUILTIN_AGENT.into(),
            keymap: "default".into(),
            theme: "default".into(),
            budget: Budget::default(),
            turn_timeout_secs: DEFAULT_TURN_TIMEOUT_SECS,
            agents,
            local_model,
            embeddings: None,
            ocr: ocr::OcrConfig::default(),
            set_up: BTreeSet::new(),
            problems: Vec::new(),
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

    /// Parses config text. Nothing in it can take the app down: every mistake — a syntax
    /// error, an unknown key, a bad value, one broken agent — is reported as a problem naming
    /// `file` and the line ([`Config::problems`]) and skipped, keeping the rest of the file,
    /// the defaults and the built-in agent.
    pub fn parse(text: &str, file: &Path, exe: &Path) -> Result<Config, ConfigError> {
        let mut config = Config::defaults(exe);
        config.file = Some(file.to_path_buf());
        let mut problems = Vec::new();
        let at = |line: usize, message: String| {
            ConfigError::Parse {
                file: file.to_path_buf(),
                line,
                message,
            }
            .to_string()
        };
        // A syntax error spoils the whole document for the TOML parser: then each section
        // (from one `[header]` line to the next) is read on its own, and within it each line
        // the parser stops at is dropped, so one typo costs only its own line.
        let (sections, mut whole) = match toml::from_str::<toml::Table>(text) {
            Ok(_) => (vec![(0, text.to_string())], None),
            Err(e) => (split_sections(text), Some(e)),
        };
        let local_before = config.local_model.clone();
        for (offset, section) in sections {
            let (parsed, errors) = recover::parse_section(&section);
            if !errors.is_empty() {
                whole = None;
            }
            for (line, m) in errors {
                problems.push(at(offset + line, m));
            }
            if let Some((section, keys)) = parsed {
                config.apply_keys(&section, offset, keys, &mut |line, m| {
                    problems.push(at(line, m))
                });
            }
        }
        // Every section reads on its own, so the document's error is between sections (a
        // table defined twice): said, with the later definition's keys applied.
        if let Some(e) = whole {
            let message = e.message().trim().to_string();
            problems.push(at(
                toml_error_line(text, &e),
                format!("{message}; the later definition's keys apply"),
            ));
        }
        config.refresh_local(&local_before);
        if !config.agents.contains_key(&config.default_agent) {
            let line = find_key_line(text, "default_agent").unwrap_or(1);
            problems.push(at(
                line,
                format!(
                    "default_agent = {:?} names no agent (defined: {}); using {BUILTIN_AGENT:?}",
                    config.default_agent,
                    config.agent_names().join(", ")
                ),
            ));
            config.default_agent = BUILTIN_AGENT.into();
        }
        config.problems = problems;
        Ok(config)
    }

    /// Applies the top-level keys of one document (or section, starting after line `offset`).
    fn apply_keys(
        &mut self,
        text: &str,
        offset: usize,
        keys: BTreeMap<String, toml::Spanned<toml::Value>>,
        problem: &mut dyn FnMut(usize, String),
    ) {
        let line_at = |span: std::ops::Range<usize>| offset + line_of(text, span.start);
        for (key, value) in keys {
            let line = line_at(value.span());
            let value = value.into_inner();
            let string = |v: toml::Value| match v {
                toml::Value::String(s) => Ok(s),
                other => Err(format!(
                    "`{key}` must be a string, not {}",
                    other.type_str()
                )),
            };
            let outcome: Result<(), String> = match key.as_str() {
                "default_agent" => string(value).map(|s| self.default_agent = s),
                "keymap" => string(value).map(|s| self.keymap = s),
                "theme" => string(value).map(|s| self.theme = s),
                "turn_timeout_secs" => match value {
                    toml::Value::Integer(t) if t >= 1 => {
                        self.turn_timeout_secs = t as u64;
                        Ok(())
                    }
                    _ => Err(
                        "turn_timeout_secs must be a whole number of seconds, at least 1".into(),
                    ),
                },
                "budget" => {
                    self.apply_budget(text, offset, line, value, problem);
                    Ok(())
                }
                "local" => {
                    self.apply_local(text, offset, line, value, problem);
                    Ok(())
                }
                "agents" => {
                    self.apply_agents(text, offset, value, problem);
                    Ok(())
                }
                "search" => self.apply_search(value),
                "ocr" => self.ocr.apply(value),
                other => Err(format!(
                    "unknown setting `{other}` (known: default_agent, keymap, theme, turn_timeout_secs, [budget], [search], [ocr], [local], [agents.NAME])"
                )),
            };
            if let Err(m) = outcome {
                problem(line, format!("{m}; ignored"));
            }
        }
    }

    /// `[search]`: `embeddings = "ORG/NAME" | "FOLDER" | "off"`.
    fn apply_search(&mut self, value: toml::Value) -> Result<(), String> {
        let toml::Value::Table(t) = value else {
            return Err("`search` must be a table ([search])".into());
        };
        for (k, v) in t {
            match (k.as_str(), v) {
                ("embeddings", toml::Value::String(s)) => self.embeddings = Some(s),
                ("embeddings", _) => {
                    return Err(
                        "[search] embeddings must be a string: ORG/NAME, a folder or \"off\""
                            .into(),
                    );
                }
                (other, _) => {
                    return Err(format!(
                        "unknown setting `{other}` in [search] (known: embeddings)"
                    ));
                }
            }
        }
        Ok(())
    }

    fn apply_agents(
        &mut self,
        text: &str,
        offset: usize,
        value: toml::Value,
        problem: &mut dyn FnMut(usize, String),
    ) {
        let toml::Value::Table(agents) = value else {
            let line = offset + find_key_line(text, "agents").unwrap_or(1);
            problem(
                line,
                "`agents` must be a table of [agents.NAME] sections; ignored".into(),
            );
            return;
        };
        for (name, value) in agents {
            let header = offset + find_agent_line(text, &name).unwrap_or(1);
            if name == BUILTIN_AGENT {
                problem(
                    header,
                    format!(
                        "[agents.{BUILTIN_AGENT}] is reserved for the built-in agent; pick another name (ignored)"
                    ),
                );
                continue;
            }
            let toml::Value::Table(table) = value else {
                problem(
                    header,
                    format!("[agents.{name}] must be a table; this agent is skipped"),
                );
                continue;
            };
            let spans = spans_of(text, "agents", Some(&name));
            let Some(a) = recover::raw_agent(&name, table, &spans, text, offset, header, problem)
            else {
                continue;
            };
            self.set_up.insert(name.clone());
            self.agents.insert(name.clone(), agent_def(name, a));
        }
    }

    /// Whether the user set the agent `name` up (the built-in agent always is): the file
    /// defines it, configures it (`[local]`) or makes it the default. A preset as shipped is
    /// not: `agentero agents` shows one whose runtime is absent as not set up, not as failed.
    pub fn configured(&self, name: &str) -> bool {
        name == BUILTIN_AGENT || name == self.default_agent || self.set_up.contains(name)
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

/// An agent definition from its config section.
fn agent_def(name: String, a: RawAgent) -> AgentDef {
    let command = PathBuf::from(&a.command);
    let adapter = a
        .adapter
        .unwrap_or_else(|| Adapter::detect(&command, &a.args));
    let mut def = AgentDef {
        name,
        command,
        args: a.args,
        env: a.env,
        remote: a.remote,
        warm_pool: a.warm_pool.unwrap_or(DEFAULT_WARM_POOL),
        install_hint: None,
        adapter,
        native_reads: a.native_reads,
        npx_package: None,
        local_model: None,
    };
    if let Some(p) = preset_of(&def) {
        def.install_hint = Some(p.install.to_string());
        // The preset's own command line keeps its npx fallback.
        if def.command.as_os_str() == p.command {
            def.npx_package = Some(p.package.to_string());
        }
    }
    def
}

#[cfg(test)]
mod tests;
