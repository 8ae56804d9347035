//! The home the judged sets run `agentero` in, inside the copied vault
//! (`.agentero-test-home`: its config, data and Hugging Face cache), and the embedding model
//! its config names (`AGENTERO_JUDGED_EMBEDDINGS`: a model2vec folder, or `wordllama` for the
//! wheel's matrix `AGENTERO_WORDLLAMA` laid out as one; unset, `off`).

use std::path::{Path, PathBuf};
use std::process::Command;

/// The embedding model of the run (`AGENTERO_JUDGED_EMBEDDINGS`): a model2vec folder, or the
/// wordllama wheel's matrix laid out as one in `into`; `None`: BM25 alone.
fn embedding_model(into: &Path) -> Option<PathBuf> {
    let setting = std::env::var_os("AGENTERO_JUDGED_EMBEDDINGS")?;
    if setting == "wordllama" {
        let unpacked = crate::common::embedding_model::wordllama_unpacked()
            .expect("AGENTERO_JUDGED_EMBEDDINGS=wordllama needs AGENTERO_WORDLLAMA");
        return Some(crate::common::embedding_model::wordllama_model(
            &unpacked, into,
        ));
    }
    Some(PathBuf::from(setting))
}

/// The home `agentero` runs with on `vault` (its config, data and Hugging Face cache).
fn test_home(vault: &Path) -> PathBuf {
    vault.join(".agentero-test-home")
}

/// Sets a command's home to `vault`'s test home.
pub(crate) fn at_home(cmd: &mut Command, vault: &Path) {
    let home = test_home(vault);
    cmd.env("HOME", &home)
        .env("XDG_DATA_HOME", home.join("data"))
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env_remove("AGENTERO_EMBEDDINGS");
}

/// Writes the test home's config: `[search] embeddings` names the run's model, or `off`.
pub(crate) fn write_config(vault: &Path) {
    let model = embedding_model(&vault.with_file_name("embedding-model"));
    let setting = model.map_or_else(|| "off".to_string(), |m| m.display().to_string());
    if setting != "off" {
        eprintln!("asking with the embedding model {setting}");
    }
    let dir = test_home(vault).join("config").join("agentero");
    std::fs::create_dir_all(&dir).unwrap();
    let text = format!("[search]\nembeddings = {}\n", toml_string(&setting));
    std::fs::write(dir.join("config.toml"), text).unwrap();
}

/// A TOML basic string.
fn toml_string(s: &str) -> String {
    serde_json::Value::String(s.to_string()).to_string()
}
