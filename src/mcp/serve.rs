//! `agentero serve`: the vault MCP as a process of its own — logging to the vault's log file, a
//! tokio runtime, the index kept current in the background, and a clean stop on SIGTERM or
//! Ctrl-C (or, over stdio, when the client closes stdin).

use std::time::Duration;

use super::http::{self, HttpOptions, VaultMcp};
use crate::context::tools::vault::{Limits, usage_log_path};
use crate::vault::Vault;
use crate::vault::indexer::{IndexOptions, index_vault};

#[derive(Debug, Clone)]
pub struct ServeOptions {
    /// Serve over stdin/stdout instead of HTTP.
    pub stdio: bool,
    pub http: HttpOptions,
    /// Re-index the vault this often (incrementally; `None`: only at start).
    pub refresh: Option<Duration>,
}

/// Brings the index up to date (skipped while another process, such as the TUI, holds the
/// index writer: that process keeps it current).
fn refresh_index(vault: &Vault) {
    let opts = IndexOptions {
        threads: 1,
        ..IndexOptions::default()
    };
    match index_vault(vault, &opts, &mut |_| {}) {
        Ok(s) if !s.up_to_date() => {
            tracing::info!(
                updated = s.updated,
                removed = s.removed,
                "vault MCP: index refreshed"
            );
        }
        Ok(_) => {}
        Err(crate::vault::VaultError::Index(crate::vault::index::IndexError::Busy)) => {
            tracing::debug!("vault MCP: the index is being written by another process");
        }
        Err(e) => tracing::warn!(error = %e, "vault MCP: cannot refresh the index"),
    }
}

fn spawn_indexer(vault: Vault, every: Option<Duration>) {
    let spawned = std::thread::Builder::new()
        .name("vault-mcp-indexer".into())
        .spawn(move || {
            loop {
                refresh_index(&vault);
                match every {
                    Some(d) => std::thread::sleep(d),
                    None => break,
                }
            }
        });
    if let Err(e) = spawned {
        tracing::warn!(error = %e, "vault MCP: cannot start the indexer thread");
    }
}

/// Resolves when SIGTERM or SIGINT arrives.
async fn stop_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match (
            signal(SignalKind::terminate()),
            signal(SignalKind::interrupt()),
        ) {
            (Ok(mut term), Ok(mut int)) => {
                tokio::select! {
                    _ = term.recv() => {}
                    _ = int.recv() => {}
                }
            }
            _ => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

/// `s` as one shell word: as is when it is plain, else single-quoted.
fn shell_word(s: &str) -> String {
    let plain = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+,:@%".contains(c));
    if plain {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

pub fn run(vault: Vault, opts: ServeOptions) -> anyhow::Result<()> {
    // A state folder that is not agentero's own is said on stderr by the log's opening.
    let _ = vault.ensure_state_dir();
    crate::logging::init(&vault.state_dir());
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    spawn_indexer(vault.clone(), opts.refresh);
    let limits: Limits = opts.http.limits;
    let result = runtime.block_on(async {
        if opts.stdio {
            tracing::info!(vault = %vault.root().display(), "vault MCP over stdio");
            tokio::select! {
                r = http::serve_stdio(vault.clone(), limits) => r,
                _ = stop_signal() => Ok(()),
            }
        } else {
            let server = VaultMcp::start(vault.clone(), opts.http.clone()).await?;
            println!("agentero vault MCP for {}", vault.root().display());
            println!("  url:   {}", server.url());
            println!(
                "  token: `agentero serve --token {}` prints it ({})",
                shell_word(&vault.root().display().to_string()),
                http::token_path(&vault).display()
            );
            println!("  usage log: {}", usage_log_path(&vault).display());
            println!("Stop with Ctrl-C or SIGTERM.");
            let stopper = server.stopper();
            tokio::spawn(async move {
                stop_signal().await;
                stopper.cancel();
            });
            server.wait().await;
            Ok(())
        }
    });
    // Blocking work in flight (a PDF being read) is not waited for past this.
    runtime.shutdown_timeout(Duration::from_secs(2));
    if let Err(e) = &result {
        tracing::error!(error = %e, "the vault MCP stopped");
    }
    result
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_token_hint_names_the_vault_as_one_shell_word() {
        use super::shell_word;
        assert_eq!(shell_word("/home/a/papers"), "/home/a/papers");
        assert_eq!(shell_word("/home/a/my papers"), "'/home/a/my papers'");
        assert_eq!(shell_word("/x/it's $(rm)"), "'/x/it'\\''s $(rm)'");
    }
}
