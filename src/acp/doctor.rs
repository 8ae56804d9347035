//! `agentero agents`: each configured agent checked the way a turn would use it — the command
//! is found (or would run through `npx`), `initialize` is answered (protocol version, auth
//! methods), a login is in place, a session opens with the `agentero-context` server (and the
//! agent attaches it), and that session reopens with a prompt-less `session/load` and
//! `session/resume` when the agent offers them. The most common first-run failure (a missing
//! adapter or login) becomes one screen that says what to do; `--json` gives the same as
//! fields.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::Serialize;

use super::adapters;
use super::client::{AgentProcess, OpenError, Protections, Reads, find_command};
use crate::config::{Adapter, AgentDef};
use crate::context::grant::{self, new_id};
use crate::context::{ContextRequest, plan};
use crate::vault::Vault;

pub use super::ollama::Check;

/// The outcome of one step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum State {
    Ok,
    /// The agent answered with an error (its words are the message).
    Refused,
    /// Something else went wrong (stopped, timed out, cannot start).
    Failed,
    /// The agent does not advertise it.
    NotOffered,
    /// An earlier step failed or the adapter is not installed.
    NotRun,
}

/// One step of the check.
#[derive(Debug, Clone, Serialize)]
pub struct Step {
    pub state: State,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub secs: Option<f64>,
}

impl Step {
    fn new(state: State, message: Option<String>) -> Step {
        Step {
            state,
            message,
            secs: None,
        }
    }
    fn ok(message: impl Into<String>) -> Step {
        Step::new(State::Ok, Some(message.into()))
    }
    fn not_run() -> Step {
        Step::new(State::NotRun, None)
    }
    fn timed(mut self, t: Instant) -> Step {
        self.secs = Some((t.elapsed().as_secs_f64() * 10.0).round() / 10.0);
        self
    }
    /// Passed, or does not count against the agent (not offered, not run).
    fn passes(&self) -> bool {
        !matches!(self.state, State::Failed | State::Refused)
    }
}

/// The report of one agent (`--json` prints these fields).
#[derive(Debug, Clone, Serialize)]
pub struct AgentReport {
    pub name: String,
    pub adapter: String,
    /// The command line a turn starts.
    pub command: String,
    /// The adapter's command is installed (or `npx` ran it with `--npx`).
    pub found: bool,
    /// Ollama and its model, for an agent on a local model (the `local` preset).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ollama: Option<Check>,
    /// Where it was found, or how it would run.
    pub found_at: Option<String>,
    /// The agent's own name and version (`initialize`).
    pub agent_name: Option<String>,
    pub version: Option<String>,
    /// The ACP protocol version it answered with (a number, as on the wire).
    pub protocol: Option<u16>,
    /// The ids of the authentication methods it advertised.
    pub auth_methods: Vec<String>,
    /// `initialize` (and the `env_var` authentication, when one applies).
    pub initialize: Step,
    pub login: Step,
    /// `session/new` with the `agentero-context` server.
    pub session: Step,
    /// The agent started the context server of that session and listed its tools.
    pub attach: Step,
    /// A prompt-less `session/load` of that session.
    pub load: Step,
    /// A prompt-less `session/resume` of that session.
    pub resume: Step,
    /// What keeps the vault away from the agent besides the grant (once it started).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub protections: Option<ProtectionReport>,
    /// What to do next, when something is missing or failed.
    pub hint: Option<String>,
    /// The user set it up: the config file defines or configures it, makes it the default, or
    /// the command line names it (the built-in agent always is). A preset as shipped is not.
    pub configured: bool,
    /// `false`: a preset the user never configured whose runtime is absent (neither its
    /// command nor `npx`, or no Ollama for the `local` preset) — shown as `– not set up`, and
    /// not a failure of `agentero agents`.
    pub set_up: bool,
    /// Every check that ran passed (a reopen refused is not a failure: turns then start a
    /// new session seeded with the thread).
    pub ok: bool,
}

/// Which protections hold for an agent (`--json`: `protections`).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProtectionReport {
    /// Its sessions work in a folder outside the vault, with no repository above it.
    pub cwd_outside_vault: bool,
    pub work_folder: Option<String>,
    /// How its memory and instruction files are switched off (`None`: not known).
    pub memory_files_off: Option<String>,
    /// `active`, `unavailable` (the kernel cannot) or `not_applied`.
    pub read_restriction: &'static str,
    /// One line per protection, as the text report shows them.
    pub lines: Vec<String>,
}

