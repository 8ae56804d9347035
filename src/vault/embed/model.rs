//! The embedding model, in either of two formats that share their three files
//! (`tokenizer.json`, `model.safetensors`, `config.json`): a static model2vec model, or a
//! sentence-transformers BERT encoder ([`super::encoder`]); where one is installed, loading it,
//! and its identity.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use sha2::{Digest, Sha256};

/// The files of a model2vec model folder.
pub const MODEL_FILES: [&str; 3] = ["tokenizer.json", "model.safetensors", "config.json"];

/// The largest model file read (a 2²⁵-token vocabulary of 256 f32 would be 32 GB: no static
/// model is near this).
const MAX_MODEL_BYTES: u64 = 2 << 30;

/// Characters of a passage embedded (a page is a few thousand; the mean of its tokens does not
/// change past that).
pub const MAX_PASSAGE_CHARS: usize = 12_000;

/// A query whose tokens the vocabulary knows less than this share of is not embedded.
const MIN_KNOWN_SHARE: f32 = 0.75;

/// What computes the vectors.
enum Backend {
    Static(model2vec_rs::model::StaticModel),
    Encoder(Box<super::encoder::Encoder>),
}

/// A loaded model: what embeds passages and queries, and what identifies it.
pub struct Embedder {
    backend: Backend,
    /// The model's tokenizer, to tell how much of a query its vocabulary knows.
    tokenizer: Option<tokenizers::Tokenizer>,
    /// Where it was loaded from.
    pub folder: PathBuf,
    /// `ORG/NAME` when it is in the Hugging Face cache, else the folder's name.
    pub name: String,
    /// The sha256 of its tokenizer and weights: vectors written by another model are not used.
    pub identity: String,
    pub dims: usize,
}

impl std::fmt::Debug for Embedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Embedder")
            .field("name", &self.name)
            .field("identity", &self.identity)
            .field("dims", &self.dims)
            .finish()
    }
}

#[derive(Debug, Clone, thiserror::Error)]
#[error("cannot load the embedding model in {folder}: {why}")]
pub struct ModelError {
    pub folder: String,
    pub why: String,
}

impl Embedder {
    /// Loads the model in `folder` (once per process: later calls share it).
    pub fn load(folder: &Path) -> Result<Arc<Embedder>, ModelError> {
        static LOADED: OnceLock<Mutex<HashMap<PathBuf, Arc<Embedder>>>> = OnceLock::new();
        let cache = LOADED.get_or_init(Default::default);
        if let Some(e) = cache.lock().unwrap_or_else(|p| p.into_inner()).get(folder) {
            return Ok(e.clone());
        }
        let e = Arc::new(Self::load_uncached(folder)?);
        cache
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(folder.to_path_buf(), e.clone());
        Ok(e)
    }

    fn load_uncached(folder: &Path) -> Result<Embedder, ModelError> {
        let err = |why: String| ModelError {
            folder: folder.display().to_string(),
            why,
        };
        let read = |name: &str| -> Result<Vec<u8>, ModelError> {
            let p = folder.join(name);
            let len = std::fs::metadata(&p)
                .map_err(|e| err(format!("{name}: {e}")))?
                .len();
            if len > MAX_MODEL_BYTES {
                return Err(err(format!(
                    "{name} is {len} bytes, more than a static model"
                )));
            }
            std::fs::read(&p).map_err(|e| err(format!("{name}: {e}")))
        };
        let [tok, weights, config] = MODEL_FILES.map(read);
        let (tok, weights, config) = (tok?, weights?, config?);
        let mut h = Sha256::new();
        h.update((tok.len() as u64).to_le_bytes());
        h.update(&tok);
        h.update(&weights);
        let identity = hex(&h.finalize());
        let (backend, dims) = if super::encoder::is_bert_config(&config) {
            let pooling = std::fs::read(folder.join("1_Pooling").join("config.json")).ok();
            let e =
                super::encoder::Encoder::from_bytes(&tok, &weights, &config, pooling.as_deref())
                    .map_err(err)?;
            let dims = e.dims;
            (Backend::Encoder(Box::new(e)), dims)
        } else {
            // The tokenizers crate may panic on a malformed file: that is a model that cannot be
            // loaded, not a crash.
            let model = std::panic::catch_unwind(|| {
                model2vec_rs::model::StaticModel::from_bytes(&tok, &weights, &config, Some(true))
            })
            .map_err(|_| err("the model files are malformed".into()))?
            .map_err(|e| err(format!("{e:#}")))?;
            let dims = model.dim();
            (Backend::Static(model), dims)
        };
        let tokenizer = std::panic::catch_unwind(|| tokenizers::Tokenizer::from_bytes(&tok))
            .ok()
            .and_then(Result::ok);
        if dims == 0 || dims > super::store::MAX_DIMS {
            return Err(err(format!("{dims} dimensions")));
        }
        Ok(Embedder {
            backend,
            tokenizer,
            folder: folder.to_path_buf(),
            name: model_name(folder),
            identity,
            dims,
        })
    }

