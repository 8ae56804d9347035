//! `agentero index` and `agentero search`: opening a vault, indexing with a progress bar, the summary and the hits.

use super::*;

/// The switches of `agentero index`.
#[derive(Debug, Clone, clap::Args)]
pub struct IndexArgs {
    /// Seconds allowed for one PDF before it is reported as failed.
    #[arg(long, default_value_t = 60)]
    time_limit: u64,
    /// Read scanned pages (no usable text layer) with tesseract, whatever the config says;
    /// an error when tesseract or a language pack is missing.
    #[arg(long, conflicts_with = "no_ocr")]
    ocr: bool,
    /// Read no scanned page with tesseract in this run (OCR already done is still used).
    #[arg(long)]
    no_ocr: bool,
    /// The config file (default: ~/.config/agentero/config.toml), for `[ocr]`.
    #[arg(long)]
    config: Option<PathBuf>,
}

/// `agentero index`: OCR as `--ocr`/`--no-ocr` say, else as the config's `[ocr]` does.
pub(super) fn run_index(vault: Option<&Path>, args: IndexArgs) -> anyhow::Result<()> {
    let vault = open_vault(vault)?;
    let exe = std::env::current_exe().unwrap_or_default();
    // A config named on the command line must load; the default one only costs its `[ocr]`.
    let config = match crate::config::Config::load(args.config.as_deref(), &exe) {
        Err(e) if args.config.is_none() => {
            eprintln!("warning: {}; OCR as by default", visible(&e.to_string()));
            crate::config::Config::defaults(&exe)
        }
        other => other?,
    };
    for p in &config.problems {
        eprintln!("warning: {}", visible(p));
    }
    let ocr = (args.ocr || (config.ocr.enabled && !args.no_ocr)).then(|| {
        let mut o = crate::vault::ocr::OcrOptions::new(config.ocr.languages.clone());
        if let Some(t) = &config.ocr.tesseract {
            o.tesseract = t.clone();
        }
        o.required = args.ocr;
        o
    });
    let opts = IndexOptions {
        time_limit: std::time::Duration::from_secs(args.time_limit.max(1)),
        ocr,
        ..IndexOptions::default()
    };
    let summary = index_with_progress(&vault, &opts)?;
    print_summary(&vault, &summary);
    Ok(())
}

pub(super) fn open_vault(named: Option<&Path>) -> anyhow::Result<Vault> {
    let path = crate::paths::choose_vault(named)?;
    let vault = Vault::open(&path)?;
    if let Some(notice) = vault.read_only_notice() {
        eprintln!("agentero: {notice}");
    }
    // Rows of a Zotero library left out (a key not of Zotero's shape, a file outside it, a
    // linked file without its base folder): said, never silent.
    for warning in vault.zotero().map(|z| z.warnings()).unwrap_or_default() {
        eprintln!("agentero: {}", visible(&warning));
    }
    // A state folder that is not agentero's own is said on stderr by the log's opening.
    let _ = vault.ensure_state_dir();
    crate::logging::init(&vault.state_dir());
    Ok(vault)
}

/// A progress bar on stderr and the callback that drives it.
pub(super) fn progress_bar() -> (indicatif::ProgressBar, impl FnMut(Progress)) {
    let bar = indicatif::ProgressBar::hidden();
    bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
    let style = indicatif::ProgressStyle::with_template(
        "{spinner} indexing [{bar:30}] {pos}/{len} {elapsed_precise} {wide_msg}",
    )
    .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
    .progress_chars("=> ");
    bar.set_style(style);
    let handle = bar.clone();
    let progress = move |p| match p {
        Progress::Planned { to_process, .. } => handle.set_length(to_process as u64),
        Progress::Processed { path, done, .. } => {
            handle.set_position(done as u64);
            handle.set_message(visible(&path).into_owned());
        }
        Progress::Ocr {
            path,
            page,
            done,
            total,
        } => {
            handle.set_length(total as u64);
            handle.set_position(done as u64);
            handle.set_message(format!("OCR {} p.{page}", visible(&path)));
        }
    };
    (bar, progress)
}

pub(super) fn index_with_progress(
    vault: &Vault,
    opts: &IndexOptions,
) -> Result<IndexSummary, VaultError> {
    let (bar, mut progress) = progress_bar();
    let result = indexer::index_vault(vault, opts, &mut progress);
    bar.finish_and_clear();
    result
}

