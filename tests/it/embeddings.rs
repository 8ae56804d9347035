//! Hybrid retrieval (issue 37): passage vectors written by `agentero index` beside the index,
//! kept for unchanged documents, written again by another model, fused with BM25 so that a
//! passage sharing no word with the query but its meaning is found — by `agentero search`,
//! `vault_search` and `context_search` alike — and nothing different without a model. A tiny
//! model written here gives words the meanings the tests need (`common::embedding_model`).
//! A vectors file a hostile vault plants is refused, never read past its end.

use std::path::PathBuf;
use std::process::Output;
use std::time::Duration;

use serde_json::{Value, json};

use crate::common::{self, embedding_model::tiny_model};

/// A demo vault with notes whose meanings the tiny model knows.
struct Fixture {
    dir: tempfile::TempDir,
    vault: PathBuf,
    model: PathBuf,
}

const NOTES: [(&str, &str); 4] = [
    (
        "lab/annealing.md",
        "# Samples\n\nThe samples were annealed in a furnace for two hours before testing.\n",
    ),
    (
        "lab/housing.md",
        "# City records\n\nHome sales and property values in the city were collected from public records.\n",
    ),
    (
        "lab/parser.md",
        "# Reader\n\nThe parser reads tokens and builds a syntax tree from the grammar.\n",
    ),
    (
        "lab/curve.md",
        "# Load\n\nThe curve grows with the load and culminates at w001 w002.\n",
    ),
];

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let vault = dir.path().join("vault");
    agentero::vault::demo::write_demo_vault(&vault).unwrap();
    for (rel, text) in NOTES {
        let p = vault.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    // A long note whose one sentence on heat is in its middle, among words the tiny model
    // does not know (which count for nothing in a vector).
    let filler = |from: usize| {
        (from..from + 40)
            .map(|i| format!("inventory{i:03}"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    std::fs::write(
        vault.join("lab/long.md"),
        format!(
            "# Log\n\n{}\nThe bars were annealed in the furnace overnight.\n{}\n",
            filler(10),
            filler(40)
        ),
    )
    .unwrap();
    let model = tiny_model(&dir.path().join("tiny"), 1);
    Fixture { dir, vault, model }
}

impl Fixture {
    /// The binary with `model` (a folder, or `off`) as its embedding model.
    fn run(&self, model: &str, args: &[&str]) -> Output {
        let mut c = common::command(self.dir.path());
        c.env("AGENTERO_EMBEDDINGS", model).args(args);
        common::output_within(c, Duration::from_secs(120))
    }

    fn index(&self, model: &str) -> String {
        let out = self.run(model, &["index", self.vault.to_str().unwrap()]);
        assert!(out.status.success(), "{}", common::stderr(&out));
        common::stdout(&out)
    }

    fn search(&self, model: &str, query: &str) -> Value {
        let v = self.vault.to_str().unwrap();
        let out = self.run(model, &["search", "--json", "--vault", v, query]);
        let err = common::stderr(&out);
        assert!(out.status.success() && !err.contains("panicked"), "{err}");
        serde_json::from_str(&common::stdout(&out)).unwrap()
    }

    fn model(&self) -> &str {
        self.model.to_str().unwrap()
    }

    fn vectors(&self) -> PathBuf {
        self.vault.join(".agentero/vectors.bin")
    }
}

fn paths(found: &Value) -> Vec<String> {
    found["cards"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["path"].as_str().unwrap().to_string())
        .collect()
}

/// `(embedded, kept)` of an index run's summary.
fn embedded_kept(summary: &str) -> (usize, usize) {
    let re = regex::Regex::new(r"(\d+) passages embedded, (\d+) kept").unwrap();
    let c = re
        .captures(summary)
        .unwrap_or_else(|| panic!("no embeddings line: {summary}"));
    (c[1].parse().unwrap(), c[2].parse().unwrap())
}

#[test]
fn vectors_are_written_then_kept_and_a_changed_note_is_embedded_again() {
    let f = fixture();
    let (embedded, kept) = embedded_kept(&f.index(f.model()));
    assert!(embedded >= 20 && kept == 0, "{embedded} {kept}");
    let bytes = std::fs::read(f.vectors()).unwrap();
    assert!(bytes.starts_with(b"AGVECS01"));

    let again = f.index(f.model());
    assert!(again.starts_with("Up to date"), "{again}");
    assert_eq!(embedded_kept(&again), (0, embedded));
    assert_eq!(std::fs::read(f.vectors()).unwrap(), bytes, "rewritten");

    let note = f.vault.join("lab/housing.md");
    let text = std::fs::read_to_string(&note).unwrap() + "Prices of homes grew.\n";
    std::fs::write(&note, text).unwrap();
    assert_eq!(embedded_kept(&f.index(f.model())), (1, embedded - 1));
}

#[test]
fn another_model_embeds_everything_again() {
    let f = fixture();
    let (n, _) = embedded_kept(&f.index(f.model()));
    let other = tiny_model(&f.dir.path().join("tiny-2"), 2);
    let out = f.index(other.to_str().unwrap());
    assert_eq!(embedded_kept(&out), (n, 0), "{out}");
    assert!(out.contains("written by tiny"), "{out}");
    // Vectors of another model are never fused: the first model searches BM25 alone until the
    // next index.
    let found = f.search(f.model(), "heat treatment");
    assert!(!paths(&found).contains(&"lab/annealing.md".to_string()));
    let listed = f.run(f.model(), &["model", "--vault", f.vault.to_str().unwrap()]);
    assert!(
        common::stdout(&listed).contains("by tiny-2"),
        "{}",
        common::stdout(&listed)
    );
}

#[test]
fn a_passage_sharing_only_meaning_with_the_query_is_found_by_every_search() {
    let f = fixture();
    f.index(f.model());
    let bm25 = f.search("off", "heat treatment");
    assert!(
        !paths(&bm25).contains(&"lab/annealing.md".to_string()),
        "BM25 alone should not find it: {bm25}"
    );
    let hybrid = f.search(f.model(), "heat treatment");
    assert!(
        paths(&hybrid).contains(&"lab/annealing.md".to_string()),
        "{hybrid}"
    );
    // A query no word of which is in the vault: the vectors alone answer.
    let alone = f.search(f.model(), "thermal tempered");
    let mut heat = paths(&alone);
    heat.sort();
    assert_eq!(heat, ["lab/annealing.md", "lab/long.md"], "{alone}");
    // A passage found by meaning alone is excerpted where it is nearest to the query.
    let long = alone["cards"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["path"] == "lab/long.md")
        .unwrap_or_else(|| panic!("{alone}"));
    let excerpt = long["excerpt"].as_str().unwrap();
    assert!(
        excerpt.starts_with('…') && excerpt.contains("annealed in the furnace"),
        "{excerpt}"
    );
    assert!(paths(&f.search("off", "thermal tempered")).is_empty());
    // A word query BM25 answers keeps its answer first.
    let words = f.search(f.model(), "syntax tree grammar");
    assert_eq!(paths(&words)[0], "lab/parser.md");

    tokio::runtime::Runtime::new().unwrap().block_on(async {
        tokio::time::timeout(Duration::from_secs(120), mcp_searches(&f))
            .await
            .expect("the MCP searches finish")
    });
}

/// `vault_search` (`agentero serve --stdio`) and `context_search` (the context server of a
/// turn, over a grant of `lab/`) find the paraphrase too.
async fn mcp_searches(f: &Fixture) {
    let home = f.dir.path().join("mcp-home");
    let mut serve = tokio::process::Command::new(env!("CARGO_BIN_EXE_agentero"));
    serve
        .args(["serve", "--stdio", "--refresh", "0"])
        .arg(&f.vault)
        .env("AGENTERO_EMBEDDINGS", f.model());
    let client = common::stdio_client(serve, &home).await;
    let r = common::call_tool(&client, "vault_search", json!({"query": "heat treatment"})).await;
    let cards = r.structured_content.clone().unwrap();
    assert!(
        paths(&cards).contains(&"lab/annealing.md".to_string()),
        "{cards}"
    );
    drop(client);

    let vault = agentero::vault::Vault::open(&f.vault).unwrap();
    let req = agentero::context::ContextRequest {
        mentions: vec!["lab/".into()],
        ..Default::default()
    };
    let plan = agentero::context::plan(&vault, &req);
    let (files, _) =
        agentero::context::grant::write(&vault, &agentero::context::grant::new_id("rt"), &plan)
            .unwrap();
    let mut ctx = tokio::process::Command::new(env!("CARGO_BIN_EXE_agentero"));
    ctx.arg("--agentero-context-mcp")
        .arg(files.grant())
        .env("AGENTERO_EMBEDDINGS", f.model());
    let client = common::stdio_client(ctx, &home).await;
    let r = common::call_tool(
        &client,
        "context_search",
        json!({"query": "heat treatment"}),
    )
    .await;
    let cards = r.structured_content.clone().unwrap();
    assert!(
        paths(&cards).contains(&"lab/annealing.md".to_string()),
        "{cards}"
    );
}

#[test]
fn without_a_model_nothing_changes_and_one_line_says_how_to_add_one() {
    let f = fixture();
    let out = f.index("off");
    assert!(!f.vectors().exists());
    assert!(
        out.lines().last().unwrap().contains("agentero model pull"),
        "{out}"
    );
    let queries = [
        "heat treatment",
        "reading order",
        "citation contexts",
        "syntax tree",
    ];
    let before: Vec<Value> = queries.iter().map(|q| f.search("off", q)).collect();
    // Vectors on disk and no model: the same answers.
    f.index(f.model());
    assert!(f.vectors().exists());
    let after: Vec<Value> = queries.iter().map(|q| f.search("off", q)).collect();
    assert_eq!(before, after);
    let listed = common::stdout(&f.run("off", &["model", "--vault", f.vault.to_str().unwrap()]));
    assert!(
        listed.contains("In use: none") && listed.contains("agentero model pull"),
        "{listed}"
    );
}

#[test]
fn the_model_comes_from_the_config_or_the_hugging_face_cache() {
    let f = fixture();
    let home = f.dir.path().join(".agentero-test-home");
    let list = |f: &Fixture| {
        let mut c = common::command(f.dir.path());
        c.args(["model", "--vault", f.vault.to_str().unwrap()]);
        common::stdout(&common::output_within(c, Duration::from_secs(60)))
    };
    assert!(list(&f).contains("In use: none"));
    // The Hugging Face cache's layout: models--ORG--NAME/snapshots/REV, refs/main.
    let repo = home.join("cache/huggingface/hub/models--test--tiny");
    tiny_model(&repo.join("snapshots/abc123"), 3);
    std::fs::create_dir_all(repo.join("refs")).unwrap();
    std::fs::write(repo.join("refs/main"), "abc123").unwrap();
    let listed = list(&f);
    assert!(listed.contains("  test/tiny  "), "{listed}");
    assert!(
        listed.contains("In use: test/tiny (16 dimensions)"),
        "{listed}"
    );
    // The config names another one (a folder): it is used.
    std::fs::create_dir_all(home.join("config/agentero")).unwrap();
    std::fs::write(
        home.join("config/agentero/config.toml"),
        format!("[search]\nembeddings = {:?}\n", f.model()),
    )
    .unwrap();
    assert!(list(&f).contains("In use: tiny (16 dimensions)"));
    std::fs::write(
        home.join("config/agentero/config.toml"),
        "[search]\nembeddings = \"minishlab/not-here\"\n",
    )
    .unwrap();
    let listed = list(&f);
    assert!(
        listed.contains("not installed")
            && listed.contains("agentero model pull minishlab/not-here"),
        "{listed}"
    );
}

/// A transformer in the Hugging Face cache (laid out as the hub's tools lay it out: snapshot
/// files that are links to blobs) is listed as one and never picked by itself, since an index
/// run with it takes minutes; named in the config, it is the model in use, and says what it is.
#[test]
fn a_transformer_in_the_cache_is_listed_and_used_only_when_named() {
    let Some(minilm) = common::embedding_model::minilm_folder() else {
        common::skip::missing(common::skip::Peer::MiniLm, "");
        return;
    };
    let f = fixture();
    let home = f.dir.path().join(".agentero-test-home");
    let repo = home.join("cache/huggingface/hub/models--sentence-transformers--all-MiniLM-L6-v2");
    let snap = repo.join("snapshots/8b3219a9");
    std::fs::create_dir_all(&snap).unwrap();
    for file in agentero::vault::embed::MODEL_FILES {
        std::os::unix::fs::symlink(minilm.join(file), snap.join(file)).unwrap();
    }
    std::fs::create_dir_all(repo.join("refs")).unwrap();
    std::fs::write(repo.join("refs/main"), "8b3219a9").unwrap();
    let list = |f: &Fixture| {
        let mut c = common::command(f.dir.path());
        c.args(["model", "--vault", f.vault.to_str().unwrap()]);
        common::stdout(&common::output_within(c, Duration::from_secs(120)))
    };
    let listed = list(&f);
    assert!(
        listed.contains("  sentence-transformers/all-MiniLM-L6-v2  ")
            && listed.contains("(a transformer: used only when named, [search] embeddings = \"sentence-transformers/all-MiniLM-L6-v2\")"),
        "{listed}"
    );
    assert!(listed.contains("In use: none"), "{listed}");
    std::fs::create_dir_all(home.join("config/agentero")).unwrap();
    std::fs::write(
        home.join("config/agentero/config.toml"),
        "[search]\nembeddings = \"sentence-transformers/all-MiniLM-L6-v2\"\n",
    )
    .unwrap();
    let listed = list(&f);
    assert!(
        listed.contains(
            "In use: sentence-transformers/all-MiniLM-L6-v2 (384 dimensions, a transformer: an index run reads every new page with it"
        ),
        "{listed}"
    );
}

#[test]
fn model_pull_fails_clearly_off_line_and_refuses_a_name_that_is_a_path() {
    let f = fixture();
    let mut c = common::command(f.dir.path());
    // A hub that cannot be reached (nothing listens there): the test never reaches the real one.
    c.env("HF_ENDPOINT", "https://127.0.0.1:9")
        .args(["model", "pull", "minishlab/potion-base-8M"]);
    let out = common::output_within(c, Duration::from_secs(60));
    let err = common::stderr(&out);
    assert!(!out.status.success());
    assert!(
        err.contains("cannot download minishlab/potion-base-8M")
            && err.contains("Hugging Face hub"),
        "{err}"
    );
    for bad in ["../../etc", "a/b/c", "org/..", "org--x/y"] {
        let out = f.run("off", &["model", "pull", bad]);
        assert!(!out.status.success());
        assert!(common::stderr(&out).contains("not a model name"), "{bad}");
    }
}

/// Vectors files a hostile vault could plant: cut short, sizes that do not add up, a huge
/// header, rows that point elsewhere, not ours at all.
fn planted(good: &[u8]) -> Vec<(&'static str, Vec<u8>)> {
    let with = |at: usize, bytes: &[u8]| {
        let mut b = good.to_vec();
        b[at..at + bytes.len()].copy_from_slice(bytes);
        b
    };
    vec![
        ("empty", Vec::new()),
        ("cut in the fixed header", good[..20].to_vec()),
        ("cut in half", good[..good.len() / 2].to_vec()),
        ("one byte short", good[..good.len() - 1].to_vec()),
        ("one byte more", [good, &[0]].concat()),
        ("a huge header", with(24, &(u64::MAX - 8).to_le_bytes())),
        (
            "a header past the end",
            with(24, &(good.len() as u64).to_le_bytes()),
        ),
        (
            "rows that overflow",
            with(16, &(u64::MAX / 3).to_le_bytes()),
        ),
        ("a million dimensions", with(8, &1_000_000u32.to_le_bytes())),
        ("zero dimensions", with(8, &0u32.to_le_bytes())),
        ("not a vectors file", with(0, b"NOTVECS!")),
        ("a row in another document", {
            // The first row's document index (just after the header, aligned to 4).
            let header = u64::from_le_bytes(good[24..32].try_into().unwrap()) as usize;
            with((32 + header).next_multiple_of(4), &u32::MAX.to_le_bytes())
        }),
    ]
}

#[test]
fn a_planted_vectors_file_is_refused_and_the_next_index_replaces_it() {
    let f = fixture();
    f.index(f.model());
    let good = std::fs::read(f.vectors()).unwrap();
    let bm25 = f.search("off", "heat treatment");
    let v = f.vault.to_str().unwrap();
    for (what, bytes) in planted(&good) {
        std::fs::write(f.vectors(), &bytes).unwrap();
        // Searched as if there were no vectors: no panic, BM25's answer.
        let found = f.search(f.model(), "heat treatment");
        assert_eq!(found["cards"], bm25["cards"], "{what}");
        let listed = common::stdout(&f.run(f.model(), &["model", "--vault", v]));
        assert!(
            listed.contains("vectors.bin is refused") || listed.contains("cannot be read"),
            "{what}: {listed}"
        );
    }
    let out = f.index(f.model());
    assert!(out.contains("the previous vectors were replaced"), "{out}");
    let found = f.search(f.model(), "heat treatment");
    assert!(paths(&found).contains(&"lab/annealing.md".to_string()));
}

/// all-MiniLM-L6-v2 (`AGENTERO_MINILM`) loaded as an embedding model gives the cosines of an
/// independent implementation of the same network (numpy over the same safetensors, with the
/// Hugging Face `tokenizers` library): the encoder computes the model, not something near it.
/// And the paraphrase a static model misses is near, an unrelated sentence is not.
#[test]
fn a_transformer_model_gives_the_reference_cosines() {
    let Some(folder) = common::embedding_model::minilm_folder() else {
        common::skip::missing(common::skip::Peer::MiniLm, "");
        return;
    };
    let model = agentero::vault::embed::Embedder::load(&folder).unwrap();
    assert!(model.is_encoder());
    assert_eq!(model.dims, 384);
    let gaps =
        "How can I fill the gaps in a series by drawing straight lines between the known values?";
    for (a, b, want) in [
        ("cat", "dog", 0.66064),
        ("heat treatment", "annealed", 0.12585),
        (
            gaps,
            "Missing values can be replaced by linear interpolation with na.approx.",
            0.38550,
        ),
        (
            gaps,
            "The data are quarterly observations of the gross national product.",
            0.08445,
        ),
    ] {
        let v = model.embed(&[a.to_string(), b.to_string()]).unwrap();
        let (x, y) = v.split_at(384);
        let cos: f32 = x.iter().zip(y).map(|(p, q)| p * q).sum();
        assert!(
            (cos - want).abs() < 2e-3,
            "{a:?} / {b:?}: cosine {cos:.5}, the reference says {want:.5}"
        );
    }
}
