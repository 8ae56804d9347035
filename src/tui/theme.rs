//! Themes as files (helix/yazi style): `inherits`, a `[palette]`, and dotted style keys that
//! fall back to shorter ones (`chat.tool.failed` → `chat.tool` → `chat` → `ui.text`). Hex
//! colours become the nearest of the 256 indexed colours when the terminal lacks true colour.

use std::collections::BTreeMap;

use ratatui::style::{Color, Modifier, Style};

pub const DEFAULT_THEME: &str = include_str!("../../themes/default.toml");
pub const DARK_THEME: &str = include_str!("../../themes/dark.toml");
pub const LIGHT_THEME: &str = include_str!("../../themes/light.toml");

#[derive(Debug, Clone, Default)]
pub struct Theme {
    pub name: String,
    styles: BTreeMap<String, Style>,
    /// Problems found while loading (file and key); shown in the status bar.
    pub errors: Vec<String>,
}

/// Finds a theme's text by name: the user's folder first, then the shipped ones.
pub type ThemeSource<'a> = &'a dyn Fn(&str) -> Option<(String, String)>;

pub fn shipped(name: &str) -> Option<(String, String)> {
    let text = match name {
        "default" => DEFAULT_THEME,
        "dark" => DARK_THEME,
        "light" => LIGHT_THEME,
        _ => return None,
    };
    Some((format!("themes/{name}.toml"), text.to_string()))
}

/// True colour when `COLORTERM` says so; otherwise hex colours are downgraded.
pub fn truecolor_from_env() -> bool {
    std::env::var("COLORTERM")
        .map(|v| v == "truecolor" || v == "24bit")
        .unwrap_or(false)
}

#[derive(Debug, Clone, Default)]
struct RawTheme {
    inherits: Option<String>,
    palette: BTreeMap<String, String>,
    styles: BTreeMap<String, toml::Value>,
    /// The line of each top-level key, for messages.
    lines: BTreeMap<String, usize>,
}

fn parse_raw(file: &str, text: &str) -> Result<RawTheme, String> {
    let table: toml::Table = toml::from_str(text).map_err(|e| {
        let line = crate::config::toml_error_line(text, &e);
        format!("{file}:{line}: not valid TOML ({})", e.message().trim())
    })?;
    let mut raw = RawTheme::default();
    for (k, v) in table {
        if let Some(line) = crate::config::toml_key_line(text, None, &k).or_else(|| {
            text.lines()
                .position(|l| l.trim() == format!("[{k}]"))
                .map(|n| n + 1)
        }) {
            raw.lines.insert(k.clone(), line);
        }
        match k.as_str() {
            "inherits" => raw.inherits = v.as_str().map(str::to_string),
            "palette" => {
                if let Some(t) = v.as_table() {
                    for (name, c) in t {
                        if let Some(c) = c.as_str() {
                            raw.palette.insert(name.clone(), c.to_string());
                        }
                    }
                }
            }
            _ => {
                raw.styles.insert(k, v);
            }
        }
    }
    Ok(raw)
}

impl Theme {
    /// Loads `name` through `source`, following `inherits` (at most 8 deep). A broken theme
    /// falls back to the shipped default, with the error kept for the status bar.
    pub fn load(name: &str, source: ThemeSource<'_>, truecolor: bool) -> Theme {
        match Theme::try_load(name, source, truecolor) {
            Ok(t) => t,
            Err(e) => {
                let mut t = Theme::try_load("default", &shipped, truecolor).unwrap_or_default();
                t.errors.push(format!("{e}; the default theme is used"));
                t
            }
        }
    }