impl ProtectionReport {
    pub fn of(p: &Protections) -> ProtectionReport {
        ProtectionReport {
            cwd_outside_vault: p.work.is_some(),
            work_folder: p.work.as_ref().map(|w| w.dir.display().to_string()),
            memory_files_off: p.memory_off.map(str::to_string),
            read_restriction: match p.reads {
                Reads::Restricted => "active",
                Reads::Unavailable(_) => "unavailable",
                Reads::NotApplied => "not_applied",
            },
            lines: p.lines(),
        }
    }
}

/// How long the doctor waits for the agent to attach the context server after `session/new`.
const ATTACH_WAIT: Duration = Duration::from_secs(15);

impl AgentReport {
    fn new(def: &AgentDef, configured: bool) -> AgentReport {
        AgentReport {
            name: def.name.clone(),
            adapter: def.adapter.as_str().into(),
            command: def.command_line(),
            found: false,
            ollama: None,
            found_at: None,
            agent_name: None,
            version: None,
            protocol: None,
            auth_methods: Vec::new(),
            initialize: Step::not_run(),
            login: Step::not_run(),
            session: Step::not_run(),
            attach: Step::not_run(),
            load: Step::not_run(),
            resume: Step::not_run(),
            protections: None,
            hint: None,
            configured,
            set_up: true,
            ok: false,
        }
    }

    /// Counts against `agentero agents`: a check failed for an agent that is set up.
    pub fn failed(&self) -> bool {
        self.set_up && !self.ok
    }

    /// The report of an agent whose check ran out of time.
    pub fn timed_out(def: &AgentDef, configured: bool, secs: u64) -> AgentReport {
        let mut r = AgentReport::new(def, configured);
        r.found = true;
        r.initialize = Step::new(
            State::Failed,
            Some(format!(
                "{} did not answer within {secs} s",
                def.command_line()
            )),
        );
        r
    }

    fn add_hint(&mut self, h: String) {
        match &mut self.hint {
            Some(old) if !old.contains(&h) => {
                old.push(' ');
                old.push_str(&h);
            }
            Some(_) => {}
            None => self.hint = Some(h),
        }
    }
}

/// Whether a login is in place for adapters whose wall only shows at the first prompt
/// (Claude Code's), from its key variables and its credentials file.
fn claude_login(def: &AgentDef) -> Step {
    let vars = [
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_AUTH_TOKEN",
        "CLAUDE_CODE_OAUTH_TOKEN",
    ];
    if let Some(v) = vars.iter().find(|v| {
        def.env.get(**v).is_some_and(|x| !x.is_empty())
            || std::env::var(v).is_ok_and(|x| !x.is_empty())
    }) {
        return Step::ok(format!("{v} is set"));
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
            return Step::ok(format!("credentials in {}", creds.display()));
        }
    }
    Step::new(
        State::Failed,
        Some(format!(
            "needs a login: no Claude credentials were found. {}",
            adapters::login_hint(def)
        )),
    )
}

/// Whether the agent's command can be started.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Found {
    /// Installed (or run through `npx` now, with `--npx`).
    Yes,
    /// Not installed, but a turn would run it through `npx`.
    ThroughNpx,
    /// Neither the command nor `npx`.
    Absent,
}

/// Finds the command.
fn find(def: &AgentDef, npx: bool, r: &mut AgentReport) -> Found {
    match (find_command(&def.command), &def.npx_package) {
        (Some(p), _) => {
            r.found = true;
            r.found_at = Some(p.display().to_string());
            Found::Yes
        }
        (None, Some(pkg)) if find_command(Path::new("npx")).is_some() => {
            if npx {
                r.found = true;
                r.found_at = Some(format!("npx -y {pkg}"));
                return Found::Yes;
            }
            r.found_at = Some(format!("npx -y {pkg} at its first use (a download)"));
            r.add_hint(format!(
                "{} is not installed: `agentero agents --npx {}` tries it through npx now, \
                 `npm install -g {pkg}` installs it.",
                def.command.display(),
                def.name
            ));
            Found::ThroughNpx
        }
        (None, Some(pkg)) => {
            r.add_hint(format!(
                "Neither {} nor npx is on PATH: install Node.js, or `npm install -g {pkg}`.",
                def.command.display()
            ));
            Found::Absent
        }
        (None, None) => {
            r.add_hint(format!(
                "{} was not found: check `command` in [agents.{}] of the config file.",
                def.command.display(),
                def.name
            ));
            Found::Absent
        }
    }
}

