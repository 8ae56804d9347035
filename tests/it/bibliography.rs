//! Bibliographies that compile: papers of every kind of work — from papis `info.yaml`
//! sidecars, from a Zotero library built from Zotero's own schema, and from a PDF's XMP alone —
//! exported as BibTeX and CSL-JSON, then read by the real tools a writer uses: pandoc's citeproc
//! renders a Markdown document citing every key (no warning, and the reference list shows the
//! journal or book, volume and pages), BibTeX with `plain.bst` reads the `.bib` through an `.aux`
//! written here (no warning, and the `.bbl` holds the fields), the CSL-JSON is checked against
//! the CSL schema. A hostile sidecar's fields stay inside their entry for all three. The key
//! an agent is shown (`paper_read` metadata, search cards) is the key of the export.

use crate::common::{self, skip};
use crate::zotero::library::{self, put, schema_dir};

use std::path::Path;
use std::process::Command;

use agentero::context::tools::vault::{Limits, VaultTools};
use agentero::vault::citekeys::{self, Source};
use agentero::vault::indexer::{IndexOptions, index_vault};
use agentero::vault::{EntryKind, Vault, output};
use serde_json::{Value, json};

/// What one paper must come out as.
struct Want {
    key: &'static str,
    bibtex_type: &'static str,
    csl_type: &'static str,
    /// Text the rendered reference list (pandoc, default CSL style) holds for it.
    rendered: &'static [&'static str],
    /// Text BibTeX's `.bbl` (plain style) holds for it.
    bbl: &'static [&'static str],
}

/// A one-page PDF whose text is `words` (Helvetica), with an XMP packet when given.
fn pdf(words: &str, xmp: Option<&str>) -> Vec<u8> {
    use common::hostile_pdf::stream;
    let content = format!("BT /F1 14 Tf 72 700 Td ({words}) Tj ET");
    let metadata = if xmp.is_some() {
        " /Metadata 6 0 R"
    } else {
        ""
    };
    let mut objects = vec![
        format!("<< /Type /Catalog /Pages 2 0 R{metadata} >>").into_bytes(),
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_vec(),
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R \
           /Resources << /Font << /F1 5 0 R >> >> >>"
            .to_vec(),
        stream("", content.as_bytes()),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>".to_vec(),
    ];
    if let Some(x) = xmp {
        objects.push(stream("/Type /Metadata /Subtype /XML", x.as_bytes()));
    }
    common::hostile_pdf::pdf(&objects)
}

/// The papers of a folder vault: one per kind of work from `info.yaml`, one from XMP alone.
const SIDECARS: &[(&str, &str)] = &[
    (
        "isik",
        "ref: Yildiz_2020_Isik\ntype: article\ntitle: 'Işık: reading light in scanned pages'\n\
         author_list:\n  - {family: Yıldız, given: Ayşe}\n  - {family: Øster, given: Søren}\n\
         year: 2020\njournal: Journal of Reading Machines\nvolume: 12\nnumber: 3\npages: 45–52\n\
         doi: 10.1234/jrm.2020.12\n",
    ),
    (
        "gutters",
        "type: inproceedings\ntitle: Gutters and columns in two-column layouts\n\
         author: Ødegård, Søren and Straße, Jörg\nyear: 2019\n\
         booktitle: Proceedings of the Symposium on Document Engineering\npages: 71-78\n\
         publisher: ACM\ndoi: https://doi.org/10.1145/3342558.3345400\n",
    ),
    (
        "machines",
        "type: book\ntitle: Reading Machines\nauthor: García Márquez, Gabriel\nyear: 2015\n\
         publisher: MIT Press\n",
    ),
    (
        "tables",
        "type: incollection\ntitle: Tables without ruling lines\nauthor: de Vries, Ilse\n\
         year: 2018\nbooktitle: Handbook of Document Analysis\npublisher: Springer\n\
         pages: 21--39\neditor: Marinai, Simone and Hiromichi Fujisawa\n",
    ),
    (
        "labels",
        "type: phdthesis\ntitle: Printed page labels\nauthor: Núñez, Zoë\nyear: 2017\n\
         school: Universität Wien\n",
    ),
    (
        "footnotes",
        "type: mastersthesis\ntitle: Footnotes in OCR\nauthor: Hopper, Grace\nyear: 2016\n\
         school: TU Delft\n",
    ),
    (
        "faithful",
        "type: techreport\ntitle: Citation faithfulness\nauthor: Turing, Alan\nyear: 2021\n\
         institution: Allen Institute for AI\nnumber: TR-2021-07\n",
    ),
    (
        "dense",
        "title: Dense retrieval for scholarly search\nauthor: Okonkwo, Adaeze\nyear: 2021\n\
         eprint: arXiv:2101.00001\n",
    ),
];

