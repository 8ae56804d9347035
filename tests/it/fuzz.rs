//! A fuzzing harness on stable Rust, inside `cargo test` and bounded in time: seeded,
//! reproducible mutation and grammar fuzzing of four targets, each starting from a seed corpus
//! (checked in under `tests/fuzz/`, plus the real corpus when `AGENTERO_CORPUS` is set):
//!
//! - PDF bytes → extraction (the demo papers and the corpus PDFs, mutated);
//! - query strings → the tantivy index, strict and lenient, on a small stack;
//! - citation URIs and paths → grant resolution, checked against what the grant allows;
//! - tool arguments → the three context tools, checked for leaks.
//!
//! (ACP lines from an agent are fuzzed in `tests/fuzz_acp.rs`, through a real process.)
//!
//! `AGENTERO_FUZZ_SCALE=N` multiplies every budget, `AGENTERO_FUZZ_SEED=S` changes the seed; a
//! failure prints the seed and the input that caused it.

use crate::common;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use agentero::context::budget::Budget;
use agentero::context::grant;
use agentero::context::tools::{Access, Ctx, ToolSession};
use agentero::context::{ContextRequest, plan};
use agentero::vault::indexer::{IndexOptions, index_vault};
use agentero::vault::scan::EntryKind;
use agentero::vault::{SearchOptions, Vault};
use serde_json::{Value, json};

const SECRET: &str = "TOPSECRET-FUZZ-0c7e";

fn scale() -> usize {
    std::env::var("AGENTERO_FUZZ_SCALE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1)
        .max(1)
}

fn seed() -> u64 {
    std::env::var("AGENTERO_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x5eed_1010)
}

/// Decodes one line of a seed file (Python's `unicode_escape`: `\n`, `\t`, `\\`, `\xNN`,
/// `\uNNNN`, `\UNNNNNNNN`).
fn unescape(line: &str) -> String {
    let mut out = String::new();
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let hex = |n: usize, chars: &mut std::str::Chars| {
            let h: String = chars.take(n).collect();
            u32::from_str_radix(&h, 16)
                .ok()
                .and_then(char::from_u32)
                .unwrap_or('\u{FFFD}')
        };
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('\\') => out.push('\\'),
            Some('x') => out.push(hex(2, &mut chars)),
            Some('u') => out.push(hex(4, &mut chars)),
            Some('U') => out.push(hex(8, &mut chars)),
            Some(o) => {
                out.push('\\');
                out.push(o);
            }
            None => out.push('\\'),
        }
    }
    out
}

fn seeds(name: &str) -> Vec<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fuzz")
        .join(name);
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .map(unescape)
        .collect()
}

/// Mutates text: characters inserted, deleted, replaced or repeated; pieces of other seeds
/// spliced in.
fn mutate_text(rng: &mut fastrand::Rng, s: &str, pool: &[String], alphabet: &[&str]) -> String {
    let mut chars: Vec<char> = s.chars().collect();
    for _ in 0..rng.usize(1..=4) {
        let at = rng.usize(0..=chars.len());
        match rng.u8(0..6) {
            0 if !chars.is_empty() => {
                let at = at.min(chars.len() - 1);
                chars.remove(at);
            }
            1 => {
                let piece = alphabet[rng.usize(0..alphabet.len())];
                for (i, c) in piece.chars().enumerate() {
                    chars.insert(at + i, c);
                }
            }
            2 if !chars.is_empty() => {
                let at = at.min(chars.len() - 1);
                chars[at] = char::from_u32(rng.u32(0..0x3000)).unwrap_or('?');
            }
            3 => {
                let other = &pool[rng.usize(0..pool.len())];
                let piece: String = other.chars().take(rng.usize(0..=40)).collect();
                for (i, c) in piece.chars().enumerate() {
                    chars.insert(at + i, c);
                }
            }
            4 if !chars.is_empty() => {
                let from = rng.usize(0..chars.len());
                let to = (from + rng.usize(1..=8)).min(chars.len());
                let piece: Vec<char> = chars[from..to].to_vec();
                for _ in 0..rng.usize(1..=50) {
                    chars.splice(at..at, piece.iter().copied());
                }
            }
            _ => {
                chars.truncate(at);
            }
        }
    }
    chars.into_iter().collect()
}

