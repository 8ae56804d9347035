//! The demo papers as data: eight invented papers on reading and retrieval over scientific PDFs.
//!
//! Everything here is fictional (authors, institutions, venues, datasets, DOIs under the
//! `10.5555` test prefix, arXiv ids), but the papers are written to be internally consistent:
//! later papers cite earlier ones by DOI or arXiv id and quote the same numbers, so questions
//! across the vault have answers. In-text citations are written `[@key]` (a demo paper's slug
//! or an external reference's key) and numbered when the paper is composed. `*` toggles italics
//! at word boundaries; `\u{ad}` (soft hyphen) marks where a word may be hyphenated.

/// One author and the 1-based index of their affiliation.
pub struct Author {
    pub name: &'static str,
    pub affiliation: usize,
}

pub struct Section {
    pub title: &'static str,
    /// 0 for "2 Method", 1 for "2.1 Window construction".
    pub level: u8,
    pub paragraphs: &'static [&'static str],
}

/// A reference that no demo paper matches.
pub struct External {
    pub key: &'static str,
    pub authors: &'static [&'static str],
    pub title: &'static str,
    pub venue: &'static str,
    pub year: u16,
    pub doi: Option<&'static str>,
    pub arxiv: Option<&'static str>,
}

pub enum Ref {
    /// Another demo paper, by slug; its entry is written from that paper's own metadata.
    Demo(&'static str),
    External(&'static External),
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum RefSidecar {
    Json,
    Bib,
}

/// The features that make a paper a test case for the reader.
#[derive(Clone, Copy, Debug)]
pub struct Features {
    /// Body in two columns below a full-width title and abstract.
    pub two_column: bool,
    /// `fi`/`fl` drawn as ligature glyphs via `/Differences`, plus soft-hyphen line breaks.
    pub ligatures: bool,
    /// TeX-like `TJ` arrays (kerning, positioned word gaps) instead of strings with spaces.
    pub positioned_text: bool,
    pub outline: bool,
    /// `/PageLabels` and printed page numbers starting here (a journal page range).
    pub first_page_number: Option<u32>,
    /// Without it the file has no Info dictionary: metadata must come from the first page.
    pub info_dict: bool,
    pub xmp: bool,
    /// Also a `/doi` entry in the Info dictionary, as some publishers write it.
    pub info_doi: bool,
    pub info_yaml: bool,
    pub references_sidecar: Option<RefSidecar>,
}

const PLAIN: Features = Features {
    two_column: false,
    ligatures: false,
    positioned_text: false,
    outline: false,
    first_page_number: None,
    info_dict: true,
    xmp: false,
    info_doi: false,
    info_yaml: false,
    references_sidecar: None,
};

pub struct Paper {
    pub slug: &'static str,
    /// Vault-relative path of the PDF.
    pub path: &'static str,
    pub title: &'static str,
    pub authors: &'static [Author],
    pub affiliations: &'static [&'static str],
    pub year: u16,
    /// Where it appeared, as printed on the first page.
    pub venue: &'static str,
    pub doi: Option<&'static str>,
    pub arxiv: Option<&'static str>,
    pub keywords: &'static [&'static str],
    pub abstract_text: &'static str,
    pub sections: &'static [Section],
    pub references: &'static [Ref],
    pub features: Features,
}

impl Paper {
    /// "M. Halvorsen" style names, as reference lists print them.
    pub fn short_authors(&self) -> Vec<String> {
        self.authors.iter().map(|a| initials(a.name)).collect()
    }
}

/// "Margit Halvorsen" → "M. Halvorsen"; "Mei-Ling Cho" → "M.-L. Cho"; particles stay ("Ilse de
/// Vries" → "I. de Vries").
pub fn initials(name: &str) -> String {
    let parts: Vec<&str> = name.split(' ').collect();
    let (last, given) = match parts
        .iter()
        .position(|p| p.chars().next().is_some_and(char::is_lowercase))
    {
        Some(i) if i > 0 => (parts[i..].join(" "), &parts[..i]),
        _ => (
            parts[parts.len() - 1].to_string(),
            &parts[..parts.len() - 1],
        ),
    };
    let given: Vec<String> = given
        .iter()
        .map(|g| {
            let pieces: Vec<String> = g
                .split('-')
                .filter_map(|p| p.chars().next().map(|c| format!("{c}.")))
                .collect();
            pieces.join("-")
        })
        .collect();
    format!("{} {last}", given.join(" "))
}

pub fn find(slug: &str) -> Option<&'static Paper> {
    PAPERS.iter().find(|p| p.slug == slug)
}

/// The papers in a fixed order (oldest first), which is also the order they are written in.
pub static PAPERS: [Paper; 8] = [
    HALVORSEN,
    LAYOUTFLOW,
    CITEWEAVE,
    SCI_TOKENS,
    DENSE_SPARSE,
    RECEIPTS,
    ATTRIBUTION,
    SURVEY,
];

// ---------------------------------------------------------------------------------------------
// External references (fictional works outside the vault).

const OKAFOR2004: External = External {
    key: "okafor2004",
    authors: &["R. Okafor", "L. Brandt"],
    title: "Probabilistic term weighting revisited",
    venue: "Information Retrieval Letters 12(4): 201–219",
    year: 2004,
    doi: Some("10.5555/irl.2004.0117"),
    arxiv: None,
};
const LINDQVIST1998: External = External {
    key: "lindqvist1998",
    authors: &["A. Lindqvist"],
    title: "Window models for passage retrieval",
    venue: "Proceedings of the Nordic Retrieval Workshop",
    year: 1998,
    doi: None,
    arxiv: None,
};
const ABE2006: External = External {
    key: "abe2006",
    authors: &["K. Abe", "S. Moreau"],
    title: "Full text versus abstracts in biomedical search",
    venue: "Journal of Biomedical Text 3: 45–58",
    year: 2006,
    doi: Some("10.5555/jbt.2006.0045"),
    arxiv: None,
};
const FERREIRA1996: External = External {
    key: "ferreira1996",
    authors: &["P. Ferreira", "G. Lund"],
    title: "Recursive cuts for page segmentation",
    venue: "Document Analysis Letters 2: 77–90",
    year: 1996,
    doi: None,
    arxiv: None,
};
const HARTMANN2019: External = External {
    key: "hartmann2019",
    authors: &["E. Hartmann", "J. Sato", "M. Pruitt"],
    title: "Glyph-level annotations for PDF parsing",
    venue: "arXiv preprint",
    year: 2019,
    doi: None,
    arxiv: Some("1907.03318"),
};
const BAPTISTE2020: External = External {
    key: "baptiste2020",
    authors: &["L. Baptiste", "A. Kovács"],
    title: "Dual encoders for open-domain passage retrieval",
    venue: "arXiv preprint",
    year: 2020,
    doi: None,
    arxiv: Some("2004.11021"),
};
const CASTELL2010: External = External {
    key: "castell2010",
    authors: &["M. Castell", "O. Dahl"],
    title: "Rank fusion without training",
    venue: "Proceedings of the Retrieval Methods Conference",
    year: 2010,
    doi: Some("10.5555/rmc.2010.0310"),
    arxiv: None,
};
const REYES2016: External = External {
    key: "reyes2016",
    authors: &["T. Reyes", "A. Whitlock"],
    title: "Byte-pair vocabularies for open-vocabulary models",
    venue: "arXiv preprint",
    year: 2016,
    doi: None,
    arxiv: Some("1608.04410"),
};
const HOLLOWAY2021: External = External {
    key: "holloway2021",
    authors: &["G. Holloway", "I. Petrov"],
    title: "Entailment as a test of factual support",
    venue: "arXiv preprint",
    year: 2021,
    doi: None,
    arxiv: Some("2106.08812"),
};
const SOBCZAK2015: External = External {
    key: "sobczak2015",
    authors: &["M. Sobczak"],
    title: "Agreement coefficients for annotation studies",
    venue: "Journal of Annotation Science 9: 1–22",
    year: 2015,
    doi: Some("10.5555/jas.2015.0001"),
    arxiv: None,
};

