//! Keymaps as files: `[mode]` tables of `"keys" = "action"`, chords space-separated (`"g g"`),
//! layered default → vim/emacs → the user's `keymap.toml`, `"none"` unbinds. Problems are
//! collected with file and key, never silently ignored; the layers below stay in force.

use std::collections::BTreeMap;

use super::action::Action;
pub use super::key::{Code, Key, chord_text, parse_chord};

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
    Checklist,
}

impl Mode {
    pub const ALL: [Mode; 11] = [
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
        Mode::Checklist,
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
            Mode::Checklist => "checklist",
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

    /// `L` lists the page's links in every layer, and `o` on its row opens a cited paper.
    #[test]
    fn links_keys_in_every_layer() {
        for layer in ["default", "vim", "emacs"] {
            let k = Keymap::load(layer, None);
            let paper = [Mode::Paper, Mode::Global];
            assert_eq!(
                k.lookup(&paper, &[Key::plain('L')]),
                Lookup::Action(Action::Links),
                "{layer}"
            );
            assert_eq!(
                k.lookup(&[Mode::List, Mode::Global], &[Key::plain('o')]),
                Lookup::Action(Action::OpenCited),
                "{layer}"
            );
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
