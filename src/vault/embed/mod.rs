//! Passage embeddings for hybrid retrieval: a static model2vec model (never downloaded here:
//! a folder named in the config, or the user's Hugging Face cache), one int8 vector per indexed
//! page or chunk in `{state}/vectors.bin` (written by the indexer, [`sync`]), and the exact
//! scan a search fuses with BM25 ([`crate::vault::index`]'s `hybrid`).

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

mod encoder;
mod model;
pub mod store;
mod sync;

pub use model::{
    Embedder, MODEL_FILES, ModelError, cached_models, cached_snapshot, cached_transformers,
    hub_cache, is_model_folder, is_repo_name, model_name, repo_dir,
};
pub use store::{StoreError, VectorStore};
pub use sync::{EmbedSummary, sync};

/// The line that says how to add a model when there is none.
pub const HOW_TO_ADD: &str = "search by meaning too: `agentero model pull minishlab/potion-base-8M` (or see `agentero model`)";

/// Which model a vault's searches and index use.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum ModelChoice {
    /// None: BM25 alone.
    #[default]
    Off,
    /// The model2vec model in this folder.
    Folder(PathBuf),
    /// A model named in the config that is not installed (said by `agentero model`).
    NotInstalled(String),
}

/// The setting as written (`[search] embeddings` in the config): `off`, a folder, or `ORG/NAME`
/// of the Hugging Face cache; unset: the first model2vec model in that cache, if any.
pub fn resolve(setting: Option<&str>) -> ModelChoice {
    let Some(s) = setting.map(str::trim) else {
        return cached_models()
            .into_iter()
            .next()
            .map_or(ModelChoice::Off, |(_, dir)| ModelChoice::Folder(dir));
    };
    if matches!(s, "" | "off" | "none") {
        return ModelChoice::Off;
    }
    let path = expand_home(s);
    if path.is_dir() {
        return ModelChoice::Folder(path);
    }
    if is_repo_name(s)
        && let Some(dir) = hub_cache().and_then(|c| cached_snapshot(&c, s))
    {
        return ModelChoice::Folder(dir);
    }
    ModelChoice::NotInstalled(s.to_string())
}

fn expand_home(s: &str) -> PathBuf {
    match s.strip_prefix("~/") {
        Some(rest) => std::env::var_os("HOME")
            .map(|h| PathBuf::from(h).join(rest))
            .unwrap_or_else(|| PathBuf::from(s)),
        None => PathBuf::from(s),
    }
}

static SETTING: OnceLock<Option<String>> = OnceLock::new();
static DEFAULT: OnceLock<ModelChoice> = OnceLock::new();

/// Sets this process's setting (the program does, from the config, before any vault is
/// opened). A library user that never calls it searches with BM25 alone.
pub fn set_process_setting(setting: Option<String>) {
    let _ = SETTING.set(setting);
}

/// The model a vault opened by this process uses (resolved once, on first use).
pub fn process_choice() -> ModelChoice {
    DEFAULT
        .get_or_init(|| match SETTING.get() {
            Some(s) => resolve(s.as_deref()),
            None => ModelChoice::Off,
        })
        .clone()
}

/// The model of `choice`, loaded; `None` with the reason when there is none to use.
pub fn load(choice: &ModelChoice) -> Result<Arc<Embedder>, String> {
    match choice {
        ModelChoice::Off => Err(String::new()),
        ModelChoice::NotInstalled(name) => Err(format!(
            "the embedding model {name} is not installed: `agentero model pull {name}`"
        )),
        ModelChoice::Folder(dir) => Embedder::load(dir).map_err(|e| e.to_string()),
    }
}

/// What a search needs to fuse: the vectors and the model that wrote them.
pub struct Vectors {
    pub store: VectorStore,
    pub model: Arc<Embedder>,
}

/// The vectors at `path` when they were written by the model of `choice`; `None` otherwise
/// (said in the log: the search is BM25 alone, as with no model).
pub fn attach(choice: &ModelChoice, path: &std::path::Path) -> Option<Vectors> {
    if *choice == ModelChoice::Off {
        return None;
    }
    let model = match load(choice) {
        Ok(m) => m,
        Err(why) => {
            tracing::warn!(%why, "searching without embeddings");
            return None;
        }
    };
    let store = match VectorStore::open(path) {
        Ok(s) => s,
        Err(StoreError::Missing) => return None,
        Err(e) => {
            tracing::warn!(error = %e, "searching without embeddings");
            return None;
        }
    };
    if store.model.identity != model.identity || store.dims != model.dims {
        tracing::warn!(
            vectors = %store.model.name,
            model = %model.name,
            "the vectors were written by another model; searching without embeddings until the next index"
        );
        return None;
    }
    Some(Vectors { store, model })
}
