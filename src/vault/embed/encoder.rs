//! A sentence-transformers BERT encoder (all-MiniLM-L6-v2 and models of its shape): the
//! transformer run here, on the CPU, in safe Rust over `ndarray`'s matrix products. Where a static
//! model gives each word one vector whatever surrounds it, this one reads the words together,
//! which is what joins a reader's paraphrase to the page's own words ("fill the gaps by straight
//! lines" and "interpolation").
//!
//! A folder holds `config.json` (`"model_type": "bert"`), `model.safetensors` and
//! `tokenizer.json`; `1_Pooling/config.json` says mean or CLS pooling (mean when absent). Long
//! text is read in windows of at most [`WINDOW`] word pieces; a passage's vector is the mean of
//! its windows' vectors, as a unit vector.

use ndarray::{Array1, Array2, ArrayView2, Axis, Slice};
use serde::Deserialize;

/// Word pieces read at once, the CLS and SEP marks included (the length the sentence models of
/// this kind were trained on).
pub const WINDOW: usize = 128;

/// Windows read of one passage: a page is rarely more than eight; the rest of a very long chunk
/// is not read.
pub const MAX_WINDOWS: usize = 12;

/// Bounds on a model's shape: what a file may ask of memory and time before anything is
/// allocated (all-MiniLM-L6-v2 is 384 wide, 6 layers, 1,536 inside).
const MAX_HIDDEN: usize = 2048;
const MAX_LAYERS: usize = 48;
const MAX_INTERMEDIATE: usize = 8192;
const MAX_VOCAB: usize = 1 << 20;

#[derive(Debug, Deserialize)]
struct Config {
    model_type: Option<String>,
    hidden_size: usize,
    num_attention_heads: usize,
    num_hidden_layers: usize,
    intermediate_size: usize,
    max_position_embeddings: usize,
    #[serde(default = "default_eps")]
    layer_norm_eps: f32,
    #[serde(default)]
    hidden_act: Option<String>,
}

fn default_eps() -> f32 {
    1e-12
}

#[derive(Debug, Deserialize, Default)]
struct PoolingConfig {
    #[serde(default)]
    pooling_mode_cls_token: bool,
}

/// The `model_type` of a BERT encoder's `config.json`.
pub const MODEL_TYPE: &str = "bert";

/// Whether `config` (a `config.json`'s bytes) names a BERT encoder.
pub fn is_bert_config(config: &[u8]) -> bool {
    serde_json::from_slice::<serde_json::Value>(config)
        .ok()
        .and_then(|v| v.get("model_type")?.as_str().map(|s| s == MODEL_TYPE))
        .unwrap_or(false)
}

struct LayerNorm {
    gamma: Array1<f32>,
    beta: Array1<f32>,
}

struct Dense {
    /// Input × output (the file's output × input, transposed once at load).
    w: Array2<f32>,
    b: Array1<f32>,
}

struct Layer {
    /// Query, key and value side by side (hidden × 3·hidden).
    qkv: Dense,
    attn_out: Dense,
    attn_norm: LayerNorm,
    inner: Dense,
    out: Dense,
    out_norm: LayerNorm,
}

/// A loaded encoder.
pub struct Encoder {
    tokenizer: tokenizers::Tokenizer,
    cls: u32,
    sep: u32,
    words: Array2<f32>,
    positions: Array2<f32>,
    token_type: Array1<f32>,
    embed_norm: LayerNorm,
    layers: Vec<Layer>,
    heads: usize,
    eps: f32,
    window: usize,
    cls_pooling: bool,
    pub dims: usize,
}

/// The tensors of a safetensors file by name, as f32 (f32, f16 and bf16 are read).
struct Tensors<'a> {
    st: safetensors::SafeTensors<'a>,
    /// What the names start with before `embeddings.` (`bert.`, `0.auto_model.`, or nothing).
    prefix: String,
}

