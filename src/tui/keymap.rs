//! Keymaps as files: `[mode]` tables of `"keys" = "action"`, chords space-separated (`"g g"`),
//! layered default → vim/emacs → the user's `keymap.toml`, `"none"` unbinds. Problems are
//! collected with file and key, never silently ignored; the layers below stay in force.

use std::collections::BTreeMap;
use std::fmt;

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::action::Action;

pub const DEFAULT_KEYMAP: &str = include_str!("../../keymaps/default.toml");
pub const VIM_KEYMAP: &str = include_str!("../../keymaps/vim.toml");
pub const EMACS_KEYMAP: &str = include_str!("../../keymaps/emacs.toml");

/// Where keys are looked up: overlay → focused mode → global.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Mode {
    Global,
    Vault,
    Paper,
    Visual,
    Chat,
    Input,
    Mention,
    Permission,
    List,
    Prompt,
}

impl Mode {
    pub const ALL: [Mode; 10] = [
        Mode::Global,
        Mode::Vault,
        Mode::Paper,
        Mode::Visual,
        Mode::Chat,
        Mode::Input,
        Mode::Mention,
        Mode::Permission,
        Mode::List,
        Mode::Prompt,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Mode::Global => "global",
            Mode::Vault => "vault",
            Mode::Paper => "paper",
            Mode::Visual => "visual",
            Mode::Chat => "chat",
            Mode::Input => "input",
            Mode::Mention => "mention",
            Mode::Permission => "permission",
            Mode::List => "list",
            Mode::Prompt => "prompt",
        }
    }

    fn from_name(s: &str) -> Option<Mode> {
        Mode::ALL.into_iter().find(|m| m.name() == s)
    }

    /// Modes where typed characters are text: counts are not collected and global single
    /// keys do not apply (otherwise `q` in a message would quit).
    pub fn is_text(self) -> bool {
        matches!(self, Mode::Input | Mode::Mention | Mode::Prompt)
    }
}

/// One key press, normalised: shift is folded into the character (`G`, `?`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Key {
    pub code: Code,
    pub ctrl: bool,
    pub alt: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Code {
    Char(char),
    Enter,
    Esc,
    Tab,
    BackTab,
    Backspace,
    Delete,
    Up,
    Down,
    Left,
    Right,
    PageUp,
    PageDown,
    Home,
    End,
    F(u8),
}

impl Key {
    pub fn plain(c: char) -> Key {
        Key {
            code: Code::Char(c),
            ctrl: false,
            alt: false,
        }
    }

    pub fn from_event(ev: &KeyEvent) -> Option<Key> {
        let ctrl = ev.modifiers.contains(KeyModifiers::CONTROL);
        let alt = ev.modifiers.contains(KeyModifiers::ALT);
        let code = match ev.code {
            KeyCode::Char(c) => Code::Char(if ctrl { c.to_ascii_lowercase() } else { c }),
            KeyCode::Enter => Code::Enter,
            KeyCode::Esc => Code::Esc,
            KeyCode::Tab => Code::Tab,
            KeyCode::BackTab => Code::BackTab,
            KeyCode::Backspace => Code::Backspace,
            KeyCode::Delete => Code::Delete,
            KeyCode::Up => Code::Up,
            KeyCode::Down => Code::Down,
            KeyCode::Left => Code::Left,
            KeyCode::Right => Code::Right,
            KeyCode::PageUp => Code::PageUp,
            KeyCode::PageDown => Code::PageDown,
            KeyCode::Home => Code::Home,
            KeyCode::End => Code::End,
            KeyCode::F(n) => Code::F(n),
            _ => return None,
        };
        Some(Key { code, ctrl, alt })
    }