/// The index summary. Paths, reasons and warnings come from the vault's files: every one is
/// shown through [`visible`].
pub(super) fn print_summary(vault: &Vault, s: &IndexSummary) {
    let mut out = std::io::stdout().lock();
    let root = vault.root().display().to_string();
    let root = visible(&root);
    let secs = s.elapsed.as_secs_f64();
    if s.up_to_date() {
        let _ = writeln!(
            out,
            "Up to date: {} unchanged files checked in {:.0} ms ({}).",
            s.unchanged,
            secs * 1000.0,
            root
        );
    } else {
        let _ = writeln!(out, "Indexed {}", root);
        if let Some(why) = &s.rebuilt {
            let _ = writeln!(out, "  rebuilt from scratch: {}", visible(why));
        }
        let _ = writeln!(
            out,
            "  this run: {} updated, {} unchanged, {} removed in {:.1} s",
            s.updated, s.unchanged, s.removed, secs
        );
    }
    let _ = writeln!(
        out,
        "  papers {} ({} pages), files {} ({} chunks), folders {}, failed {}",
        s.papers,
        s.pages,
        s.files,
        s.chunks,
        s.directories,
        s.failed.len()
    );
    if !s.no_text.is_empty() {
        let _ = writeln!(
            out,
            "  no text layer (scanned; pages kept, nothing to search):"
        );
        for p in &s.no_text {
            let _ = writeln!(out, "    {}", visible(p));
        }
    }
    for (p, n) in &s.undecodable {
        let pages = if *n == 1 { "page" } else { "pages" };
        let _ = writeln!(
            out,
            "  {p}: text not decodable on {n} {pages} (its fonts have no usable mapping to Unicode; that text is not searchable)"
        );
    }
    if !s.failed.is_empty() {
        let _ = writeln!(out, "  failed:");
        for (p, why) in &s.failed {
            let _ = writeln!(out, "    {}: {}", visible(p), visible(why));
        }
    }
    for (p, w) in &s.warnings {
        let _ = writeln!(out, "  warning: {}: {}", visible(p), visible(w));
    }
    if let Some(o) = &s.ocr {
        for line in ocr_lines(o) {
            let _ = writeln!(out, "  {line}");
        }
    }
    let _ = writeln!(out, "  {}", embeddings_line(s.embeddings.as_ref()));
}

/// What the OCR pass did: pages read, pages failed, and the one hint when tesseract is missing.
fn ocr_lines(o: &crate::vault::ocr::OcrSummary) -> Vec<String> {
    let mut lines = Vec::new();
    if let Some(why) = &o.unavailable {
        let pages = if o.waiting == 1 { "page" } else { "pages" };
        lines.push(format!(
            "OCR: {} scanned {pages} not read: {}",
            o.waiting,
            visible(why)
        ));
        return lines;
    }
    if let Some(engine) = &o.engine {
        let mut line = format!(
            "OCR ({}): {} pages read in {} papers",
            visible(engine),
            o.pages,
            o.papers.len()
        );
        if o.cancelled {
            line.push_str(&format!("; stopped with {} pages waiting", o.waiting));
        }
        lines.push(line);
    }
    for (p, page, why) in &o.failed {
        lines.push(format!(
            "OCR failed: {} p.{page}: {}",
            visible(p),
            visible(why)
        ));
    }
    lines
}

/// What the run did to the passage vectors, or how to add a model when there is none.
fn embeddings_line(e: Option<&crate::vault::embed::EmbedSummary>) -> String {
    let Some(e) = e else {
        return crate::vault::embed::HOW_TO_ADD.to_string();
    };
    if let Some(why) = &e.error {
        return format!("embeddings: none: {}", visible(why));
    }
    let mut line = format!(
        "embeddings: {}: {} passages embedded, {} kept",
        visible(&e.model),
        e.embedded,
        e.reused
    );
    if let Some(why) = &e.replaced {
        line.push_str(&format!(
            " (the previous vectors were replaced: {})",
            visible(why)
        ));
    }
    line
}

/// The longest title `search --json` prints, in characters (the rest is cut, with `…`).
const JSON_TITLE_CHARS: usize = 1_000;

