//! `agentero serve --print-config CLIENT [--http]`: the exact command or configuration snippet
//! that attaches the vault MCP to a client — Claude Code, Codex, Gemini CLI, Zed, Cursor,
//! Claude Desktop — over stdio (the client starts `agentero serve --stdio VAULT`) or over HTTP to
//! a running `agentero serve` (the token from `AGENTERO_TOKEN` where the client reads variables,
//! else the vault's token itself). JSON and TOML are written by their serializers, so a path
//! with quotes or spaces stays one value.

use std::path::Path;

use serde_json::json;

/// The environment variable the HTTP snippets read the token from.
pub const TOKEN_VAR: &str = "AGENTERO_TOKEN";

/// The server's name in each client's configuration.
pub const NAME: &str = "agentero";

/// The clients `--print-config` knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Client {
    ClaudeCode,
    Codex,
    Gemini,
    Zed,
    Cursor,
    ClaudeDesktop,
}

/// Where the snippet points: the executable, the vault, the HTTP address and the token (for the
/// clients that cannot read it from a variable).
pub struct Target<'a> {
    pub exe: &'a str,
    pub vault: &'a str,
    pub url: String,
    pub token: Option<&'a str>,
}

/// The snippet for `client`; `http` for a running server, else stdio.
pub fn snippet(client: Client, http: bool, t: &Target) -> String {
    let stdio_args = vec!["serve".to_string(), "--stdio".into(), t.vault.to_string()];
    let bearer_var = format!("Bearer ${TOKEN_VAR}");
    let bearer_literal = format!("Bearer {}", t.token.unwrap_or("<token>"));
    let export = format!(
        "export {TOKEN_VAR}=$({} serve {} --token)",
        sh(t.exe),
        sh(t.vault)
    );
    match (client, http) {
        (Client::ClaudeCode, false) => format!(
            "claude mcp add {NAME} -- {} serve --stdio {}\n",
            sh(t.exe),
            sh(t.vault)
        ),
        (Client::ClaudeCode, true) => format!(
            "{export}\nclaude mcp add --transport http {NAME} {} --header \"Authorization: Bearer ${TOKEN_VAR}\"\n",
            t.url
        ),
        (Client::Codex, false) => toml_server(json!({"command": t.exe, "args": stdio_args})),
        (Client::Codex, true) => format!(
            "# {export}\n{}",
            toml_server(json!({"url": t.url, "bearer_token_env_var": TOKEN_VAR}))
        ),
        (Client::Gemini, false) => pretty(json!({"mcpServers": {NAME: {
            "command": t.exe, "args": stdio_args, "trust": true
        }}})),
        (Client::Gemini, true) => pretty(json!({"mcpServers": {NAME: {
            "httpUrl": t.url, "headers": {"Authorization": bearer_var}, "trust": true
        }}})),
        (Client::Zed, false) => pretty(json!({"context_servers": {NAME: {
            "command": t.exe, "args": stdio_args
        }}})),
        (Client::Zed, true) => pretty(json!({"context_servers": {NAME: {
            "url": t.url, "headers": {"Authorization": bearer_literal}
        }}})),
        (Client::Cursor, false) => pretty(json!({"mcpServers": {NAME: {
            "command": t.exe, "args": stdio_args
        }}})),
        (Client::Cursor, true) => pretty(json!({"mcpServers": {NAME: {
            "url": t.url, "headers": {"Authorization": format!("Bearer ${{env:{TOKEN_VAR}}}")}
        }}})),
        (Client::ClaudeDesktop, false) => pretty(json!({"mcpServers": {NAME: {
            "command": t.exe, "args": stdio_args
        }}})),
        // Claude Desktop starts local servers over stdio: HTTP goes through the mcp-remote bridge.
        (Client::ClaudeDesktop, true) => pretty(json!({"mcpServers": {NAME: {
            "command": "npx",
            "args": ["-y", "mcp-remote", t.url, "--header", "Authorization:${AUTH}"],
            "env": {"AUTH": bearer_literal}
        }}})),
    }
}

