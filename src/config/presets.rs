//! The presets for the real ACP agents, and which adapter a command line runs.

use std::path::Path;

use serde::Deserialize;

use super::AgentDef;
use super::local::{self, LOCAL_AGENT};

/// Which ACP adapter an agent is: what agentero knows about its switches and its wire habits.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Deserialize,
    serde::Serialize,
    strum::EnumIter,
    strum::EnumString,
    strum::IntoStaticStr,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
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

    /// The adapter's name, as a config file writes it.
    pub fn as_str(self) -> &'static str {
        self.into()
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
        Preset {
            name: LOCAL_AGENT,
            description: "Codex with a local model served by Ollama (papers stay on this machine)",
            command: "codex-acp",
            args: &[],
            package: "@zed-industries/codex-acp",
            install: "Ollama (https://ollama.com) running with the model pulled (`ollama pull \
                      MODEL`), and Node.js (npx) for codex-acp",
            adapter: Adapter::Codex,
            login: "none is needed for the local model; check that Ollama runs and has the \
                    model with `agentero agents local`",
        },
    ]
}

/// The preset `def` comes from: the one of its name when that runs the same adapter, else the
/// first preset of its adapter.
pub fn preset_of(def: &AgentDef) -> Option<&'static Preset> {
    presets()
        .iter()
        .find(|p| p.name == def.name && p.adapter == def.adapter)
        .or_else(|| presets().iter().find(|p| p.adapter == def.adapter))
}

/// A config.toml snippet that defines every preset (for error messages and docs/configuration.md).
pub fn presets_toml() -> String {
    let mut s = String::new();
    for p in presets() {
        if p.name == LOCAL_AGENT {
            s.push_str(&format!(
                "# {} (needs {}): always defined; choose its model under [local]\n\
                 [local]\nmodel = {:?}\n\n",
                p.description,
                p.install,
                local::DEFAULT_LOCAL_MODEL
            ));
            continue;
        }
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