// ---------------------------------------------------------------------------------------------
// 2009: the classic that every later paper cites. Journal pages 283–286, hence /PageLabels.

const HALVORSEN: Paper = Paper {
    slug: "halvorsen2009-passages",
    path: "papers/halvorsen2009-passages/paper.pdf",
    title: "Passage-Level Retrieval over Scholarly Full Text",
    authors: &[
        Author {
            name: "Margit Halvorsen",
            affiliation: 1,
        },
        Author {
            name: "Tobias Renner",
            affiliation: 2,
        },
    ],
    affiliations: &[
        "Department of Information Science, University of Tromsvik, Norway",
        "Institut für Dokumentation, Hochschule Lindenau, Germany",
    ],
    year: 2009,
    venue: "Journal of Documentary Informatics 41(3): 283–286, 2009",
    doi: Some("10.5555/agentero.2009.0283"),
    arxiv: None,
    keywords: &[
        "passage retrieval",
        "full text",
        "BM25",
        "question answering",
    ],
    abstract_text: "Search engines for scientific literature still rank whole articles, although the \
        answer to a researcher's question usually sits in a single paragraph. We study passage-level \
        retrieval over the full text of 4,212 articles in materials science and biomedicine. Articles \
        are cut into overlapping windows of 150 words with a stride of 75 words, and each window is \
        scored with BM25. On *SciPassage-1K*, a new collection of 1,000 questions with judged \
        answer passages, passage retrieval raises mean average precision from 0.212 for \
        document-level ranking to 0.297, a relative gain of 40 percent. We conclude that the passage, \
        not the document, should be the unit of retrieval for question answering over scientific \
        literature.",
    sections: &[
        Section {
            title: "Introduction",
            level: 0,
            paragraphs: &[
                "A researcher who asks which sintering temperature was used in a study, or how many \
                 patients a trial enrolled, does not want a ranked list of forty-page articles. She \
                 wants the paragraph that states the number. Yet the retrieval models that serve \
                 scholarly search were designed for abstracts and short records, and they treat a full \
                 article as one bag of words [@okafor2004]. Long documents accumulate term matches \
                 everywhere, so an article that mentions a query term once in each of twelve sections \
                 can outrank the article that answers the question in one place.",
                "Earlier work on passage retrieval studied newswire, where documents are short and \
                 homogeneous [@lindqvist1998]. Scientific articles are different: they are long, \
                 structured into sections with distinct vocabularies, and dense with numbers, units \
                 and names of materials, genes and data sets. Abe and Moreau showed that searching \
                 full text instead of abstracts helps recall but hurts precision [@abe2006]. We ask \
                 whether retrieving passages recovers the precision while keeping the recall.",
                "Our contributions are a simple windowing scheme for full text, a test collection of \
                 1,000 questions with judged answer passages, and an analysis of window size and \
                 scoring. The main result is that 150-word windows with 50 percent overlap improve \
                 mean average precision by 40 percent over ranking whole documents.",
            ],
        },
        Section {
            title: "Passage windows",
            level: 0,
            paragraphs: &[
                "We convert each article to plain text, remove the reference list, and keep section \
                 boundaries as hard breaks. Figures and tables are dropped because their text is not \
                 reliably recoverable from the source files.",
            ],
        },
        Section {
            title: "Window construction",
            level: 1,
            paragraphs: &[
                "Within a section, the text is cut into windows of W words that start every S words. \
                 We use W = 150 and S = 75, so every sentence appears in two windows and no answer \
                 is lost at a window edge. A window never crosses a section boundary; the last window \
                 of a section may be shorter. Each window is prefixed with the article title, which \
                 gives short windows the context they lack on their own.",
            ],
        },
        Section {
            title: "Scoring",
            level: 1,
            paragraphs: &[
                "Windows are scored with BM25 using k1 = 1.2 and b = 0.75, with document frequencies \
                 computed over windows rather than articles. To rank articles, an article takes the \
                 score of its best window (max-passage scoring). We also tried summing the three best \
                 windows, which was consistently worse by 0.008 to 0.015 in mean average precision.",
            ],
        },
        Section {
            title: "Experimental setup",
            level: 0,
            paragraphs: &[
                "*SciPassage-1K* contains 1,000 questions written by 23 graduate students after reading \
                 articles from a pool of 4,212 open full-text articles: 2,390 in materials science and \
                 1,822 in biomedicine. For each question, assessors marked every passage in the pool \
                 that answers it, using a pooled set of candidates from six systems. On average a \
                 question has 2.6 answer passages spread over 1.4 articles.",
                "We report mean average precision (MAP) over articles, where an article is relevant if \
                 it contains an answer passage, and success at 5 for passages: the fraction of \
                 questions whose top five windows contain at least one answer passage.",
            ],
        },
        Section {
            title: "Results",
            level: 0,
            paragraphs: &[
                "Ranking whole documents with BM25 reaches a MAP of 0.212. Passage windows with \
                 max-passage scoring reach 0.297. The answer passage is among the top five windows for \
                 63.4 percent of the questions, against 38.9 percent when the best-matching paragraph \
                 is taken from the top-ranked documents.",
                "Window size matters, but the optimum is broad. Windows of 50 words reach a MAP of \
                 0.251 and windows of 400 words reach 0.268; between 100 and 200 words the differences \
                 are below 0.01. Small windows lose the context that disambiguates a number; large \
                 windows dilute it again. Prefixing the title adds 0.011, mostly for questions that \
                 name the material or organism only implicitly.",
                "The gains are largest for questions that ask for a number or a setting, such as a \
                 temperature, a dose or a sample size (MAP 0.184 to 0.301), and smallest for questions \
                 that ask for a definition, which abstracts often answer (0.266 to 0.289).",
            ],
        },
        Section {
            title: "Discussion",
            level: 0,
            paragraphs: &[
                "Passage retrieval depends on clean text. About 7 percent of our articles had broken \
                 reading order after conversion, with two-column pages read across the gutter; their \
                 windows mixed unrelated sentences and rarely ranked well. Better text extraction is \
                 therefore not a cosmetic concern but a precondition for passage-level search.",
            ],
        },
        Section {
            title: "Conclusion",
            level: 0,
            paragraphs: &[
                "Overlapping 150-word windows scored with BM25 raise MAP from 0.212 to 0.297 on \
                 scientific full text. The passage, not the document, should be the unit of retrieval \
                 for question answering over scientific literature. *SciPassage-1K* is available from \
                 the authors on request.",
            ],
        },
    ],
    references: &[
        Ref::External(&ABE2006),
        Ref::External(&LINDQVIST1998),
        Ref::External(&OKAFOR2004),
    ],
    features: Features {
        first_page_number: Some(283),
        ..PLAIN
    },
};

// ---------------------------------------------------------------------------------------------
// 2021: reading order and text repair; set like pdfTeX output (ligatures, TJ, hyphenation).

