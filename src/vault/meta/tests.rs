use super::*;

#[test]
fn first_page_heuristics() {
    let text = "arXiv:2305.01234v1 [cs.CL] 2 May 2023\n\
                Grounded Answers from Scientific PDFs:\n\
                A Study of Citation Faithfulness\n\
                Ada Lovelace1, Alan Turing2 and Grace Hopper1\n\
                1 University of Nowhere\n\
                Abstract. We study how answers cite their sources in a corpus of\n\
                papers and find that extractive quoting improves faithfulness a lot.\n\
                1 Introduction\nText.";
    let m = from_first_page(text, None);
    assert_eq!(
        m.title,
        "Grounded Answers from Scientific PDFs: A Study of Citation Faithfulness"
    );
    assert_eq!(
        m.authors,
        vec!["Ada Lovelace", "Alan Turing", "Grace Hopper"]
    );
    assert!(m.abstract_text.unwrap().starts_with("We study how answers"));
    assert_eq!(m.year, Some(2023));
}

#[test]
fn the_years_of_cited_works_are_not_the_papers() {
    let cites = "A Title Here\nAda Lovelace and Grace Hopper\nIntroduction\n\
                 We refer to the work described in Genz (1992), Genz (1993) and Genz and\n\
                 Bretz (1999). More text follows here.";
    assert_eq!(from_first_page(cites, None).year, None);
    let cites = "A Title Here\nAda Lovelace and Grace Hopper\nIntroduction\n\
                 (GLMs, see Nelder and Wedderburn 1972; McCullagh and Nelder 1989). Since\n\
                 Mullahy (1986) and (Lambert 1992), see Cameron and Trivedi (1998, 2005).";
    assert_eq!(from_first_page(cites, None).year, None);
    let own = "A Title Here\nAchim Zeileis, Gabor Grothendieck\nThis is a version of\n\
               Zeileis and Grothendieck (2005) in the Journal of Statistical Software.";
    assert_eq!(from_first_page(own, None).year, Some(2005));
    // Its own citation broken over two lines, and an earlier work of theirs after it.
    let own = "A Title Here\nDavid Meyer, Achim Zeileis, Kurt Hornik\nThis is a version of (Meyer, Zeileis,\n\
               and Hornik 2006) in JSS. It extends Meyer, Zeileis, and Hornik (2003) to more.";
    assert_eq!(from_first_page(own, None).year, Some(2006));
    let dated = "Journal of Statistical Software\nJuly 2008, Volume 27, Issue 8.\nA Title Here";
    assert_eq!(from_first_page(dated, None).year, Some(2008));
    let proceedings = "A Title Here\nAda Lovelace and Grace Hopper\n\
                       In Proceedings of NAACL-HLT 2019, pages 4171–4186.";
    assert_eq!(from_first_page(proceedings, None).year, Some(2019));
}

#[test]
fn names_in_one_field_are_split() {
    assert_eq!(
        split_names("Achim Zeileis, Torsten Hothorn"),
        vec!["Achim Zeileis", "Torsten Hothorn"]
    );
    assert_eq!(
        split_names("Trevor Hastie; Junyang Qian; Kenneth Tay"),
        vec!["Trevor Hastie", "Junyang Qian", "Kenneth Tay"]
    );
    assert_eq!(
        split_names("Achim Zeileis† Torsten Hothorn"),
        vec!["Achim Zeileis", "Torsten Hothorn"]
    );
    assert_eq!(split_names("Zeileis, Achim"), vec!["Achim Zeileis"]);
    assert_eq!(
        split_names("Ada Lovelace and Grace Hopper"),
        vec!["Ada Lovelace", "Grace Hopper"]
    );
    // Capitals, as R News sets its authors: "AND" joins names too.
    assert_eq!(
        split_authors("TORSTEN HOTHORN, FRANK BRETZ, AND ALAN GENZ"),
        vec!["TORSTEN HOTHORN", "FRANK BRETZ", "ALAN GENZ"]
    );
    assert_eq!(
        split_authors("Ada Lovelace And Grace Hopper"),
        vec!["Ada Lovelace", "Grace Hopper"]
    );
}