/// A failed step's message, with the advice agentero has for it.
fn failed(def: &AgentDef, r: &mut AgentReport, state: State, message: String) -> Step {
    if let Some(h) = adapters::failure_hint(def, &message) {
        r.add_hint(h);
    }
    if message.contains("needs a login") {
        r.login = Step::new(State::Failed, Some(message.clone()));
    }
    Step::new(state, Some(message))
}

fn open_failure(def: &AgentDef, r: &mut AgentReport, e: OpenError) -> Step {
    match e {
        OpenError::Refused(m) => failed(def, r, State::Refused, m),
        OpenError::Agent(e) => failed(def, r, State::Failed, e.to_string()),
    }
}

/// Checks one agent; `npx` allows starting a preset that is not installed through `npx -y`
/// (which may download it). `configured`: the user set it up (see [`AgentReport::configured`]);
/// when not, an absent runtime makes it not set up rather than failed.
pub async fn check(def: &AgentDef, vault: &Vault, npx: bool, configured: bool) -> AgentReport {
    let mut r = AgentReport::new(def, configured);
    if let Some(m) = &def.local_model {
        r.ollama = Some(super::ollama::check(m).await);
    }
    let found = find(def, npx, &mut r);
    let ollama_ok = r.ollama.as_ref().is_none_or(|c| c.ok);
    if !configured && (found == Found::Absent || !ollama_ok) {
        r.set_up = false;
        return r;
    }
    match found {
        Found::Yes if ollama_ok => {}
        // Not a failure when a turn would run it through npx (and its model answers).
        Found::ThroughNpx => {
            r.ok = ollama_ok;
            return r;
        }
        // Not installed; or no model to answer, and the agent is not started.
        Found::Yes | Found::Absent => return r,
    }
    let started = Instant::now();
    let exe = std::env::current_exe().unwrap_or_else(|_| PathBuf::from("agentero"));
    let place = crate::acp::client::Place::of(vault, &exe);
    let agent = match AgentProcess::start(def, &place).await {
        Ok(a) => a,
        Err(e) => {
            let text = e.to_string();
            let login = text.contains("needs a login");
            // `failed` puts a login wall under `login`.
            let step = failed(def, &mut r, State::Failed, text).timed(started);
            r.initialize = if login {
                Step::ok("answered").timed(started)
            } else {
                step
            };
            return r;
        }
    };
    let info = &agent.info;
    r.agent_name = info.name.clone();
    r.version = info.version.clone();
    r.protocol = Some(info.protocol_version);
    r.auth_methods = info.auth.iter().map(|m| m.id.clone()).collect();
    r.initialize = Step::ok("answered").timed(started);
    r.protections = Some(ProtectionReport::of(&agent.protections));
    let methods: Vec<String> = info.auth.iter().map(|m| m.describe()).collect();
    r.login = match (&info.authenticated, def.adapter) {
        _ if def.local_model.is_some() => Step::ok("none needed: the model runs in Ollama"),
        (Some(m), _) => Step::ok(format!("authenticated with {m}")),
        (None, Adapter::Claude) => claude_login(def),
        (None, _) if methods.is_empty() => Step::ok("no login asked for"),
        (None, _) => Step::ok(format!("methods offered:\n{}", methods.join("\n"))),
    };
    sessions(def, vault, &agent, &mut r).await;
    agent.shutdown().await;
    if !r.login.passes() {
        r.add_hint(adapters::login_hint(def));
    }
    if matches!(r.load.state, State::Refused) || matches!(r.resume.state, State::Refused) {
        r.add_hint(
            "A refused reopen is not fatal: a thread's next turn then starts a new session \
             given the conversation so far (and some agents keep no record of a session before \
             its first prompt, so they refuse this prompt-less one)."
                .into(),
        );
    }
    r.ok = r.ollama.as_ref().is_none_or(|c| c.ok)
        && r.initialize.passes()
        && r.login.passes()
        && r.session.state == State::Ok
        && r.attach.passes();
    r
}

