//! The demo vault's text files: notes that link and quote the papers, a folder of data files,
//! an extensionless TODO file and a README. Quotes are verbatim from the papers in `papers.rs`
//! so that searching for a quoted passage finds both the note and the paper.

/// (vault-relative path, content), in path order.
pub const FILES: &[(&str, &str)] = &[
    ("README.md", README),
    ("datasets/benchmarks.csv", BENCHMARKS_CSV),
    ("datasets/results-dense-vs-sparse.tex", RESULTS_TEX),
    ("datasets/scipassage-qa-sample.txt", SAMPLE_TXT),
    ("notes/TODO", TODO),
    ("notes/extraction-pitfalls.md", EXTRACTION_NOTE),
    ("notes/reading-list.md", READING_LIST),
    ("notes/retrieval-comparison.md", RETRIEVAL_NOTE),
];

const README: &str = "\
# Demo vault

A small library for trying agentero: eight invented papers on reading and retrieval over
scientific PDFs, a few notes, and some data files. All authors, venues, data sets and
identifiers are fictional (DOIs use the 10.5555 test prefix).

- `papers/<slug>/paper.pdf` — seven papers, some with `info.yaml` or reference sidecars
- `inbox/2402.09876v2.pdf` — a downloaded preprint that has not been filed yet
- `notes/` — reading notes that quote the papers
- `datasets/` — benchmark statistics and a results table

Try asking: *Which retriever works best for questions that name a data set?* or
*How much does quoting before answering improve citation precision?*
";

const BENCHMARKS_CSV: &str = "\
name,introduced_in,doi_or_arxiv,questions,documents,unit,main_metric
SciPassage-1K,halvorsen2009-passages,10.5555/agentero.2009.0283,1000,4212,article,MAP
DocOrder-300,layoutflow,10.5555/agentero.2021.0104,,300,paper,block-order edit distance
OpenSci-38K,citeweave,10.5555/agentero.2022.0217,,38112,paper,resolution precision
SciPassage-QA,dense-vs-sparse,10.5555/agentero.2023.0042,2400,1150,paper,recall@10
ScholarAsk-500,receipts-qa,10.5555/agentero.2023.0311,500,120,paper,citation precision
";

const RESULTS_TEX: &str = "\
% Recall@10 on SciPassage-QA by question type, transcribed from
% Fischbach et al., Dense or Sparse? (doi:10.5555/agentero.2023.0042).
\\begin{table}[t]
  \\centering
  \\begin{tabular}{lrrr}
    \\toprule
    Question type & BM25 & PaperEncoder & Hybrid (RRF, $k=60$) \\\\
    \\midrule
    Identifier (412)   & 0.702 & 0.488 & -- \\\\
    Definitional (640) & 0.552 & 0.711 & -- \\\\
    Numeric (720)      & 0.598 & 0.604 & -- \\\\
    All (2,400)        & 0.612 & 0.648 & 0.731 \\\\
    \\bottomrule
  \\end{tabular}
  \\caption{Hybrid numbers per type are not reported in the paper, only that the hybrid
  is better than both components on every type.}
\\end{table}
";

const SAMPLE_TXT: &str = "\
SciPassage-QA — sample questions (from the paper's appendix, paraphrased for these notes)

[identifier]   Which learning rate was used to fine-tune the model on SciPassage-1K?
[definitional] What is max-passage scoring?
[numeric]      How many citation edges does OpenSci-38K contain?
[comparative]  Is BM25 or a dense retriever better for questions that name a gene?

Answers, as far as the vault can tell:
- max-passage scoring: an article takes the score of its best window (halvorsen2009-passages, §2.2)
- OpenSci-38K: 612,404 resolved citation edges (citeweave)
- gene / identifier questions: BM25, recall@10 0.702 vs 0.488 (dense-vs-sparse)
";

const TODO: &str = "\
TODO — demo vault
- file inbox/2402.09876v2.pdf under papers/attribution-eval/ once the metadata is checked
  (the PDF has no metadata dictionary; title and authors are only on its first page)
- check whether receipts-qa really reports 0.87 citation precision on ScholarAsk-500 → yes, §3
- read the survey's section on open problems (tables, remote agents)
- ask: does LayoutFlow's hyphen repair break true compounds like state-of-the-art?
";

const EXTRACTION_NOTE: &str = "\
# Extraction pitfalls

Notes on [LayoutFlow](../papers/layoutflow/paper.pdf) (doi:10.5555/agentero.2021.0104,
arXiv:2104.05512) and why it matters downstream.

> A gutter is a vertical strip of whitespace at least 1.5 times the median space width wide
> that spans at least 60 percent of the text height of the page.

- Ligatures: TeX draws fi and fl as single glyphs; the paper maps them back from glyph names.
- Hyphenation: line-end hyphens are joined when the continuation starts in lower case.
  97.6% correct on 5,120 hyphenated line ends.
- Reading order: block-order error 0.187 (stream order) → 0.042 (LayoutFlow).

Why it matters: in [dense-vs-sparse](../papers/dense-vs-sparse/paper.pdf) the hybrid loses
0.057 recall@10 with stream-order text, 0.091 on two-column papers. And the attribution
preprint (inbox/2402.09876v2.pdf) says quote fidelity drops 5.1 points without normalising
ligatures and hyphens.

Halvorsen & Renner already saw this in 2009:

> About 7 percent of our articles had broken reading order after conversion, with two-column
> pages read across the gutter; their windows mixed unrelated sentences and rarely ranked well.
";

const READING_LIST: &str = "\
---
title: Reading list — grounded QA over papers
tags: [reading-list, retrieval, attribution]
created: 2024-06-02
papers:
  - halvorsen2009-passages
  - dense-vs-sparse
  - receipts-qa
  - inbox/2402.09876v2.pdf
---

# Reading list

1. **Passage-Level Retrieval over Scholarly Full Text** — halvorsen2009-passages,
   doi:10.5555/agentero.2009.0283. The classic: 150-word windows, MAP 0.212 → 0.297.
2. **Dense or Sparse?** — dense-vs-sparse, doi:10.5555/agentero.2023.0042. Hybrid RRF wins.
3. **Answering with Receipts** — receipts-qa, doi:10.5555/agentero.2023.0311.
   Quote first, then answer.
4. **How Well Do Citations Support Answers?** — arXiv:2402.09876 (still in the inbox).
5. Survey for the big picture: reading-machines-survey, doi:10.5555/agentero.2024.0150.

Key sentence from Receipts:

> Quoting first and answering second makes answers over paper collections checkable at almost
> no cost in accuracy.
";

const RETRIEVAL_NOTE: &str = "\
# Dense vs sparse — what to use

Source: papers/dense-vs-sparse/paper.pdf (Fischbach, Ibarra, Cho 2023).

| question type | BM25 | dense |
|---|---|---|
| identifier | 0.702 | 0.488 |
| definitional | 0.552 | 0.711 |

> Reciprocal rank fusion of the two reaches a recall at 10 of 0.731, against 0.612 for BM25
> and 0.648 for the dense model, at a cost of 15 milliseconds per query.

The tokenisation paper (papers/sci-tokenisation, arXiv:2211.07321) explains part of the dense
model's weakness: identifiers split into 4.7 pieces on average; IPT brings it to 2.9.

Open question: does the citation hop from CiteWeave (+3.4 points answer recall in receipts-qa)
also help retrieval alone?
";