const XMP: &str = r#"<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
<rdf:Description xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:prism="http://prismstandard.org/namespaces/basic/2.0/">
<dc:title><rdf:Alt><rdf:li xml:lang="x-default">Columns and Gutters Revisited</rdf:li></rdf:Alt></dc:title>
<dc:creator><rdf:Seq><rdf:li>Grace Hopper</rdf:li></rdf:Seq></dc:creator>
<prism:publicationName>Journal of Layout Studies</prism:publicationName>
<prism:volume>7</prism:volume><prism:number>2</prism:number>
<prism:startingPage>11</prism:startingPage><prism:endingPage>19</prism:endingPage>
</rdf:Description></rdf:RDF></x:xmpmeta>"#;

const FOLDER_WANTS: &[Want] = &[
    Want {
        key: "Yildiz_2020_Isik",
        bibtex_type: "article",
        csl_type: "article-journal",
        rendered: &["Journal of Reading Machines", "12 (3)", "45–52"],
        bbl: &["Journal of Reading Machines", "12(3):45--52"],
    },
    Want {
        key: "odegard2019gutters",
        bibtex_type: "inproceedings",
        csl_type: "paper-conference",
        rendered: &[
            "Proceedings of the Symposium on Document Engineering",
            "71–78",
            "ACM",
        ],
        bbl: &[
            "Proceedings of the Symposium on Document Engineering",
            "71--78",
        ],
    },
    Want {
        key: "garciamarquez2015reading",
        bibtex_type: "book",
        csl_type: "book",
        // A family name of two words stays one (in BibTeX: `García Márquez, Gabriel`).
        rendered: &[
            "García Márquez, Gabriel. 2015",
            "Reading Machines",
            "MIT Press",
        ],
        bbl: &["MIT Press"],
    },
    Want {
        key: "devries2018tables",
        bibtex_type: "incollection",
        csl_type: "chapter",
        rendered: &[
            "Handbook of Document Analysis",
            "21–39",
            "Springer",
            "Marinai",
            "Fujisawa",
        ],
        bbl: &[
            "Document Analysis",
            "21--39",
            "Springer",
            "Simone Marinai and Hiromichi Fujisawa, editors",
        ],
    },
    Want {
        key: "nunez2017printed",
        bibtex_type: "phdthesis",
        csl_type: "thesis",
        rendered: &["PhD thesis", "Universität Wien"],
        bbl: &["PhD thesis", "Universität Wien"],
    },
    Want {
        key: "hopper2016footnotes",
        bibtex_type: "mastersthesis",
        csl_type: "thesis",
        rendered: &["Master", "TU Delft"],
        bbl: &["Master's thesis", "TU Delft"],
    },
    Want {
        key: "turing2021citation",
        bibtex_type: "techreport",
        csl_type: "report",
        rendered: &["Allen Institute for AI", "TR-2021-07"],
        bbl: &["Allen Institute for AI", "TR-2021-07"],
    },
    Want {
        key: "okonkwo2021dense",
        bibtex_type: "misc",
        csl_type: "article",
        rendered: &["Dense retrieval for scholarly search", "2101.00001"],
        bbl: &["Dense retrieval for scholarly search"],
    },
    Want {
        key: "hopper2014columns",
        bibtex_type: "article",
        csl_type: "article-journal",
        rendered: &["Journal of Layout Studies", "7 (2)", "11–19"],
        bbl: &["Journal of Layout Studies", "7(2):11--19"],
    },
];