/// Runs `work` on a thread with a small stack: unbounded recursion shows as an abort here,
/// long before it would on the real threads.
fn on_small_stack<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(512 << 10)
        .spawn(work)
        .unwrap()
        .join()
        .expect("the fuzz target panicked")
}

fn report(target: &str, execs: usize, started: Instant, extra: &str) {
    eprintln!(
        "fuzz {target}: {execs} executions in {:.1} s, 0 crashes{extra}",
        started.elapsed().as_secs_f64()
    );
}

// PDF bytes → extraction

fn mutate_bytes(rng: &mut fastrand::Rng, b: &[u8]) -> Vec<u8> {
    const TOKENS: &[&[u8]] = &[
        b"obj",
        b"endobj",
        b"stream",
        b"endstream",
        b"<<",
        b">>",
        b"[",
        b"]",
        b"/Length 999999999",
        b"/Length -1",
        b"/Filter /FlateDecode",
        b"/Type /Page",
        b"/Kids [1 0 R]",
        b"/Parent 1 0 R",
        b"1 0 R",
        b"0 0 R",
        b"xref",
        b"trailer",
        b"startxref",
        b"%%EOF",
        b"/ToUnicode",
        b"BT",
        b"ET",
        b"Tj",
        b"TJ",
        b"(",
        b")",
        b"\\",
        b"/Encrypt",
        b"/Font",
        b"/W [0 [",
        b"99999999999999999999",
        b"-0.0e99999",
        b"/Contents",
        b"beginbfchar",
        b"<FFFF>",
        b"q",
        b"Q",
        b"cm",
        b"Do",
    ];
    let mut v = b.to_vec();
    for _ in 0..rng.usize(1..=8) {
        if v.is_empty() {
            v.extend_from_slice(b"%PDF-1.7\n");
        }
        let at = rng.usize(0..v.len());
        match rng.u8(0..8) {
            0 => v[at] ^= 1 << rng.u8(0..8),
            1 => {
                v[at] = [0, 0xff, b'(', b')', b'<', b'>', b'[', b']', b'/', b'\n'][rng.usize(0..10)]
            }
            2 => {
                let t = TOKENS[rng.usize(0..TOKENS.len())];
                v.splice(at..at, t.iter().copied());
            }
            3 => {
                let end = (at + rng.usize(1..4096)).min(v.len());
                v.drain(at..end);
            }
            4 => {
                let end = (at + rng.usize(1..512)).min(v.len());
                let piece = v[at..end].to_vec();
                let to = rng.usize(0..v.len());
                v.splice(to..to, piece);
            }
            5 => v.truncate(at),
            6 => {
                // Deep nesting, the classic parser stack killer.
                let open = [b"[".as_slice(), b"<<".as_slice(), b"(".as_slice()][rng.usize(0..3)];
                let n = rng.usize(100..20_000);
                let deep: Vec<u8> = open.iter().copied().cycle().take(open.len() * n).collect();
                v.splice(at..at, deep);
            }
            _ => {
                let n = rng.usize(1..64);
                let junk: Vec<u8> = (0..n).map(|_| rng.u8(..)).collect();
                v.splice(at..at, junk);
            }
        }
    }
    v
}

