//! Where things live outside a vault: the bundled demo vault and the user's config folder.

use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::vault::demo;

fn home() -> Option<PathBuf> {
    std::env::var_os("HOME").map(PathBuf::from)
}

/// `$XDG_DATA_HOME/agentero` (default `~/.local/share/agentero`).
pub fn data_dir() -> PathBuf {
    std::env::var_os("XDG_DATA_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| home().map(|h| h.join(".local/share")))
        .unwrap_or_else(std::env::temp_dir)
        .join("agentero")
}

/// `$XDG_CONFIG_HOME/agentero` (default `~/.config/agentero`).
pub fn config_dir() -> PathBuf {
    std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| home().map(|h| h.join(".config")))
        .unwrap_or_else(std::env::temp_dir)
        .join("agentero")
}

/// A folder counts as a vault when agentero has state in it, it has a `papers/` folder, or it
/// is a Zotero data directory.
pub fn looks_like_vault(dir: &Path) -> bool {
    dir.join(crate::vault::paths::STATE_DIR).is_dir()
        || dir.join("papers").is_dir()
        || crate::vault::zotero::is_data_dir(dir)
}

/// The bundled demo vault, written (or rewritten after an upgrade) on first use.
pub fn demo_vault() -> anyhow::Result<PathBuf> {
    let dir = data_dir().join("demo-vault");
    let marker = dir.join(demo::VERSION_MARKER);
    let current = std::fs::read_to_string(&marker).ok();
    if current.as_deref().map(str::trim) != Some(demo::DEMO_VAULT_VERSION.to_string().as_str()) {
        demo::write_demo_vault(&dir)
            .with_context(|| format!("cannot write the demo vault to {}", dir.display()))?;
    }
    Ok(dir)
}

/// The vault to use: the one named, else the current folder when it looks like a vault, else
/// the bundled demo vault.
pub fn choose_vault(named: Option<&Path>) -> anyhow::Result<PathBuf> {
    if let Some(p) = named {
        return Ok(p.to_path_buf());
    }
    if let Ok(cwd) = std::env::current_dir()
        && looks_like_vault(&cwd)
    {
        return Ok(cwd);
    }
    demo_vault()
}