impl Tensors<'_> {
    fn get(&self, name: &str, shape: &[usize]) -> Result<Vec<f32>, String> {
        let full = format!("{}{name}", self.prefix);
        let t = self
            .st
            .tensor(&full)
            .map_err(|_| format!("the weights have no {full}"))?;
        if t.shape() != shape {
            return Err(format!(
                "{full} is {:?}, the config asks for {shape:?}",
                t.shape()
            ));
        }
        let data = t.data();
        let out: Vec<f32> = match t.dtype() {
            safetensors::Dtype::F32 => data
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect(),
            safetensors::Dtype::F16 => data
                .chunks_exact(2)
                .map(|b| half::f16::from_le_bytes([b[0], b[1]]).to_f32())
                .collect(),
            safetensors::Dtype::BF16 => data
                .chunks_exact(2)
                .map(|b| half::bf16::from_le_bytes([b[0], b[1]]).to_f32())
                .collect(),
            other => return Err(format!("{full} is {other:?}, not a float")),
        };
        if !out.iter().all(|x| x.is_finite()) {
            return Err(format!("{full} holds a value that is not a number"));
        }
        Ok(out)
    }

    fn vector(&self, name: &str, n: usize) -> Result<Array1<f32>, String> {
        Ok(Array1::from(self.get(name, &[n])?))
    }

    fn matrix(&self, name: &str, rows: usize, cols: usize) -> Result<Array2<f32>, String> {
        Array2::from_shape_vec((rows, cols), self.get(name, &[rows, cols])?)
            .map_err(|e| e.to_string())
    }

    fn dense(&self, name: &str, inputs: usize, outputs: usize) -> Result<Dense, String> {
        let w = self.matrix(&format!("{name}.weight"), outputs, inputs)?;
        Ok(Dense {
            w: w.t().as_standard_layout().into_owned(),
            b: self.vector(&format!("{name}.bias"), outputs)?,
        })
    }

    fn norm(&self, name: &str, n: usize) -> Result<LayerNorm, String> {
        Ok(LayerNorm {
            gamma: self.vector(&format!("{name}.weight"), n)?,
            beta: self.vector(&format!("{name}.bias"), n)?,
        })
    }
}

