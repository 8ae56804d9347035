use super::*;

use std::collections::BTreeMap;

const WORDS: [&str; 12] = [
    "[PAD]",
    "[UNK]",
    "[CLS]",
    "[SEP]",
    "the",
    "heat",
    "treatment",
    "of",
    "steel",
    "sales",
    "prices",
    "##s",
];

/// A WordPiece tokenizer over [`WORDS`] (BERT's, lower-casing).
fn tokenizer_json() -> Vec<u8> {
    let vocab: serde_json::Map<String, serde_json::Value> = WORDS
        .iter()
        .enumerate()
        .map(|(i, w)| (w.to_string(), serde_json::json!(i)))
        .collect();
    serde_json::to_vec(&serde_json::json!({
        "version": "1.0",
        "truncation": {"direction": "Right", "max_length": 4, "strategy": "LongestFirst", "stride": 0},
        "padding": {"strategy": {"Fixed": 16}, "direction": "Right", "pad_to_multiple_of": null,
                    "pad_id": 0, "pad_type_id": 0, "pad_token": "[PAD]"},
        "added_tokens": [],
        "normalizer": {"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true,
                       "strip_accents": null, "lowercase": true},
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "post_processor": null,
        "decoder": null,
        "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                  "max_input_chars_per_word": 100, "vocab": vocab}
    }))
    .unwrap()
}

struct Shape {
    hidden: usize,
    heads: usize,
    layers: usize,
    inner: usize,
    positions: usize,
}

const SMALL: Shape = Shape {
    hidden: 8,
    heads: 2,
    layers: 2,
    inner: 16,
    positions: 32,
};

fn config(s: &Shape) -> Vec<u8> {
    serde_json::to_vec(&serde_json::json!({
        "model_type": "bert",
        "hidden_size": s.hidden,
        "num_attention_heads": s.heads,
        "num_hidden_layers": s.layers,
        "intermediate_size": s.inner,
        "max_position_embeddings": s.positions,
        "layer_norm_eps": 1e-12,
        "hidden_act": "gelu",
        "vocab_size": WORDS.len(),
    }))
    .unwrap()
}

/// The tensors of a BERT of shape `s`, named under `prefix`: deterministic values from `value`
/// (called with the tensor's name and the element's index).
fn tensors(
    s: &Shape,
    prefix: &str,
    value: &dyn Fn(&str, usize) -> f32,
) -> BTreeMap<String, (Vec<usize>, Vec<f32>)> {
    let mut t = BTreeMap::new();
    let mut put = |name: String, shape: Vec<usize>| {
        let n: usize = shape.iter().product();
        let data = (0..n).map(|i| value(&name, i)).collect();
        t.insert(format!("{prefix}{name}"), (shape, data));
    };
    let h = s.hidden;
    put(
        "embeddings.word_embeddings.weight".into(),
        vec![WORDS.len(), h],
    );
    put(
        "embeddings.position_embeddings.weight".into(),
        vec![s.positions, h],
    );
    put("embeddings.token_type_embeddings.weight".into(), vec![2, h]);
    for part in ["weight", "bias"] {
        put(format!("embeddings.LayerNorm.{part}"), vec![h]);
    }
    for l in 0..s.layers {
        let p = format!("encoder.layer.{l}.");
        for (name, out, inp) in [
            ("attention.self.query", h, h),
            ("attention.self.key", h, h),
            ("attention.self.value", h, h),
            ("attention.output.dense", h, h),
            ("intermediate.dense", s.inner, h),
            ("output.dense", h, s.inner),
        ] {
            put(format!("{p}{name}.weight"), vec![out, inp]);
            put(format!("{p}{name}.bias"), vec![out]);
        }
        for norm in ["attention.output.LayerNorm", "output.LayerNorm"] {
            put(format!("{p}{norm}.weight"), vec![h]);
            put(format!("{p}{norm}.bias"), vec![h]);
        }
    }
    t
}