const LAYOUTFLOW: Paper = Paper {
    slug: "layoutflow",
    path: "papers/layoutflow/paper.pdf",
    title: "LayoutFlow: Recovering Reading Order from Scholarly PDFs",
    authors: &[
        Author {
            name: "Inês Carvalho",
            affiliation: 1,
        },
        Author {
            name: "Daniel Osei",
            affiliation: 1,
        },
        Author {
            name: "Ruth Abernethy",
            affiliation: 2,
        },
    ],
    affiliations: &[
        "School of Computing, Northbridge University",
        "Kestrel Document Labs",
    ],
    year: 2021,
    venue: "Proceedings of the Workshop on Document Understanding (WDU 2021)",
    doi: Some("10.5555/agentero.2021.0104"),
    arxiv: Some("2104.05512"),
    keywords: &[
        "PDF",
        "reading order",
        "text extraction",
        "ligatures",
        "hyphenation",
    ],
    abstract_text: "A PDF file stores glyphs and their positions, not text. Turning a scholarly \
        PDF into text that downstream search can use means recovering lines, columns and reading \
        order, and repairing ligatures and hyphenated line ends. We present LayoutFlow, an \
        efficient rule-based method that groups glyphs into lines by baseline, finds columns from \
        vertical whitespace, and orders blocks column by column. On *DocOrder-300*, 300 papers \
        with 2,814 annotated pages, LayoutFlow reduces the block-order error from 0.187 for \
        content-stream order to 0.042, and the word error rate from 6.4 to 1.9 percent, at 38 \
        milliseconds per page on a single CPU core.",
    sections: &[
        Section {
            title: "Introduction",
            level: 0,
            paragraphs: &[
                "Every system that searches or answers questions over a growing set of papers starts with text \
                 extrac\u{ad}tion, and most treat it as solved. It is not. The content stream of a \
                 PDF page is a program that paints glyphs at coordinates; the order of the painting \
                 operators is whatever the producer found convenient. Two-column papers are the \
                 common case in computer science and physics, and a reader that follows the stream \
                 or sorts lines by height alone will read across the gutter and interleave the \
                 columns. Halvorsen and Renner found broken reading order in about 7 percent of the \
                 articles they indexed and showed that such articles rarely rank well [@halvorsen2009-passages].",
                "Typesetting adds further traps. TeX draws the letter pairs fi and fl as single \
                 ligature glyphs, so a naive extrac\u{ad}tion turns the word efficient into a word with \
                 an unknown charac\u{ad}ter, and it breaks long words at line ends with a hyphen that \
                 is not part of the word. Running headers, page numbers and footnotes interrupt the \
                 flow of the text in the middle of a sentence.",
                "We describe LayoutFlow, a small set of geometric rules that handle these cases, and \
                 evaluate it against human annotations. The whole workflow runs on a CPU, needs no \
                 training data, and is fast enough to process a library of ten thousand papers in \
                 under an hour.",
            ],
        },
        Section {
            title: "Method",
            level: 0,
            paragraphs: &[
                "LayoutFlow works on the glyphs of one page at a time, each with its position, font \
                 size and advance width, as reported by the content-stream interpreter.",
            ],
        },
        Section {
            title: "Lines",
            level: 1,
            paragraphs: &[
                "Glyphs are grouped into lines by clustering their baselines with a tolerance of 0.3 \
                 times the font size, then sorted left to right. A gap wider than 0.25 em between two \
                 glyphs starts a new word, whether the producer drew a space charac\u{ad}ter or simply \
                 moved the pen; pdfTeX, for example, never draws spaces and positions every word with \
                 a TJ offset.",
            ],
        },
        Section {
            title: "Columns",
            level: 1,
            paragraphs: &[
                "A gutter is a vertical strip of whitespace at least 1.5 times the median space width \
                 wide that spans at least 60 percent of the text height of the page. Lines are split \
                 at gutters into blocks. Blocks that cross a gutter, such as the title, the abstract \
                 or a wide figure caption, are marked as full-width.",
            ],
        },
        Section {
            title: "Ligatures and hyphens",
            level: 1,
            paragraphs: &[
                "Ligature glyphs are mapped back to letters from their glyph names in the font \
                 encoding, so that fi, fl, ffi and ffl become plain letters; when the font only gives \
                 a Unicode mapping, the compatibility decompo\u{ad}sition of the ligature code point \
                 is used. A line that ends in a hyphen is joined to the next line without the hyphen \
                 when the joined word occurs elsewhere in the document or the continuation starts in \
                 lower case, and kept otherwise.",
            ],
        },
        Section {
            title: "Reading order",
            level: 1,
            paragraphs: &[
                "Full-width blocks are ordered by their vertical position. Between two full-width \
                 blocks, the column blocks are read column by column, left column first, each from \
                 top to bottom. Lines that repeat at the same position on most pages are classified \
                 as running headers or page numbers and moved out of the text flow.",
            ],
        },
        Section {
            title: "Evaluation",
            level: 0,
            paragraphs: &[
                "*DocOrder-300* consists of 300 open-access papers from six fields with 2,814 pages; \
                 annotators marked every text block and its position in the reading order. We \
                 measure the normalised edit distance between the predicted and annotated block \
                 sequences, and the word error rate of the extracted text against a manual \
                 transcription.",
                "Content-stream order reaches a block-order error of 0.187, and a recursive XY-cut \
                 segmentation [@ferreira1996] reaches 0.121. LayoutFlow reaches 0.042. The word error \
                 rate falls from 6.4 percent for the stream order to 1.9 percent. Hyphen repair is \
                 correct for 97.6 percent of 5,120 hyphenated line ends; most errors are true \
                 compounds such as state-of-the-art that happen to break at their own hyphen. \
                 Ligature repair removes all 3,977 ligature glyphs in the collection. The method \
                 takes 38 milliseconds per page, and the efficient handling of long documents comes \
                 from processing pages independently.",
                "Remaining errors come from pages with three or more columns, from tables, whose \
                 cells are read row by row, and from equations set in many small pieces. Glyph-level \
                 training data [@hartmann2019] could help with these cases.",
            ],
        },
        Section {
            title: "Conclusion",
            level: 0,
            paragraphs: &[
                "Reading order, ligatures and hyphenation are the main sources of noise in text \
                 extracted from scholarly PDFs, and simple geometric rules remove most of it. We \
                 recommend that retrieval systems report which extrac\u{ad}tion workflow they use, \
                 since it changes their results.",
            ],
        },
    ],
    references: &[
        Ref::External(&FERREIRA1996),
        Ref::Demo("halvorsen2009-passages"),
        Ref::External(&HARTMANN2019),
    ],
    features: Features {
        ligatures: true,
        positioned_text: true,
        outline: true,
        ..PLAIN
    },
};

// ---------------------------------------------------------------------------------------------
// 2022: citation graph mining. Has an info.yaml sidecar.

