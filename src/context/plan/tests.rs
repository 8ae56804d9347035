use super::*;

fn demo() -> (tempfile::TempDir, Vault) {
    let dir = tempfile::tempdir().unwrap();
    crate::vault::demo::write_demo_vault(dir.path()).unwrap();
    let vault = Vault::open(dir.path()).unwrap();
    (dir, vault)
}

fn request() -> ContextRequest {
    ContextRequest {
        text: "How do they find columns?".into(),
        mentions: vec![
            "@notes/".into(),
            "@papers/dense-vs-sparse/paper.pdf".into(),
            "@../outside".into(),
            "@notes/%2e%2e/README.md".into(),
            "@papers/layoutflow/paper.pdf".into(),
        ],
        current: Some(CurrentPaper {
            path: "papers/layoutflow/paper.pdf".into(),
            page: Some(1),
        }),
        selection: Some(Selection {
            path: "papers/layoutflow/paper.pdf".into(),
            page: Some(2),
            text: "A gutter is a vertical strip of whitespace".into(),
        }),
        ..ContextRequest::default()
    }
}

#[test]
fn same_request_same_bytes() {
    let (_d, vault) = demo();
    let a = plan(&vault, &request()).to_json_pretty();
    let b = plan(&vault, &request()).to_json_pretty();
    assert_eq!(a, b);
    // Mention order does not matter either: sources and manifest have a fixed order.
    let mut r = request();
    r.mentions.reverse();
    let c = plan(&vault, &r);
    assert_eq!(c.sources, plan(&vault, &request()).sources);
    assert_eq!(c.manifest, plan(&vault, &request()).manifest);
    assert_eq!(c.fingerprint, plan(&vault, &request()).fingerprint);
}

#[test]
fn sources_omissions_and_evidence() {
    let (_d, vault) = demo();
    let p = plan(&vault, &request());
    let paths: Vec<(&str, EntryKind)> = p
        .sources
        .iter()
        .map(|s| (s.path.as_str(), s.kind))
        .collect();
    assert_eq!(
        paths,
        vec![
            ("notes", EntryKind::Directory),
            ("papers/dense-vs-sparse/paper.pdf", EntryKind::Paper),
            ("papers/layoutflow/paper.pdf", EntryKind::Paper),
        ]
    );
    let reasons: Vec<(&str, &str)> = p
        .omitted
        .iter()
        .map(|o| (o.mention.as_str(), o.reason.as_str()))
        .collect();
    assert!(reasons.contains(&("@../outside", "traversal")));
    assert!(reasons.contains(&("@notes/%2e%2e/README.md", "encoded")));
    assert!(reasons.contains(&("@papers/layoutflow/paper.pdf", "duplicate")));
    assert_eq!(p.manifest.len(), 7, "every candidate is in the manifest");
    assert_eq!(p.mode, Mode::Mcp);
    let names: Vec<&str> = p.tools.iter().map(|t| t.as_str()).collect();
    assert_eq!(names, ["context_read", "context_search", "paper_relations"]);
    // Selection on page 2, current page 1: two evidence items, no abstract anywhere.
    assert_eq!(p.evidence.len(), 2);
    assert_eq!(
        p.evidence[0].citation_uri,
        "papers/layoutflow/paper.pdf#page=2"
    );
    assert_eq!(
        p.evidence[0].quote.as_deref(),
        Some("A gutter is a vertical strip of whitespace")
    );
    assert_eq!(
        p.evidence[1].citation_uri,
        "papers/layoutflow/paper.pdf#page=1"
    );
    assert!(p.evidence[1].quote.is_none());
    let json = p.to_json_pretty();
    assert!(!json.contains("abstract"), "no abstracts in a plan");
}

/// The preview counts a mention of a source granted already apart from the refused ones.
#[test]
fn the_preview_counts_refusals_and_duplicates_apart() {
    let (_d, vault) = demo();
    let p = plan(&vault, &request());
    let preview = p.preview();
    assert_eq!(
        preview,
        PlanPreview {
            mode: "mcp".into(),
            sources: 3,
            // `@../outside` and `@notes/%2e%2e/README.md`.
            omitted: 2,
            // The current paper and the mention of the selection's paper.
            duplicates: 2,
            fingerprint: p.fingerprint.clone(),
        }
    );
}

#[test]
fn long_quotes_are_truncated_and_marked() {
    let (_d, vault) = demo();
    let mut r = request();
    r.selection.as_mut().unwrap().text = "word ".repeat(400);
    let p = plan(&vault, &r);
    let q = p.evidence[0].quote.as_ref().unwrap();
    assert_eq!(q.chars().count(), QUOTE_CAP_FOR_TEST);
    assert!(p.evidence[0].truncated);
    let rendered = crate::context::prompt::render(&p, &r.text);
    assert!(rendered.contains("quote truncated at 1200 characters"));
}
const QUOTE_CAP_FOR_TEST: usize = crate::context::budget::QUOTE_CAP;

