//! One key press as keymap files name it (`ctrl-d`, `G`, `space`), to and from crossterm's
//! events, and chords of them (`g g`).

use std::fmt;

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

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