    pub fn try_load(name: &str, source: ThemeSource<'_>, truecolor: bool) -> Result<Theme, String> {
        // Collect the chain child → ancestors, then apply ancestors first.
        let mut chain: Vec<(String, RawTheme)> = Vec::new();
        let mut next = Some(name.to_string());
        while let Some(n) = next.take() {
            if chain.len() > 8 || chain.iter().any(|(f, _)| f.ends_with(&format!("{n}.toml"))) {
                return Err(format!("theme {name:?}: `inherits` loops at {n:?}"));
            }
            let (file, text) = source(&n).ok_or_else(|| format!("theme {n:?} not found"))?;
            let raw = parse_raw(&file, &text)?;
            next = raw.inherits.clone();
            chain.push((file, raw));
        }
        let mut palette: BTreeMap<String, String> = BTreeMap::new();
        for (_, raw) in chain.iter().rev() {
            palette.extend(raw.palette.clone());
        }
        let mut theme = Theme {
            name: name.to_string(),
            ..Theme::default()
        };
        for (file, raw) in chain.iter().rev() {
            for (key, v) in &raw.styles {
                match style_of(v, &palette, truecolor) {
                    Ok(s) => {
                        theme.styles.insert(key.clone(), s);
                    }
                    Err(e) => {
                        let at = match raw.lines.get(key) {
                            Some(l) => format!("{file}:{l}"),
                            None => file.clone(),
                        };
                        theme.errors.push(format!("{at}: {key:?}: {e}"))
                    }
                }
            }
        }
        Ok(theme)
    }

    /// The style of a dotted key, falling back to its parents and finally `ui.text`.
    pub fn style(&self, key: &str) -> Style {
        let mut k = key;
        loop {
            if let Some(s) = self.styles.get(k) {
                return *s;
            }
            match k.rfind('.') {
                Some(i) => k = &k[..i],
                None => break,
            }
        }
        self.styles.get("ui.text").copied().unwrap_or_default()
    }
}

fn style_of(
    v: &toml::Value,
    palette: &BTreeMap<String, String>,
    tc: bool,
) -> Result<Style, String> {
    let mut style = Style::default();
    match v {
        toml::Value::String(c) => style = style.fg(color_of(c, palette, tc)?),
        toml::Value::Table(t) => {
            for (k, v) in t {
                match k.as_str() {
                    "fg" | "bg" => {
                        let c = color_of(v.as_str().ok_or("colours are strings")?, palette, tc)?;
                        style = if k == "fg" { style.fg(c) } else { style.bg(c) };
                    }
                    "modifiers" => {
                        for m in v.as_array().ok_or("modifiers is a list")? {
                            let m = match m.as_str().unwrap_or("") {
                                "bold" => Modifier::BOLD,
                                "dim" => Modifier::DIM,
                                "italic" => Modifier::ITALIC,
                                "underlined" => Modifier::UNDERLINED,
                                "reversed" => Modifier::REVERSED,
                                "crossed_out" => Modifier::CROSSED_OUT,
                                other => return Err(format!("unknown modifier {other:?}")),
                            };
                            style = style.add_modifier(m);
                        }
                    }
                    other => return Err(format!("unknown style field {other:?}")),
                }
            }
        }
        _ => return Err("a style is a colour or a table {fg, bg, modifiers}".into()),
    }
    Ok(style)
}

fn color_of(s: &str, palette: &BTreeMap<String, String>, tc: bool) -> Result<Color, String> {
    let s = palette.get(s).map(String::as_str).unwrap_or(s);
    let named = match s {
        "reset" | "default" => Color::Reset,
        "black" => Color::Black,
        "red" => Color::Red,
        "green" => Color::Green,
        "yellow" => Color::Yellow,
        "blue" => Color::Blue,
        "magenta" => Color::Magenta,
        "cyan" => Color::Cyan,
        "gray" | "light-gray" => Color::Gray,
        "white" => Color::White,
        "dark-gray" | "bright-black" => Color::DarkGray,
        "light-red" | "bright-red" => Color::LightRed,
        "light-green" | "bright-green" => Color::LightGreen,
        "light-yellow" | "bright-yellow" => Color::LightYellow,
        "light-blue" | "bright-blue" => Color::LightBlue,
        "light-magenta" | "bright-magenta" => Color::LightMagenta,
        "light-cyan" | "bright-cyan" => Color::LightCyan,
        hex if hex.starts_with('#') && hex.len() == 7 => {
            let p = |i: usize| u8::from_str_radix(&hex[i..i + 2], 16);
            let (r, g, b) = match (p(1), p(3), p(5)) {
                (Ok(r), Ok(g), Ok(b)) => (r, g, b),
                _ => return Err(format!("bad colour {s:?}")),
            };
            return Ok(if tc {
                Color::Rgb(r, g, b)
            } else {
                Color::Indexed(to_256(r, g, b))
            });
        }
        n if n.parse::<u8>().is_ok() => Color::Indexed(n.parse().unwrap_or(0)),
        _ => return Err(format!("unknown colour {s:?}")),
    };
    Ok(named)
}