fn safetensors_bytes(t: &BTreeMap<String, (Vec<usize>, Vec<f32>)>) -> Vec<u8> {
    let bytes: Vec<(String, Vec<usize>, Vec<u8>)> = t
        .iter()
        .map(|(n, (shape, data))| {
            let b = data.iter().flat_map(|x| x.to_le_bytes()).collect();
            (n.clone(), shape.clone(), b)
        })
        .collect();
    let views: Vec<(String, safetensors::tensor::TensorView<'_>)> = bytes
        .iter()
        .map(|(n, shape, b)| {
            let v = safetensors::tensor::TensorView::new(safetensors::Dtype::F32, shape.clone(), b)
                .unwrap();
            (n.clone(), v)
        })
        .collect();
    safetensors::serialize(views, &None).unwrap()
}

/// A pseudo-random value in [-0.5, 0.5) for each (tensor, index); layer norms are 1 and 0.
fn random(name: &str, i: usize) -> f32 {
    if name.ends_with("LayerNorm.weight") {
        return 1.0;
    }
    if name.ends_with("LayerNorm.bias") {
        return 0.0;
    }
    let mut x = name.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
    }) ^ (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    (x >> 40) as f32 / (1u64 << 24) as f32 - 0.5
}

fn encoder(s: &Shape, value: &dyn Fn(&str, usize) -> f32) -> Result<Encoder, String> {
    Encoder::from_bytes(
        &tokenizer_json(),
        &safetensors_bytes(&tensors(s, "", value)),
        &config(s),
        None,
    )
}

fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

#[test]
fn a_passage_is_a_unit_vector_that_depends_on_its_words_and_their_order() {
    let e = encoder(&SMALL, &random).unwrap();
    assert_eq!(e.dims, SMALL.hidden);
    let a = e.embed("heat treatment of steel").unwrap();
    let b = e.embed("heat treatment of steel").unwrap();
    let c = e.embed("sales prices").unwrap();
    let d = e.embed("steel of treatment heat").unwrap();
    assert_eq!(a, b, "the same text, the same vector");
    for v in [&a, &c, &d] {
        assert!((dot(v, v) - 1.0).abs() < 1e-4, "{v:?}");
    }
    assert!(dot(&a, &c) < 0.999, "other words, another vector");
    assert!(
        dot(&a, &d) < 0.999,
        "the words are read in order (positions count)"
    );
    // The tokenizer's own padding and truncation (16 and 4 in its file) are not applied: the
    // fifth word counts.
    let four = e.embed("heat treatment of steel").unwrap();
    let five = e.embed("heat treatment of steel sales").unwrap();
    assert!(dot(&four, &five) < 0.999);
}

/// With every layer's weights zero (norms 1 and 0), each layer returns its input: the vector is
/// the mean of the normalized embeddings, computed here by hand.
#[test]
fn with_empty_layers_the_vector_is_the_mean_of_the_normalized_embeddings() {
    let value = |name: &str, i: usize| {
        if name.starts_with("encoder.") && !name.contains("LayerNorm") {
            0.0
        } else {
            random(name, i)
        }
    };
    let e = encoder(&SMALL, &value).unwrap();
    let h = SMALL.hidden;
    let row = |name: &str, r: usize| -> Vec<f32> {
        (0..h).map(|c| random(name, r * h + c)).collect::<Vec<_>>()
    };
    // [CLS] heat steel [SEP]
    let ids = [2usize, 5, 8, 3];
    let mut mean = vec![0.0f32; h];
    for (pos, &id) in ids.iter().enumerate() {
        let x: Vec<f32> = (0..h)
            .map(|c| {
                row("embeddings.word_embeddings.weight", id)[c]
                    + row("embeddings.position_embeddings.weight", pos)[c]
                    + row("embeddings.token_type_embeddings.weight", 0)[c]
            })
            .collect();
        let m = x.iter().sum::<f32>() / h as f32;
        let var = x.iter().map(|v| (v - m) * (v - m)).sum::<f32>() / h as f32;
        for c in 0..h {
            mean[c] += (x[c] - m) / (var + 1e-12).sqrt() / ids.len() as f32;
        }
    }
    let norm = dot(&mean, &mean).sqrt();
    let want: Vec<f32> = mean.iter().map(|v| v / norm).collect();
    let got = e.embed("Heat steel").unwrap();
    for (g, w) in got.iter().zip(&want) {
        assert!((g - w).abs() < 1e-4, "{got:?} vs {want:?}");
    }
}