const CITEWEAVE: Paper = Paper {
    slug: "citeweave",
    path: "papers/citeweave/paper.pdf",
    title: "CiteWeave: Linking Claims across Papers through Citation Contexts",
    authors: &[
        Author {
            name: "Priya Raman",
            affiliation: 1,
        },
        Author {
            name: "Jonas Möller",
            affiliation: 2,
        },
        Author {
            name: "Akua Mensah",
            affiliation: 1,
        },
    ],
    affiliations: &[
        "Centre for Scholarly Data, University of Eastmoor",
        "Lindt-Institut für Informatik, Aachenfeld",
    ],
    year: 2022,
    venue: "Transactions on Scholarly Data Mining 5: 112–131, 2022",
    doi: Some("10.5555/agentero.2022.0217"),
    arxiv: Some("2203.11873"),
    keywords: &[
        "citation graph",
        "citation context",
        "reference resolution",
        "citation intent",
    ],
    abstract_text: "A citation is more than an edge: the sentence around it says why a paper is \
        cited and whether the citing authors agree with it. CiteWeave builds a citation graph from \
        the full text of papers, resolves each reference string to a DOI or arXiv identifier, keeps \
        the citation context of every edge, and labels its intent. On *OpenSci-38K*, a corpus of \
        38,112 papers with 612,404 resolved citation edges, CiteWeave resolves 91.4 percent of \
        references with a precision of 98.1 percent and classifies citation intent with a macro F1 \
        of 0.71. We show how the graph lets a reader follow a claim from the paper that made it to \
        the papers that support or contest it.",
    sections: &[
        Section {
            title: "Introduction",
            level: 0,
            paragraphs: &[
                "Citation indexes record that one paper cites another, but not what it says about it. \
                 A reader who finds a surprising claim wants to know who built on it, who failed to \
                 reproduce it, and who merely mentions it in passing. That information is in the \
                 citing sentences, which are rarely collected.",
                "CiteWeave extracts the text of each paper with a layout-aware extractor \
                 [@layoutflow], finds the reference list and the in-text markers, resolves references \
                 to persistent identifiers, and stores each citation with its context. The resulting \
                 graph supports questions such as which papers contest a given result, or which \
                 passage of a cited paper a citing paper relies on.",
            ],
        },
        Section {
            title: "Method",
            level: 0,
            paragraphs: &[
                "The pipeline has four stages: reference parsing, reference resolution, context \
                 extraction and intent classification. Each stage works on plain text and can be run \
                 again when a better extractor becomes available.",
            ],
        },
        Section {
            title: "Reference parsing and resolution",
            level: 1,
            paragraphs: &[
                "The reference section is located by its heading and split into entries at \
                 bracketed or numbered labels and at hanging indents. Each entry is searched for a \
                 DOI (the prefix 10. followed by a registrant code and a suffix) and for an arXiv \
                 identifier of the form arXiv:YYMM.NNNNN. 58 percent of entries carry one of the two. \
                 The remaining entries are matched against a metadata index by title: a candidate \
                 must share at least 80 percent of the title tokens (Jaccard similarity of 0.8) and \
                 have a publication year within one year of the parsed year.",
                "Overall 91.4 percent of references are resolved. On a sample of 2,000 manually \
                 checked resolutions the precision is 98.1 percent; almost all errors are conference \
                 papers confused with their later journal versions, which share a title.",
            ],
        },
        Section {
            title: "Citation contexts",
            level: 1,
            paragraphs: &[
                "For each in-text marker we keep the citing sentence together with one sentence \
                 before and one after it. A window of three sentences captures the claim and the \
                 evaluation of the cited work in 88 percent of the cases we inspected; a single \
                 sentence captures it in 61 percent.",
            ],
        },
        Section {
            title: "Intent classification",
            level: 1,
            paragraphs: &[
                "Each context is labelled as background, uses, compares or extends, and separately as \
                 supporting, neutral or contrasting. A logistic regression over word n-grams, the \
                 section in which the citation occurs and cue phrases such as in contrast to or \
                 following reaches a macro F1 of 0.71 on 4,000 annotated contexts. Contrasting \
                 citations are rare: 7.8 percent of all contexts.",
            ],
        },
        Section {
            title: "The OpenSci-38K graph",
            level: 0,
            paragraphs: &[
                "*OpenSci-38K* contains 38,112 open-access papers from computer science, physics and \
                 the life sciences published between 2005 and 2021, with 612,404 resolved citation \
                 edges. The median paper is cited four times within the corpus; the most cited paper \
                 receives 1,906 citations. Among the papers in our corpus that cite passage-level \
                 retrieval work, the windowing scheme of Halvorsen and Renner [@halvorsen2009-passages] \
                 is the most frequently used, almost always with the original 150-word windows.",
                "Citation contexts make the graph searchable by claim. Indexing contexts with BM25 \
                 [@okafor2004] and retrieving the cited paper instead of the citing one finds the \
                 source of a claim for 74 percent of 300 test claims, compared with 52 percent when \
                 searching the abstracts of the cited papers directly.",
            ],
        },
        Section {
            title: "Limitations",
            level: 0,
            paragraphs: &[
                "Resolution depends on the quality of the extracted reference list; papers whose \
                 references are set in two narrow columns lose about 4 percent of entries when the \
                 extractor merges neighbouring lines. Intent labels are coarse, and contrasting \
                 citations are too rare for the classifier to find them reliably (F1 0.52 for that \
                 class).",
            ],
        },
        Section {
            title: "Conclusion",
            level: 0,
            paragraphs: &[
                "Keeping the context of every citation turns a citation graph into a map of claims. \
                 CiteWeave resolves 91.4 percent of references to identifiers with high precision and \
                 lets a reader move from a claim to the papers that support or contest it.",
            ],
        },
    ],
    references: &[
        Ref::Demo("halvorsen2009-passages"),
        Ref::Demo("layoutflow"),
        Ref::External(&OKAFOR2004),
    ],
    features: Features {
        info_yaml: true,
        ..PLAIN
    },
};

// ---------------------------------------------------------------------------------------------
// 2022: tokenisation of scientific text. arXiv only (no DOI); has an info.yaml sidecar.