    /// The crossterm event for this key (tests and the headless driver type with it).
    pub fn to_event(self) -> KeyEvent {
        let mut m = KeyModifiers::NONE;
        if self.ctrl {
            m |= KeyModifiers::CONTROL;
        }
        if self.alt {
            m |= KeyModifiers::ALT;
        }
        let code = match self.code {
            Code::Char(c) => {
                if c.is_ascii_uppercase() {
                    m |= KeyModifiers::SHIFT;
                }
                KeyCode::Char(c)
            }
            Code::Enter => KeyCode::Enter,
            Code::Esc => KeyCode::Esc,
            Code::Tab => KeyCode::Tab,
            Code::BackTab => KeyCode::BackTab,
            Code::Backspace => KeyCode::Backspace,
            Code::Delete => KeyCode::Delete,
            Code::Up => KeyCode::Up,
            Code::Down => KeyCode::Down,
            Code::Left => KeyCode::Left,
            Code::Right => KeyCode::Right,
            Code::PageUp => KeyCode::PageUp,
            Code::PageDown => KeyCode::PageDown,
            Code::Home => KeyCode::Home,
            Code::End => KeyCode::End,
            Code::F(n) => KeyCode::F(n),
        };
        KeyEvent::new(code, m)
    }

    pub fn char(self) -> Option<char> {
        match self.code {
            Code::Char(c) if !self.ctrl && !self.alt => Some(c),
            _ => None,
        }
    }

    /// Parses one key: `j`, `G`, `ctrl-d`, `alt-enter`, `space`, `pageup`, `f5`.
    pub fn parse(s: &str) -> Result<Key, String> {
        let mut rest = s;
        let (mut ctrl, mut alt) = (false, false);
        loop {
            if let Some(r) = rest
                .strip_prefix("ctrl-")
                .or_else(|| rest.strip_prefix("C-"))
            {
                ctrl = true;
                rest = r;
            } else if let Some(r) = rest
                .strip_prefix("alt-")
                .or_else(|| rest.strip_prefix("M-"))
            {
                alt = true;
                rest = r;
            } else {
                break;
            }
        }
        let code = match rest {
            "space" => Code::Char(' '),
            "enter" | "ret" => Code::Enter,
            "esc" => Code::Esc,
            "tab" => Code::Tab,
            "backtab" => Code::BackTab,
            "backspace" => Code::Backspace,
            "del" | "delete" => Code::Delete,
            "up" => Code::Up,
            "down" => Code::Down,
            "left" => Code::Left,
            "right" => Code::Right,
            "pageup" => Code::PageUp,
            "pagedown" => Code::PageDown,
            "home" => Code::Home,
            "end" => Code::End,
            "minus" => Code::Char('-'),
            f if f.len() > 1 && f.starts_with('f') && f[1..].parse::<u8>().is_ok() => {
                Code::F(f[1..].parse().unwrap_or(1))
            }
            c if c.chars().count() == 1 => {
                let ch = c.chars().next().unwrap_or(' ');
                Code::Char(if ctrl { ch.to_ascii_lowercase() } else { ch })
            }
            _ => return Err(format!("unknown key {s:?}")),
        };
        Ok(Key { code, ctrl, alt })
    }
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.ctrl {
            f.write_str("ctrl-")?;
        }
        if self.alt {
            f.write_str("alt-")?;
        }
        match self.code {
            Code::Char(' ') => f.write_str("space"),
            Code::Char(c) => write!(f, "{c}"),
            Code::Enter => f.write_str("enter"),
            Code::Esc => f.write_str("esc"),
            Code::Tab => f.write_str("tab"),
            Code::BackTab => f.write_str("backtab"),
            Code::Backspace => f.write_str("backspace"),
            Code::Delete => f.write_str("del"),
            Code::Up => f.write_str("up"),
            Code::Down => f.write_str("down"),
            Code::Left => f.write_str("left"),
            Code::Right => f.write_str("right"),
            Code::PageUp => f.write_str("pageup"),
            Code::PageDown => f.write_str("pagedown"),
            Code::Home => f.write_str("home"),
            Code::End => f.write_str("end"),
            Code::F(n) => write!(f, "f{n}"),
        }
    }
}

pub fn parse_chord(s: &str) -> Result<Vec<Key>, String> {
    let keys: Result<Vec<Key>, String> = s.split_whitespace().map(Key::parse).collect();
    let keys = keys?;
    if keys.is_empty() {
        return Err("empty key".into());
    }
    Ok(keys)
}

pub fn chord_text(keys: &[Key]) -> String {
    keys.iter()
        .map(Key::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}

/// What a key sequence means in a mode chain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lookup {
    Action(Action),
    /// A prefix of at least one chord: wait for more keys.
    Pending,
    Unbound,
}

