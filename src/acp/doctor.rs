//! `agentero agents`: each configured agent checked the way a turn would use it — the command
//! is found (or would run through `npx`), `initialize` is answered (protocol version, auth
//! methods), a login is in place, and a session can be opened. The most common first-run
//! failure (a missing adapter or login) becomes one screen that says what to do.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::Serialize;

use super::adapters;
use super::client::{AgentProcess, find_command};
use crate::config::{Adapter, AgentDef};
use crate::context::grant::{SESSIONS_DIR, new_id};
use crate::vault::Vault;

/// One line of the report.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Check {
    pub ok: bool,
    pub detail: String,
}

impl Check {
    fn ok(detail: impl Into<String>) -> Check {
        Check {
            ok: true,
            detail: detail.into(),
        }
    }
    fn fail(detail: impl Into<String>) -> Check {
        Check {
            ok: false,
            detail: detail.into(),
        }
    }
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentReport {
    pub name: String,
    pub adapter: String,
    pub command: Check,
    /// Ollama and its model, for an agent on a local model (the `local` preset).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ollama: Option<Check>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub initialize: Option<Check>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub login: Option<Check>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session: Option<Check>,
    /// Every check that ran passed.
    pub ok: bool,
}

/// Whether a login is in place for adapters whose wall only shows at the first prompt
/// (Claude Code's), from its key variables and its credentials file.
fn claude_login(def: &AgentDef) -> Check {
    let vars = [
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_AUTH_TOKEN",
        "CLAUDE_CODE_OAUTH_TOKEN",
    ];
    if let Some(v) = vars.iter().find(|v| {
        def.env.get(**v).is_some_and(|x| !x.is_empty())
            || std::env::var(v).is_ok_and(|x| !x.is_empty())
    }) {
        return Check::ok(format!("{v} is set"));
    }
    let home = def
        .env
        .get("HOME")
        .cloned()
        .or_else(|| std::env::var("HOME").ok())
        .map(PathBuf::from);
    if let Some(h) = home {
        let creds = h.join(".claude/.credentials.json");
        if creds.is_file() {
            return Check::ok(format!("credentials in {}", creds.display()));
        }
    }
    Check::fail(format!(
        "needs a login: no Claude credentials were found. {}",
        adapters::login_hint(def)
    ))
}

/// Checks one agent; `npx` allows starting a preset that is not installed through `npx -y`
/// (which may download it).
pub async fn check(def: &AgentDef, vault: &Vault, npx: bool) -> AgentReport {
    let mut r = AgentReport {
        name: def.name.clone(),
        adapter: def.adapter.as_str().into(),
        command: Check::ok(def.command_line()),
        ollama: None,
        initialize: None,
        login: None,
        session: None,
        ok: false,
    };
    if let Some(m) = &def.local_model {
        r.ollama = Some(super::ollama::check(m).await);
    }
    let ollama_ok = r.ollama.as_ref().is_none_or(|c| c.ok);
    match (find_command(&def.command), &def.npx_package) {
        (Some(p), _) => r.command = Check::ok(format!("{} ({})", def.command_line(), p.display())),
        (None, Some(pkg)) if find_command(Path::new("npx")).is_some() => {
            if !npx {
                r.command = Check::ok(format!(
                    "{} is not installed: its first use runs `npx -y {pkg}` (a download); \
                     `agentero agents --npx {}` tries it now, `npm install -g {pkg}` installs it",
                    def.command.display(),
                    def.name
                ));
                r.ok = ollama_ok;
                return r;
            }
            r.command = Check::ok(format!(
                "npx -y {pkg} ({} is not installed)",
                def.command.display()
            ));
        }
        (None, Some(pkg)) => {
            r.command = Check::fail(format!(
                "neither {} nor npx is on PATH: install Node.js, or `npm install -g {pkg}`",
                def.command.display()
            ));
            return r;
        }
        (None, None) => {
            r.command = Check::fail(format!(
                "{} was not found: check `command` in [agents.{}] of the config file",
                def.command.display(),
                def.name
            ));
            return r;
        }
    }
    if !ollama_ok {
        // No model to answer: the agent is not started.
        return r;
    }
    let state = vault.state_dir();
    let started = Instant::now();
    let agent = match AgentProcess::start(def, &state).await {
        Ok(a) => a,
        Err(e) => {
            let text = e.to_string();
            if text.contains("needs a login") {
                r.initialize = Some(Check::ok("answered"));
                r.login = Some(Check::fail(text));
            } else {
                r.initialize = Some(Check::fail(text));
            }
            return r;
        }
    };
    let info = &agent.info;
    let mut caps = Vec::new();
    if info.load_session {
        caps.push("load");
    }
    if info.resume {
        caps.push("resume");
    }
    r.initialize = Some(Check::ok(format!(
        "{} {} · protocol {} · sessions: {} · {:.1} s",
        info.name.as_deref().unwrap_or("(unnamed)"),
        info.version.as_deref().unwrap_or(""),
        info.protocol_version,
        if caps.is_empty() {
            "new only".to_string()
        } else {
            format!("new, {}", caps.join(", "))
        },
        started.elapsed().as_secs_f64()
    )));
    let methods: Vec<String> = info.auth.iter().map(|m| m.describe()).collect();
    r.login = Some(match (&info.authenticated, def.adapter) {
        _ if def.local_model.is_some() => Check::ok("none needed: the model runs in Ollama"),
        (Some(m), _) => Check::ok(format!("authenticated with {m}")),
        (None, Adapter::Claude) => claude_login(def),
        (None, _) if methods.is_empty() => Check::ok("no login asked for"),
        (None, _) => Check::ok(format!("methods offered:\n{}", methods.join("\n"))),
    });
    let cwd = state.join(SESSIONS_DIR).join(new_id("doctor"));
    let session = match crate::vault::statefs::ensure_dir(&cwd) {
        Err(e) => Check::fail(format!("cannot create a session folder: {e}")),
        Ok(_) => {
            let t = Instant::now();
            match agent.new_session(&cwd, Vec::new()).await {
                Ok(_) => Check::ok(format!("ok ({:.1} s)", t.elapsed().as_secs_f64())),
                Err(super::client::OpenError::Refused(m)) => {
                    Check::fail(format!("session/new refused: {m}"))
                }
                Err(super::client::OpenError::Agent(e)) => Check::fail(e.to_string()),
            }
        }
    };
    let _ = crate::vault::statefs::remove_dir_all(&cwd);
    if !session.ok && session.detail.contains("needs a login") {
        r.login = Some(Check::fail(session.detail.clone()));
    }
    r.session = Some(session);
    agent.shutdown().await;
    r.ok = r.command.ok
        && r.initialize.as_ref().is_some_and(|c| c.ok)
        && r.login.as_ref().is_none_or(|c| c.ok)
        && r.session.as_ref().is_some_and(|c| c.ok);
    r
}

/// The report as text, one block per agent.
pub fn render(reports: &[AgentReport]) -> String {
    let mut s = String::new();
    for r in reports {
        s.push_str(&format!(
            "{} {} ({})\n",
            if r.ok { "✓" } else { "✗" },
            r.name,
            r.adapter
        ));
        let mut line = |label: &str, c: &Check| {
            let mark = if c.ok { "" } else { "FAILED: " };
            let mut lines = c.detail.lines();
            s.push_str(&format!(
                "  {label}: {mark}{}\n",
                lines.next().unwrap_or("")
            ));
            for l in lines {
                s.push_str(&format!("      {l}\n"));
            }
        };
        line("command", &r.command);
        if let Some(c) = &r.ollama {
            line("ollama", c);
        }
        if let Some(c) = &r.initialize {
            line("initialize", c);
        }
        if let Some(c) = &r.login {
            line("login", c);
        }
        if let Some(c) = &r.session {
            line("session", c);
        }
    }
    s
}

/// How long one agent may take (an adapter started through npx may download first).
pub const CHECK_TIMEOUT: Duration = Duration::from_secs(180);