#[test]
fn a_long_passage_is_read_in_windows_and_stays_a_unit_vector() {
    let e = encoder(&SMALL, &random).unwrap();
    // The positions (32) bound a window: 30 pieces and the two marks.
    assert_eq!(e.window, SMALL.positions);
    let long = "heat treatment of steel ".repeat(400);
    let v = e.embed(&long).unwrap();
    assert!((dot(&v, &v) - 1.0).abs() < 1e-4);
    let empty = e.embed("").unwrap();
    assert_eq!(empty.len(), SMALL.hidden);
    assert!(empty.iter().all(|x| x.is_finite()));
}

#[test]
fn names_under_a_prefix_and_cls_pooling_are_read() {
    let st = safetensors_bytes(&tensors(&SMALL, "bert.", &random));
    let pooling = br#"{"pooling_mode_cls_token": true, "pooling_mode_mean_tokens": false}"#;
    let e = Encoder::from_bytes(&tokenizer_json(), &st, &config(&SMALL), Some(pooling)).unwrap();
    let mean = encoder(&SMALL, &random).unwrap();
    let (a, b) = (
        e.embed("heat steel").unwrap(),
        mean.embed("heat steel").unwrap(),
    );
    assert!(dot(&a, &b) < 0.999, "CLS pooling is another vector");
}

#[test]
fn a_hostile_or_broken_model_is_refused_with_its_reason() {
    let ok = tensors(&SMALL, "", &random);
    let st = safetensors_bytes(&ok);
    let tok = tokenizer_json();
    let refuse = |tok: &[u8], st: &[u8], cfg: &[u8], why: &str| {
        let err = Encoder::from_bytes(tok, st, cfg, None).err().expect(why);
        assert!(err.contains(why), "{err:?} should say {why:?}");
    };
    let cfg = |edit: &dyn Fn(&mut serde_json::Value)| {
        let mut v: serde_json::Value = serde_json::from_slice(&config(&SMALL)).unwrap();
        edit(&mut v);
        serde_json::to_vec(&v).unwrap()
    };
    // Shapes that would ask for gigabytes are refused before anything is allocated.
    refuse(
        &tok,
        &st,
        &cfg(&|v| v["hidden_size"] = serde_json::json!(1u64 << 30)),
        "shape",
    );
    refuse(
        &tok,
        &st,
        &cfg(&|v| v["num_hidden_layers"] = 100_000.into()),
        "shape",
    );
    refuse(
        &tok,
        &st,
        &cfg(&|v| v["num_attention_heads"] = 3.into()),
        "shape",
    );
    refuse(
        &tok,
        &st,
        &cfg(&|v| v["layer_norm_eps"] = 0.into()),
        "shape",
    );
    refuse(
        &tok,
        &st,
        &cfg(&|v| v["hidden_act"] = "relu".into()),
        "relu",
    );
    refuse(
        &tok,
        &st,
        &cfg(&|v| v["model_type"] = "model2vec".into()),
        "BERT",
    );
    refuse(&tok, &st, b"{", "config.json");
    // The config and the weights disagree.
    refuse(
        &tok,
        &st,
        &cfg(&|v| v["intermediate_size"] = 32.into()),
        "intermediate.dense",
    );
    let mut missing = ok.clone();
    missing.remove("encoder.layer.1.output.dense.bias");
    refuse(
        &tok,
        &safetensors_bytes(&missing),
        &config(&SMALL),
        "layer.1.output.dense.bias",
    );
    let mut nan = ok.clone();
    nan.get_mut("encoder.layer.0.intermediate.dense.weight")
        .unwrap()
        .1[3] = f32::NAN;
    refuse(
        &tok,
        &safetensors_bytes(&nan),
        &config(&SMALL),
        "not a number",
    );
    refuse(
        &tok,
        &st[..st.len() / 2],
        &config(&SMALL),
        "model.safetensors",
    );
    refuse(&tok, b"garbage", &config(&SMALL), "model.safetensors");
    // A tokenizer without BERT's marks, or none at all.
    let no_cls = String::from_utf8(tok.clone())
        .unwrap()
        .replace("[CLS]", "[XLS]");
    refuse(no_cls.as_bytes(), &st, &config(&SMALL), "[CLS]");
    refuse(b"{}", &st, &config(&SMALL), "tokenizer.json");
}