#[test]
fn untrusted_info_is_ignored() {
    assert!(!plausible_info_title("No Title Given"));
    assert!(!plausible_info_title(
        "<rdf:Alt><rdf:li xml:lang='x-default'></rdf:li></rdf:Alt>"
    ));
    assert!(!plausible_info_title("ascexmpl.dvi"));
    assert!(plausible_info_title("Attention Is All You Need"));
    assert!(!plausible_info_author("No Author Given"));
}

#[test]
fn sidecar_is_read() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("info.yaml"),
        "author: Veytsman, Boris and Doe, Jane\ntitle: Sample  Paper\nyear: '2008'\neprint: arXiv:2101.00001v2\ndoi: https://doi.org/10.1234/X\n",
    )
    .unwrap();
    let m = read_sidecar(&dir.path().join("paper.pdf"))
        .unwrap()
        .unwrap();
    assert_eq!(m.title, "Sample Paper");
    assert_eq!(m.authors, vec!["Boris Veytsman", "Jane Doe"]);
    assert_eq!(m.year, Some(2008));
    assert_eq!(m.arxiv.as_deref(), Some("2101.00001"));
    assert_eq!(m.doi.as_deref(), Some("10.1234/x"));
    std::fs::write(dir.path().join("info.yaml"), "title: [unclosed").unwrap();
    assert!(read_sidecar(&dir.path().join("paper.pdf")).is_err());
}

#[test]
fn every_papis_bibliographic_key_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let pdf = dir.path().join("paper.pdf");
    std::fs::write(
        dir.path().join("info.yaml"),
        "ref: yildiz2020isik\ntype: inproceedings\ntitle: Işık\nauthor: Yıldız, Ayşe\n\
         year: 2020\nbooktitle: Proceedings of ACL\njournal: Not this one\nvolume: 12\n\
         number: 3\npages: 117--130\npublisher: ACL\nurl: https://example.org/x\n",
    )
    .unwrap();
    let m = read_sidecar(&pdf).unwrap().unwrap();
    assert_eq!(m.citation_key.as_deref(), Some("yildiz2020isik"));
    let p = &m.publication;
    assert_eq!(p.kind, Some(WorkType::Conference));
    assert_eq!(p.container.as_deref(), Some("Proceedings of ACL"));
    assert_eq!(p.volume.as_deref(), Some("12"));
    assert_eq!(p.issue.as_deref(), Some("3"));
    assert_eq!(p.pages.as_deref(), Some("117--130"));
    assert_eq!(p.publisher.as_deref(), Some("ACL"));
    assert_eq!(p.url.as_deref(), Some("https://example.org/x"));
    assert_eq!(
        p.names,
        [NameParts::new("Yıldız", "Ayşe").unwrap()],
        "`Family, Given` keeps its parts"
    );
    // papis's crossref import: `issue`, a thesis's `school`, a booktitle without a type.
    std::fs::write(
        dir.path().join("info.yaml"),
        "type: phdthesis\ntitle: T\nschool: Universitetet i Oslo\nissue: '7'\n",
    )
    .unwrap();
    let m = read_sidecar(&pdf).unwrap().unwrap();
    assert_eq!(m.publication.kind, Some(WorkType::PhdThesis));
    assert_eq!(
        m.publication.institution.as_deref(),
        Some("Universitetet i Oslo")
    );
    assert_eq!(m.publication.issue.as_deref(), Some("7"));
    std::fs::write(
        dir.path().join("info.yaml"),
        "title: T\nbooktitle: Proc. X\n",
    )
    .unwrap();
    let m = read_sidecar(&pdf).unwrap().unwrap();
    assert_eq!(m.publication.kind, Some(WorkType::Conference));
    // A list where a value belongs is no value.
    std::fs::write(dir.path().join("info.yaml"), "title: T\nvolume: [1, 2]\n").unwrap();
    let m = read_sidecar(&pdf).unwrap().unwrap();
    assert_eq!(m.publication.volume, None);
}