    /// Unit vectors of `texts` (row-major, `dims` each); `None` when the tokenizer fails.
    pub fn embed(&self, texts: &[String]) -> Option<Vec<f32>> {
        let cut: Vec<String> = texts
            .iter()
            .map(|t| match t.char_indices().nth(MAX_PASSAGE_CHARS) {
                Some((i, _)) => t[..i].to_string(),
                None => t.clone(),
            })
            .collect();
        match &self.backend {
            Backend::Static(m) => {
                std::panic::catch_unwind(|| m.encode_flat_with_args(&cut, None)).ok()
            }
            Backend::Encoder(e) => encode_all(e, &cut),
        }
    }

    /// Whether the vectors come from a transformer (which reads slowly, and so is used only when
    /// named: `agentero model pull` says so).
    pub fn is_encoder(&self) -> bool {
        matches!(self.backend, Backend::Encoder(_))
    }

    /// The unit vector of a query, when the model knows most of it: a query whose tokens are
    /// mostly unknown to the vocabulary, or bytes it falls back to (a script the model was not
    /// trained on), has a vector that means nothing.
    pub fn embed_query(&self, query: &str) -> Option<Vec<f32>> {
        if self.known_share(query) < MIN_KNOWN_SHARE {
            return None;
        }
        self.embed(&[query.to_string()])
    }

    /// The share of `query`'s tokens that are words of the vocabulary (not the unknown token,
    /// not a byte fallback such as `<0xE4>`); 1 when the tokenizer cannot tell.
    pub fn known_share(&self, query: &str) -> f32 {
        let Some(t) = &self.tokenizer else {
            return 1.0;
        };
        let Ok(Ok(enc)) = std::panic::catch_unwind(|| t.encode(query, false)) else {
            return 1.0;
        };
        let tokens = enc.get_tokens();
        if tokens.is_empty() {
            return 0.0;
        }
        let unknown = |s: &str| {
            matches!(s, "[UNK]" | "<unk>" | "<UNK>")
                || (s.len() == 6 && s.starts_with("<0x") && s.ends_with('>'))
        };
        let known = tokens.iter().filter(|s| !unknown(s)).count();
        known as f32 / tokens.len() as f32
    }
}