#[derive(Debug, Clone, Default)]
pub struct Keymap {
    pub bindings: BTreeMap<Mode, BTreeMap<Vec<Key>, Action>>,
    /// Load problems, each naming the file and key.
    pub errors: Vec<String>,
}

impl Keymap {
    /// The shipped default plus a named layer (`vim`, `emacs`) plus the user's file.
    pub fn load(layer: &str, user: Option<(&str, &str)>) -> Keymap {
        let mut km = Keymap::default();
        km.merge("keymaps/default.toml", DEFAULT_KEYMAP);
        match layer {
            "vim" => km.merge("keymaps/vim.toml", VIM_KEYMAP),
            "emacs" => km.merge("keymaps/emacs.toml", EMACS_KEYMAP),
            "default" | "" => {}
            other => km
                .errors
                .push(format!("config: unknown keymap {other:?} (default used)")),
        }
        if let Some((file, text)) = user {
            km.merge(file, text);
        }
        km.check_prefixes();
        km
    }

    /// Merges one file over the current bindings. A bad entry is reported and skipped.
    pub fn merge(&mut self, file: &str, text: &str) {
        let table: toml::Table = match toml::from_str(text) {
            Ok(t) => t,
            Err(e) => {
                let line = crate::config::toml_error_line(text, &e);
                self.errors.push(format!(
                    "{file}:{line}: not valid TOML ({})",
                    e.message().trim()
                ));
                return;
            }
        };
        // `file:line` of an entry, for the messages below.
        let at = |mode: &str, keys: Option<&str>| {
            let line = match keys {
                Some(k) => crate::config::toml_key_line(text, Some(mode), k),
                None => text
                    .lines()
                    .position(|l| l.trim() == format!("[{mode}]"))
                    .map(|n| n + 1),
            };
            match line {
                Some(l) => format!("{file}:{l}"),
                None => file.to_string(),
            }
        };
        for (mode_name, entries) in table {
            let Some(mode) = Mode::from_name(&mode_name) else {
                self.errors.push(format!(
                    "{}: unknown mode [{mode_name}]",
                    at(&mode_name, None)
                ));
                continue;
            };
            let Some(entries) = entries.as_table() else {
                self.errors.push(format!(
                    "{}: [{mode_name}] is not a table",
                    at(&mode_name, None)
                ));
                continue;
            };
            for (keys, action) in entries {
                let chord = match parse_chord(keys) {
                    Ok(c) => c,
                    Err(e) => {
                        self.errors.push(format!(
                            "{}: [{mode_name}] {keys:?}: {e}",
                            at(&mode_name, Some(keys))
                        ));
                        continue;
                    }
                };
                let Some(name) = action.as_str() else {
                    self.errors.push(format!(
                        "{}: [{mode_name}] {keys:?}: the action must be a string",
                        at(&mode_name, Some(keys))
                    ));
                    continue;
                };
                let map = self.bindings.entry(mode).or_default();
                if name == "none" {
                    map.remove(&chord);
                    continue;
                }
                match Action::from_name(name) {
                    Some(a) => {
                        map.insert(chord, a);
                    }
                    None => self.errors.push(format!(
                        "{}: [{mode_name}] {keys:?}: unknown action {name:?}",
                        at(&mode_name, Some(keys))
                    )),
                }
            }
        }
    }