/// A folder vault of [`SIDECARS`] and the XMP-only paper, indexed; its papers in the order of
/// [`FOLDER_WANTS`].
fn folder_vault() -> (tempfile::TempDir, Vault, Vec<String>) {
    let dir = tempfile::tempdir().unwrap();
    let mut paths = Vec::new();
    for (name, yaml) in SIDECARS {
        let folder = dir.path().join("papers").join(name);
        put(
            &folder.join("paper.pdf"),
            &pdf(&format!("A paper on {name}"), None),
        );
        put(&folder.join("info.yaml"), yaml.as_bytes());
        paths.push(format!("papers/{name}/paper.pdf"));
    }
    put(
        &dir.path().join("papers/columns/paper.pdf"),
        &pdf("Journal of Layout Studies 2014", Some(XMP)),
    );
    paths.push("papers/columns/paper.pdf".into());
    let vault = Vault::open(dir.path()).unwrap();
    index_vault(&vault, &IndexOptions::default(), &mut |_| {}).unwrap();
    (dir, vault, paths)
}

/// The bibliography of `paths` as BibTeX, CSL-JSON and its keys.
fn export(vault: &Vault, paths: &[String]) -> (String, Value, Vec<Source>) {
    let b = citekeys::bibliography(vault, paths);
    assert!(b.warnings.is_empty(), "{:?}", b.warnings);
    let bib = citekeys::bibtex(&b.sources);
    let text = output::to_json_pretty(&citekeys::csl_json(&b.sources)).unwrap();
    let csl: Value = serde_json::from_str(&text).unwrap();
    (bib, csl, b.sources)
}

/// pandoc's citeproc on a Markdown document citing `keys` with the bibliography at `bib`:
/// its plain-text output, or `None` (reported) when pandoc is not installed.
fn pandoc(dir: &Path, bib: &Path, keys: &[&str]) -> Option<String> {
    let doc = dir.join("draft.md");
    let cites: Vec<String> = keys.iter().map(|k| format!("[@{k}, p. 3]")).collect();
    std::fs::write(
        &doc,
        format!("# Draft\n\nAs shown before {}.\n", cites.join(" and ")),
    )
    .unwrap();
    let out = match Command::new("pandoc")
        .args(["--citeproc", "-t", "plain", "--wrap=none", "--bibliography"])
        .arg(bib)
        .arg(&doc)
        .output()
    {
        Ok(o) => o,
        Err(e) => {
            skip::missing(skip::Peer::Pandoc, &e.to_string());
            return None;
        }
    };
    let err = String::from_utf8_lossy(&out.stderr);
    let input = std::fs::read_to_string(bib).unwrap_or_default();
    assert!(out.status.success(), "pandoc failed: {err}\n{input}");
    assert_eq!(err, "", "pandoc warned on {}", bib.display());
    Some(String::from_utf8(out.stdout).unwrap())
}

/// BibTeX with `plain.bst` on `refs.bib` in `dir`, through an `.aux` that cites everything:
/// (its terminal output, the `.bbl`), or `None` (reported) when BibTeX is not installed.
fn bibtex(dir: &Path, bib: &str) -> Option<(String, String)> {
    std::fs::write(dir.join("refs.bib"), bib).unwrap();
    std::fs::write(
        dir.join("refs.aux"),
        "\\relax\n\\citation{*}\n\\bibstyle{plain}\n\\bibdata{refs}\n",
    )
    .unwrap();
    let out = match Command::new("bibtex")
        .arg("refs")
        .current_dir(dir)
        .env("openout_any", "p")
        .output()
    {
        Ok(o) => o,
        Err(e) => {
            skip::missing(skip::Peer::Bibtex, &e.to_string());
            return None;
        }
    };
    let log = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    if log.contains("couldn't open style file") {
        skip::missing(skip::Peer::Bibtex, "plain.bst is not installed");
        return None;
    }
    let bbl = std::fs::read_to_string(dir.join("refs.bbl")).unwrap_or_default();
    Some((log, bbl))
}

