//! `agentero plan` through the real binary: JSON on stdout, byte-identical across runs, bad
//! mentions omitted with reasons, and `--grant` writing the grant where the grant lives.

use crate::common;

use std::path::PathBuf;

use serde_json::Value;

fn plan_json(out: &std::process::Output) -> Value {
    assert!(out.status.success(), "plan failed: {}", common::stderr(out));
    serde_json::from_str(&common::stdout(out)).expect("stdout is one JSON document")
}

#[test]
fn plan_is_json_and_deterministic() {
    let dir = common::demo_vault();
    let v = dir.path().to_str().unwrap();
    // Titles come from the index; without one the plan names papers by their file.
    assert!(common::agentero(&["index", v], dir.path()).status.success());
    let args = [
        "plan",
        "--vault",
        v,
        "--paper",
        "papers/layoutflow/paper.pdf",
        "--page",
        "2",
        "--selection",
        "A gutter is a vertical strip of whitespace",
        "@notes/",
        "@papers/receipts-qa/paper.pdf",
    ];
    let a = common::agentero(&args, dir.path());
    let b = common::agentero(&args, dir.path());
    assert_eq!(a.stdout, b.stdout, "same request, same vault: same bytes");
    let p = plan_json(&a);
    assert_eq!(p["mode"], "mcp");
    assert_eq!(p["version"], 1);
    assert_eq!(p["fingerprint"].as_str().unwrap().len(), 64);
    assert_eq!(p["budget"]["search_cards"], 8);
    assert_eq!(p["budget"]["excerpt_chars"], 400);
    assert_eq!(p["budget"]["read_chars"], 8000);
    assert_eq!(p["budget"]["turn_chars"], 40000);
    assert_eq!(p["budget"]["quote_cap"], 1200);
    let sources: Vec<(&str, &str)> = p["sources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["kind"].as_str().unwrap(), s["path"].as_str().unwrap()))
        .collect();
    assert_eq!(
        sources,
        [
            ("directory", "notes"),
            ("paper", "papers/layoutflow/paper.pdf"),
            ("paper", "papers/receipts-qa/paper.pdf"),
        ]
    );
    for s in p["sources"].as_array().unwrap() {
        assert_eq!(s["sha256"].as_str().unwrap().len(), 64);
    }
    let ev = &p["evidence"][0];
    assert_eq!(ev["citationUri"], "papers/layoutflow/paper.pdf#page=2");
    assert_eq!(ev["quote"], "A gutter is a vertical strip of whitespace");
    assert!(ev["title"].as_str().unwrap().starts_with("LayoutFlow"));
    assert!(!common::stdout(&a).contains("\"abstract\""));
    // Keys are sorted at every level (canonical output).
    let text = common::stdout(&a);
    assert!(text.find("\"budget\"").unwrap() < text.find("\"evidence\"").unwrap());
    assert!(text.find("\"evidence\"").unwrap() < text.find("\"fingerprint\"").unwrap());
}

#[test]
fn bad_mentions_are_omitted_with_reasons() {
    let dir = common::demo_vault();
    let root = dir.path();
    std::fs::write(root.join("notes/.draft.md"), "hidden").unwrap();
    std::fs::write(root.join("picture.png"), [0u8, 1, 2]).unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("x.md"), "outside").unwrap();
    std::os::unix::fs::symlink(outside.path().join("x.md"), root.join("notes/escape.md")).unwrap();
    let v = root.to_str().unwrap();
    let out = common::agentero(
        &[
            "plan",
            "--vault",
            v,
            "@../etc/passwd",
            "@/etc/passwd",
            "@notes/.draft.md",
            "@.agentero/catalog.json",
            "@notes/%2e%2e/README.md",
            "@notes/escape.md",
            "@missing.md",
            "@picture.png",
            "@README.md",
            "@README.md",
            "@not\u{FF0F}real.md",
        ],
        root,
    );
    let p = plan_json(&out);
    let reasons: Vec<(String, String)> = p["omitted"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| {
            (
                o["mention"].as_str().unwrap().to_string(),
                o["reason"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let reason = |m: &str| {
        reasons
            .iter()
            .find(|(x, _)| x == m)
            .map(|(_, r)| r.as_str())
    };
    assert_eq!(reason("@../etc/passwd"), Some("traversal"));
    assert_eq!(reason("@/etc/passwd"), Some("absolute_path"));
    assert_eq!(reason("@notes/.draft.md"), Some("hidden"));
    assert_eq!(reason("@.agentero/catalog.json"), Some("state_dir"));
    assert_eq!(reason("@notes/%2e%2e/README.md"), Some("encoded"));
    assert_eq!(reason("@notes/escape.md"), Some("outside_vault"));
    assert_eq!(reason("@missing.md"), Some("not_found"));
    assert_eq!(reason("@picture.png"), Some("unsupported"));
    assert_eq!(reason("@README.md"), Some("duplicate"));
    assert_eq!(reason("@not\u{FF0F}real.md"), Some("suspicious_characters"));
    assert_eq!(p["sources"].as_array().unwrap().len(), 1);
    assert_eq!(p["manifest"].as_array().unwrap().len(), 11);
    // Nothing grantable and a remote agent are both prompt-only.
    let none = plan_json(&common::agentero(
        &["plan", "--vault", v, "@missing.md"],
        root,
    ));
    assert_eq!(none["mode"], "prompt_only");
    assert_eq!(none["tools"].as_array().unwrap().len(), 0);
    let remote = plan_json(&common::agentero(
        &["plan", "--vault", v, "--remote", "@README.md"],
        root,
    ));
    assert_eq!(remote["mode"], "prompt_only");
    assert_ne!(remote["fingerprint"], p["fingerprint"]);
}

#[test]
fn grant_is_written_where_the_spec_says() {
    let dir = common::demo_vault();
    let root = dir.path().canonicalize().unwrap();
    let v = root.to_str().unwrap();
    // Index first so that the host-side citing-scan cache has something to cover.
    assert!(common::agentero(&["index", v], &root).status.success());
    let run = || {
        common::agentero(
            &[
                "plan",
                "--vault",
                v,
                "--grant",
                "@notes/",
                "@papers/layoutflow/paper.pdf",
            ],
            &root,
        )
    };
    let (a, b) = (run(), run());
    let grant_path = |o: &std::process::Output| -> PathBuf {
        let err = common::stderr(o);
        let line = err
            .lines()
            .find_map(|l| l.strip_prefix("grant: "))
            .expect("grant path on stderr");
        PathBuf::from(line)
    };
    let (pa, pb) = (grant_path(&a), grant_path(&b));
    assert_ne!(pa, pb, "every --grant is a new runtime");
    let sessions = root.join(".agentero/context-sessions");
    assert_eq!(pa.parent().unwrap().parent().unwrap(), sessions);
    assert_eq!(pa.file_name().unwrap(), "grant.json");
    let plan = plan_json(&a);
    let g: Value = serde_json::from_slice(&std::fs::read(&pa).unwrap()).unwrap();
    for key in [
        "version",
        "runtimeId",
        "vault",
        "turnId",
        "sources",
        "budget",
        "tools",
        "fingerprint",
        "mode",
    ] {
        assert!(g.get(key).is_some(), "grant lacks {key}");
    }
    assert_eq!(
        g["runtimeId"].as_str().unwrap(),
        pa.parent().unwrap().file_name().unwrap().to_str().unwrap()
    );
    assert_eq!(g["vault"].as_str().unwrap(), v);
    assert_eq!(g["fingerprint"], plan["fingerprint"]);
    assert_eq!(g["sources"], plan["sources"]);
    assert_eq!(g["tools"], plan["tools"]);
    assert_eq!(g["mode"], "mcp");
    let gb: Value = serde_json::from_slice(&std::fs::read(&pb).unwrap()).unwrap();
    assert_ne!(g["turnId"], gb["turnId"]);
    assert_eq!(g["fingerprint"], gb["fingerprint"]);
    let manifest: Value =
        serde_json::from_slice(&std::fs::read(pa.with_file_name("manifest.json")).unwrap())
            .unwrap();
    assert_eq!(manifest["manifest"], plan["manifest"]);
    assert_eq!(manifest["turnId"], g["turnId"]);
    // No temporary files are left behind by the atomic writes.
    let names: Vec<String> = std::fs::read_dir(pa.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
    assert!(
        root.join(".agentero/cache/citing-scan.json").is_file(),
        "the host writes the citing-scan cache"
    );
    // The plan on stdout is the same with or without --grant.
    let plain = common::agentero(
        &[
            "plan",
            "--vault",
            v,
            "@notes/",
            "@papers/layoutflow/paper.pdf",
        ],
        &root,
    );
    assert_eq!(plain.stdout, a.stdout);
}