const SCI_TOKENS: Paper = Paper {
    slug: "sci-tokenisation",
    path: "papers/sci-tokenisation/paper.pdf",
    title: "Subword Tokenisation Fragments Scientific Identifiers",
    authors: &[
        Author {
            name: "Oluwaseun Adeyemi",
            affiliation: 1,
        },
        Author {
            name: "Hanna Virtanen",
            affiliation: 2,
        },
    ],
    affiliations: &[
        "Language Technology Group, Calder Institute",
        "Department of Linguistics, University of Saaren",
    ],
    year: 2022,
    venue: "Preprint",
    doi: None,
    arxiv: Some("2211.07321"),
    keywords: &[
        "tokenisation",
        "identifiers",
        "dense retrieval",
        "scientific text",
    ],
    abstract_text: "Scientific text is full of identifiers: chemical formulas, gene symbols, \
        names of data sets, version numbers and quantities with units. Subword vocabularies \
        learned from web text cut these identifiers into many small pieces. We measure the \
        fragmentation on 1.2 million identifiers from 20,000 papers: a 32,000-entry byte-pair \
        vocabulary splits an identifier into 4.7 pieces on average, against 1.6 pieces for an \
        ordinary word of the same length. We propose identifier-preserving pre-tokenisation \
        (IPT), which protects identifiers before subword splitting and splits digits \
        consistently. IPT reduces fragmentation by 38 percent and improves dense retrieval for \
        queries that contain identifiers from 0.534 to 0.596 nDCG@10.",
    sections: &[
        Section {
            title: "Introduction",
            level: 0,
            paragraphs: &[
                "Subword tokenisers are trained to compress frequent text [@reyes2016]. In scientific \
                 papers the most informative strings are often the least frequent: LiFePO4, BRCA1, \
                 SciPassage-1K or 3.5 mm. A model that sees LiFePO4 as five unrelated pieces has to \
                 reassemble the compound from context, and a retriever that embeds a query with a \
                 data set name may match any passage that shares its most common piece.",
                "Sparse retrieval with whitespace tokens does not have this problem, which may explain \
                 why lexical models remain strong on scientific full text [@halvorsen2009-passages]. \
                 We quantify the fragmentation, propose a fix that needs no retraining of the \
                 vocabulary, and measure its effect on retrieval.",
            ],
        },
        Section {
            title: "Measuring fragmentation",
            level: 0,
            paragraphs: &[
                "We collected 1.2 million identifier occurrences from 20,000 papers with a set of \
                 patterns for six classes: chemical formulas, gene and protein symbols, data set and \
                 model names, version numbers, quantities with units, and references to equations \
                 and figures. Fragmentation is the number of subword pieces per identifier.",
                "With a 32,000-entry byte-pair vocabulary trained on web text, identifiers split into \
                 4.7 pieces on average, and ordinary words of the same character length into 1.6. \
                 Chemical formulas fare worst with 6.1 pieces. Numbers are split inconsistently: \
                 2021 is one piece but 2031 is two, and in 31 percent of quantities the unit is merged \
                 with the last digit, so 3.5mm and 3.5 mm share no piece at all.",
                "Text extracted from PDFs adds its own noise. Ligature glyphs left as single code \
                 points, such as U+FB01 for fi, produce pieces that never occur in training data, and \
                 hyphens left at line ends split words in two. A layout-aware extractor that repairs \
                 ligatures and hyphens [@layoutflow] removes most of this noise: on our sample, \
                 repairing the text reduces the number of pieces per document by 2.3 percent.",
            ],
        },
        Section {
            title: "Identifier-preserving pre-tokenisation",
            level: 0,
            paragraphs: &[
                "IPT runs before the subword tokeniser. It detects identifiers with the same six \
                 pattern classes, keeps each as a single pre-token that the subword model may split \
                 only at case changes and hyphens, splits every number into single digits, and \
                 separates units from numbers with a space. Because it only changes pre-tokenisation, \
                 IPT works with an existing vocabulary; the encoder is fine-tuned for one epoch so \
                 that it adapts to the new segmentation.",
                "IPT reduces fragmentation of identifiers from 4.7 to 2.9 pieces, a reduction of 38 \
                 percent, and leaves ordinary words unchanged. Digit splitting alone accounts for \
                 about one third of the reduction.",
            ],
        },
        Section {
            title: "Effect on retrieval",
            level: 0,
            paragraphs: &[
                "We fine-tuned a dual encoder [@baptiste2020] with and without IPT and evaluated it \
                 on 900 queries over passages of 150 words. For the 310 queries that contain an \
                 identifier, nDCG@10 rises from 0.534 to 0.596; for the other queries it changes by \
                 less than 0.005. BM25 is unaffected by IPT because it never sees subword pieces; on \
                 identifier queries it reaches 0.611, still ahead of the dense model with IPT.",
            ],
        },
        Section {
            title: "Conclusion",
            level: 0,
            paragraphs: &[
                "Subword vocabularies trained on web text fragment the identifiers that matter most in \
                 science. Protecting identifiers before subword splitting is cheap and closes part of \
                 the gap between dense and lexical retrieval on identifier queries, but not all of \
                 it: systems that must find exact names and numbers should keep a lexical component.",
            ],
        },
    ],
    references: &[
        Ref::External(&BAPTISTE2020),
        Ref::Demo("halvorsen2009-passages"),
        Ref::Demo("layoutflow"),
        Ref::External(&REYES2016),
    ],
    features: Features {
        info_yaml: true,
        ..PLAIN
    },
};

// ---------------------------------------------------------------------------------------------
// 2023: dense vs sparse retrieval; a two-column conference paper set with TJ arrays.

