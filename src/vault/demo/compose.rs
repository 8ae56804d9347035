//! Turns a [`Paper`] into a [`PdfSpec`] (typography, front matter, numbered sections, reference
//! list) and into its sidecar files (info.yaml, references.json, references.bib).

use super::papers::{Features, Paper, Ref, Section, find};
use super::pdfwriter::{
    Align, Block, DocStyle, Face, PdfSpec, SOFT_HYPHEN, TextStyle, Word, words,
};

/// Letter paper for most papers; the 2009 journal article is A4 like its (fictional) journal.
const LETTER: (f32, f32) = (612.0, 792.0);
const A4: (f32, f32) = (595.28, 841.89);

/// Superscript digits for affiliation marks (all in WinAnsiEncoding).
const SUPERSCRIPTS: [&str; 4] = ["", "¹", "²", "³"];

/// A reference as the papers print it, with the parts sidecars need.
pub struct RefEntry {
    pub key: String,
    pub authors: Vec<String>,
    pub title: String,
    pub venue: String,
    pub year: u16,
    pub doi: Option<String>,
    pub arxiv: Option<String>,
}

impl RefEntry {
    pub(super) fn from_ref(r: &Ref) -> RefEntry {
        match r {
            Ref::Demo(slug) => {
                let p =
                    find(slug).unwrap_or_else(|| panic!("demo reference to unknown paper {slug}"));
                RefEntry {
                    key: p.slug.to_string(),
                    authors: p.short_authors(),
                    title: p.title.to_string(),
                    venue: p.venue.to_string(),
                    year: p.year,
                    doi: p.doi.map(str::to_string),
                    arxiv: p.arxiv.map(str::to_string),
                }
            }
            Ref::External(e) => RefEntry {
                key: e.key.to_string(),
                authors: e.authors.iter().map(|a| a.to_string()).collect(),
                title: e.title.to_string(),
                venue: e.venue.to_string(),
                year: e.year,
                doi: e.doi.map(str::to_string),
                arxiv: e.arxiv.map(str::to_string),
            },
        }
    }

    /// The entry as printed: authors, title, venue, year and one identifier (the DOI when there
    /// is one, as published versions are cited, else the arXiv id).
    pub fn raw(&self) -> String {
        let venue = if self.venue.ends_with(&self.year.to_string()) {
            self.venue.clone()
        } else {
            format!("{}, {}", self.venue, self.year)
        };
        let mut raw = format!("{}. {}. {}.", join_names(&self.authors), self.title, venue);
        if let Some(doi) = &self.doi {
            raw.push_str(&format!(" doi:{doi}"));
        } else if let Some(arxiv) = &self.arxiv {
            raw.push_str(&format!(" arXiv:{arxiv}"));
        }
        raw
    }
}

pub fn references(paper: &Paper) -> Vec<RefEntry> {
    paper.references.iter().map(RefEntry::from_ref).collect()
}