    /// A chord that is also the prefix of a longer one in the same mode can never complete:
    /// report it and drop the longer one, so the shorter key keeps working. Across a mode and
    /// [global] (looked up after it) the mode's binding wins, so the global chord it cuts
    /// off is unreachable while that mode is active: reported, both kept.
    fn check_prefixes(&mut self) {
        if let Some(global) = self.bindings.get(&Mode::Global) {
            for (mode, map) in &self.bindings {
                if *mode == Mode::Global {
                    continue;
                }
                for short in map.keys() {
                    for long in global.keys() {
                        if long.len() > short.len() && long.starts_with(short) {
                            self.errors.push(format!(
                                "keymap: [{}] {:?} shadows [global] {:?} there",
                                mode.name(),
                                chord_text(short),
                                chord_text(long)
                            ));
                        }
                    }
                }
                for long in map.keys() {
                    for short in global.keys() {
                        if long.len() > short.len() && long.starts_with(short) {
                            self.errors.push(format!(
                                "keymap: [{}] {:?} makes [global] {:?} a prefix there",
                                mode.name(),
                                chord_text(long),
                                chord_text(short)
                            ));
                        }
                    }
                }
            }
        }
        for (mode, map) in self.bindings.iter_mut() {
            let chords: Vec<Vec<Key>> = map.keys().cloned().collect();
            for short in &chords {
                for long in &chords {
                    if long.len() > short.len() && long.starts_with(short) && map.contains_key(long)
                    {
                        self.errors.push(format!(
                            "keymap: [{}] {:?} is bound and also starts {:?}; {:?} ignored",
                            mode.name(),
                            chord_text(short),
                            chord_text(long),
                            chord_text(long)
                        ));
                        map.remove(long);
                    }
                }
            }
        }
    }

    pub fn lookup(&self, chain: &[Mode], keys: &[Key]) -> Lookup {
        for mode in chain {
            let Some(map) = self.bindings.get(mode) else {
                continue;
            };
            if let Some(a) = map.get(keys) {
                return Lookup::Action(*a);
            }
            if map
                .range(keys.to_vec()..)
                .next()
                .is_some_and(|(k, _)| k.len() > keys.len() && k.starts_with(keys))
            {
                return Lookup::Pending;
            }
        }
        Lookup::Unbound
    }

    /// Continuations of a pending chord, for the which-key strip.
    pub fn continuations(&self, chain: &[Mode], keys: &[Key]) -> Vec<(String, Action)> {
        let mut out = Vec::new();
        for mode in chain {
            if let Some(map) = self.bindings.get(mode) {
                for (k, a) in map {
                    if k.len() > keys.len() && k.starts_with(keys) {
                        out.push((chord_text(&k[keys.len()..]), *a));
                    }
                }
            }
        }
        out.sort();
        out.dedup();
        out
    }

