//! What the app's services read from the environment, read once at start and passed to them:
//! no service looks at a variable while the app runs, so two apps in one process (the tests)
//! each have their own.

use std::ffi::OsString;
use std::time::Duration;

use crate::vault::render::Bounds;

/// The environment's say in the app, as it was at start.
#[derive(Debug, Clone)]
pub struct Settings {
    /// The port `space m` serves the vault MCP on (`AGENTERO_SERVE_PORT`; 0 picks a free one).
    pub serve_port: u16,
    /// How long an agent session may sit idle before it is closed (`AGENTERO_SESSION_IDLE_SECS`).
    pub session_idle: Duration,
    /// The bounds of the child that renders page images (`AGENTERO_RENDER_MEMORY_MIB`,
    /// `AGENTERO_RENDER_SECONDS`), or why they are refused (said when an image is asked for).
    pub render: Result<Bounds, String>,
    /// The PDF viewer `O` starts (`AGENTERO_PDF_VIEWER`; `None`: the desktop's default).
    pub pdf_viewer: Option<String>,
    /// The program web links open with (`BROWSER`; `None`: links are copied instead).
    pub browser: Option<OsString>,
}

impl Default for Settings {
    /// The settings of an environment that sets none of the variables.
    fn default() -> Settings {
        Settings {
            serve_port: crate::mcp::http::DEFAULT_PORT,
            session_idle: Duration::from_secs(300),
            render: Ok(Bounds::default()),
            pdf_viewer: None,
            browser: None,
        }
    }
}

impl Settings {
    /// The settings of this process's environment.
    pub fn from_env() -> Settings {
        Settings::from_vars(|name| std::env::var_os(name))
    }

    /// The settings `var` gives (a variable's value by name); a value that does not parse
    /// keeps the default, except the render bounds, whose refusal is kept to be said.
    pub fn from_vars(var: impl Fn(&str) -> Option<OsString>) -> Settings {
        let text = |name: &str| {
            var(name)
                .map(|v| v.to_string_lossy().trim().to_string())
                .filter(|v| !v.is_empty())
        };
        let d = Settings::default();
        Settings {
            serve_port: text("AGENTERO_SERVE_PORT")
                .and_then(|p| p.parse().ok())
                .unwrap_or(d.serve_port),
            session_idle: text("AGENTERO_SESSION_IDLE_SECS")
                .and_then(|s| s.parse().ok())
                .map_or(d.session_idle, Duration::from_secs),
            render: Bounds::from_vars(text).map_err(|e| e.to_string()),
            pdf_viewer: text("AGENTERO_PDF_VIEWER"),
            browser: var("BROWSER").filter(|b| !b.is_empty()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_variable_is_read_once_into_its_setting() {
        let vars = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                pairs
                    .iter()
                    .find(|(k, _)| *k == name)
                    .map(|(_, v)| OsString::from(v))
            }
        };
        let s = Settings::from_vars(vars(&[]));
        assert_eq!(s.serve_port, crate::mcp::http::DEFAULT_PORT);
        assert_eq!(s.session_idle, Duration::from_secs(300));
        assert!(s.render.is_ok() && s.browser.is_none() && s.pdf_viewer.is_none());
        let s = Settings::from_vars(vars(&[
            ("AGENTERO_SERVE_PORT", "0"),
            ("AGENTERO_SESSION_IDLE_SECS", "2"),
            ("AGENTERO_RENDER_SECONDS", "3"),
            ("AGENTERO_PDF_VIEWER", "zathura"),
            ("BROWSER", "firefox"),
        ]));
        assert_eq!(s.serve_port, 0);
        assert_eq!(s.session_idle, Duration::from_secs(2));
        assert_eq!(s.render.unwrap().time, Duration::from_secs(3));
        assert_eq!(s.pdf_viewer.as_deref(), Some("zathura"));
        assert_eq!(s.browser, Some(OsString::from("firefox")));
        // Nonsense keeps the default; refused render bounds are kept to be said.
        let s = Settings::from_vars(vars(&[
            ("AGENTERO_SERVE_PORT", "http"),
            ("AGENTERO_RENDER_MEMORY_MIB", "lots"),
            ("BROWSER", ""),
        ]));
        assert_eq!(s.serve_port, crate::mcp::http::DEFAULT_PORT);
        assert!(s.render.unwrap_err().contains("AGENTERO_RENDER_MEMORY_MIB"));
        assert!(s.browser.is_none());
    }
}