/// The nearest xterm-256 colour: the 6×6×6 cube or the 24-step grey ramp, whichever is closer.
pub fn to_256(r: u8, g: u8, b: u8) -> u8 {
    const STEPS: [u8; 6] = [0, 95, 135, 175, 215, 255];
    let nearest = |v: u8| {
        (0..6)
            .min_by_key(|&i| (STEPS[i] as i32 - v as i32).abs())
            .unwrap_or(0)
    };
    let (ri, gi, bi) = (nearest(r), nearest(g), nearest(b));
    let cube = (STEPS[ri], STEPS[gi], STEPS[bi]);
    let dist = |(a, b2, c): (u8, u8, u8)| {
        let d = |x: u8, y: u8| (x as i32 - y as i32).pow(2);
        d(a, r) + d(b2, g) + d(c, b)
    };
    let avg = (r as u32 + g as u32 + b as u32) / 3;
    let gi_ = ((avg.saturating_sub(8)) / 10).min(23) as u8;
    let grey = 8 + 10 * gi_;
    if dist((grey, grey, grey)) < dist(cube) {
        232 + gi_
    } else {
        16 + 36 * ri as u8 + 6 * gi as u8 + bi as u8
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shipped_themes_load_cleanly() {
        for name in ["default", "dark", "light"] {
            for tc in [true, false] {
                let t = Theme::try_load(name, &shipped, tc).unwrap();
                assert!(t.errors.is_empty(), "{name}: {:?}", t.errors);
            }
        }
    }

    #[test]
    fn dotted_fallback_and_inherits() {
        let src = |n: &str| {
            match n {
            "child" => Some((
                "child.toml".to_string(),
                "inherits = \"default\"\n\"chat.tool\" = \"accent\"\n[palette]\naccent = \"#ff0000\"\n"
                    .to_string(),
            )),
            other => shipped(other),
        }
        };
        let t = Theme::try_load("child", &src, true).unwrap();
        assert_eq!(
            t.style("chat.tool.unknown_state").fg,
            Some(Color::Rgb(255, 0, 0))
        );
        assert_eq!(t.style("chat.tool.failed").fg, Some(Color::Red));
        let t256 = Theme::try_load("child", &src, false).unwrap();
        assert_eq!(t256.style("chat.tool.x").fg, Some(Color::Indexed(196)));
        // An unknown key falls all the way back to ui.text.
        assert_eq!(t.style("no.such.key"), t.style("ui.text"));
    }

    #[test]
    fn broken_theme_falls_back_with_an_error() {
        let src = |n: &str| match n {
            "bad" => Some(("bad.toml".to_string(), "this is = = not toml".to_string())),
            other => shipped(other),
        };
        let t = Theme::load("bad", &src, false);
        assert_eq!(t.name, "default");
        assert!(t.errors[0].contains("bad.toml"), "{:?}", t.errors);
        // Errors carry the line: a syntax error, and a bad style value.
        let src = |n: &str| match n {
            "bad" => Some((
                "bad.toml".to_string(),
                "inherits = \"default\"\n\n\"chat\" = \"fg:nocolour\"\nx = [\n".to_string(),
            )),
            "odd" => Some((
                "odd.toml".to_string(),
                "inherits = \"default\"\n\n\"chat\" = 42\n".to_string(),
            )),
            other => shipped(other),
        };
        let t = Theme::load("bad", &src, false);
        assert!(
            t.errors[0].starts_with("bad.toml:4: not valid TOML"),
            "{:?}",
            t.errors
        );
        let t = Theme::load("odd", &src, false);
        assert!(
            t.errors
                .iter()
                .any(|e| e.starts_with("odd.toml:3: \"chat\"")),
            "{:?}",
            t.errors
        );
    }

    #[test]
    fn downgrade_greys_and_cube() {
        assert_eq!(to_256(0, 0, 0), 16);
        assert_eq!(to_256(255, 255, 255), 231);
        assert_eq!(to_256(128, 128, 128), 244);
    }
}