const DENSE_SPARSE: Paper = Paper {
    slug: "dense-vs-sparse",
    path: "papers/dense-vs-sparse/paper.pdf",
    title: "Dense or Sparse? Retrieving Passages from Scientific Papers",
    authors: &[
        Author {
            name: "Lena Fischbach",
            affiliation: 1,
        },
        Author {
            name: "Tomás Ibarra",
            affiliation: 2,
        },
        Author {
            name: "Mei-Ling Cho",
            affiliation: 1,
        },
    ],
    affiliations: &[
        "Department of Computer Science, Harwick University",
        "Lattice Research",
    ],
    year: 2023,
    venue: "Proceedings of the Conference on Scholarly Retrieval (CSR 2023)",
    doi: Some("10.5555/agentero.2023.0042"),
    arxiv: Some("2302.04417"),
    keywords: &[
        "dense retrieval",
        "BM25",
        "hybrid retrieval",
        "scientific passages",
    ],
    abstract_text: "Dense retrievers dominate open-domain question answering, but scientific \
        papers are full of exact identifiers, numbers and rare terms that lexical matching handles \
        well. We compare BM25, a dense bi-encoder trained on citation contexts, and their hybrid on \
        *SciPassage-QA*, a benchmark of 2,400 questions over passages from 1,150 papers. Neither \
        model wins everywhere: the dense model is better on definitional questions, BM25 on \
        questions that name an identifier. Reciprocal rank fusion of the two reaches a recall at \
        10 of 0.731, against 0.612 for BM25 and 0.648 for the dense model, at a cost of 15 \
        milliseconds per query.",
    sections: &[
        Section {
            title: "Introduction",
            level: 0,
            paragraphs: &[
                "Passage retrieval is the first step of every system that answers questions from \
                 papers. Since Halvorsen and Renner showed that passages rather than whole articles \
                 should be retrieved [@halvorsen2009-passages], the lexical model BM25 has been the \
                 default. Dense retrievers that embed questions and passages in one vector space \
                 [@baptiste2020] have since overtaken lexical models on web questions. It is not \
                 obvious that the same holds for science, where a question may hinge on the name of \
                 a data set or a single number.",
                "We compare the two families on the same passages and questions and break the \
                 results down by question type. Our findings are simple: the models fail on \
                 different questions, so their combination is better than either, and the cheapest \
                 way to combine them is also the best one we tried.",
            ],
        },
        Section {
            title: "The SciPassage-QA benchmark",
            level: 0,
            paragraphs: &[
                "*SciPassage-QA* extends the design of *SciPassage-1K* [@halvorsen2009-passages] to \
                 current papers. We took 1,150 open-access papers from machine learning, chemistry \
                 and genomics, extracted their text with LayoutFlow [@layoutflow], and cut it into \
                 windows of 150 words with a stride of 75 words, which gives 412,880 passages. \
                 Twelve annotators wrote 2,400 questions and marked their answer passages.",
                "Questions fall into four types: numeric questions that ask for a value or a setting \
                 (720), definitional questions (640), comparative questions (628) and identifier \
                 questions that name a data set, gene, compound or model (412).",
            ],
        },
        Section {
            title: "Retrievers",
            level: 0,
            paragraphs: &[
                "BM25 uses k1 = 0.9 and b = 0.4, tuned on a development set of 200 questions. \
                 PaperEncoder is a bi-encoder with 768-dimensional embeddings, initialised from a \
                 general-domain dual encoder and fine-tuned on 210,000 pairs of citation contexts \
                 and cited passages from the CiteWeave graph [@citeweave]. The hybrid combines the \
                 two rankings with reciprocal rank fusion [@castell2010] with the constant k = 60, \
                 which requires no training and no score normalisation.",
            ],
        },
        Section {
            title: "Results",
            level: 0,
            paragraphs: &[
                "Over all questions, BM25 reaches a recall at 10 of 0.612 and an MRR at 10 of \
                 0.441; PaperEncoder reaches 0.648 and 0.467; the hybrid reaches 0.731 and 0.538. \
                 The hybrid is better than both components on every question type.",
                "The breakdown by type shows why. On identifier questions, BM25 reaches a recall \
                 at 10 of 0.702 and PaperEncoder only 0.488: the dense model confuses data sets with \
                 similar names and ignores version numbers. On definitional questions the order is \
                 reversed, with 0.711 for the dense model and 0.552 for BM25, because definitions \
                 are often paraphrased. On numeric questions the two are close (0.598 and 0.604). \
                 Much of the dense model's weakness on identifiers comes from its tokeniser, which \
                 splits identifiers into many pieces [@sci-tokenisation].",
                "Extraction quality matters as much as the retriever. When the passages are built \
                 from text in content-stream order instead of LayoutFlow output, recall at 10 of \
                 the hybrid drops by 0.057, and by 0.091 on two-column papers alone, because \
                 passages that interleave two columns match neither column well.",
                "Weighted fusion that trusts BM25 more for questions containing digits or \
                 capitalised identifiers adds 0.009 recall at 10 over plain fusion; we consider \
                 the gain too small to justify the extra parameter. Re-ranking the top 50 fused \
                 passages with a cross-encoder adds 0.034 but costs 190 milliseconds per query.",
            ],
        },
        Section {
            title: "Efficiency",
            level: 0,
            paragraphs: &[
                "On one CPU core, BM25 answers a query over the 412,880 passages in 4 \
                 milliseconds, exact inner-product search over the dense index in 11 milliseconds, \
                 and the hybrid, which runs both, in 15 milliseconds. The dense index needs 1.2 GB \
                 of memory; the inverted index needs 310 MB.",
            ],
        },
        Section {
            title: "Recommendations",
            level: 0,
            paragraphs: &[
                "Systems that answer questions over papers should use hybrid retrieval by default: \
                 reciprocal rank fusion of BM25 and a dense retriever is cheap and robust. If only \
                 one retriever is affordable, choose BM25 when users search for names and numbers \
                 and a dense model when they ask conceptual questions. In every case, invest in \
                 text extraction first: interleaved columns cost more recall than the choice \
                 between dense and sparse retrieval.",
            ],
        },
        Section {
            title: "Limitations",
            level: 0,
            paragraphs: &[
                "SciPassage-QA covers three fields and English papers only. Its questions were \
                 written by annotators who had read the answer passages, which favours lexical \
                 overlap between question and passage and may flatter BM25; questions written \
                 before reading would be harder for both models. We judged passages, not \
                 answers, so we cannot say how retrieval errors propagate to a final answer; \
                 grounded question answering over the same papers is the natural next step.",
                "PaperEncoder was trained on citation contexts, which are themselves short \
                 summaries of the cited work. A dense model trained on questions instead may \
                 narrow the gap on identifier questions, although the tokenisation problem \
                 remains.",
            ],
        },
        Section {
            title: "Conclusion",
            level: 0,
            paragraphs: &[
                "Dense and sparse retrievers make different errors on scientific passages. Their \
                 fusion reaches a recall at 10 of 0.731 on SciPassage-QA, 0.119 above BM25 and \
                 0.083 above the dense model, for 15 milliseconds per query.",
            ],
        },
    ],
    references: &[
        Ref::External(&BAPTISTE2020),
        Ref::External(&CASTELL2010),
        Ref::Demo("citeweave"),
        Ref::Demo("halvorsen2009-passages"),
        Ref::Demo("layoutflow"),
        Ref::Demo("sci-tokenisation"),
    ],
    features: Features {
        two_column: true,
        positioned_text: true,
        ..PLAIN
    },
};

// ---------------------------------------------------------------------------------------------
// 2023: grounded question answering with citations. references.json sidecar, XMP metadata.

const RECEIPTS: Paper = Paper {
    slug: "receipts-qa",
    path: "papers/receipts-qa/paper.pdf",
    title: "Answering with Receipts: Grounded Question Answering over Paper Collections",
    authors: &[
        Author {
            name: "Samuel Okonkwo",
            affiliation: 1,
        },
        Author {
            name: "Clara Vidal",
            affiliation: 2,
        },
        Author {
            name: "Henrik Aalto",
            affiliation: 1,
        },
    ],
    affiliations: &[
        "Institute for Machine Reading, Westfield University",
        "Ondine Labs",
    ],
    year: 2023,
    venue: "Findings of the Symposium on Grounded Language Systems (GLS 2023)",
    doi: Some("10.5555/agentero.2023.0311"),
    arxiv: Some("2309.02281"),
    keywords: &[
        "grounded question answering",
        "citations",
        "quotes",
        "abstention",
    ],
    abstract_text: "Question answering systems over research papers are trusted only if every \
        statement can be checked against its source. We present Receipts, a quote-then-answer \
        method: the system first selects verbatim quotes from retrieved passages, each with a \
        page-level citation, and then writes an answer that may only use quoted material. On \
        *ScholarAsk-500*, 500 questions over a library of 120 papers, Receipts reaches a citation \
        precision of 0.87, against 0.64 for attaching citations after generation, with answer \
        accuracy of 71.3 percent against 73.0 percent. Unsupported sentences fall from 19 to 4 \
        percent, and the system abstains correctly on 62 percent of unanswerable questions.",
    sections: &[
        Section {
            title: "Introduction",
            level: 0,
            paragraphs: &[
                "A researcher who asks a question about her library of papers needs an answer she \
                 can verify. Systems that generate an answer first and attach citations afterwards \
                 often cite a passage that is related to the answer but does not support it. We \
                 argue that the order should be reversed: a system should first collect the evidence \
                 as exact quotes and then answer only from what it quoted. We call the quotes \
                 receipts, because they let the reader check every statement.",
            ],
        },
        Section {
            title: "Method",
            level: 0,
            paragraphs: &[
                "Receipts has three steps: retrieval, quote selection and answer composition. Every \
                 quote carries a citation to the page it comes from, written as a file path with a \
                 page fragment such as paper.pdf#page=3, so that a reader can open the page.",
            ],
        },
        Section {
            title: "Retrieval",
            level: 1,
            paragraphs: &[
                "Passages of 150 words [@halvorsen2009-passages] are retrieved with reciprocal rank \
                 fusion of BM25 and a dense retriever, the configuration recommended by Fischbach \
                 et al. [@dense-vs-sparse]; we keep the top 20 passages. Identifiers in the question \
                 are protected during tokenisation as proposed by Adeyemi and Virtanen \
                 [@sci-tokenisation]. Optionally, the retriever follows one hop of citations in the \
                 CiteWeave graph [@citeweave] and adds passages of cited papers whose citation \
                 context matches the question; this adds 3.4 points of answer recall.",
            ],
        },
        Section {
            title: "Quote selection",
            level: 1,
            paragraphs: &[
                "The model selects at most five quotes, each a contiguous span of one to three \
                 sentences copied verbatim from a passage. A quote is accepted only if it occurs in \
                 the passage after normalising whitespace, ligatures and hyphenation at line ends, \
                 which is why clean extraction [@layoutflow] matters here too. Quotes longer than \
                 1,200 characters are truncated.",
            ],
        },
        Section {
            title: "Answer composition",
            level: 1,
            paragraphs: &[
                "The answer is written from the quotes alone. Each sentence of the answer must cite \
                 at least one quote; a sentence without a citation is removed before the answer is \
                 shown. If the best retrieval score is below a threshold tuned on held-out questions, \
                 or no quote is accepted, the system answers that it found no evidence in the library \
                 instead of guessing.",
            ],
        },
        Section {
            title: "Evaluation",
            level: 0,
            paragraphs: &[
                "*ScholarAsk-500* contains 500 questions written by 14 researchers about a library \
                 of 120 papers in their own fields; 80 of the questions have no answer in the \
                 library. Two annotators judged every answer sentence and every citation, counting a \
                 citation as supporting when the quote entails the sentence [@holloway2021].",
                "Receipts reaches a citation precision of 0.87, against 0.64 for the same model \
                 generating an answer first and attaching the best-matching passages afterwards. \
                 Answer accuracy is 71.3 percent for Receipts and 73.0 percent for post-hoc \
                 citation: restricting the answer to quotes costs little. Only 4 percent of the \
                 sentences of Receipts are unsupported by their citations, against 19 percent for \
                 post-hoc citation. On the 80 unanswerable questions, Receipts abstains correctly \
                 in 62 percent of the cases; the post-hoc system abstains in 21 percent.",
                "Most remaining errors are quotes that are correct but incomplete, for example a \
                 number quoted without the condition under which it was measured, and questions \
                 whose answer is spread over a table.",
            ],
        },
        Section {
            title: "Conclusion",
            level: 0,
            paragraphs: &[
                "Quoting first and answering second makes answers over paper collections checkable at \
                 almost no cost in accuracy. Page-level citations to exact quotes should be the \
                 default interface for question answering over research papers.",
            ],
        },
    ],
    references: &[
        Ref::Demo("citeweave"),
        Ref::Demo("dense-vs-sparse"),
        Ref::Demo("halvorsen2009-passages"),
        Ref::Demo("layoutflow"),
        Ref::Demo("sci-tokenisation"),
        Ref::External(&HOLLOWAY2021),
    ],
    features: Features {
        xmp: true,
        info_doi: true,
        references_sidecar: Some(RefSidecar::Json),
        ..PLAIN
    },
};

