//! The vault MCP server for external clients (`space m`): one service owns it while it runs,
//! and each toggle starts or stops it in turn.

use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};

use crate::mcp::http::{HttpOptions, VaultMcp};
use crate::tui::app::Msg;
use crate::vault::Vault;

/// The door to the vault MCP service (its one command: toggle).
pub(super) struct VaultMcpService {
    tx: UnboundedSender<()>,
}

impl VaultMcpService {
    /// `port`: where the server listens (0: a free port).
    pub(super) fn start(vault: Vault, ui: UnboundedSender<Msg>, port: u16) -> VaultMcpService {
        let (tx, rx) = unbounded_channel();
        // Not counted as busy work: the server outlives the toggle.
        tokio::spawn(serve(vault, ui, rx, port));
        VaultMcpService { tx }
    }

    pub(super) fn toggle(&self) {
        let _ = self.tx.send(());
    }
}

async fn serve(vault: Vault, ui: UnboundedSender<Msg>, mut rx: UnboundedReceiver<()>, port: u16) {
    let mut running: Option<VaultMcp> = None;
    while rx.recv().await.is_some() {
        let msg = match running.take() {
            Some(server) => {
                server.stop().await;
                Ok(None)
            }
            None => {
                let opts = HttpOptions {
                    port,
                    ..Default::default()
                };
                match VaultMcp::start(vault.clone(), opts).await {
                    Ok(server) => {
                        let url = server.url();
                        running = Some(server);
                        Ok(Some(url))
                    }
                    Err(e) => Err(format!(
                        "{e:#} (is `agentero serve` already running on this port?)"
                    )),
                }
            }
        };
        let _ = ui.send(Msg::VaultMcp(msg));
    }
    if let Some(server) = running {
        server.stop().await;
    }
}