/// `texts` through the encoder, on every core (each text on one).
fn encode_all(e: &super::encoder::Encoder, texts: &[String]) -> Option<Vec<f32>> {
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(texts.len().max(1));
    let per = texts.len().div_ceil(threads).max(1);
    let parts: Vec<Option<Vec<f32>>> = std::thread::scope(|s| {
        let handles: Vec<_> = texts
            .chunks(per)
            .map(|part| {
                s.spawn(move || {
                    let mut out = Vec::with_capacity(part.len() * e.dims);
                    for t in part {
                        out.extend(e.embed(t)?);
                    }
                    Some(out)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().ok().flatten())
            .collect()
    });
    let mut out = Vec::with_capacity(texts.len() * e.dims);
    for p in parts {
        out.extend(p?);
    }
    Some(out)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// `ORG/NAME` for a folder of the Hugging Face cache (`models--ORG--NAME/snapshots/REV`), else
/// the folder's own name.
pub fn model_name(folder: &Path) -> String {
    let repo = folder
        .parent()
        .filter(|p| p.file_name().is_some_and(|n| n == "snapshots"))
        .and_then(Path::parent)
        .and_then(Path::file_name)
        .and_then(|n| n.to_str())
        .and_then(|n| n.strip_prefix("models--"));
    match repo.and_then(|r| r.split_once("--")) {
        Some((org, name)) => format!("{org}/{name}"),
        None => folder
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| folder.display().to_string()),
    }
}

/// The Hugging Face cache: `$HF_HUB_CACHE`, `$HF_HOME/hub`, `$XDG_CACHE_HOME/huggingface/hub`
/// or `~/.cache/huggingface/hub`.
pub fn hub_cache() -> Option<PathBuf> {
    let var = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    if let Some(p) = var("HF_HUB_CACHE") {
        return Some(p);
    }
    if let Some(p) = var("HF_HOME") {
        return Some(p.join("hub"));
    }
    let cache = var("XDG_CACHE_HOME").or_else(|| var("HOME").map(|h| h.join(".cache")))?;
    Some(cache.join("huggingface").join("hub"))
}

/// Whether `name` is a hub repository name, `ORG/NAME` of letters, digits, `-`, `_`, `.`.
pub fn is_repo_name(name: &str) -> bool {
    let ok = |s: &str| {
        !s.is_empty()
            && s.len() <= 96
            && !s.starts_with('.')
            && !s.contains("--")
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
    };
    matches!(name.split_once('/'), Some((org, n)) if ok(org) && ok(n))
}

/// The cache folder of a hub repository (`models--ORG--NAME`): one path component under
/// `cache`, built only from a name [`is_repo_name`] accepts (`None` for any other text: `..`,
/// separators, a name with `--`).
pub fn repo_dir(cache: &Path, name: &str) -> Option<PathBuf> {
    is_repo_name(name).then(|| cache.join(format!("models--{}", name.replace('/', "--"))))
}

/// The snapshot of `name` in the cache that holds a whole model: the one `refs/main` names,
/// else the most recent.
pub fn cached_snapshot(cache: &Path, name: &str) -> Option<PathBuf> {
    let repo = repo_dir(cache, name)?;
    let main = std::fs::read_to_string(repo.join("refs").join("main"))
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric()));
    if let Some(rev) = main {
        let dir = repo.join("snapshots").join(rev);
        if is_model_folder(&dir) {
            return Some(dir);
        }
    }
    let mut snaps: Vec<(std::time::SystemTime, PathBuf)> =
        std::fs::read_dir(repo.join("snapshots"))
            .ok()?
            .flatten()
            .map(|e| e.path())
            .filter(|p| is_model_folder(p))
            .map(|p| {
                let t = std::fs::metadata(&p)
                    .and_then(|m| m.modified())
                    .unwrap_or(std::time::UNIX_EPOCH);
                (t, p)
            })
            .collect();
    snaps.sort();
    snaps.pop().map(|(_, p)| p)
}

/// Whether `dir` holds the three files of a model2vec model.
pub fn is_model_folder(dir: &Path) -> bool {
    MODEL_FILES.iter().all(|f| dir.join(f).is_file())
}

/// The model2vec models in the Hugging Face cache (`ORG/NAME`, snapshot folder), by name.
/// A model2vec model's `config.json` says `"model_type": "model2vec"`.
pub fn cached_models() -> Vec<(String, PathBuf)> {
    cached_where(|dir| model_type(dir).as_deref() == Some("model2vec"))
}

/// The transformers (sentence-transformers BERT models) in the Hugging Face cache, by name:
/// listed by `agentero model`, used only when the config names one (an index run with one
/// takes minutes, so the cache never picks one by itself).
pub fn cached_transformers() -> Vec<(String, PathBuf)> {
    cached_where(|dir| model_type(dir).as_deref() == Some(super::encoder::MODEL_TYPE))
}

/// The models of the Hugging Face cache whose snapshot folder passes `keep`, by name.
fn cached_where(keep: impl Fn(&Path) -> bool) -> Vec<(String, PathBuf)> {
    let Some(cache) = hub_cache() else {
        return Vec::new();
    };
    let Ok(dir) = std::fs::read_dir(&cache) else {
        return Vec::new();
    };
    let mut out: Vec<(String, PathBuf)> = dir
        .flatten()
        .filter_map(|e| {
            let n = e
                .file_name()
                .to_str()?
                .strip_prefix("models--")?
                .to_string();
            let (org, name) = n.split_once("--")?;
            let repo = format!("{org}/{name}");
            let snap = cached_snapshot(&cache, &repo)?;
            keep(&snap).then_some((repo, snap))
        })
        .collect();
    out.sort();
    out
}

/// The `model_type` of the `config.json` in `dir` (read only when under 1 MB).
fn model_type(dir: &Path) -> Option<String> {
    let text = std::fs::read(dir.join("config.json"))
        .ok()
        .filter(|t| t.len() <= 1 << 20)?;
    serde_json::from_slice::<serde_json::Value>(&text)
        .ok()?
        .get("model_type")?
        .as_str()
        .map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_repo_folder_is_one_component_under_the_cache_or_none() {
        let cache = Path::new("/cache/hub");
        assert_eq!(
            repo_dir(cache, "minishlab/potion-base-8M"),
            Some(cache.join("models--minishlab--potion-base-8M"))
        );
        for hostile in [
            "../etc",
            "a/../b",
            "..",
            "a/b/c",
            "/abs/olute",
            "a--b/c",
            ".hidden/x",
            "a/.x",
            "a\\b/c",
            "a/b\0",
            "",
            "noslash",
        ] {
            assert_eq!(repo_dir(cache, hostile), None, "{hostile:?}");
        }
    }
}