#[test]
fn fingerprint_ignores_quotes_prompt_and_content() {
    let (_d, vault) = demo();
    let base = plan(&vault, &request());
    let mut r = request();
    r.selection.as_mut().unwrap().text = "a completely different quote".into();
    r.text = "another question entirely".into();
    assert_eq!(plan(&vault, &r).fingerprint, base.fingerprint);
    // Editing a granted paper changes its hash, not the fingerprint.
    let pdf = vault.root().join("papers/dense-vs-sparse/paper.pdf");
    let mut bytes = std::fs::read(&pdf).unwrap();
    bytes.extend_from_slice(b"\n% edited\n");
    std::fs::write(&pdf, bytes).unwrap();
    let after = plan(&vault, &request());
    assert_eq!(after.fingerprint, base.fingerprint);
    assert_ne!(after.sources, base.sources);
}

#[test]
fn fingerprint_follows_sources_budget_tools_and_mode() {
    let (_d, vault) = demo();
    let base = plan(&vault, &request());
    let mut more = request();
    more.mentions.push("README.md".into());
    assert_ne!(
        plan(&vault, &more).fingerprint,
        base.fingerprint,
        "adding a source"
    );
    let mut fewer = request();
    fewer.mentions.retain(|m| m != "@notes/");
    assert_ne!(
        plan(&vault, &fewer).fingerprint,
        base.fingerprint,
        "removing a source"
    );
    let mut budget = request();
    budget.budget.read_chars = 9000;
    assert_ne!(
        plan(&vault, &budget).fingerprint,
        base.fingerprint,
        "budget"
    );
    let mut remote = request();
    remote.locality = Locality::Remote;
    let rp = plan(&vault, &remote);
    assert_eq!(rp.mode, Mode::PromptOnly);
    assert!(rp.tools.is_empty());
    assert_ne!(rp.fingerprint, base.fingerprint, "mode and tools");
    // Tools alone and mode alone, with everything else fixed.
    let f = |tools: &[ContextTool], mode| fingerprint(tools, &base.sources, &base.budget, mode);
    let all = [
        ContextTool::ContextRead,
        ContextTool::ContextSearch,
        ContextTool::PaperRelations,
    ];
    assert_eq!(f(&all, Mode::Mcp), base.fingerprint);
    assert_ne!(f(&all[..2], Mode::Mcp), base.fingerprint, "tool list");
    assert_ne!(f(&all, Mode::PromptOnly), base.fingerprint, "mode");
    let mut reversed = all;
    reversed.reverse();
    assert_eq!(
        f(&reversed, Mode::Mcp),
        base.fingerprint,
        "tool order is irrelevant"
    );
    // A different kind at the same path is a different source.
    let mut kinds = base.sources.clone();
    kinds[0].kind = EntryKind::File;
    assert_ne!(
        fingerprint(&base.tools, &kinds, &base.budget, Mode::Mcp),
        base.fingerprint
    );
}

#[test]
fn property_any_subset_and_order_of_mentions() {
    // Every subset of the candidate mentions, in two orders: the plan is the same bytes for
    // both orders, and two subsets share a fingerprint exactly when they grant the same set.
    let (_d, vault) = demo();
    let pool = [
        "notes/reading-list.md",
        "datasets/",
        "papers/receipts-qa/paper.pdf",
        "notes/TODO",
        ".hidden",
        "missing.md",
    ];
    let mut seen: Vec<(Vec<String>, String)> = Vec::new();
    for mask in 0u32..(1 << pool.len()) {
        let picked: Vec<String> = pool
            .iter()
            .enumerate()
            .filter(|(i, _)| mask & (1 << i) != 0)
            .map(|(_, m)| m.to_string())
            .collect();
        let req = |m: Vec<String>| ContextRequest {
            mentions: m,
            ..ContextRequest::default()
        };
        let mut rev = picked.clone();
        rev.reverse();
        let a = plan(&vault, &req(picked.clone()));
        let b = plan(&vault, &req(rev));
        assert_eq!(a.to_json_pretty(), b.to_json_pretty());
        let granted: Vec<String> = a.sources.iter().map(|s| s.path.clone()).collect();
        assert_eq!(a.mode == Mode::Mcp, !granted.is_empty());
        for (g, fp) in &seen {
            assert_eq!(g == &granted, fp == &a.fingerprint, "{g:?} vs {granted:?}");
        }
        seen.push((granted, a.fingerprint));
    }
}