#[test]
fn fuzz_pdf_extraction() {
    let dir = common::demo_vault();
    let mut seeds: Vec<(PathBuf, Vec<u8>)> = Vec::new();
    let mut collect = |root: &Path| {
        let mut stack = vec![root.to_path_buf()];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).unwrap().flatten() {
                let p = e.path();
                if p.is_dir() {
                    stack.push(p);
                } else if p.extension().is_some_and(|x| x == "pdf") {
                    let b = std::fs::read(&p).unwrap();
                    seeds.push((p, b));
                }
            }
        }
    };
    collect(dir.path());
    let corpus = common::corpus();
    if let Some(c) = &corpus {
        collect(c);
    }
    seeds.sort();
    assert!(seeds.len() >= 8, "too few PDF seeds");
    let mut rng = fastrand::Rng::with_seed(seed());
    // Small PDFs are cheap to extract: most of the budget goes to them.
    let budget = 400 * scale() + if corpus.is_some() { 100 * scale() } else { 0 };
    let started = Instant::now();
    let (mut ok, mut failed) = (0usize, 0usize);
    for n in 0..budget {
        let (path, bytes) = &seeds[rng.usize(0..seeds.len())];
        if bytes.len() > 400_000 && rng.u8(0..4) != 0 {
            continue;
        }
        let mutated = mutate_bytes(&mut rng, bytes);
        let input =
            std::env::temp_dir().join(format!("agentero-fuzz-{}-{n}.pdf", std::process::id()));
        let sha = agentero::vault::fsutil::sha256_hex(&mutated);
        match agentero::vault::extract::extract_paper(
            &mut agentero::vault::extract::Isolation::default(),
            &input,
            "papers/fuzz/paper.pdf",
            mutated,
            sha,
            Duration::from_secs(20),
            None,
        ) {
            Ok((record, pages)) => {
                assert_eq!(
                    record.pages as usize,
                    pages.len(),
                    "seed {} from {}",
                    seed(),
                    path.display()
                );
                ok += 1;
            }
            Err(e) => {
                assert!(!e.to_string().is_empty());
                failed += 1;
            }
        }
    }
    report(
        "pdf→extraction",
        ok + failed,
        started,
        &format!(" ({ok} extracted, {failed} refused with an error)"),
    );
}

/// Mutated PDFs with link annotations (the generated one, and the corpus's hyperlinked papers
/// when it is there) through `page_links` and the anchor lookup, on a small stack: every call
/// returns, no panic, and every internal link names a page the document has.
#[test]
fn fuzz_pdf_links() {
    let mut seeds = vec![crate::pdf_links::linked_pdf()];
    if let Some(c) = common::corpus() {
        for e in std::fs::read_dir(c.join("papers")).unwrap().flatten() {
            let b = std::fs::read(e.path().join("paper.pdf")).unwrap_or_default();
            if !b.is_empty() && b.len() < 400_000 {
                seeds.push(b);
            }
        }
    }
    let mut rng = fastrand::Rng::with_seed(seed());
    let started = Instant::now();
    let (mut links, mut failed, budget) = (0usize, 0usize, 300 * scale());
    for _ in 0..budget {
        let seed_pdf = &seeds[rng.usize(0..seeds.len())];
        let bytes = mutate_bytes(&mut rng, seed_pdf);
        let page = rng.u32(0..4);
        let (found, err) = on_small_stack(move || {
            use agentero::vault::pdf::{self, Limits, LinkTarget};
            let limits = Limits {
                deadline: Instant::now() + Duration::from_secs(20),
            };
            let Ok(found) = pdf::page_links(&bytes, page, limits) else {
                return (0, 1);
            };
            let count = pdf::extract(&bytes, limits).map_or(u32::MAX, |d| d.pages.len() as u32);
            for l in &found {
                if let LinkTarget::Page { page: to, .. } = l.target {
                    assert!(to >= 1 && to <= count, "a link to p. {to} of {count}");
                }
            }
            if let Ok(layout) = pdf::page_layout(&bytes, page, limits) {
                for l in &found {
                    if let Some(r) = layout.text_in(l.rect) {
                        assert!(layout.text.get(r).is_some());
                    }
                }
            }
            (found.len(), 0)
        });
        links += found;
        failed += err;
    }
    report(
        "pdf→links",
        budget,
        started,
        &format!(" ({links} links found, {failed} refused with an error)"),
    );
}