/// `session/new` with the context server of an empty grant, the attachment, then a
/// prompt-less load and resume of that session.
async fn sessions(def: &AgentDef, vault: &Vault, agent: &AgentProcess, r: &mut AgentReport) {
    let runtime = new_id("doctor");
    let plan = plan::plan(vault, &ContextRequest::default());
    let files = match grant::write(vault, &runtime, &plan) {
        Ok((files, _)) => files,
        Err(e) => {
            r.session = Step::new(
                State::Failed,
                Some(format!("cannot write the session's grant: {e}")),
            );
            return;
        }
    };
    let mcp = || vec![agent.context_server(&files.grant())];
    let cwd = match agent.session_cwd(&runtime) {
        Ok(cwd) => cwd,
        Err(e) => {
            r.session = Step::new(
                State::Failed,
                Some(format!("cannot create the session's working folder: {e}")),
            );
            let _ = crate::vault::statefs::remove_dir_all(&files.dir);
            return;
        }
    };
    let forget = || {
        let _ = crate::vault::statefs::remove_dir_all(&files.dir);
        agent.forget_session_cwd(&runtime);
    };
    let t = Instant::now();
    let id = match agent.new_session(&cwd, mcp()).await {
        Ok(id) => {
            r.session = Step::ok("ok").timed(t);
            id
        }
        Err(e) => {
            r.session = open_failure(def, r, e).timed(t);
            forget();
            return;
        }
    };
    r.attach = wait_attached(&files).await;
    if r.attach.state == State::Failed {
        r.add_hint(adapters::attach_hint(def));
    }
    r.load = if agent.info.load_session {
        let t = Instant::now();
        match agent.load(&id, &cwd, mcp()).await {
            Ok(_) => Step::ok("ok").timed(t),
            Err(e) => open_failure(def, r, e).timed(t),
        }
    } else {
        Step::new(State::NotOffered, None)
    };
    r.resume = if agent.info.resume {
        let t = Instant::now();
        match agent.resume(&id, &cwd, mcp()).await {
            Ok(_) => Step::ok("ok").timed(t),
            Err(e) => open_failure(def, r, e).timed(t),
        }
    } else {
        Step::new(State::NotOffered, None)
    };
    forget();
}