pub(super) fn search(vault: &Vault, query: &str, limit: usize, json: bool) -> anyhow::Result<()> {
    if limit == 0 {
        bail!("--limit must be at least 1");
    }
    let opts = SearchOptions {
        limit,
        ..SearchOptions::default()
    };
    // A missing index is built, a damaged one rebuilt and an interrupted one completed, with
    // progress, saying so once; one being built elsewhere is searched as far as it goes, and
    // the results say so.
    let (bar, mut progress) = progress_bar();
    let mut notice = |m: &str| eprintln!("{}", visible(m));
    let (index, incomplete) =
        indexer::open_for_search(vault, &IndexOptions::default(), &mut progress, &mut notice)?;
    let mut hits = indexer::search_or_rebuild(vault, index, &mut progress, &mut notice, |i| {
        i.search_papers(query, &opts)
    })?;
    // The words of the reader's comments and highlights find their papers too.
    let problems = crate::vault::annotation_search::merge_into(
        vault,
        query,
        &mut hits,
        limit,
        opts.excerpt_chars,
    );
    bar.finish_and_clear();
    for p in &problems {
        eprintln!("warning: {}", visible(p));
    }
    let mut out = std::io::stdout().lock();
    // No matches over an index that does not cover the vault is no answer: an error.
    let nothing = |why: &str| {
        anyhow::anyhow!(
            "no matches for {:?} in the part of the vault indexed so far ({}); search again when the index is complete",
            visible(query),
            visible(why)
        )
    };
    if json {
        // A title is a title: a library's 1 MB one is cut here as on the terminal (at more).
        let cards: Vec<_> = hits
            .iter()
            .cloned()
            .map(|mut h| {
                if h.card.title.chars().count() > JSON_TITLE_CHARS {
                    h.card.title = h.card.title.chars().take(JSON_TITLE_CHARS).collect();
                    h.card.title.push('…');
                }
                h
            })
            .collect();
        let mut doc = serde_json::json!({
            "query": query,
            "vault": vault.root(),
            "cards": cards,
        });
        if let Some(why) = &incomplete {
            doc["indexIncomplete"] = serde_json::json!(why);
        }
        writeln!(out, "{}", crate::vault::visible::to_json_pretty(&doc)?)?;
        return match &incomplete {
            Some(why) if hits.is_empty() => Err(nothing(why)),
            _ => Ok(()),
        };
    }
    if hits.is_empty() {
        if let Some(why) = &incomplete {
            return Err(nothing(why));
        }
        writeln!(out, "No matches for {query:?}.")?;
        return Ok(());
    }
    // Titles, paths and excerpts are the vault's text: shown through `visible`.
    for (i, h) in hits.iter().enumerate() {
        let c = &h.card;
        writeln!(out, "{:>2}. {}", i + 1, visible(&headline(h)))?;
        // The key a manuscript cites the paper with (pandoc's `[@key, p. N]`).
        match &c.citation_key {
            Some(k) => writeln!(out, "    {}  @{}", visible(&c.path), visible(k))?,
            None => writeln!(out, "    {}", visible(&c.path))?,
        }
        writeln!(out, "    {}: {}", place(c), visible(&c.excerpt))?;
        writeln!(
            out,
            "    {}  (score {:.3})",
            visible(&c.citation_uri),
            c.score
        )?;
    }
    Ok(())
}

/// "Title · p. 3, 7, 12" (the best pages in page order), "Title · lines 1–40, 81–120"; the
/// title on one line, cut to [`TITLE_WIDTH`](crate::vault::output::terminal::TITLE_WIDTH)
/// cells, controls escaped.
pub(super) fn headline(h: &crate::vault::PaperHit) -> String {
    use crate::vault::output::terminal::{TITLE_WIDTH, line};
    let places = h.places();
    let title = if h.card.title.trim().is_empty() {
        line(&h.card.path, TITLE_WIDTH)
    } else {
        line(&h.card.title, TITLE_WIDTH)
    };
    if places.is_empty() {
        title.to_string()
    } else {
        format!("{title} · {places}")
    }
}

/// Where a card's excerpt is from: `p. 2 ("284")`, `lines 10–24`.
pub(super) fn place(c: &Card) -> String {
    match (c.page, &c.page_label, c.lines) {
        (Some(p), Some(l), _) if *l != p.to_string() => format!("p. {p} (\"{l}\")"),
        (Some(p), _, _) => format!("p. {p}"),
        (None, _, Some([a, b])) => format!("lines {a}–{b}"),
        _ => String::new(),
    }
}