/// The BibTeX, CSL-JSON and what pandoc and BibTeX make of them, against `wants`.
fn check(bib: &str, csl: &Value, sources: &[Source], wants: &[Want]) {
    let keys: Vec<&str> = sources.iter().map(|s| s.key.as_str()).collect();
    let want_keys: Vec<&str> = wants.iter().map(|w| w.key).collect();
    assert_eq!(keys, want_keys, "{bib}");

    // The biblatex crate reads the entries back with their types; DOIs are not double-braced.
    let parsed = biblatex::Bibliography::parse(bib).unwrap_or_else(|e| panic!("{e:?}\n{bib}"));
    for w in wants {
        let e = parsed
            .get(w.key)
            .unwrap_or_else(|| panic!("{} in\n{bib}", w.key));
        assert_eq!(
            e.entry_type.to_string().to_lowercase(),
            w.bibtex_type,
            "{bib}"
        );
    }
    assert!(!bib.contains("doi = {{"), "{bib}");

    assert_eq!(
        common::csl::csl_errors(csl),
        Vec::<String>::new(),
        "{csl:#}"
    );
    let items = csl.as_array().unwrap();
    for (item, w) in items.iter().zip(wants) {
        assert_eq!(item["id"], w.key);
        assert_eq!(item["type"], w.csl_type, "{item:#}");
    }

    let tmp = tempfile::tempdir().unwrap();
    let bib_file = tmp.path().join("refs.bib");
    let csl_file = tmp.path().join("refs.json");
    std::fs::write(&bib_file, bib).unwrap();
    std::fs::write(&csl_file, serde_json::to_string_pretty(csl).unwrap()).unwrap();
    for file in [&bib_file, &csl_file] {
        let Some(text) = pandoc(tmp.path(), file, &want_keys) else {
            break;
        };
        assert!(!text.contains("???"), "a key pandoc did not find:\n{text}");
        for w in wants {
            // (A CSL style sets a title's case; BibTeX's double braces keep it.)
            for s in w.rendered {
                assert!(
                    text.to_lowercase().contains(&s.to_lowercase()),
                    "{}: {s:?} not in the references of {}:\n{text}",
                    w.key,
                    file.display()
                );
            }
        }
    }

    let bibtex_dir = tempfile::tempdir().unwrap();
    if let Some((log, bbl)) = bibtex(bibtex_dir.path(), bib) {
        let lower = log.to_lowercase();
        assert!(
            !lower.contains("warning") && !lower.contains("error"),
            "BibTeX complained:\n{log}\n{bib}"
        );
        for w in wants {
            assert!(
                bbl.contains(&format!("\\bibitem{{{}}}", w.key)),
                "{}:\n{bbl}",
                w.key
            );
            for s in w.bbl {
                assert!(bbl.contains(s), "{}: {s:?} not in\n{bbl}", w.key);
            }
        }
    }
}

#[test]
fn every_kind_of_work_from_info_yaml_and_xmp_compiles_with_pandoc_and_bibtex() {
    let (_dir, vault, paths) = folder_vault();
    let (bib, csl, sources) = export(&vault, &paths);
    check(&bib, &csl, &sources, FOLDER_WANTS);
    // The papis key is the managed one; the DOI is written as it is, not as a URL.
    assert_eq!(
        vault.citation_key("papers/isik/paper.pdf").as_deref(),
        Some("Yildiz_2020_Isik")
    );
    assert!(bib.contains("doi = {10.1145/3342558.3345400},"), "{bib}");
    assert!(bib.contains("doi = {10.1234/jrm.2020.12},"), "{bib}");
}

