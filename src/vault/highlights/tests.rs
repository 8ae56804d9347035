use std::time::{Duration, Instant};

use super::*;
use crate::vault::demo::write_demo_vault;
use crate::vault::pdf::{self, Limits};

const PAPER: &str = "papers/layoutflow/paper.pdf";

fn vault() -> (tempfile::TempDir, Vault) {
    let dir = tempfile::tempdir().unwrap();
    write_demo_vault(dir.path()).unwrap();
    let v = Vault::open(dir.path()).unwrap();
    (dir, v)
}

/// Page 1's text as the text view shows it, and a word-aligned range of it.
fn selection(v: &Vault, rel: &str) -> NewHighlight {
    let bytes = std::fs::read(v.root().join(rel)).unwrap();
    let doc = pdf::extract(
        &bytes,
        Limits {
            deadline: Instant::now() + Duration::from_secs(30),
        },
    )
    .unwrap();
    let text = &doc.pages[0].text;
    let start = text.find(char::is_alphabetic).unwrap();
    let end = start + text[start..].find('\n').unwrap();
    NewHighlight {
        page: 1,
        start,
        end,
        text: text[start..end].to_string(),
        comment: Some("  the title  ".into()),
    }
}

#[test]
fn a_highlight_is_kept_by_content_and_survives_a_rename() {
    let (_d, v) = vault();
    let new = selection(&v, PAPER);
    let h = add(&v, PAPER, new.clone()).unwrap();
    assert_eq!(h.comment.as_deref(), Some("the title"));
    assert_eq!(h.color, DEFAULT_COLOR);
    assert!(!h.rects.is_empty(), "the text layer places the title");
    for r in &h.rects {
        assert!(r[0] < r[2] && r[1] < r[3], "{r:?}");
    }
    // Stored under the PDF's hash, in the state folder only.
    let sha = crate::vault::fsutil::sha256_file(&v.root().join(PAPER)).unwrap();
    assert!(
        v.state_dir()
            .join(DIR)
            .join(format!("{sha}.json"))
            .is_file()
    );

    // Renamed and moved: still there.
    let moved = "elsewhere/renamed.pdf";
    std::fs::create_dir_all(v.root().join("elsewhere")).unwrap();
    std::fs::rename(v.root().join(PAPER), v.root().join(moved)).unwrap();
    let after = list(&v, moved).unwrap();
    assert_eq!(after, vec![h.clone()]);
    let ann = v.annotations(moved);
    assert_eq!(ann.len(), 1);
    assert_eq!(ann[0].paper, moved);
    assert_eq!(ann[0].text.as_deref(), Some(new.text.trim()));
    assert_eq!(
        ann[0].origin,
        AnnotationOrigin::Agentero { id: h.id.clone() }
    );

    // Deleted: the file goes with the last one.
    assert_eq!(delete(&v, moved, &h.id).unwrap().id, h.id);
    assert!(list(&v, moved).unwrap().is_empty());
    assert!(!v.state_dir().join(DIR).join(format!("{sha}.json")).exists());
    assert!(matches!(
        delete(&v, moved, &h.id),
        Err(HighlightError::Unknown { .. })
    ));
}

#[test]
fn highlights_are_listed_in_page_order_and_exported_with_citation_uris() {
    let (_d, v) = vault();
    let first = selection(&v, PAPER);
    let mut later = first.clone();
    later.start += 2;
    later.text = first.text[2..].to_string();
    later.comment = Some("first line\nsecond line".into());
    add(&v, PAPER, later.clone()).unwrap();
    add(&v, PAPER, first).unwrap();
    let all = list(&v, PAPER).unwrap();
    assert_eq!(all.len(), 2);
    assert!(all[0].start < all[1].start);
    let md = markdown(&v, PAPER, &v.annotations(PAPER));
    assert!(md.starts_with("# Highlights: "), "{md}");
    assert!(md.contains("\n## Page 1\n"), "{md}");
    assert!(md.contains(&format!("> {}\n", later.text.trim())), "{md}");
    assert!(md.contains("\nfirst line\nsecond line\n"), "{md}");
    assert_eq!(
        md.matches(&format!("— {PAPER}#page=1\n")).count(),
        2,
        "{md}"
    );
}

#[test]
fn bad_input_is_refused_not_stored() {
    let (_d, v) = vault();
    let mut empty = selection(&v, PAPER);
    empty.text = "   ".into();
    assert!(matches!(add(&v, PAPER, empty), Err(HighlightError::Empty)));
    let not_a_paper = add(&v, "notes/none.md", selection(&v, PAPER));
    assert!(matches!(not_a_paper, Err(HighlightError::NotAPaper(_))));
    assert!(matches!(
        add(&v, "../outside.pdf", selection(&v, PAPER)),
        Err(HighlightError::NotAPaper(_))
    ));
    // A corrupt store is reported and left alone, never overwritten.
    let sha = crate::vault::fsutil::sha256_file(&v.root().join(PAPER)).unwrap();
    let dir = v.state_dir().join(DIR);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(format!("{sha}.json")), b"{not json").unwrap();
    assert!(matches!(
        add(&v, PAPER, selection(&v, PAPER)),
        Err(HighlightError::Corrupt { .. })
    ));
    assert_eq!(
        std::fs::read(dir.join(format!("{sha}.json"))).unwrap(),
        b"{not json"
    );
    assert!(v.annotations(PAPER).is_empty());
}

#[test]
fn the_clock_reads_as_rfc3339() {
    let t = now_rfc3339();
    assert_eq!(t.len(), 20, "{t}");
    assert!(t.starts_with("20") && t.ends_with('Z') && t.as_bytes()[10] == b'T');
}