// Query strings → the index

fn random_query(rng: &mut fastrand::Rng, words: &[String]) -> String {
    const OPS: &[&str] = &[
        " AND ", " OR ", " NOT ", " ", "(", ")", "\"", "-", "+", "^2", "~1", "*", ":", "title:",
        "authors:", "text:", "sha256:", "path:", "[", " TO ", "]", "{", "}", " IN [", "\\", "'",
        "/", "^", "~", "!", "&&", "||",
    ];
    let mut q = String::new();
    for _ in 0..rng.usize(1..12) {
        if rng.bool() {
            q.push_str(&words[rng.usize(0..words.len())]);
        } else {
            q.push_str(OPS[rng.usize(0..OPS.len())]);
        }
    }
    q
}

#[test]
fn fuzz_queries_against_the_index() {
    let dir = common::demo_vault();
    let vault = Vault::open(dir.path()).unwrap();
    index_vault(&vault, &IndexOptions::default(), &mut |_| {}).unwrap();
    let mut pool = seeds("queries.txt");
    // Seeds from the real corpus: its titles, as typed into a search box.
    if let Some(c) = common::corpus() {
        let manifest = std::fs::read_to_string(c.join("MANIFEST.md")).unwrap();
        pool.extend(
            manifest
                .lines()
                .filter_map(|l| l.split('|').nth(2))
                .map(|slug| slug.trim().trim_matches('`').replace('-', " "))
                .filter(|s| !s.is_empty()),
        );
    }
    let words: Vec<String> = pool
        .iter()
        .flat_map(|q| q.split_whitespace().map(str::to_string).collect::<Vec<_>>())
        .filter(|w| w.len() < 40)
        .collect();
    let budget = 3000 * scale();
    let seed = seed();
    let started = Instant::now();
    let (execs, found, refused) = on_small_stack(move || {
        let index = vault.open_index().unwrap();
        let mut rng = fastrand::Rng::with_seed(seed);
        let (mut execs, mut found, mut refused) = (0usize, 0usize, 0usize);
        let alphabet = [
            "(", ")", "\"", ":", "^", "~", "*", "\\", "-", "+", "[", "]", " ", "AND",
        ];
        for n in 0..budget {
            let q = if n < pool.len() {
                pool[n].clone()
            } else if rng.bool() {
                random_query(&mut rng, &words)
            } else {
                let pick = rng.usize(0..pool.len());
                mutate_text(&mut rng, &pool[pick], &pool, &alphabet)
            };
            for lenient in [true, false] {
                let opts = SearchOptions {
                    lenient,
                    limit: 5,
                    ..SearchOptions::default()
                };
                execs += 1;
                match index.search(&q, &opts) {
                    Ok(cards) => found += usize::from(!cards.is_empty()),
                    Err(agentero::vault::index::IndexError::BadQuery(m)) => {
                        assert!(
                            !lenient || q.trim().is_empty(),
                            "lenient refused {q:?}: {m}"
                        );
                        refused += 1;
                    }
                    Err(e) => panic!("seed {seed}: {q:?} (lenient {lenient}) failed: {e}"),
                }
            }
        }
        (execs, found, refused)
    });
    report(
        "query→index",
        execs,
        started,
        &format!(" ({found} with cards, {refused} strict refusals)"),
    );
}

// Paths and citation URIs → grant resolution; tool arguments → the tools

struct Fixture {
    _dir: tempfile::TempDir,
    _outside: tempfile::TempDir,
    root: PathBuf,
    grant_path: PathBuf,
}

