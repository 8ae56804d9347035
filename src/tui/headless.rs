//! The app without a terminal: keys from a string (`"space f j enter"`), effects run for real
//! in tasks, frames drawn on ratatui's `TestBackend`. Used by tests and benchmarks.

use std::path::Path;
use std::time::{Duration, Instant};

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use tokio::sync::mpsc::UnboundedReceiver;

use super::app::{AgentState, AppState, Effect, Msg};
use super::keymap::{Key, Keymap};
use super::runtime::{AgentSetup, Runner};
use super::settings::Settings;
use super::theme::{self, Theme};
use crate::vault::Vault;

/// How long [`Headless::settle`] waits for running work.
const SETTLE: Duration = Duration::from_secs(10);

pub struct Headless {
    pub app: AppState,
    pub theme: Theme,
    pub runner: Runner,
    rx: UnboundedReceiver<Msg>,
    pub terminal: Terminal<TestBackend>,
    rt: tokio::runtime::Runtime,
}

impl Headless {
    /// Opens `vault` with the shipped default keymap and theme (16 colours) at `w`×`h`,
    /// without an agent (the chat says so).
    pub fn open(vault: &Path, w: u16, h: u16) -> anyhow::Result<Headless> {
        Headless::start(vault, w, h, None, Settings::from_env())
    }

    /// Like [`Headless::open`], with `settings` in place of the environment's (and `agent`
    /// started when given).
    pub fn open_with(
        vault: &Path,
        w: u16,
        h: u16,
        agent: Option<AgentSetup>,
        settings: Settings,
    ) -> anyhow::Result<Headless> {
        Headless::start(vault, w, h, agent, settings)
    }

    /// Like [`Headless::open`], with `agent` started in the background as the app does.
    pub fn open_with_agent(
        vault: &Path,
        w: u16,
        h: u16,
        agent: AgentSetup,
    ) -> anyhow::Result<Headless> {
        Headless::start(vault, w, h, Some(agent), Settings::from_env())
    }

    fn start(
        vault: &Path,
        w: u16,
        h: u16,
        setup: Option<AgentSetup>,
        settings: Settings,
    ) -> anyhow::Result<Headless> {
        let vault = Vault::open(vault)?;
        let name = super::vault_name(&vault);
        let agent = match &setup {
            Some(s) => AgentState::Starting {
                name: s.def.name.clone(),
            },
            None => AgentState::Unavailable("no agent in this headless session".into()),
        };
        let mut app = AppState::new(name, Keymap::load("default", None), agent);
        let _ = app.update(Msg::Resize(w, h));
        let theme =
            Theme::try_load("default", &theme::shipped, false).map_err(anyhow::Error::msg)?;
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()?;
        let (runner, rx) = {
            let _g = rt.enter();
            Runner::new(vault, &settings)
        };
        runner.set_render_exe(match &setup {
            Some(s) => s.host_exe.clone(),
            None => agentero_beside_tests(),
        });
        if let Some(s) = setup {
            runner.set_agent(s);
        }
        let terminal = Terminal::new(TestBackend::new(w, h))?;
        let mut me = Headless {
            app,
            theme,
            runner,
            rx,
            terminal,
            rt,
        };
        let fx = me.app.start();
        me.run_effects(fx);
        Ok(me)
    }

    pub fn run_effects(&mut self, effects: Vec<Effect>) {
        let _g = self.rt.enter();
        for e in effects {
            self.runner.run(e);
        }
    }

    pub fn send(&mut self, msg: Msg) {
        let fx = self.app.update(msg);
        self.run_effects(fx);
    }

    /// Presses keys named as in keymap files, space-separated; `<space>` is the space bar.
    pub fn keys(&mut self, keys: &str) {
        for k in keys.split_whitespace() {
            let k = if k == "<space>" { "space" } else { k };
            let key = Key::parse(k).unwrap_or_else(|e| panic!("bad key in test: {e}"));
            self.send(Msg::Key(key.to_event()));
            self.settle();
        }
    }

