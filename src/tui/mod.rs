//! The terminal UI: the only module that touches the terminal (ratatui, crossterm, textarea).
//!
//! House style: a small [`app::AppState`] owns the focus and routes each message to
//! one component per pane or surface — [`browser`], [`paper`], [`chat`], [`quick`] (the Quick
//! Chat), [`overlay`] and [`input`] (keys in progress, the prompt) — each with its own state,
//! `update(msg) -> Vec<Out>` and pure `view`. A component never names another; what one asks
//! of another ([`effect::Out`]) the app carries out. One event channel is fed by the terminal,
//! the indexer, page loads and the agent; effects run in tasks ([`runtime::Runner`]) and
//! report back as messages. Shared pieces: the conversation model and its history cells
//! ([`thread`]), chips, the listing, keys and keymaps, theme, text and Markdown layout.

pub mod action;
pub mod app;
pub mod browser;
pub mod chat;
pub mod checklist;
pub mod chips;
pub mod effect;
pub mod headless;
pub mod input;
pub mod key;
pub mod keymap;
pub mod listing;
pub mod markdown;
pub mod overlay;
pub mod paper;
pub mod quick;
pub mod runtime;
pub mod settings;
pub mod shot;
pub mod status;
pub mod text;
pub mod theme;
pub mod thread;
pub mod widgets;

use std::path::Path;

use anyhow::Context;

use crate::vault::Vault;

/// Settings the UI reads from the config and the user's folder.
pub struct Setup {
    pub keymap: keymap::Keymap,
    pub theme: theme::Theme,
    pub agent: chips::AgentState,
}

impl Setup {
    /// Keymap layer and theme by name, the user's `keymap.toml` and themes from `config_dir()`.
    pub fn load(layer: &str, theme_name: &str, truecolor: bool) -> Setup {
        let dir = crate::paths::config_dir();
        let user_file = dir.join("keymap.toml");
        let user = std::fs::read_to_string(&user_file).ok();
        let label = user_file.display().to_string();
        let keymap = keymap::Keymap::load(layer, user.as_deref().map(|t| (label.as_str(), t)));
        let source = move |name: &str| -> Option<(String, String)> {
            let f = dir.join("themes").join(format!("{name}.toml"));
            match std::fs::read_to_string(&f) {
                Ok(t) => Some((f.display().to_string(), t)),
                Err(_) => theme::shipped(name),
            }
        };
        let theme = theme::Theme::load(theme_name, &source, truecolor);
        Setup {
            keymap,
            theme,
            // `run` replaces this once the config names an agent.
            agent: chips::AgentState::Unavailable("no agent is configured".into()),
        }
    }
}

/// The config's default agent and turn settings; the error is the reason shown in the chat.
pub fn agent_setup(
    config: Result<&crate::config::Config, String>,
    host_exe: &Path,
    settings: &settings::Settings,
) -> Result<runtime::AgentSetup, String> {
    let config = config.map_err(|e| format!("cannot read the config: {e}"))?;
    let def = config.agent(None).map_err(|e| e.to_string())?;
    Ok(runtime::AgentSetup {
        def: def.clone(),
        host_exe: host_exe.to_path_buf(),
        budget: config.budget,
        timeout: std::time::Duration::from_secs(config.turn_timeout_secs.max(1)),
        session_idle: settings.session_idle,
    })
}

/// `agentero [VAULT]`: the interactive app on a vault.
/// The terminal app on the vault at `vault_path`; `draft`: a manuscript whose citation
/// checklist opens beside the paper (`agentero --check`), with its bibliographies.
pub fn run(
    vault_path: &Path,
    draft: Option<(
        crate::context::check::source::DraftAt,
        Vec<std::path::PathBuf>,
    )>,
) -> anyhow::Result<()> {
    let vault = Vault::open(vault_path)?;
    // A state folder that is not agentero's own is said on stderr by the log's opening.
    let _ = vault.ensure_state_dir();
    crate::logging::init(&vault.state_dir());
    let exe = std::env::current_exe().unwrap_or_default();
    // The environment, read once: the services are given what they need of it.
    let settings = settings::Settings::from_env();
    let loaded = crate::config::Config::load(None, &exe);
    let agent = agent_setup(loaded.as_ref().map_err(|e| e.to_string()), &exe, &settings);
    let config = loaded.ok();
    let (layer, theme_name) = config
        .as_ref()
        .map(|c| (c.keymap.clone(), c.theme.clone()))
        .unwrap_or_else(|| ("default".into(), "default".into()));
    let mut setup = Setup::load(&layer, &theme_name, theme::truecolor_from_env());
    let mut errors = setup.theme.errors.clone();
    // Mistakes in config.toml: reported with their lines; the rest of the file still applies.
    if let Some(c) = &config {
        errors.extend(c.problems.iter().cloned());
    }
    let name = vault_name(&vault);
    setup.agent = match &agent {
        Ok(a) => chips::AgentState::Starting {
            name: a.def.name.clone(),
        },
        Err(why) => chips::AgentState::Unavailable(why.clone()),
    };
    // Held until the app ends: a second app on this vault is told about the first.
    let (_claim, shared) = vault.claim();
    let app = app::AppState::new(name, setup.keymap, setup.agent)
        .with_errors(errors)
        .with_notice(shared.or(vault.read_only_notice()))
        .with_draft(draft);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let (runner, rx) = {
        let _services = rt.enter();
        runtime::Runner::new(vault, &settings)
    };
    if let Ok(a) = agent {
        runner.set_agent(a);
    }
    let result = rt.block_on(runtime::terminal::run_terminal(
        app,
        setup.theme,
        runner,
        rx,
    ));
    // The agent's process group is killed when the runner's last handle drops; do not wait
    // for tasks still blocked on it.
    rt.shutdown_timeout(std::time::Duration::from_millis(500));
    result
}

pub fn vault_name(vault: &Vault) -> String {
    vault
        .root()
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "vault".into())
}