// ---------------------------------------------------------------------------------------------
// 2024: evaluating attribution. A downloaded preprint in inbox/ without an Info dictionary, so
// its title and authors are only on the first page.

const ATTRIBUTION: Paper = Paper {
    slug: "attribution-eval",
    path: "inbox/2402.09876v2.pdf",
    title: "How Well Do Citations Support Answers? Measuring Attribution in Scholarly Question Answering",
    authors: &[
        Author {
            name: "Naomi Achterberg",
            affiliation: 1,
        },
        Author {
            name: "Rafael Quintero",
            affiliation: 2,
        },
        Author {
            name: "Yuki Tanabe",
            affiliation: 1,
        },
    ],
    affiliations: &[
        "Department of Information Studies, Corrin College",
        "Meridian Labs",
    ],
    year: 2024,
    venue: "Preprint, version 2",
    doi: None,
    arxiv: Some("2402.09876"),
    keywords: &["attribution", "evaluation", "citations", "quote fidelity"],
    abstract_text: "Question answering systems for research papers attach citations to their \
        answers, but a citation is only useful if it supports the statement it is attached to. We \
        propose AttriScore, which measures attribution with three numbers: citation recall, \
        citation precision and quote fidelity. In a study of 1,200 answer sentences from four \
        systems, three annotators agree on support labels with a Krippendorff's alpha of 0.78. An \
        entailment-based judge agrees with the majority label in 84.2 percent of the cases, and \
        exact quote matching finds that 12 percent of quotes are altered. Systems that quote \
        before answering reach a citation precision of 0.86, against 0.61 for post-hoc citation.",
    sections: &[
        Section {
            title: "Introduction",
            level: 0,
            paragraphs: &[
                "Grounded question answering systems promise that every statement comes with \
                 evidence [@receipts-qa]. Whether the evidence actually supports the statement is \
                 rarely measured; most evaluations report answer accuracy and count citations without \
                 reading them. We propose a small set of measures that separate three failures: a \
                 statement without support, a citation that does not help, and a quote that does not \
                 match its source.",
            ],
        },
        Section {
            title: "AttriScore",
            level: 0,
            paragraphs: &[
                "Citation recall is the share of answer sentences that are fully supported by the \
                 passages they cite. Citation precision is the share of citations that support, \
                 alone or together with the other citations of the sentence, the sentence they are \
                 attached to. Quote fidelity is the share of quoted spans that occur verbatim in the \
                 cited source.",
                "Quote fidelity is checked mechanically, but the check must normalise the source \
                 text the same way a reader sees it: whitespace is collapsed, ligature glyphs are \
                 replaced by their letters and words hyphenated at line ends are joined. Without \
                 this normalisation, quote fidelity drops by 5.1 points on our data for reasons that \
                 have nothing to do with the system, which is one more argument for careful text \
                 extraction [@layoutflow].",
            ],
        },
        Section {
            title: "Human study",
            level: 0,
            paragraphs: &[
                "We collected answers to 300 questions from *ScholarAsk-500* [@receipts-qa] from four \
                 systems: Receipts, a post-hoc citation baseline, and two commercial-style assistants \
                 that we reimplemented from their documentation. The 1,200 resulting answer sentences \
                 were judged by three annotators with a background in the respective fields. \
                 Agreement on the support label reaches a Krippendorff's alpha of 0.78 \
                 [@sobczak2015], which we consider adequate for a three-way label.",
                "Receipts reaches a citation recall of 0.81 and a citation precision of 0.86; the \
                 post-hoc baseline reaches 0.66 and 0.61. These numbers agree with the original \
                 report on Receipts, which measured 0.87 citation precision on its own annotations. \
                 About 9 percent of all citations point to the right paper but the wrong page, an \
                 error that page-level citation URIs make visible and easy to check.",
            ],
        },
        Section {
            title: "Automatic judges",
            level: 0,
            paragraphs: &[
                "An entailment classifier [@holloway2021] that takes the cited passages as premise \
                 and the answer sentence as hypothesis agrees with the majority human label in 84.2 \
                 percent of the sentences, and with each individual annotator about as often as the \
                 annotators agree with each other. It is too lenient with numbers: a sentence that \
                 changes 0.731 to 0.73 is usually accepted.",
                "Exact quote matching is cheap and catches a different error. 12 percent of the \
                 quotes produced by the post-hoc baseline and the assistants do not occur in the \
                 source, mostly because the model paraphrased while keeping the quotation marks. \
                 Receipts, which rejects quotes that are not found verbatim, has none.",
            ],
        },
        Section {
            title: "Recommendations",
            level: 0,
            paragraphs: &[
                "We recommend reporting citation recall, citation precision and quote fidelity \
                 together, judging support against the page that is cited rather than the whole \
                 paper, and normalising extracted text before matching quotes. Retrieval quality \
                 bounds attribution: a system cannot cite the passage it did not retrieve, so \
                 attribution results should be reported together with the retriever \
                 [@dense-vs-sparse].",
            ],
        },
        Section {
            title: "Conclusion",
            level: 0,
            paragraphs: &[
                "Attribution can be measured reliably with three simple numbers. Automatic judges \
                 agree with humans in 84.2 percent of the cases and exact quote matching catches \
                 altered quotes, so large-scale evaluation of grounded answers over papers is within \
                 reach.",
            ],
        },
    ],
    references: &[
        Ref::Demo("dense-vs-sparse"),
        Ref::External(&HOLLOWAY2021),
        Ref::Demo("layoutflow"),
        Ref::Demo("receipts-qa"),
        Ref::External(&SOBCZAK2015),
    ],
    features: Features {
        info_dict: false,
        ..PLAIN
    },
};