impl Encoder {
    /// The encoder of `folder`'s files (already read: `tokenizer.json`, `model.safetensors`,
    /// `config.json`); `pooling` is `1_Pooling/config.json` when there is one.
    pub fn from_bytes(
        tokenizer: &[u8],
        weights: &[u8],
        config: &[u8],
        pooling: Option<&[u8]>,
    ) -> Result<Encoder, String> {
        let cfg: Config =
            serde_json::from_slice(config).map_err(|e| format!("config.json: {e}"))?;
        if cfg.model_type.as_deref() != Some("bert") {
            return Err("config.json does not name a BERT model".into());
        }
        let h = cfg.hidden_size;
        let heads = cfg.num_attention_heads;
        if h == 0
            || h > MAX_HIDDEN
            || heads == 0
            || !h.is_multiple_of(heads)
            || cfg.num_hidden_layers == 0
            || cfg.num_hidden_layers > MAX_LAYERS
            || cfg.intermediate_size == 0
            || cfg.intermediate_size > MAX_INTERMEDIATE
            || cfg.max_position_embeddings < 3
            || !(cfg.layer_norm_eps > 0.0 && cfg.layer_norm_eps < 1.0)
        {
            return Err("config.json gives a shape this encoder does not read".into());
        }
        if let Some(act) = cfg.hidden_act.as_deref()
            && act != "gelu"
        {
            return Err(format!("config.json asks for the activation {act}"));
        }
        let st = safetensors::SafeTensors::deserialize(weights)
            .map_err(|e| format!("model.safetensors: {e}"))?;
        let key = "embeddings.word_embeddings.weight";
        let prefix = st
            .names()
            .into_iter()
            .filter_map(|n| n.strip_suffix(key))
            .min_by_key(|p| p.len())
            .ok_or("model.safetensors has no word embeddings")?
            .to_string();
        let vocab = st
            .tensor(&format!("{prefix}{key}"))
            .map_err(|e| e.to_string())?
            .shape()
            .first()
            .copied()
            .unwrap_or(0);
        if vocab == 0 || vocab > MAX_VOCAB {
            return Err(format!("a vocabulary of {vocab} words"));
        }
        let t = Tensors { st, prefix };
        let max_pos = cfg.max_position_embeddings;
        let mut layers = Vec::with_capacity(cfg.num_hidden_layers);
        for l in 0..cfg.num_hidden_layers {
            let p = format!("encoder.layer.{l}.");
            let [q, k, v] =
                ["query", "key", "value"].map(|n| t.dense(&format!("{p}attention.self.{n}"), h, h));
            let (q, k, v) = (q?, k?, v?);
            let qkv = Dense {
                w: ndarray::concatenate(Axis(1), &[q.w.view(), k.w.view(), v.w.view()])
                    .map_err(|e| e.to_string())?,
                b: ndarray::concatenate(Axis(0), &[q.b.view(), k.b.view(), v.b.view()])
                    .map_err(|e| e.to_string())?,
            };
            layers.push(Layer {
                qkv,
                attn_out: t.dense(&format!("{p}attention.output.dense"), h, h)?,
                attn_norm: t.norm(&format!("{p}attention.output.LayerNorm"), h)?,
                inner: t.dense(&format!("{p}intermediate.dense"), h, cfg.intermediate_size)?,
                out: t.dense(&format!("{p}output.dense"), cfg.intermediate_size, h)?,
                out_norm: t.norm(&format!("{p}output.LayerNorm"), h)?,
            });
        }
        let token_types = t.matrix(
            "embeddings.token_type_embeddings.weight",
            t.st.tensor(&format!(
                "{}embeddings.token_type_embeddings.weight",
                t.prefix
            ))
            .map(|x| x.shape().first().copied().unwrap_or(0))
            .unwrap_or(0)
            .max(1),
            h,
        )?;
        let mut tokenizer =
            std::panic::catch_unwind(|| tokenizers::Tokenizer::from_bytes(tokenizer))
                .map_err(|_| "tokenizer.json is malformed".to_string())?
                .map_err(|e| format!("tokenizer.json: {e}"))?;
        tokenizer.with_padding(None);
        tokenizer
            .with_truncation(None)
            .map_err(|e| format!("tokenizer.json: {e}"))?;
        let id = |name: &str| {
            tokenizer
                .token_to_id(name)
                .ok_or(format!("the tokenizer has no {name}"))
        };
        let (cls, sep) = (id("[CLS]")?, id("[SEP]")?);
        if cls as usize >= vocab || sep as usize >= vocab {
            return Err("the tokenizer's marks are outside the vocabulary".into());
        }
        let cls_pooling = pooling
            .and_then(|p| serde_json::from_slice::<PoolingConfig>(p).ok())
            .unwrap_or_default()
            .pooling_mode_cls_token;
        Ok(Encoder {
            cls,
            sep,
            words: t.matrix(key, vocab, h)?,
            positions: t.matrix("embeddings.position_embeddings.weight", max_pos, h)?,
            token_type: token_types.row(0).to_owned(),
            embed_norm: t.norm("embeddings.LayerNorm", h)?,
            layers,
            heads,
            eps: cfg.layer_norm_eps,
            window: WINDOW.min(max_pos),
            cls_pooling,
            dims: h,
            tokenizer,
        })
    }

    /// The word pieces of `text` (no marks); `None` when the tokenizer fails on it.
    pub fn pieces(&self, text: &str) -> Option<Vec<u32>> {
        let enc = std::panic::catch_unwind(|| self.tokenizer.encode(text, false))
            .ok()?
            .ok()?;
        let vocab = self.words.nrows() as u32;
        Some(enc.get_ids().iter().map(|&i| i.min(vocab - 1)).collect())
    }

    /// The unit vector of `text`: the mean of its windows' vectors (at most [`MAX_WINDOWS`]).
    pub fn embed(&self, text: &str) -> Option<Vec<f32>> {
        let ids = self.pieces(text)?;
        let room = self.window - 2;
        let mut sum = Array1::<f32>::zeros(self.dims);
        let mut windows = ids.chunks(room).take(MAX_WINDOWS).peekable();
        if windows.peek().is_none() {
            sum += &self.window_vector(&[]);
        }
        for w in windows {
            sum.scaled_add(w.len().max(1) as f32, &self.window_vector(w));
        }
        let norm = sum.dot(&sum).sqrt();
        if !norm.is_finite() || norm == 0.0 {
            return Some(vec![0.0; self.dims]);
        }
        Some((sum / norm).to_vec())
    }