fn fixture() -> Fixture {
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.md"), format!("# S\n{SECRET}\n")).unwrap();
    let dir = common::demo_vault();
    let root = dir.path().canonicalize().unwrap();
    std::fs::create_dir_all(root.join("private")).unwrap();
    std::fs::write(root.join("private/secret.md"), format!("# P\n{SECRET}\n")).unwrap();
    std::fs::write(root.join("notes/.secret.md"), format!("{SECRET}\n")).unwrap();
    std::fs::write(
        root.join("notes/a b.md"),
        "# Spaces\nretrieval with spaces\n",
    )
    .unwrap();
    std::fs::write(
        root.join("notes/50%off.md"),
        "# Percent\nretrieval at a discount\n",
    )
    .unwrap();
    std::os::unix::fs::symlink(
        outside.path().join("secret.md"),
        root.join("notes/link-out.md"),
    )
    .unwrap();
    std::os::unix::fs::symlink(
        root.join("private/secret.md"),
        root.join("notes/link-in.md"),
    )
    .unwrap();
    std::os::unix::fs::symlink(root.join("private"), root.join("notes/private-dir")).unwrap();
    let vault = Vault::open(&root).unwrap();
    index_vault(&vault, &IndexOptions::default(), &mut |_| {}).unwrap();
    std::os::unix::fs::symlink(root.join(".agentero"), root.join("notes/state")).unwrap();
    let req = ContextRequest {
        mentions: vec!["notes/".into(), "papers/dense-vs-sparse/paper.pdf".into()],
        budget: Budget {
            turn_chars: 50_000_000,
            ..Budget::default()
        },
        ..ContextRequest::default()
    };
    let p = plan(&vault, &req);
    let (files, _) = grant::write(&vault, &grant::new_id("rt"), &p).unwrap();
    Fixture {
        _dir: dir,
        _outside: outside,
        root,
        grant_path: files.grant(),
    }
}

fn random_path(rng: &mut fastrand::Rng, pool: &[String]) -> String {
    const PIECES: &[&str] = &[
        "notes",
        "papers",
        "private",
        "..",
        ".",
        ".agentero",
        ".hidden",
        "secret.md",
        "TODO",
        "dense-vs-sparse",
        "paper.pdf",
        "link-out.md",
        "link-in.md",
        "private-dir",
        "state",
        "a b.md",
        "50%off.md",
        "%2e%2e",
        "%2e",
        "%2f",
        "%252e",
        "%00",
        "%20",
        "%41",
        "%ff",
        "\u{FF0E}\u{FF0E}",
        "\u{2215}",
        "\u{200B}",
        "\u{202E}",
        "~",
        "C:",
        "",
        "\\",
        "catalog.json",
        "context-sessions",
        "reading-list.md",
        "datasets",
        "ünï",
        "\u{0}",
        "\u{1b}[2J",
    ];
    const SEPS: &[&str] = &["/", "/", "/", "\\", "%2f", "//", "/./"];
    const PREFIXES: &[&str] = &[
        "",
        "",
        "",
        "/",
        "~/",
        "file://",
        "https://doi.org/",
        "./",
        "../",
    ];
    const FRAGMENTS: &[&str] = &[
        "",
        "",
        "",
        "#page=1",
        "#page=0",
        "#page=4294967296",
        "#line=1,2",
        "#line=9,1",
        "#line=-1,x",
        "#",
        "#page=2&line=3",
        "#page=",
        "#%70age=1",
    ];
    if rng.bool() {
        let seedp = &pool[rng.usize(0..pool.len())];
        return mutate_text(rng, seedp, pool, PIECES);
    }
    let mut p = PREFIXES[rng.usize(0..PREFIXES.len())].to_string();
    for i in 0..rng.usize(1..6) {
        if i > 0 {
            p.push_str(SEPS[rng.usize(0..SEPS.len())]);
        }
        p.push_str(PIECES[rng.usize(0..PIECES.len())]);
    }
    p.push_str(FRAGMENTS[rng.usize(0..FRAGMENTS.len())]);
    p
}

