//! The vault core on the real corpus (`AGENTERO_CORPUS`, set by `.ci/run`): every file indexed
//! with text per page or reported with a clear reason, metadata from the sidecars, real searches.

use crate::common;

use agentero::vault::indexer::{IndexOptions, index_vault};
use agentero::vault::{SearchOptions, Status, Vault};

#[test]
fn corpus_indexes_with_text_or_a_reason() {
    let Some(corpus) = common::corpus() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    common::copy_tree(&corpus, tmp.path());
    let vault = Vault::open(tmp.path()).unwrap();
    let s = index_vault(&vault, &IndexOptions::default(), &mut |_| {}).unwrap();
    println!(
        "corpus: {} papers, {} pages, {} files, failed {:?}, no text {:?}, {:.1} s",
        s.papers,
        s.pages,
        s.files,
        s.failed,
        s.no_text,
        s.elapsed.as_secs_f64()
    );
    let catalog = vault.catalog();
    let pdfs = catalog
        .entries
        .iter()
        .filter(|(p, _)| p.ends_with(".pdf"))
        .count();
    assert!(
        pdfs >= 15,
        "every PDF of the corpus is in the catalog ({pdfs})"
    );
    for (path, e) in &catalog.entries {
        match e.status {
            Status::Failed => {
                let why = e.error.as_deref().unwrap_or("");
                assert!(why.len() > 10, "{path} failed without a clear reason");
                // Only the truncated sample is beyond repair.
                assert!(
                    path.contains("sample-title-with-forced-linebreak"),
                    "{path}: {why}"
                );
            }
            Status::NoText => {
                assert!(
                    path.contains("linnsequencer"),
                    "{path} unexpectedly has no text"
                );
            }
            Status::Indexed if path.ends_with(".pdf") => {
                let record = vault.record(&e.sha256).expect("a record for each paper");
                assert_eq!(record.pages, e.units);
                assert!(
                    record.pages_without_text.len() * 4 < record.pages as usize + 1,
                    "{path}: pages without text {:?}",
                    record.pages_without_text
                );
                // info.yaml is the first source of metadata.
                let yaml =
                    std::fs::read_to_string(tmp.path().join(path).with_file_name("info.yaml"))
                        .unwrap_or_default();
                if let Some(line) = yaml.lines().find(|l| l.starts_with("title:")) {
                    let title = line
                        .trim_start_matches("title:")
                        .trim()
                        .trim_matches(['\'', '"']);
                    assert_eq!(record.meta.title, title, "{path}");
                }
            }
            Status::Indexed => {}
        }
    }
    // The encrypted (empty user password) sample opens with text.
    let asce = catalog
        .entries
        .iter()
        .find(|(p, _)| p.contains("asce-like"))
        .expect("the encrypted sample is in the corpus");
    assert_eq!(asce.1.status, Status::Indexed);
    assert!(vault.record(&asce.1.sha256).unwrap().was_encrypted);

    let idx = vault.open_index().unwrap();
    let opts = SearchOptions::default();
    let cards = idx.search("quantum", &opts).unwrap();
    assert!(
        cards.iter().any(|c| c.path.contains("quantumarticle")),
        "{cards:?}"
    );
    let cards = idx.search("\"page labels\"", &opts).unwrap();
    println!("{cards:#?}");
    let cjk = idx.search("课程", &opts).unwrap();
    assert!(
        cjk.iter().any(|c| c.path.contains("tex-courses")),
        "{cjk:?}"
    );
    let notes = idx.search("wikilinks OR extraction", &opts).unwrap();
    assert!(!notes.is_empty());

    // A second run over the unchanged corpus does nothing.
    let again = index_vault(&vault, &IndexOptions::default(), &mut |_| {}).unwrap();
    assert!(again.up_to_date(), "{again:?}");
}