    /// One window's pooled vector, a unit vector.
    fn window_vector(&self, pieces: &[u32]) -> Array1<f32> {
        let mut ids = Vec::with_capacity(pieces.len() + 2);
        ids.push(self.cls);
        ids.extend_from_slice(pieces);
        ids.push(self.sep);
        let x = self.forward(&ids);
        let pooled = if self.cls_pooling {
            x.row(0).to_owned()
        } else {
            x.mean_axis(Axis(0))
                .unwrap_or_else(|| Array1::zeros(self.dims))
        };
        let norm = pooled.dot(&pooled).sqrt();
        if norm > 0.0 && norm.is_finite() {
            pooled / norm
        } else {
            Array1::zeros(self.dims)
        }
    }

    /// The last layer's states of `ids` (one row per piece).
    fn forward(&self, ids: &[u32]) -> Array2<f32> {
        let n = ids.len().min(self.positions.nrows());
        let h = self.dims;
        let mut x = Array2::<f32>::zeros((n, h));
        for (i, mut row) in x.rows_mut().into_iter().enumerate() {
            row.assign(&self.words.row(ids[i] as usize));
            row += &self.positions.row(i);
            row += &self.token_type;
        }
        self.norm(&mut x, &self.embed_norm);
        let dh = h / self.heads;
        let scale = 1.0 / (dh as f32).sqrt();
        for layer in &self.layers {
            let qkv = dense(x.view(), &layer.qkv);
            let mut context = Array2::<f32>::zeros((n, h));
            for head in 0..self.heads {
                let cols = |from: usize| qkv.slice_axis(Axis(1), Slice::from(from..from + dh));
                let q = cols(head * dh);
                let k = cols(h + head * dh);
                let v = cols(2 * h + head * dh);
                let mut scores = q.dot(&k.t());
                for mut row in scores.rows_mut() {
                    let max = row.fold(f32::NEG_INFINITY, |m, &s| m.max(s * scale));
                    let mut total = 0.0;
                    row.mapv_inplace(|s| {
                        let e = (s * scale - max).exp();
                        total += e;
                        e
                    });
                    row /= total;
                }
                context
                    .slice_axis_mut(Axis(1), Slice::from(head * dh..(head + 1) * dh))
                    .assign(&scores.dot(&v));
            }
            let mut attended = dense(context.view(), &layer.attn_out);
            attended += &x;
            self.norm(&mut attended, &layer.attn_norm);
            let mut inner = dense(attended.view(), &layer.inner);
            inner.mapv_inplace(gelu);
            let mut out = dense(inner.view(), &layer.out);
            out += &attended;
            self.norm(&mut out, &layer.out_norm);
            x = out;
        }
        x
    }

    fn norm(&self, x: &mut Array2<f32>, n: &LayerNorm) {
        let h = x.ncols() as f32;
        for mut row in x.rows_mut() {
            let mean = row.sum() / h;
            let var = row.fold(0.0, |a, &v| a + (v - mean) * (v - mean)) / h;
            let inv = 1.0 / (var + self.eps).sqrt();
            row.mapv_inplace(|v| (v - mean) * inv);
            row *= &n.gamma;
            row += &n.beta;
        }
    }
}

fn dense(x: ArrayView2<f32>, d: &Dense) -> Array2<f32> {
    let mut y = x.dot(&d.w);
    y += &d.b;
    y
}

/// BERT's activation, `x·Φ(x)`, with erf to within 1.5·10⁻⁷ (Abramowitz and Stegun 7.1.26).
fn gelu(x: f32) -> f32 {
    0.5 * x * (1.0 + erf(x / std::f32::consts::SQRT_2))
}

fn erf(x: f32) -> f32 {
    let (sign, x) = (x.signum(), x.abs());
    let t = 1.0 / (1.0 + 0.327_591_1 * x);
    let poly = ((((1.061_405_4 * t - 1.453_152_1) * t + 1.421_413_8) * t - 0.284_496_74) * t
        + 0.254_829_6)
        * t;
    sign * (1.0 - poly * (-x * x).exp())
}

#[cfg(test)]
mod tests;