    /// Types text character by character (into the input, prompt or popup).
    pub fn type_text(&mut self, text: &str) {
        for c in text.chars() {
            self.send(Msg::Key(Key::plain(c).to_event()));
        }
        self.settle();
    }

    /// Handles messages until no task is running (or the app waits on the user's answer to a
    /// permission request) and the channel is empty. Past 10 s with
    /// work still running it panics, saying what was still running: a test that means to act
    /// while work runs (a turn streaming) waits with [`Headless::wait_until`] instead.
    pub fn settle(&mut self) {
        let deadline = Instant::now() + SETTLE;
        loop {
            while let Ok(m) = self.rx.try_recv() {
                self.send(m);
            }
            // A turn that waits on a permission answer waits on the test: settled too.
            let waits_on_user = self.app.overlay() == Some(super::overlay::OverlayKind::Permission);
            if (self.runner.busy() == 0 || waits_on_user) && self.rx.is_empty() {
                // A task may have sent its last message just before finishing.
                std::thread::sleep(Duration::from_millis(2));
                if self.rx.is_empty() {
                    return;
                }
                continue;
            }
            if Instant::now() > deadline {
                panic!(
                    "settle: {} task(s) still running after {} s (status: {:?})",
                    self.runner.busy(),
                    SETTLE.as_secs(),
                    self.app.status()
                );
            }
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    /// Handles messages until `done` holds or `timeout` passes; whether it holds.
    pub fn wait_until(&mut self, timeout: Duration, done: impl Fn(&AppState) -> bool) -> bool {
        let deadline = Instant::now() + timeout;
        loop {
            while let Ok(m) = self.rx.try_recv() {
                self.send(m);
            }
            if done(&self.app) {
                return true;
            }
            if Instant::now() > deadline {
                return false;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    pub fn resize(&mut self, w: u16, h: u16) {
        self.terminal.backend_mut().resize(w, h);
        self.send(Msg::Resize(w, h));
    }

    /// Draws a frame and returns it as text, one line per row.
    pub fn render(&mut self) -> String {
        let (app, theme) = (&self.app, &self.theme);
        self.terminal
            .draw(|f| super::app::view::view(app, theme, f))
            .expect("TestBackend draws");
        buffer_text(self.terminal.backend().buffer())
    }

    pub fn buffer(&self) -> &ratatui::buffer::Buffer {
        self.terminal.backend().buffer()
    }
}

pub fn buffer_text(buf: &ratatui::buffer::Buffer) -> String {
    let area = buf.area;
    let mut out = String::new();
    for y in 0..area.height {
        let mut line = String::new();
        let mut skip = 0;
        for x in 0..area.width {
            if skip > 0 {
                skip -= 1;
                continue;
            }
            let cell = &buf[(x, y)];
            // Hyperlink cells carry OSC 8 sequences with a forced width: the text is what
            // the terminal shows.
            let sym = strip_osc8(cell.symbol());
            skip = match cell.diff_option {
                ratatui::buffer::CellDiffOption::ForcedWidth(w) => w.get() as usize,
                _ => super::text::str_width(&sym),
            }
            .saturating_sub(1);
            line.push_str(&sym);
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// A cell symbol without its OSC 8 hyperlink sequences (`ESC ] 8 ; params ; uri ESC \`).
pub fn strip_osc8(sym: &str) -> String {
    let mut out = String::new();
    let mut rest = sym;
    while let Some(at) = rest.find("\x1b]8;") {
        out.push_str(&rest[..at]);
        match rest[at..].find("\x1b\\") {
            Some(end) => rest = &rest[at + end + 2..],
            None => {
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

/// The agentero executable page images are rendered by: a headless session runs in a test or
/// bench binary, which cargo puts in `target/<profile>/deps/` with `agentero` one folder up.
fn agentero_beside_tests() -> std::path::PathBuf {
    let exe = std::env::current_exe().unwrap_or_default();
    let beside = exe
        .parent()
        .filter(|d| d.file_name().is_some_and(|n| n == "deps"))
        .and_then(|d| d.parent())
        .map(|d| d.join("agentero"));
    beside.filter(|p| p.is_file()).unwrap_or(exe)
}