    /// Keys bound to an action in a mode, for the help overlay and hints.
    pub fn keys_for(&self, mode: Mode, action: Action) -> Vec<String> {
        self.bindings
            .get(&mode)
            .map(|m| {
                m.iter()
                    .filter(|(_, a)| **a == action)
                    .map(|(k, _)| chord_text(k))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The first key of an action in a chain of modes ("" when unbound).
    pub fn hint(&self, chain: &[Mode], action: Action) -> String {
        chain
            .iter()
            .find_map(|m| self.keys_for(*m, action).into_iter().next())
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn km() -> Keymap {
        Keymap::load("default", None)
    }

    #[test]
    fn shipped_keymaps_load_cleanly() {
        for layer in ["default", "vim", "emacs"] {
            let k = Keymap::load(layer, None);
            assert!(k.errors.is_empty(), "{layer}: {:?}", k.errors);
        }
    }

    #[test]
    fn chords_and_fallback() {
        let k = km();
        let g = Key::plain('g');
        let chain = [Mode::Paper, Mode::Global];
        assert_eq!(k.lookup(&chain, &[g]), Lookup::Pending);
        assert_eq!(k.lookup(&chain, &[g, g]), Lookup::Action(Action::GotoTop));
        assert_eq!(
            k.lookup(&chain, &[Key::plain('q')]),
            Lookup::Action(Action::Quit)
        );
        assert_eq!(k.lookup(&chain, &[Key::plain('\u{e9}')]), Lookup::Unbound);
    }

    #[test]
    fn user_file_unbinds_and_reports() {
        let k = Keymap::load(
            "default",
            Some((
                "keymap.toml",
                "[global]\nq = \"none\"\n\"ctrl-q\" = \"quit\"\nx = \"fly\"\n\"hyper-x\" = \"quit\"\n[nowhere]\na = \"quit\"\n",
            )),
        );
        assert_eq!(
            k.lookup(&[Mode::Global], &[Key::plain('q')]),
            Lookup::Unbound
        );
        let ctrl_q = Key::parse("ctrl-q").unwrap();
        assert_eq!(
            k.lookup(&[Mode::Global], &[ctrl_q]),
            Lookup::Action(Action::Quit)
        );
        let errs = k.errors.join("\n");
        assert!(
            errs.contains("keymap.toml:4: [global] \"x\": unknown action \"fly\""),
            "{errs}"
        );
        assert!(
            errs.contains("keymap.toml:5: [global] \"hyper-x\": unknown key"),
            "{errs}"
        );
        assert!(
            errs.contains("keymap.toml:6: unknown mode [nowhere]"),
            "{errs}"
        );
        let broken = Keymap::load("default", Some(("k.toml", "[global]\nq = \"quit\n")));
        assert!(
            broken.errors[0].starts_with("k.toml:2: not valid TOML"),
            "{:?}",
            broken.errors
        );
        // The shipped bindings still work.
        assert_eq!(
            broken.lookup(&[Mode::Global], &[Key::plain('q')]),
            Lookup::Action(Action::Quit)
        );
    }

    /// Every action the default keymap binds is still bound with each layer.
    #[test]
    fn layers_keep_every_action_reachable() {
        let bound = |k: &Keymap| -> std::collections::BTreeSet<Action> {
            k.bindings
                .values()
                .flat_map(|m| m.values().copied())
                .collect()
        };
        let all = bound(&km());
        for layer in ["vim", "emacs"] {
            let k = Keymap::load(layer, None);
            let have = bound(&k);
            let missing: Vec<_> = all.difference(&have).collect();
            assert!(missing.is_empty(), "{layer}: {missing:?} unbound");
        }
    }

    /// emacs: ctrl-x is a prefix (ctrl-x o, ctrl-x k, ctrl-x backspace in the input), and the
    /// single key no longer cuts the chords off anywhere.
    #[test]
    fn emacs_ctrl_x_chords() {
        let k = Keymap::load("emacs", None);
        let keys = |s: &str| parse_chord(s).unwrap();
        let paper = [Mode::Paper, Mode::Global];
        let input = [Mode::Input, Mode::Global];
        assert_eq!(k.lookup(&paper, &keys("ctrl-x")), Lookup::Pending);
        assert_eq!(
            k.lookup(&paper, &keys("ctrl-x o")),
            Lookup::Action(Action::FocusNext)
        );
        assert_eq!(
            k.lookup(&paper, &keys("ctrl-x k")),
            Lookup::Action(Action::CancelTurn)
        );
        assert_eq!(
            k.lookup(&input, &keys("ctrl-x k")),
            Lookup::Action(Action::CancelTurn)
        );
        assert_eq!(
            k.lookup(&input, &keys("ctrl-x backspace")),
            Lookup::Action(Action::RemoveChip)
        );
        assert_eq!(
            k.lookup(&input, &keys("ctrl-x o")),
            Lookup::Action(Action::FocusNext)
        );
    }

    /// A mode's key that cuts off a global chord (or a mode chord behind a global key) is
    /// reported: e.g. the default's input ctrl-x under an emacs-style "ctrl-x o".
    #[test]
    fn cross_mode_prefix_conflict_is_reported() {
        let k = Keymap::load(
            "default",
            Some((
                "u.toml",
                "[global]\n\"ctrl-x o\" = \"focus_next\"\n\"ctrl-x\" = \"none\"\n",
            )),
        );
        assert!(
            k.errors
                .iter()
                .any(|e| e.contains("[input] \"ctrl-x\" shadows [global] \"ctrl-x o\"")),
            "{:?}",
            k.errors
        );
    }

    #[test]
    fn prefix_conflict_is_reported() {
        let k = Keymap::load("default", Some(("u.toml", "[paper]\ng = \"outline\"\n")));
        assert!(
            k.errors.iter().any(|e| e.contains("also starts")),
            "{:?}",
            k.errors
        );
        assert_eq!(
            k.lookup(&[Mode::Paper], &[Key::plain('g')]),
            Lookup::Action(Action::Outline)
        );
    }

    #[test]
    fn key_round_trip() {
        for s in ["ctrl-d", "G", "space", "alt-enter", "f5", "?", "backtab"] {
            assert_eq!(Key::parse(s).unwrap().to_string(), s);
            let k = Key::parse(s).unwrap();
            assert_eq!(Key::from_event(&k.to_event()), Some(k));
        }
    }
}