/// The key a paper is exported with is the key an agent reads in `paper_read`'s metadata and
/// on its search cards, so what it writes (`[@key, p. N]`) resolves in the export.
#[test]
fn the_citation_key_is_in_read_metadata_and_search_cards() {
    let (dir, vault, paths) = folder_vault();
    let (_, _, sources) = export(&vault, &paths);
    let tools = VaultTools::new(vault.clone(), Limits::default());
    for s in &sources {
        let m = tools
            .call("paper_read", json!({"path": s.path}))
            .unwrap()
            .structured;
        assert_eq!(m["citationKey"], s.key.as_str(), "{m}");
    }
    let m = tools
        .call("paper_read", json!({"path": "papers/gutters/paper.pdf"}))
        .unwrap()
        .structured;
    assert_eq!(m["type"], "paper-conference", "{m}");
    assert_eq!(
        m["containerTitle"],
        "Proceedings of the Symposium on Document Engineering"
    );
    let found = tools
        .call("vault_search", json!({"query": "paper on tables"}))
        .unwrap()
        .structured;
    let card = found["cards"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["path"] == "papers/tables/paper.pdf")
        .unwrap_or_else(|| panic!("{found:#}"));
    assert_eq!(card["citationKey"], "devries2018tables", "{card}");
    // And in what `agentero search` prints for a person.
    let out = common::agentero(
        &[
            "search",
            "--vault",
            dir.path().to_str().unwrap(),
            "paper on tables",
        ],
        dir.path(),
    );
    assert!(
        common::stdout(&out).contains("papers/tables/paper.pdf  @devries2018tables"),
        "{}",
        common::stdout(&out)
    );
    assert!(
        found
            .to_string()
            .contains("\"citationKey\":\"Yildiz_2020_Isik\"")
            || tools
                .call("vault_search", json!({"query": "paper on isik"}))
                .unwrap()
                .text
                .contains("\"citationKey\":\"Yildiz_2020_Isik\""),
        "the text block an agent reads carries the key"
    );
}