/// Waits until the context server of the session recorded a client that listed its tools.
async fn wait_attached(files: &grant::GrantFiles) -> Step {
    let t = Instant::now();
    while t.elapsed() < ATTACH_WAIT {
        if let Some(a) = grant::read_attachment(files)
            && a.initialized_at.is_some()
            && a.tools_listed_at.is_some()
        {
            let by = match (a.client_name, a.client_version) {
                (Some(n), Some(v)) => format!("ok ({n} {v})"),
                (Some(n), None) => format!("ok ({n})"),
                _ => "ok".into(),
            };
            return Step::ok(by).timed(t);
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    Step::new(
        State::Failed,
        Some(format!(
            "the agent did not start the {} server within {} s of session/new",
            crate::context::CONTEXT_SERVER_NAME,
            ATTACH_WAIT.as_secs()
        )),
    )
}

/// How long one agent may take (an adapter started through npx may download first).
pub const CHECK_TIMEOUT: Duration = Duration::from_secs(180);

#[path = "doctor_render.rs"]
mod render;
pub use render::render;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;

    fn def(name: &str) -> AgentDef {
        Config::defaults(Path::new("/opt/agentero"))
            .agent(Some(name))
            .unwrap()
            .clone()
    }

    #[test]
    fn a_missing_adapter_is_a_dash_and_steps_read_as_states() {
        let mut r = AgentReport::new(&def("gemini"), false);
        r.found_at = Some("npx -y @google/gemini-cli at its first use (a download)".into());
        r.ok = true;
        let text = render(std::slice::from_ref(&r));
        assert!(text.starts_with("– gemini (gemini)"), "{text}");
        assert!(text.contains("not installed"), "{text}");
        assert!(!text.contains('✓'), "{text}");

        r.found = true;
        r.initialize = Step::ok("answered");
        r.agent_name = Some("gemini-cli".into());
        r.version = Some("0.61.0".into());
        r.protocol = Some(1);
        r.session = Step::ok("ok");
        r.load = Step::new(State::Refused, Some("Authentication required".into()));
        r.resume = Step::new(State::NotOffered, None);
        let text = render(std::slice::from_ref(&r));
        assert!(text.starts_with("✓ gemini"), "{text}");
        assert!(text.contains("gemini-cli 0.61.0 · protocol 1"), "{text}");
        assert!(
            text.contains("  load: refused: Authentication required"),
            "{text}"
        );
        assert!(
            text.contains("  resume: not offered by the agent"),
            "{text}"
        );
        assert!(
            !text.contains("attach:"),
            "a step that did not run is not listed: {text}"
        );

        let v = serde_json::to_value(&r).unwrap();
        assert_eq!(v["found"], true);
        assert_eq!(v["version"], "0.61.0");
        assert_eq!(v["protocol"], 1, "a number, as on the wire: {v}");
        assert_eq!(v["set_up"], true);
        assert_eq!(v["configured"], false);
        assert_eq!(v["load"]["state"], "refused");
        assert_eq!(v["load"]["message"], "Authentication required");
        assert_eq!(v["resume"]["state"], "not_offered");
        assert_eq!(v["attach"]["state"], "not_run");
        assert!(v["auth_methods"].is_array());
        assert!(v.get("hint").is_some());
    }

    #[test]
    fn a_preset_never_set_up_is_not_a_failure_and_a_configured_one_is() {
        let no_ollama = Check {
            ok: false,
            detail: "Ollama is not running at http://127.0.0.1:9 (connection refused)".into(),
        };
        let mut r = AgentReport::new(&def("local"), false);
        r.found = true;
        r.ollama = Some(no_ollama.clone());
        r.set_up = false;
        let text = render(std::slice::from_ref(&r));
        assert!(text.starts_with("– local (codex) – not set up\n"), "{text}");
        assert!(!text.contains("FAILED"), "{text}");
        assert!(!r.failed());
        let v = serde_json::to_value(&r).unwrap();
        assert_eq!(v["set_up"], false, "{v}");
        assert_eq!(v["ok"], false, "{v}");

        let mut r = AgentReport::new(&def("local"), true);
        r.found = true;
        r.ollama = Some(no_ollama);
        let text = render(std::slice::from_ref(&r));
        assert!(text.starts_with("✗ local (codex)\n"), "{text}");
        assert!(
            text.contains("ollama: FAILED: Ollama is not running"),
            "{text}"
        );
        assert!(r.failed());
    }

    #[test]
    fn the_report_says_which_protections_hold() {
        use crate::acp::workdir::WorkBase;
        let mut r = AgentReport::new(&def("codex"), true);
        r.found = true;
        let protections = Protections {
            work: Some(WorkBase {
                dir: PathBuf::from("/tmp/agentero-1000/agent-work"),
                fallback_reason: Some(
                    "/home/u/.local/state/agentero/agent-work lies inside the git repository /home/u"
                        .into(),
                ),
            }),
            memory_off: Some("no project docs (-c project_doc_max_bytes=0)"),
            reads: Reads::Unavailable("this kernel does not enforce Landlock".into()),
        };
        r.protections = Some(ProtectionReport::of(&protections));
        let text = render(std::slice::from_ref(&r));
        assert!(
            text.contains("protections: working folder outside the vault: /tmp/agentero-1000"),
            "{text}"
        );
        assert!(text.contains("inside the git repository /home/u"), "{text}");
        assert!(text.contains("project_doc_max_bytes=0"), "{text}");
        assert!(
            text.contains("read restriction: UNAVAILABLE — this kernel does not enforce Landlock"),
            "{text}"
        );
        let v = serde_json::to_value(&r).unwrap();
        assert_eq!(v["protections"]["cwdOutsideVault"], true);
        assert_eq!(v["protections"]["readRestriction"], "unavailable");
        // Said before each turn too.
        let w = protections.warning("codex").unwrap();
        assert!(w.contains("without its read restriction"), "{w}");
        let held = Protections {
            reads: Reads::Restricted,
            ..protections
        };
        assert!(held.warning("codex").is_none());
        assert_eq!(ProtectionReport::of(&held).read_restriction, "active");
    }
}