#[test]
fn fuzz_paths_and_uris_against_the_grant() {
    let f = fixture();
    let mut session = ToolSession::new(&f.grant_path);
    let (g, vault) = session.grant().unwrap();
    let ctx = Ctx {
        access: Access::Grant(g.clone()),
        vault,
        budget: g.budget,
        remaining: usize::MAX,
    };
    let mut pool = seeds("paths.txt");
    pool.extend(
        [
            "notes/TODO",
            "notes/a b.md",
            "notes/a%20b.md#line=1,2",
            "notes/50%off.md",
            "notes/reading-list.md",
        ]
        .map(String::from),
    );
    if let Some(c) = common::corpus() {
        for e in std::fs::read_dir(c.join("papers")).unwrap().flatten() {
            pool.push(format!(
                "papers/{}/paper.pdf#page=1",
                e.file_name().to_string_lossy()
            ));
        }
    }
    let mut rng = fastrand::Rng::with_seed(seed());
    let budget = 20_000 * scale();
    let started = Instant::now();
    let (mut allowed, mut refused) = (0usize, 0usize);
    let secrets = [
        f.root.join("private/secret.md"),
        f.root.join("notes/.secret.md"),
    ];
    for n in 0..budget {
        let raw = if n < pool.len() {
            pool[n].clone()
        } else {
            random_path(&mut rng, &pool)
        };
        match session.authorize(&ctx, &raw) {
            Ok(t) => {
                allowed += 1;
                // Where it really leads: inside the vault, nothing hidden, not the state.
                let inside = t.abs.strip_prefix(&f.root).unwrap_or_else(|_| {
                    panic!("seed {}: {raw:?} resolved outside the vault: {t:?}", seed())
                });
                assert!(
                    !inside
                        .components()
                        .any(|c| c.as_os_str().to_string_lossy().starts_with('.')),
                    "{raw:?} reached a hidden entry: {t:?}"
                );
                assert!(!secrets.contains(&t.abs), "{raw:?} reached a secret: {t:?}");
                // Covered by the grant: a source by name, or anything inside a granted folder,
                // by its name and by where it leads.
                for p in [&t.rel, &t.canonical_rel] {
                    let named = g.sources.iter().any(|s| s.path == *p && s.kind == t.kind);
                    let in_dir = g.sources.iter().any(|s| {
                        s.kind == EntryKind::Directory && p.starts_with(&format!("{}/", s.path))
                    });
                    assert!(
                        named || in_dir || (p == &t.canonical_rel && t.granted_sha.is_some()),
                        "{raw:?} is not covered by the grant: {t:?}"
                    );
                }
            }
            Err(e) => {
                refused += 1;
                assert!(!e.message.is_empty());
                assert!(
                    !e.message.contains(f.root.to_str().unwrap()),
                    "{raw:?}: the refusal leaks the vault path: {}",
                    e.message
                );
            }
        }
    }
    assert!(
        allowed > 20 && refused > 500,
        "{allowed} allowed, {refused} refused"
    );
    report(
        "path/uri→grant",
        allowed + refused,
        started,
        &format!(" ({allowed} allowed and checked, {refused} refused)"),
    );
}

fn random_value(rng: &mut fastrand::Rng, paths: &[String]) -> Value {
    match rng.u8(0..14) {
        0 => Value::Null,
        1 => json!(rng.bool()),
        2 => json!(rng.i64(..)),
        3 => json!([0u64, 1, 2, 3, 10, 4_294_967_295, 4_294_967_296, u64::MAX][rng.usize(0..8)]),
        4 => json!(-(rng.i64(0..1_000_000))),
        5 => json!(rng.f64() * 1e300),
        6 => json!(paths[rng.usize(0..paths.len())]),
        7 => json!("retrieval ".repeat(rng.usize(0..400))),
        8 => json!(
            [
                "metadata", "excerpt", "section", "page", "region", "full", "FULL", ""
            ][rng.usize(0..8)]
        ),
        9 => json!([paths[rng.usize(0..paths.len())], 3, null]),
        10 => json!({"nested": {"deeper": [1, 2, {"x": "y"}]}}),
        11 => json!(["cites", "cited_by", "related", "bogus"][..rng.usize(0..=4)]),
        12 => json!("Method"),
        _ => json!(rng.u32(0..30)),
    }
}

