//! `agentero check DRAFT`: the manuscript's citations against the vault's pages, as a report
//! a person reads (`file:line:col` first, as compilers write, so editors jump there) or as JSON;
//! and `agentero reverify THREAD`, a thread's citations checked again.

use super::index::progress_bar;
use super::*;
use crate::context::check::{self, Checked, Outcome, Report};

use crate::context::check::source::{self, DraftAt};

pub(super) fn run(
    vault: &Vault,
    draft: &Path,
    bibs: &[PathBuf],
    json: bool,
    problems_only: bool,
) -> anyhow::Result<()> {
    let at = DraftAt::File(draft.to_path_buf());
    // The manuscript first: a path that is wrong is said before the index is opened.
    let (file, text) =
        source::read(vault, &at).map_err(|e| anyhow::anyhow!(visible(&e).into_owned()))?;
    let (bar, mut progress) = progress_bar();
    let mut notice = |m: &str| eprintln!("{}", visible(m));
    let (index, incomplete) =
        indexer::open_for_search(vault, &IndexOptions::default(), &mut progress, &mut notice)?;
    bar.finish_and_clear();
    if let Some(why) = &incomplete {
        eprintln!(
            "agentero: the index does not cover the whole vault yet ({}); papers not indexed count as not in the library",
            visible(why)
        );
    }
    // The library as the index run left it, with the manuscript's bibliographies.
    let (library, notes) = source::library(vault, &at, &file, &text, bibs);
    for note in &notes {
        eprintln!("agentero: {}", visible(note));
    }
    let name = at.name();
    let bar = indicatif::ProgressBar::hidden();
    bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
    if let Ok(style) = indicatif::ProgressStyle::with_template("checking [{bar:30}] {pos}/{len}") {
        bar.set_style(style.progress_chars("=> "));
    }
    let report = check::check(
        vault,
        Some(&index),
        &library,
        &name,
        &text,
        &mut |done, total| {
            bar.set_length(total as u64);
            bar.set_position(done as u64);
        },
    );
    bar.finish_and_clear();
    let mut out = std::io::stdout().lock();
    if json {
        let doc = serde_json::json!({
            "draft": name,
            "vault": vault.root(),
            "format": report.format,
            "citations": report.citations,
            "summary": report.summary,
        });
        writeln!(out, "{}", crate::vault::visible::to_json_pretty(&doc)?)?;
    } else {
        print_report(&mut out, &name, &report, problems_only)?;
    }
    let s = &report.summary;
    if s.problems > 0 {
        bail!("{} of {} citations need a look", s.problems, s.citations);
    }
    Ok(())
}

fn print_report(
    out: &mut impl Write,
    name: &str,
    report: &Report,
    problems_only: bool,
) -> anyhow::Result<()> {
    let name = visible(name);
    for c in &report.citations {
        if problems_only && !c.outcome.problem() {
            continue;
        }
        writeln!(
            out,
            "{name}:{}:{}: {} {} {}",
            c.line,
            c.column,
            c.outcome.glyph(),
            visible(&cited_as(c)),
            visible(&c.says)
        )?;
        if let Some(q) = &c.quote {
            writeln!(out, "    “{}”", visible(&short(q, 160)))?;
        }
        if let Some(n) = &c.note {
            writeln!(out, "    {}", visible(n))?;
        }
        for s in &c.support {
            let page = match &s.page_label {
                Some(l) => format!("p. {l}"),
                None => format!("p. {}", s.page),
            };
            let mark = if s.cited { "cited page" } else { "" };
            writeln!(
                out,
                "    {page}: {} {}",
                visible(&short(&s.excerpt, 200)),
                mark
            )?;
        }
        for p in &c.candidates {
            writeln!(out, "    could be {}", visible(p))?;
        }
        if let Some(u) = &c.uri
            && c.outcome != Outcome::NotInLibrary
        {
            writeln!(out, "    {}", visible(u))?;
        }
    }
    let s = &report.summary;
    writeln!(
        out,
        "{} of {}: {} ✓, {} ⚠, {} without a quote{}",
        count(s.citations, "citation"),
        count(s.papers, "paper"),
        s.verified,
        s.problems,
        s.claims,
        if s.not_in_library > 0 {
            format!(" ({} not in the library)", s.not_in_library)
        } else {
            String::new()
        }
    )?;
    Ok(())
}

/// `@smith2020, p. 4`.
fn cited_as(c: &Checked) -> String {
    match &c.locator {
        Some(l) => format!("{}, {l}:", c.key),
        None => format!("{}:", c.key),
    }
}

fn short(s: &str, max: usize) -> String {
    let s = s.trim();
    if s.chars().count() <= max {
        return s.to_string();
    }
    let mut t: String = s.chars().take(max).collect();
    t.push('…');
    t
}

/// `1 paper`, `3 papers`.
fn count(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}

/// `agentero reverify THREAD`.
pub(super) fn reverify(vault: &Vault, id: &str, json: bool) -> anyhow::Result<()> {
    let r = crate::acp::reverify::reverify(vault, id)
        .map_err(|m| anyhow::anyhow!(visible(&m).into_owned()))?;
    let mut out = std::io::stdout().lock();
    if json {
        writeln!(out, "{}", crate::vault::visible::to_json_pretty(&r)?)?;
    } else {
        writeln!(
            out,
            "thread {}: {}",
            r.thread,
            visible(&short(&r.title, 100))
        )?;
        for t in &r.turns {
            let receipt = if t.receipt {
                ""
            } else {
                " (no receipt: written before receipts were kept)"
            };
            writeln!(
                out,
                "turn {}: {}{receipt}",
                t.number,
                visible(&short(&t.question, 100))
            )?;
            for c in &t.citations {
                let mark = if c.now.is_verified() {
                    c.now.glyph()
                } else if c.now == crate::context::citations::Verdict::NoQuote {
                    "·"
                } else {
                    "⚠"
                };
                let quote = c
                    .quote
                    .as_deref()
                    .map(|q| format!(" “{}”", short(q, 60)))
                    .unwrap_or_default();
                writeln!(
                    out,
                    "  {mark} {}{} — {}",
                    visible(&c.uri),
                    visible(&quote),
                    visible(&c.says)
                )?;
            }
        }
        let new_versions: std::collections::BTreeSet<&str> = r
            .all()
            .filter(|c| c.source_changed == Some(true))
            .map(|c| c.uri.split('#').next().unwrap_or(""))
            .collect();
        writeln!(
            out,
            "{} in {}: {} changed, {} no longer verified{}",
            count(r.all().count(), "citation"),
            count(r.turns.len(), "turn"),
            r.changed(),
            r.lost(),
            if new_versions.is_empty() {
                String::new()
            } else {
                format!(
                    "; {} replaced by a new version",
                    count(new_versions.len(), "source")
                )
            }
        )?;
    }
    if r.lost() > 0 {
        bail!("{} citations verified before are not any more", r.lost());
    }
    Ok(())
}
