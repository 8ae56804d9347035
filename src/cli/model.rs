//! `agentero model`: the embedding models installed and the one in use, and `agentero model
//! pull ORG/NAME`, which downloads a model (a model2vec static model, or a sentence-transformers
//! BERT) from the Hugging Face hub into the user's Hugging Face cache (the only place agentero
//! downloads a model; nothing else ever does).

use std::process::Command;

use super::*;
use crate::vault::embed::{self, Embedder, ModelChoice, VectorStore};

/// The hub: `$HF_ENDPOINT` (as Hugging Face's own tools read it) or huggingface.co.
fn endpoint() -> String {
    std::env::var("HF_ENDPOINT")
        .ok()
        .filter(|e| !e.trim().is_empty())
        .unwrap_or_else(|| "https://huggingface.co".into())
        .trim_end_matches('/')
        .to_string()
}

/// The largest file a pull accepts.
const MAX_FILE: &str = "2G";

/// `agentero model`: what is installed, what the config chooses, what the vault's vectors are.
pub(super) fn list(vault: Option<&Path>) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    let cache = embed::hub_cache();
    let installed = embed::cached_models();
    match &cache {
        Some(c) => writeln!(
            out,
            "Models in the Hugging Face cache ({}):",
            visible(&c.display().to_string())
        )?,
        None => writeln!(out, "No Hugging Face cache (HOME is not set).")?,
    }
    let transformers = embed::cached_transformers();
    if installed.is_empty() && transformers.is_empty() {
        writeln!(out, "  none")?;
    }
    for (name, dir) in &installed {
        writeln!(
            out,
            "  {}  {}",
            visible(name),
            visible(&dir.display().to_string())
        )?;
    }
    for (name, dir) in &transformers {
        writeln!(
            out,
            "  {}  {}  (a transformer: used only when named, [search] embeddings = \"{}\")",
            visible(name),
            visible(&dir.display().to_string()),
            visible(name)
        )?;
    }
    let choice = embed::process_choice();
    match &choice {
        ModelChoice::Off => {
            writeln!(out, "In use: none (BM25 alone).")?;
            writeln!(out, "  {}", embed::HOW_TO_ADD)?;
        }
        ModelChoice::NotInstalled(name) => {
            writeln!(
                out,
                "In use: none: [search] embeddings names {}, which is not installed.",
                visible(name)
            )?;
            writeln!(out, "  agentero model pull {}", visible(name))?;
        }
        ModelChoice::Folder(dir) => match Embedder::load(dir) {
            Ok(m) => writeln!(
                out,
                "In use: {} ({} dimensions{}), {}",
                visible(&m.name),
                m.dims,
                if m.is_encoder() {
                    ", a transformer: an index run reads every new page with it, minutes of CPU per \
                     thousand pages or more"
                } else {
                    ""
                },
                visible(&dir.display().to_string())
            )?,
            Err(e) => writeln!(out, "In use: none: {}", visible(&e.to_string()))?,
        },
    }
    let path = crate::paths::choose_vault(vault)?;
    let v = Vault::open(&path)?;
    match VectorStore::open(&v.vectors_path()) {
        Ok(s) => writeln!(
            out,
            "This vault's vectors: {} passages of {} documents by {} ({} bytes)",
            s.rows,
            s.docs.len(),
            visible(&s.model.name),
            std::fs::metadata(v.vectors_path()).map_or(0, |m| m.len())
        )?,
        Err(embed::StoreError::Missing) => writeln!(
            out,
            "This vault's vectors: none yet{}",
            if choice == ModelChoice::Off {
                ""
            } else {
                " (`agentero index` writes them)"
            }
        )?,
        Err(e) => writeln!(out, "This vault's vectors: {}", visible(&e.to_string()))?,
    }
    Ok(())
}

/// `agentero model pull ORG/NAME`.
pub(super) fn pull(name: &str) -> anyhow::Result<()> {
    if !embed::is_repo_name(name) {
        bail!(
            "{:?} is not a model name of the form ORG/NAME (e.g. minishlab/potion-base-8M)",
            visible(name)
        );
    }
    let cache = embed::hub_cache().context("no Hugging Face cache folder: HOME is not set")?;
    let base = endpoint();
    let offline = |what: &str, why: String| {
        anyhow::anyhow!(
            "cannot download {name} ({what}) from {base}: {why}\n\
             `agentero model pull` needs a machine that reaches the Hugging Face hub; elsewhere, copy a \
             model's folder (tokenizer.json, model.safetensors, config.json) and name it in the \
             config: [search] embeddings = \"/path/to/folder\""
        )
    };
    let info = fetch(&format!("{base}/api/models/{name}/revision/main"), None)
        .map_err(|why| offline("its revision", why))?;
    let rev = serde_json::from_slice::<serde_json::Value>(&info)
        .ok()
        .and_then(|v| v.get("sha")?.as_str().map(str::to_string))
        .filter(|s| !s.is_empty() && s.len() <= 64 && s.chars().all(|c| c.is_ascii_alphanumeric()))
        .ok_or_else(|| offline("its revision", "the hub's answer names no revision".into()))?;
    let repo = embed::repo_dir(&cache, name)
        .with_context(|| format!("{:?} is not a model name", visible(name)))?;
    let snap = repo.join("snapshots").join(&rev);
    std::fs::create_dir_all(&snap).with_context(|| format!("cannot create {}", snap.display()))?;
    for file in embed::MODEL_FILES {
        let part = snap.join(format!(".{file}.part"));
        fetch(&format!("{base}/{name}/resolve/{rev}/{file}"), Some(&part))
            .map_err(|why| offline(file, why))?;
        std::fs::rename(&part, snap.join(file))?;
    }
    std::fs::create_dir_all(repo.join("refs"))?;
    std::fs::write(repo.join("refs").join("main"), &rev)?;
    let model = Embedder::load(&snap)?;
    println!(
        "Installed {} ({} dimensions) in {}",
        visible(&model.name),
        model.dims,
        visible(&snap.display().to_string())
    );
    if model.is_encoder() {
        // A transformer is never taken from the cache unasked: it makes an index run minutes long.
        println!(
            "It is a transformer, used only when named: [search] embeddings = \"{}\" in the config.",
            visible(name)
        );
    } else {
        println!(
            "`agentero index` now embeds each vault's pages; searches fuse them with the words."
        );
    }
    Ok(())
}

/// Downloads `url` with curl, to `to` or into memory; the reason when it cannot.
fn fetch(url: &str, to: Option<&Path>) -> Result<Vec<u8>, String> {
    let mut cmd = Command::new("curl");
    cmd.args(["--fail", "--location", "--silent", "--show-error"])
        .args([
            "--proto",
            "=https",
            "--connect-timeout",
            "20",
            "--max-filesize",
            MAX_FILE,
        ])
        .arg(url);
    if let Some(p) = to {
        cmd.arg("--output").arg(p);
    }
    let out = cmd.output().map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => "curl is not installed".to_string(),
        _ => format!("curl cannot run: {e}"),
    })?;
    if !out.status.success() {
        if let Some(p) = to {
            let _ = std::fs::remove_file(p);
        }
        let err = String::from_utf8_lossy(&out.stderr).trim().to_string();
        return Err(if err.is_empty() {
            format!("curl exited with {}", out.status)
        } else {
            err
        });
    }
    Ok(out.stdout)
}