/// A Zotero library with one item of each type, its fields as Zotero stores them (a
/// proceedings title, a book title, a university, an institution and a report number, a
/// preprint's archive id).
#[test]
fn every_zotero_item_type_compiles_with_pandoc_and_bibtex() {
    let Some(schema) = schema_dir() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("Zotero");
    std::fs::create_dir_all(dir.join("storage")).unwrap();
    let z = library::create(&dir, &schema);
    let mut n = 0;
    let mut add = |item_type: &str, title: &str, last: &str, fields: &[(&str, &str)]| {
        n += 1;
        let item = z.item(item_type, &library::zkey(n));
        z.set(item, "title", title);
        z.creator(item, "Ada", last, 0);
        for (f, v) in fields {
            // An editor of the book the item is in: a creator, not a field.
            match (*f, v.rsplit_once(' ')) {
                ("editor", Some((first, family))) => z.creator_as(item, first, family, 1, "editor"),
                _ => z.set(item, f, v),
            }
        }
        let att = library::zkey(1000 + n);
        z.attachment(Some(item), &att, 1, "storage:paper.pdf");
        put(
            &dir.join(format!("storage/{att}/paper.pdf")),
            &pdf(&format!("Zotero paper {n}"), None),
        );
        format!("storage/{att}/paper.pdf")
    };
    let paths = vec![
        add(
            "journalArticle",
            "Reading order",
            "Núñez",
            &[
                ("date", "2021-03-00 March 2021"),
                ("publicationTitle", "Journal of Reading Machines"),
                ("volume", "4"),
                ("issue", "1"),
                ("pages", "11-29"),
                ("DOI", "10.1234/zot.2021.1"),
                ("citationKey", "nunez2021reading"),
            ],
        ),
        add(
            "conferencePaper",
            "Tables without ruling lines",
            "de Vries",
            &[
                ("date", "2019-00-00 2019"),
                ("proceedingsTitle", "Proceedings of Document Engineering"),
                ("pages", "33–41"),
                ("publisher", "ACM"),
                ("extra", "Citation Key: deVries:2019"),
            ],
        ),
        add(
            "book",
            "Machines that read",
            "Yıldız",
            &[
                ("date", "2015"),
                ("publisher", "MIT Press"),
                ("place", "Cambridge, MA"),
            ],
        ),
        add(
            "bookSection",
            "Footnotes and furniture",
            "Øster",
            &[
                ("date", "2018"),
                ("bookTitle", "Handbook of Document Analysis"),
                ("publisher", "Springer"),
                ("pages", "61-80"),
                ("editor", "Simone Marinai"),
            ],
        ),
        add(
            "thesis",
            "Printed page labels",
            "Straße",
            &[
                ("date", "2017"),
                ("thesisType", "PhD thesis"),
                ("university", "Universität Wien"),
            ],
        ),
        add(
            "thesis",
            "Footnotes in OCR",
            "Hopper",
            &[
                ("date", "2016"),
                ("thesisType", "Master's thesis"),
                ("university", "TU Delft"),
            ],
        ),
        add(
            "report",
            "Citation faithfulness",
            "Turing",
            &[
                ("date", "2021"),
                ("institution", "Allen Institute for AI"),
                ("reportNumber", "TR-2021-07"),
            ],
        ),
        add(
            "preprint",
            "Dense retrieval",
            "Okonkwo",
            &[
                ("date", "2021"),
                ("repository", "arXiv"),
                ("archiveID", "arXiv:2101.00002"),
            ],
        ),
    ];
    let wants = [
        Want {
            key: "nunez2021reading",
            bibtex_type: "article",
            csl_type: "article-journal",
            rendered: &["Journal of Reading Machines", "4 (1)", "11–29"],
            bbl: &["Journal of Reading Machines", "4(1):11--29"],
        },
        Want {
            key: "deVries:2019",
            bibtex_type: "inproceedings",
            csl_type: "paper-conference",
            rendered: &["Proceedings of Document Engineering", "33–41"],
            bbl: &["Proceedings of Document Engineering", "33--41"],
        },
        Want {
            key: "yildiz2015machines",
            bibtex_type: "book",
            csl_type: "book",
            rendered: &["MIT Press"],
            bbl: &["MIT Press"],
        },
        Want {
            key: "oster2018footnotes",
            bibtex_type: "incollection",
            csl_type: "chapter",
            rendered: &[
                "Handbook of Document Analysis",
                "61–80",
                "Springer",
                "Marinai",
            ],
            bbl: &["Handbook of Document Analysis", "61--80", "Marinai"],
        },
        Want {
            key: "strasse2017printed",
            bibtex_type: "phdthesis",
            csl_type: "thesis",
            rendered: &["PhD thesis", "Universität Wien"],
            bbl: &["Universität Wien"],
        },
        Want {
            key: "hopper2016footnotes",
            bibtex_type: "mastersthesis",
            csl_type: "thesis",
            rendered: &["TU Delft"],
            bbl: &["Master's thesis", "TU Delft"],
        },
        Want {
            key: "turing2021citation",
            bibtex_type: "techreport",
            csl_type: "report",
            rendered: &["Allen Institute for AI", "TR-2021-07"],
            bbl: &["Allen Institute for AI", "TR-2021-07"],
        },
        Want {
            key: "okonkwo2021dense",
            bibtex_type: "misc",
            csl_type: "article",
            rendered: &["2101.00002"],
            bbl: &["Dense retrieval"],
        },
    ];
    let vault = Vault::open_with_state_base(&dir, &tmp.path().join("state")).unwrap();
    let papers: Vec<String> = vault
        .scan()
        .unwrap()
        .into_iter()
        .filter(|e| e.kind == EntryKind::Paper)
        .map(|e| e.path)
        .collect();
    assert_eq!(papers.len(), paths.len(), "{papers:?}");
    index_vault(&vault, &IndexOptions::default(), &mut |_| {}).unwrap();
    let (bib, csl, sources) = export(&vault, &paths);
    check(&bib, &csl, &sources, &wants);
    // Better BibTeX's key (a `Citation Key:` line in Extra) is what `paper_read` tells an agent.
    let tools = VaultTools::new(vault.clone(), Limits::default());
    let m = tools
        .call("paper_read", json!({"path": paths[1]}))
        .unwrap()
        .structured;
    assert_eq!(m["citationKey"], "deVries:2019", "{m}");
    assert_eq!(m["containerTitle"], "Proceedings of Document Engineering");
    drop(z);
}