/// "A", "A and B", "A, B and C".
pub fn join_names(names: &[String]) -> String {
    match names {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// Replaces `[@a; @b]` citation markers by their numbers in the reference list, "[2, 5]".
pub fn resolve_citations(text: &str, refs: &[RefEntry]) -> Result<String, String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("[@") {
        out.push_str(&rest[..start]);
        let end = rest[start..]
            .find(']')
            .ok_or_else(|| format!("unclosed citation in {text:?}"))?;
        let mut numbers = Vec::new();
        for key in rest[start + 1..start + end].split(';') {
            let key = key.trim().trim_start_matches('@');
            let n = refs.iter().position(|r| r.key == key).ok_or_else(|| {
                format!("citation of {key:?}, which is not in the reference list")
            })?;
            numbers.push((n + 1).to_string());
        }
        out.push_str(&format!("[{}]", numbers.join(", ")));
        rest = &rest[start + end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// Keys cited in the running text of `paper`, in order of first citation.
#[cfg(test)]
pub fn cited_keys(paper: &Paper) -> Vec<String> {
    let mut keys = Vec::new();
    let texts = std::iter::once(paper.abstract_text).chain(
        paper
            .sections
            .iter()
            .flat_map(|s| s.paragraphs.iter().copied()),
    );
    for text in texts {
        for piece in text.split("[@").skip(1) {
            let inner = piece.split(']').next().unwrap_or("");
            for key in inner.split(';') {
                let key = key.trim().trim_start_matches('@').to_string();
                if !keys.contains(&key) {
                    keys.push(key);
                }
            }
        }
    }
    keys
}

struct Typography {
    body: f32,
    body_leading: f32,
    small: f32,
    small_leading: f32,
}

fn doc_style(features: &Features, page: (f32, f32)) -> (DocStyle, Typography) {
    let text = if features.positioned_text {
        TextStyle::Positioned
    } else {
        TextStyle::Spaced
    };
    if features.two_column {
        (
            DocStyle {
                page_width: page.0,
                page_height: page.1,
                margin_x: 54.0,
                margin_top: 64.0,
                margin_bottom: 64.0,
                columns: 2,
                gutter: 18.0,
                ligatures: features.ligatures,
                text,
            },
            Typography {
                body: 10.0,
                body_leading: 12.0,
                small: 8.5,
                small_leading: 10.0,
            },
        )
    } else {
        (
            DocStyle {
                page_width: page.0,
                page_height: page.1,
                margin_x: 78.0,
                margin_top: 72.0,
                margin_bottom: 66.0,
                columns: 1,
                gutter: 0.0,
                ligatures: features.ligatures,
                text,
            },
            Typography {
                body: 11.0,
                body_leading: 13.5,
                small: 9.5,
                small_leading: 11.5,
            },
        )
    }
}

fn block(text: &str, face: Face, size: f32, leading: f32, align: Align) -> Block {
    Block::new(text, face, size, leading, align)
}

/// The identifiers line under the affiliations: "DOI: … · arXiv:…".
pub fn identifier_line(paper: &Paper) -> String {
    let mut ids = Vec::new();
    if let Some(doi) = paper.doi {
        ids.push(format!("DOI: {doi}"));
    }
    if let Some(arxiv) = paper.arxiv {
        // A downloaded preprint shows the version it is, like arXiv's own stamp.
        let version = if paper.path.starts_with("inbox/") {
            "v2"
        } else {
            ""
        };
        ids.push(format!("arXiv:{arxiv}{version}"));
    }
    ids.join(" · ")
}

fn front_matter(paper: &Paper, t: &Typography) -> Vec<Block> {
    let mut front = Vec::new();
    front.push(block(
        paper.title,
        Face::SansBold,
        17.0,
        21.0,
        Align::Center,
    ));

    // "Name¹, Name² and Name¹": the mark is glued to the name, commas after the mark.
    let marked: Vec<String> = paper
        .authors
        .iter()
        .map(|a| {
            let mark = if paper.affiliations.len() > 1 {
                SUPERSCRIPTS[a.affiliation]
            } else {
                ""
            };
            format!("{}{mark}", a.name)
        })
        .collect();
    let mut authors = block(&join_names(&marked), Face::Roman, 11.5, 14.0, Align::Center);
    authors.space_before = 10.0;
    front.push(authors);
    for (i, aff) in paper.affiliations.iter().enumerate() {
        let mark = if paper.affiliations.len() > 1 {
            format!("{} ", SUPERSCRIPTS[i + 1])
        } else {
            String::new()
        };
        let mut b = block(
            &format!("{mark}{aff}"),
            Face::Italic,
            9.5,
            11.5,
            Align::Center,
        );
        b.space_before = if i == 0 { 4.0 } else { 0.0 };
        front.push(b);
    }
    // The venue and identifiers; the journal article prints them as a first-page footnote.
    if paper.features.first_page_number.is_none() {
        let mut venue = block(paper.venue, Face::Italic, 9.5, 11.5, Align::Center);
        venue.space_before = 6.0;
        front.push(venue);
        front.push(block(
            &identifier_line(paper),
            Face::Roman,
            9.5,
            11.5,
            Align::Center,
        ));
    }
    let mut heading = block("Abstract", Face::Bold, 10.5, 13.0, Align::Center);
    heading.space_before = 14.0;
    front.push(heading);
    let inset = if paper.features.two_column {
        24.0
    } else {
        30.0
    };
    let mut abs = block(
        paper.abstract_text,
        Face::Roman,
        t.small + 0.5,
        t.small_leading + 0.5,
        Align::Justify,
    );
    abs.space_before = 3.0;
    abs.left = inset;
    abs.right = inset;
    front.push(abs);
    let mut kw = Block {
        words: {
            let mut w = vec![Word {
                text: "Keywords:".to_string(),
                face: Face::Bold,
            }];
            w.extend(words(&paper.keywords.join(", "), Face::Italic));
            w
        },
        ..block("", Face::Roman, t.small, t.small_leading, Align::Left)
    };
    kw.space_before = 4.0;
    kw.left = inset;
    kw.right = inset;
    front.push(kw);
    front
}

fn section_blocks(
    sections: &[Section],
    refs: &[RefEntry],
    t: &Typography,
    hyphenate: bool,
) -> Result<Vec<Block>, String> {
    let mut out = Vec::new();
    let (mut major, mut minor) = (0, 0);
    for section in sections {
        let number = if section.level == 0 {
            major += 1;
            minor = 0;
            major.to_string()
        } else {
            minor += 1;
            format!("{major}.{minor}")
        };
        let (size, before) = if section.level == 0 {
            (12.0, 12.0)
        } else {
            (11.0, 8.0)
        };
        let mut heading = block(
            &format!("{number} {}", section.title),
            Face::Bold,
            size,
            size + 3.0,
            Align::Left,
        );
        heading.space_before = before;
        heading.keep_with_next = true;
        heading.outline_level = Some(section.level);
        out.push(heading);
        for (i, para) in section.paragraphs.iter().enumerate() {
            let mut text = resolve_citations(para, refs)?;
            if hyphenate {
                text = suffix_hyphenation(&text);
            }
            let mut b = block(&text, Face::Roman, t.body, t.body_leading, Align::Justify);
            // LaTeX style: no indent after a heading, an indent for following paragraphs.
            b.first_indent = if i == 0 { 0.0 } else { 1.5 * t.body };
            b.space_before = if i == 0 { 2.0 } else { 0.0 };
            out.push(b);
        }
    }
    let mut heading = block("References", Face::Bold, 12.0, 15.0, Align::Left);
    heading.space_before = 12.0;
    heading.keep_with_next = true;
    heading.outline_level = Some(0);
    out.push(heading);
    for (i, r) in refs.iter().enumerate() {
        let mut b = block(
            &format!("[{}] {}", i + 1, r.raw()),
            Face::Roman,
            t.small,
            t.small_leading,
            Align::Left,
        );
        // Hanging label: later lines align with the text after "[n]".
        b.left = 18.0;
        b.first_indent = -18.0;
        b.space_before = 2.0;
        out.push(b);
    }
    Ok(out)
}

/// Adds soft hyphens before common English suffixes of long words ("extrac-tion",
/// "process-ing"), a crude stand-in for TeX's hyphenation patterns that gives the TeX-like
/// paper enough break points for some lines to end in a hyphenated word.
pub fn suffix_hyphenation(text: &str) -> String {
    const SUFFIXES: [&str; 6] = ["tions", "tion", "ments", "ment", "ings", "ing"];
    let hyphenate = |word: &str| -> String {
        let letters = word.trim_end_matches(|c: char| !c.is_alphabetic());
        if word.contains(SOFT_HYPHEN)
            || letters.chars().count() < 8
            || !letters.chars().all(char::is_lowercase)
        {
            return word.to_string();
        }
        for suffix in SUFFIXES {
            if let Some(stem) = letters.strip_suffix(suffix)
                && stem.chars().count() >= 4
            {
                return format!("{stem}{SOFT_HYPHEN}{}", &word[stem.len()..]);
            }
        }
        word.to_string()
    };
    let words: Vec<String> = text.split(' ').map(hyphenate).collect();
    words.join(" ")
}

fn xmp_packet(paper: &Paper) -> String {
    let esc = |s: &str| {
        s.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
    };
    let creators: String = paper
        .authors
        .iter()
        .map(|a| format!("     <rdf:li>{}</rdf:li>\n", esc(a.name)))
        .collect();
    let doi = paper
        .doi
        .map(|d| format!("   <prism:doi>{d}</prism:doi>\n"))
        .unwrap_or_default();
    format!(
        "<?xpacket begin=\"\u{feff}\" id=\"W5M0MpCehiHzreSzNTczkc9d\"?>\n\
         <x:xmpmeta xmlns:x=\"adobe:ns:meta/\">\n\
         <rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\">\n\
         <rdf:Description rdf:about=\"\" xmlns:dc=\"http://purl.org/dc/elements/1.1/\" \
         xmlns:prism=\"http://prismstandard.org/namespaces/basic/2.0/\">\n\
         \x20  <dc:title><rdf:Alt><rdf:li xml:lang=\"x-default\">{}</rdf:li></rdf:Alt></dc:title>\n\
         \x20  <dc:creator>\n    <rdf:Seq>\n{creators}    </rdf:Seq>\n   </dc:creator>\n\
         {doi}</rdf:Description>\n</rdf:RDF>\n</x:xmpmeta>\n<?xpacket end=\"w\"?>",
        esc(paper.title)
    )
}

/// The complete description of one paper's PDF.
pub fn pdf_spec(paper: &Paper) -> Result<PdfSpec, String> {
    let page = if paper.features.first_page_number.is_some() {
        A4
    } else {
        LETTER
    };
    let (style, t) = doc_style(&paper.features, page);
    let refs = references(paper);
    let mut info = Vec::new();
    if paper.features.info_dict {
        let names: Vec<&str> = paper.authors.iter().map(|a| a.name).collect();
        info.push(("Title", paper.title.to_string()));
        info.push(("Author", names.join(", ")));
        info.push(("Subject", paper.venue.to_string()));
        info.push(("Keywords", paper.keywords.join("; ")));
        info.push(("Creator", "agentero demo vault generator".to_string()));
        info.push(("Producer", "agentero pdfwriter (pdf-writer)".to_string()));
        // A fixed date derived from the year keeps the bytes stable.
        info.push(("CreationDate", format!("D:{}0315090000Z", paper.year)));
        if paper.features.info_doi
            && let Some(doi) = paper.doi
        {
            info.push(("doi", doi.to_string()));
        }
    }
    let first_page_note = paper.features.first_page_number.map(|_| {
        let doi = paper.doi.map(|d| format!(" doi:{d}")).unwrap_or_default();
        format!("{}.{doi}", paper.venue)
    });
    Ok(PdfSpec {
        front: front_matter(paper, &t),
        body: section_blocks(paper.sections, &refs, &t, paper.features.ligatures)?,
        style,
        first_page_note,
        info,
        xmp: paper.features.xmp.then(|| xmp_packet(paper)),
        outline: paper.features.outline,
        first_page_number: paper.features.first_page_number,
    })
}

// ---------------------------------------------------------------------------------------------

pub use super::sidecars::*;