// ---------------------------------------------------------------------------------------------
// 2024: the survey that cites the rest. references.bib sidecar.

const SURVEY: Paper = Paper {
    slug: "reading-machines-survey",
    path: "papers/reading-machines-survey/paper.pdf",
    title: "Reading Machines for Science: A Survey of Retrieval and Grounded Answering over Research Papers",
    authors: &[
        Author {
            name: "Beatriz Moreno",
            affiliation: 1,
        },
        Author {
            name: "Kwame Asante",
            affiliation: 2,
        },
        Author {
            name: "Ilse de Vries",
            affiliation: 3,
        },
    ],
    affiliations: &[
        "Faculty of Informatics, Universidad de Valdoria",
        "Accra Institute of Data Science",
        "Centrum voor Tekstanalyse, Delfhaven",
    ],
    year: 2024,
    venue: "Surveys in Information Access 7(2): 1–38, 2024",
    doi: Some("10.5555/agentero.2024.0150"),
    arxiv: Some("2405.13579"),
    keywords: &[
        "survey",
        "scholarly documents",
        "retrieval",
        "grounded answering",
        "attribution",
    ],
    abstract_text: "Systems that read research papers for their users chain together text \
        extraction, passage segmentation, tokenisation, retrieval, citation analysis, answer \
        generation and evaluation. Each stage has its own literature, and errors made early \
        propagate to the end. This survey follows a question through the whole pipeline, \
        summarises what is known about each stage, and collects the quantitative results that \
        connect them. We find that the stages interact more than their separate literatures \
        suggest: reading-order errors cost retrieval more recall than the choice of retriever, and \
        quoting before answering raises citation precision from about 0.6 to about 0.87. We close \
        with open problems, among them tables, cross-paper synthesis and agents that cannot read \
        the library themselves.",
    sections: &[
        Section {
            title: "Introduction",
            level: 0,
            paragraphs: &[
                "A reading machine for science takes a question and a library of papers and returns \
                 an answer with evidence. Between the two lies a pipeline: the papers are converted \
                 from PDF to text, the text is cut into passages, the passages are tokenised and \
                 indexed, the relevant ones are retrieved, possibly expanded along citations, and an \
                 answer is composed and checked. We review each stage and, where possible, report \
                 the effect of one stage on the next.",
            ],
        },
        Section {
            title: "Text extraction and reading order",
            level: 0,
            paragraphs: &[
                "PDF files store positioned glyphs, and the order in which a page draws them is \
                 arbitrary. LayoutFlow [@layoutflow] recovers lines, columns and reading order with \
                 geometric rules and reduces the block-order error on DocOrder-300 from 0.187 for \
                 content-stream order to 0.042; it also repairs ligature glyphs and hyphenated line \
                 ends. Glyph-level training data [@hartmann2019] enables learned alternatives, which \
                 help most on tables and pages with many columns.",
            ],
        },
        Section {
            title: "Passages and tokens",
            level: 0,
            paragraphs: &[
                "The passage became the unit of retrieval with Halvorsen and Renner \
                 [@halvorsen2009-passages], whose overlapping 150-word windows raised mean average \
                 precision from 0.212 to 0.297 over document ranking. The same window size is still \
                 the most common choice fifteen years later, as citation analysis of later work \
                 confirms [@citeweave]. Subword tokenisation interacts badly with scientific \
                 identifiers: a web-trained vocabulary splits an identifier into 4.7 pieces on \
                 average, and identifier-preserving pre-tokenisation reduces this by 38 percent \
                 [@sci-tokenisation].",
            ],
        },
        Section {
            title: "Retrieval",
            level: 0,
            paragraphs: &[
                "Lexical retrieval with BM25 [@okafor2004] and dense retrieval with dual encoders \
                 [@baptiste2020] make different errors on scientific text. On SciPassage-QA, BM25 \
                 is better on identifier questions (recall at 10 of 0.702 against 0.488) and the \
                 dense model on definitional questions (0.711 against 0.552); reciprocal rank fusion \
                 of the two reaches 0.731 overall [@dense-vs-sparse]. The same study found that \
                 passages built from text with interleaved columns cost the hybrid 0.057 recall at \
                 10, more than the difference between its two components on numeric questions.",
            ],
        },
        Section {
            title: "Citation graphs",
            level: 0,
            paragraphs: &[
                "Citation graphs built from full text connect claims across papers. CiteWeave \
                 [@citeweave] resolves 91.4 percent of references to DOIs or arXiv identifiers and \
                 keeps the context of each citation; 7.8 percent of citation contexts contest the \
                 cited work. Following one hop of citations during retrieval adds 3.4 points of \
                 answer recall in grounded question answering [@receipts-qa].",
            ],
        },
        Section {
            title: "Grounded answers and attribution",
            level: 0,
            paragraphs: &[
                "Answers are trustworthy when every sentence can be traced to a quote on a specific \
                 page. Quote-then-answer methods such as Receipts [@receipts-qa] select verbatim \
                 quotes first and answer only from them, raising citation precision to 0.87 from \
                 0.64 for post-hoc citation, at a cost of 1.7 points of answer accuracy. AttriScore \
                 [@attribution-eval] measures citation recall, citation precision and quote \
                 fidelity; it found that 12 percent of quotes produced by systems without a \
                 verbatim check are altered, and that an entailment judge agrees with human \
                 annotators in 84.2 percent of the cases.",
                "Abstention remains weak. The best system in our review declines to answer only 62 \
                 percent of unanswerable questions, and no benchmark we found measures whether a \
                 system notices that its library is incomplete.",
            ],
        },
        Section {
            title: "Open problems",
            level: 0,
            paragraphs: &[
                "Tables and equations are still read poorly by every extractor we reviewed, and \
                 questions whose answer lies in a table are the largest remaining source of errors \
                 in grounded answering. Synthesis across papers, for example comparing the results \
                 of five studies, is rarely evaluated. Finally, many assistants run as remote \
                 agents that cannot open the user's files; they depend entirely on the evidence \
                 placed in their prompt, and a system must say so plainly rather than pretend \
                 that the agent can read the library.",
            ],
        },
        Section {
            title: "Conclusion",
            level: 0,
            paragraphs: &[
                "The stages of a reading machine are usually studied alone, but their errors \
                 compound. Clean text extraction, passage-level hybrid retrieval and quoting before \
                 answering are, on current evidence, the three choices that matter most.",
            ],
        },
    ],
    references: &[
        Ref::External(&BAPTISTE2020),
        Ref::Demo("citeweave"),
        Ref::Demo("dense-vs-sparse"),
        Ref::Demo("halvorsen2009-passages"),
        Ref::External(&HARTMANN2019),
        Ref::Demo("layoutflow"),
        Ref::External(&OKAFOR2004),
        Ref::Demo("receipts-qa"),
        Ref::Demo("sci-tokenisation"),
        Ref::Demo("attribution-eval"),
    ],
    features: Features {
        references_sidecar: Some(RefSidecar::Bib),
        ..PLAIN
    },
};