/// A sidecar whose every bibliographic field tries to end its entry and start another: the
/// biblatex crate, BibTeX's brace count, BibTeX itself and pandoc all read two entries, the
/// keys written.
#[test]
fn a_hostile_sidecar_cannot_end_or_inject_an_entry() {
    let dir = tempfile::tempdir().unwrap();
    // JSON is YAML: every escape below reaches the value as written.
    let yaml = json!({
        "ref": "ok2020,\n  title = {INJECTED}}\n@misc{pwn",
        "type": "article",
        "title": "Honest title",
        "author": "Gal, Yarin} and {",
        "year": 2020,
        "journal": "x}}\n@misc{pwned, title={INJECTED}}\n@comment{",
        "volume": "1}\n@misc{v,",
        "number": "\\}",
        "pages": "1--2}, note = {INJECTED",
        "publisher": "@misc{p, title={INJECTED}}",
        "school": "}\u{1b}[2J",
        "doi": "10.1234/x}\n@misc{d,",
        "url": "https://example.org/}\n@misc{u, \\"
    })
    .to_string();
    for (name, sidecar) in [("hostile", Some(yaml.as_str())), ("plain", None)] {
        let folder = dir.path().join("papers").join(name);
        put(
            &folder.join("paper.pdf"),
            &pdf(&format!("The {name} one"), None),
        );
        if let Some(y) = sidecar {
            put(&folder.join("info.yaml"), y.as_bytes());
        }
    }
    let vault = Vault::open(dir.path()).unwrap();
    index_vault(&vault, &IndexOptions::default(), &mut |_| {}).unwrap();
    let paths = vec![
        "papers/hostile/paper.pdf".to_string(),
        "papers/plain/paper.pdf".to_string(),
    ];
    let meta = vault.record_for(&paths[0]).unwrap().meta;
    assert!(
        meta.publication
            .container
            .as_deref()
            .is_some_and(|j| j.contains("INJECTED")),
        "the sidecar was read: {meta:?}"
    );
    let b = citekeys::bibliography(&vault, &paths);
    assert_eq!(
        b.warnings.len(),
        1,
        "the managed key is refused: {:?}",
        b.warnings
    );
    let bib = citekeys::bibtex(&b.sources);
    let parsed = biblatex::Bibliography::parse(&bib).unwrap_or_else(|e| panic!("{e:?}\n{bib}"));
    let keys: Vec<&str> = parsed.iter().map(|e| e.key.as_str()).collect();
    assert_eq!(keys.len(), 2, "{bib}");
    assert_eq!(keys[0], "gal2020honest", "{bib}");
    assert_eq!(
        bib.lines().filter(|l| l.starts_with('@')).count(),
        2,
        "an entry started inside a value:\n{bib}"
    );
    assert!(
        bib.lines()
            .all(|l| !l.contains("INJECTED") || l.contains(" = {")),
        "{bib}"
    );
    let tmp = tempfile::tempdir().unwrap();
    if let Some((log, bbl)) = bibtex(tmp.path(), &bib) {
        assert_eq!(bbl.matches("\\bibitem{").count(), 2, "{log}\n{bbl}");
        assert!(!bbl.contains("\\bibitem{pwn"), "{bbl}");
        assert!(!log.contains("error message"), "{log}\n{bib}");
    }
    let csl = citekeys::csl_json(&b.sources);
    assert_eq!(
        common::csl::csl_errors(&csl),
        Vec::<String>::new(),
        "{csl:#}"
    );
    let bib_file = tmp.path().join("hostile.bib");
    std::fs::write(&bib_file, &bib).unwrap();
    if let Some(text) = pandoc(tmp.path(), &bib_file, &keys) {
        assert!(!text.contains("???"), "{text}");
    }
}