/// Where each snippet goes, said on stderr.
pub fn where_it_goes(client: Client) -> &'static str {
    match client {
        Client::ClaudeCode => "run this command",
        Client::Codex => "add this to ~/.codex/config.toml",
        Client::Gemini => {
            "merge this into ~/.gemini/settings.json (or `gemini mcp add` with the same values)"
        }
        Client::Zed => "merge this into Zed's settings.json",
        Client::Cursor => "merge this into ~/.cursor/mcp.json (or .cursor/mcp.json in a project)",
        Client::ClaudeDesktop => "merge this into claude_desktop_config.json",
    }
}

fn pretty(v: serde_json::Value) -> String {
    format!("{}\n", serde_json::to_string_pretty(&v).unwrap_or_default())
}

/// `[mcp_servers.agentero]` with `fields`, written by the TOML serializer.
fn toml_server(fields: serde_json::Value) -> String {
    let doc = json!({"mcp_servers": {NAME: fields}});
    toml::to_string(&doc).unwrap_or_default()
}

/// One shell word: as it is when it is safe, else in single quotes.
fn sh(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+:=@%,".contains(c))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// The executable to name: `agentero` when that is what PATH finds, else this one's full path.
pub fn exe_name(current: &Path) -> String {
    let on_path = std::env::var_os("PATH").and_then(|p| {
        std::env::split_paths(&p)
            .map(|d| d.join("agentero"))
            .find(|c| c.is_file())
    });
    let same = on_path
        .is_some_and(|p| std::fs::canonicalize(p).ok() == std::fs::canonicalize(current).ok());
    if same {
        "agentero".into()
    } else {
        current.display().to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::ValueEnum;

    fn target() -> Target<'static> {
        Target {
            exe: "/opt/my tools/agentero",
            vault: "/home/me/My \"Papers\"",
            url: "http://127.0.0.1:8765/mcp".into(),
            token: Some("agt_0123"),
        }
    }

    #[test]
    fn every_snippet_parses_in_its_clients_format() {
        let t = target();
        for &client in Client::value_variants() {
            for http in [false, true] {
                let s = snippet(client, http, &t);
                match client {
                    Client::ClaudeCode => {
                        let line = s.lines().last().unwrap();
                        assert!(line.starts_with("claude mcp add "), "{s}");
                        if !http {
                            assert!(line.ends_with("'/home/me/My \"Papers\"'"), "{s}");
                        }
                    }
                    Client::Codex => {
                        let v: toml::Value =
                            toml::from_str(&s).unwrap_or_else(|e| panic!("{e}: {s}"));
                        let server = &v["mcp_servers"][NAME];
                        if http {
                            assert_eq!(server["bearer_token_env_var"].as_str(), Some(TOKEN_VAR));
                        } else {
                            assert_eq!(server["command"].as_str(), Some(t.exe));
                            assert_eq!(server["args"][2].as_str(), Some(t.vault));
                        }
                    }
                    _ => {
                        let v: serde_json::Value =
                            serde_json::from_str(&s).unwrap_or_else(|e| panic!("{e}: {s}"));
                        let key = if client == Client::Zed {
                            "context_servers"
                        } else {
                            "mcpServers"
                        };
                        let server = &v[key][NAME];
                        assert!(server.is_object(), "{client:?} {http}: {s}");
                        if !http {
                            assert_eq!(server["args"][2], t.vault, "{s}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn shell_words_are_quoted_only_when_needed() {
        assert_eq!(sh("/usr/bin/agentero"), "/usr/bin/agentero");
        assert_eq!(sh("/a b"), "'/a b'");
        assert_eq!(sh("it's"), "'it'\\''s'");
        assert_eq!(sh(""), "''");
    }
}