#[test]
fn fuzz_tool_arguments() {
    let f = fixture();
    let mut session = ToolSession::new(&f.grant_path);
    let mut pool = seeds("paths.txt");
    let mut rng = fastrand::Rng::with_seed(seed());
    for _ in 0..200 {
        pool.push(random_path(&mut rng, &pool.clone()));
    }
    const FIELDS: &[&str] = &[
        "path",
        "mode",
        "quote",
        "section",
        "page",
        "start",
        "end",
        "maxChars",
        "furniture",
        "query",
        "limit",
        "paths",
        "kinds",
        "verbose",
    ];
    let budget = 6000 * scale();
    let started = Instant::now();
    let (mut ok, mut errors) = (0usize, 0usize);
    let mut codes = std::collections::BTreeMap::new();
    for _ in 0..budget {
        let tool = ["context_search", "context_read", "paper_relations", "nope"][rng.usize(0..4)];
        let args = match rng.u8(0..10) {
            0 => random_value(&mut rng, &pool),
            _ => {
                let mut m = serde_json::Map::new();
                // Mostly well-typed required fields, so the calls get past parsing.
                match tool {
                    "context_search" => {
                        // Words of the secret (never the whole of it: the text echoes the query).
                        let words = [
                            "retrieval".into(),
                            "topsecret".into(),
                            "fuzz".into(),
                            "0c7e".into(),
                        ];
                        let q = random_query(&mut rng, &words);
                        m.insert("query".into(), json!(q));
                    }
                    _ => {
                        // Half the time a granted source, so the modes themselves get fuzzed.
                        const GOOD: &[&str] = &[
                            "notes/TODO",
                            "notes/reading-list.md",
                            "notes/a b.md",
                            "notes/a%20b.md#line=1,2",
                            "notes",
                            "papers/dense-vs-sparse/paper.pdf",
                            "papers/dense-vs-sparse/paper.pdf#page=2",
                        ];
                        let p = if rng.bool() {
                            GOOD[rng.usize(0..GOOD.len())].to_string()
                        } else {
                            pool[rng.usize(0..pool.len())].clone()
                        };
                        m.insert("path".into(), json!(p));
                    }
                }
                for _ in 0..rng.usize(0..4) {
                    let k = FIELDS[rng.usize(0..FIELDS.len())];
                    m.insert(k.into(), random_value(&mut rng, &pool));
                }
                Value::Object(m)
            }
        };
        let shown = args.to_string();
        match session.call(tool, args) {
            Ok(out) => {
                ok += 1;
                let all = format!("{}{}", out.text, out.structured);
                assert!(
                    !all.contains(SECRET),
                    "seed {}: {tool} {shown} leaked",
                    seed()
                );
                assert!(
                    !all.contains(f.root.to_str().unwrap()),
                    "{tool} {shown} leaked the vault path"
                );
            }
            Err(e) => {
                errors += 1;
                *codes.entry(e.code).or_insert(0usize) += 1;
                assert!(!e.message.is_empty());
                assert!(!e.message.contains(SECRET), "{tool} {shown}: {}", e.message);
                assert!(
                    !e.message.contains(f.root.to_str().unwrap()),
                    "{tool} {shown}: {}",
                    e.message
                );
            }
        }
    }
    assert!(ok > 100 && errors > 100, "{ok} ok, {errors} errors");
    report(
        "tool arguments→tools",
        ok + errors,
        started,
        &format!(" ({ok} results, {errors} tool errors {codes:?}, 0 leaks)"),
    );
}
