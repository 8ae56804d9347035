//! Command-line parsing and the headless commands' wiring and output.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use clap::{Parser, Subcommand};

use crate::vault::indexer::{self, IndexOptions, IndexSummary, Progress};
use crate::vault::visible::visible;
use crate::vault::{Card, SearchOptions, Vault, VaultError};

mod marks;

#[derive(Debug, Parser)]
#[command(
    name = "agentero",
    version,
    about = "A keyboard-driven terminal reader for a vault of research papers, with an agent chat beside it"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    /// The vault to open in the terminal app (default: the current folder if it is a vault,
    /// else the bundled demo vault).
    #[arg(value_name = "VAULT")]
    pub vault: Option<PathBuf>,
    /// Serve the `agentero-context` MCP server over stdio for a grant file (started by the host
    /// for an agent session; stdout is the protocol).
    #[arg(long, value_name = "GRANT", hide = true)]
    pub agentero_context_mcp: Option<PathBuf>,
    /// Run the built-in ACP agent over stdio (started by the host; stdout is the protocol).
    #[arg(long, hide = true)]
    pub builtin_agent: bool,
    /// Render one page (or a window of it) within bounds and write it to stdout (started by
    /// agentero itself).
    #[arg(long, hide = true, num_args = 5..=6, value_names = ["PDF", "PAGE", "DPI", "BYTES", "SECONDS", "WINDOW"])]
    pub render_page: Option<Vec<std::ffi::OsString>>,
}

/// Where the user is reading: the current paper, page and selection of a turn.
#[derive(Debug, clap::Args)]
pub struct Reading {
    /// The paper being read (vault-relative).
    #[arg(long)]
    pub paper: Option<String>,
    /// The page being read (1-based).
    #[arg(long, requires = "paper")]
    pub page: Option<u32>,
    /// Text selected on that page.
    #[arg(long, requires = "paper")]
    pub selection: Option<String>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Index a vault (incremental: unchanged files are skipped).
    Index {
        /// The vault folder (default: the current folder if it is a vault, else the demo vault).
        vault: Option<PathBuf>,
        /// Seconds allowed for one PDF before it is reported as failed.
        #[arg(long, default_value_t = 60)]
        time_limit: u64,
    },
    /// Search a vault's index; indexes it first when it has no index yet.
    Search {
        #[arg(long)]
        vault: Option<PathBuf>,
        /// Maximum number of cards.
        #[arg(long, default_value_t = 10)]
        limit: usize,
        /// Print one JSON object (see the README for its fields).
        #[arg(long)]
        json: bool,
        /// The query: words, "a phrase", title:word, -excluded, a AND b.
        #[arg(required = true, num_args = 1..)]
        query: Vec<String>,
    },
    /// Ask an agent one question; `@path` tokens in the question are mentions. Streams the
    /// answer and its sources (see `acp::ask` for the `--json` fields).
    Ask {
        #[arg(long)]
        vault: Option<PathBuf>,
        /// The agent (a name from the config file; default: the default agent).
        #[arg(long)]
        agent: Option<String>,
        /// Continue this thread.
        #[arg(long, conflicts_with = "new")]
        thread: Option<String>,
        /// Start a new thread (the default without --thread).
        #[arg(long)]
        new: bool,
        #[command(flatten)]
        reading: Reading,
        /// Treat the agent as remote: no MCP server, prompt only.
        #[arg(long)]
        remote: bool,
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
        /// Read this config file instead of ~/.config/agentero/config.toml.
        #[arg(long)]
        config: Option<PathBuf>,
        /// Seconds before the turn is cancelled (default: turn_timeout_secs of the config).
        #[arg(long)]
        timeout: Option<u64>,
        /// Ask the agent for the thread's handoff summary (written to its HANDOFF.md; the
        /// thread's next turn starts a fresh session seeded from it) instead of a question.
        #[arg(long, requires = "thread")]
        handoff: bool,
        /// The question, with @mentions.
        #[arg(required_unless_present = "handoff", num_args = 1..)]
        question: Vec<String>,
    },
    /// Check the configured agents (or those named): command found, `initialize` answered,
    /// login in place, a session opened. Exits non-zero when one fails.
    Agents {
        #[arg(long)]
        vault: Option<PathBuf>,
        /// Read this config file instead of ~/.config/agentero/config.toml.
        #[arg(long)]
        config: Option<PathBuf>,
        /// Start presets that are not installed through `npx -y` (may download them).
        #[arg(long)]
        npx: bool,
        /// Print one JSON array.
        #[arg(long)]
        json: bool,
        /// Agent names (default: every configured agent).
        names: Vec<String>,
    },
    /// Render a page of a paper to a PNG (for scripts: figures, scans, a quote's place).
    Page {
        #[arg(long)]
        vault: Option<PathBuf>,
        /// The paper (vault-relative path, or a citation URI such as papers/x/paper.pdf#page=3).
        paper: String,
        /// The physical page (1-based); the URI's page when omitted.
        page: Option<u32>,
        /// Where to write the PNG (`-`: standard output).
        #[arg(long, value_name = "OUT")]
        png: PathBuf,
        /// Resolution in dots per inch.
        #[arg(long, default_value_t = crate::vault::render::DEFAULT_DPI)]
        dpi: u32,
        /// Highlight this quote where the text layer places it on the page.
        #[arg(long)]
        quote: Option<String>,
        /// Render again even when the page cache has this page.
        #[arg(long)]
        fresh: bool,
    },
    /// Write the bundled demo vault into a folder (default: the app's data folder) and print it.
    Demo { dir: Option<PathBuf> },
    /// List the vault's chat threads, most recent first, or find them: by a paper, page or
    /// lines their answers cited, and by words of their questions and answers. Each thread is
    /// listed with the turns that match (`ask --thread ID` continues it).
    Threads {
        #[arg(long)]
        vault: Option<PathBuf>,
        /// Threads whose answers cited this paper or file, or this page or these lines:
        /// papers/x/paper.pdf, papers/x/paper.pdf#page=3, notes/a.md#line=10,20, or a folder
        /// (a leading @ as in a mention is fine).
        #[arg(long, value_name = "PATH[#page=N]")]
        cites: Option<String>,
        /// Threads with a turn whose question or answer has all these words (any case).
        #[arg(long, value_name = "TEXT")]
        search: Option<String>,
        /// Print one JSON array.
        #[arg(long)]
        json: bool,
        /// Threads listed at most.
        #[arg(long, default_value_t = 50)]
        limit: usize,
        /// Write the bibliography of THREAD instead: every paper its answers cited, as BibTeX
        /// or CSL-JSON, keyed by citation key.
        #[arg(long, value_name = "FORMAT", requires = "thread", conflicts_with_all = ["cites", "search", "json"])]
        export: Option<crate::acp::cited::Format>,
        /// Where --export writes (default: standard output).
        #[arg(long, short, value_name = "FILE", requires = "export")]
        output: Option<PathBuf>,
        /// The thread to export (its id, or a prefix only it has).
        #[arg(value_name = "THREAD", requires = "export")]
        thread: Option<String>,
    },
    /// List a paper's highlights and annotations, export them as markdown with citation URIs,
    /// or delete one of agentero's own highlights.
    Highlights {
        #[arg(long)]
        vault: Option<PathBuf>,
        /// The paper (vault-relative path or citation URI).
        paper: String,
        /// Write them as a markdown file (`md`).
        #[arg(long, value_name = "FORMAT", value_parser = ["md"])]
        export: Option<String>,
        /// Where --export writes (default: standard output).
        #[arg(long, short, value_name = "FILE", requires = "export")]
        output: Option<PathBuf>,
        /// Delete the highlight with this id (shown by the listing).
        #[arg(long, value_name = "ID", conflicts_with = "export")]
        delete: Option<String>,
        /// Print one JSON array.
        #[arg(long, conflicts_with_all = ["export", "delete"])]
        json: bool,
    },
    /// Print the context plan (JSON) of a request; with --grant also write its grant file and
    /// print the grant's path on stderr (`grant: PATH`).
    Plan {
        #[arg(long)]
        vault: Option<PathBuf>,
        #[command(flatten)]
        reading: Reading,
        /// Plan for a remote agent (prompt only, no tools).
        #[arg(long)]
        remote: bool,
        /// Also write the grant for a new runtime id.
        #[arg(long)]
        grant: bool,
        /// Read this config file (its [budget]) instead of ~/.config/agentero/config.toml.
        #[arg(long)]
        config: Option<PathBuf>,
        /// @-mentions: vault-relative paths of papers, files or folders.
        mentions: Vec<String>,
    },
    /// Serve the whole vault, read-only, to external MCP clients (Claude Desktop, Claude Code,
    /// Cursor, Zed, …): Streamable HTTP on 127.0.0.1 with a bearer token, or --stdio.
    Serve {
        /// The vault folder (default: the current folder if it is a vault, else the demo vault).
        vault: Option<PathBuf>,
        /// The loopback port (0 picks a free one; the URL is printed).
        #[arg(long, default_value_t = crate::mcp::http::DEFAULT_PORT)]
        port: u16,
        /// Serve over stdin/stdout, for clients that launch the server themselves (no token).
        #[arg(long, conflicts_with_all = ["token", "rotate_token"])]
        stdio: bool,
        /// Print the vault's bearer token (created on first use) and exit.
        #[arg(long, conflicts_with = "rotate_token")]
        token: bool,
        /// Replace the token with a new one, print it and exit (a running server accepts only
        /// the new one from then on).
        #[arg(long)]
        rotate_token: bool,
        /// Also accept requests from this browser origin (e.g. http://localhost:6274 for the
        /// MCP Inspector's web UI). Repeatable.
        #[arg(long = "allow-origin", value_name = "ORIGIN")]
        allow_origin: Vec<String>,
        /// Characters one result returns at most (longer reads continue with `next`).
        #[arg(long, default_value_t = 20_000)]
        read_chars: usize,
        /// Re-index the vault every this many seconds (0: only at start).
        #[arg(long, default_value_t = 60)]
        refresh: u64,
        #[command(flatten)]
        limits: crate::mcp::guard::ServeLimits,
    },
}

pub fn run(cli: Cli) -> anyhow::Result<()> {
    if let Some(grant) = &cli.agentero_context_mcp {
        return crate::mcp::run(grant);
    }
    if cli.builtin_agent {
        return crate::agent::run();
    }
    if let Some(args) = &cli.render_page {
        return crate::vault::render::child_main(args);
    }
    match cli.command {
        None => {
            let path = crate::paths::choose_vault(cli.vault.as_deref())?;
            crate::tui::run(&path)
        }
        Some(Command::Index { vault, time_limit }) => {
            let vault = open_vault(vault.as_deref())?;
            let opts = IndexOptions {
                time_limit: std::time::Duration::from_secs(time_limit.max(1)),
                ..IndexOptions::default()
            };
            let summary = index_with_progress(&vault, &opts)?;
            print_summary(&vault, &summary);
            Ok(())
        }
        Some(Command::Search {
            vault,
            limit,
            json,
            query,
        }) => {
            let vault = open_vault(vault.as_deref())?;
            let query = query.join(" ");
            search(&vault, &query, limit, json)
        }
        Some(Command::Plan {
            vault,
            reading:
                Reading {
                    paper,
                    page,
                    selection,
                },
            remote,
            grant,
            config,
            mentions,
        }) => {
            let vault = open_vault(vault.as_deref())?;
            let exe = std::env::current_exe().unwrap_or_default();
            let config = crate::config::Config::load(config.as_deref(), &exe)?;
            for p in &config.problems {
                eprintln!("warning: {}", visible(p));
            }
            let reading = Reading {
                paper,
                page,
                selection,
            };
            plan(&vault, reading, config.budget, remote, grant, mentions)
        }
        Some(Command::Ask {
            vault,
            agent,
            thread,
            new,
            reading:
                Reading {
                    paper,
                    page,
                    selection,
                },
            remote,
            json,
            config,
            timeout,
            handoff,
            question,
        }) => {
            let vault = open_vault(vault.as_deref())?;
            let opts = crate::acp::ask::AskOptions {
                agent,
                thread,
                new,
                paper,
                page,
                selection,
                remote,
                json,
                config,
                timeout_secs: timeout,
                handoff,
                question: question.join(" "),
            };
            crate::acp::ask::run(&vault, opts)
        }
        Some(Command::Agents {
            vault,
            config,
            npx,
            json,
            names,
        }) => {
            let vault = open_vault(vault.as_deref())?;
            agents(&vault, config.as_deref(), npx, json, &names)
        }
        Some(Command::Serve {
            vault,
            port,
            stdio,
            token,
            rotate_token,
            allow_origin,
            read_chars,
            refresh,
            limits,
        }) => {
            let path = crate::paths::choose_vault(vault.as_deref())?;
            let vault = Vault::open(&path)?;
            if token || rotate_token {
                vault.ensure_state_dir()?;
                let t = if rotate_token {
                    crate::mcp::http::rotate_token(&vault)?
                } else {
                    crate::mcp::http::ensure_token(&vault)?
                };
                println!("{t}");
                return Ok(());
            }
            if read_chars < 1000 {
                bail!("--read-chars must be at least 1000");
            }
            let opts = crate::mcp::serve::ServeOptions {
                stdio,
                http: crate::mcp::http::HttpOptions {
                    port,
                    limits: crate::context::tools::vault::Limits {
                        read_chars,
                        ..Default::default()
                    },
                    extra_origins: allow_origin,
                    guard: limits,
                },
                refresh: (refresh > 0).then(|| std::time::Duration::from_secs(refresh)),
            };
            crate::mcp::serve::run(vault, opts)
        }
        Some(Command::Threads {
            vault,
            cites,
            search,
            json,
            limit,
            export,
            output,
            thread,
        }) => {
            let vault = open_vault(vault.as_deref())?;
            match (export, thread) {
                (Some(format), Some(id)) => {
                    marks::export_thread(&vault, &id, format, output.as_deref())
                }
                _ => threads(&vault, cites, search, json, limit),
            }
        }
        Some(Command::Highlights {
            vault,
            paper,
            export,
            output,
            delete,
            json,
        }) => {
            let vault = open_vault(vault.as_deref())?;
            let what = match (export, delete) {
                (Some(_), _) => marks::HighlightsDo::Export(output),
                (None, Some(id)) => marks::HighlightsDo::Delete(id),
                (None, None) => marks::HighlightsDo::List { json },
            };
            marks::highlights(&vault, &paper, what)
        }
        Some(Command::Page {
            vault,
            paper,
            page,
            png,
            dpi,
            quote,
            fresh,
        }) => {
            let vault = open_vault(vault.as_deref())?;
            let opts = PageOptions { dpi, quote, fresh };
            page_png(&vault, &paper, page, &png, &opts)
        }
        Some(Command::Demo { dir }) => {
            let dir = match dir {
                Some(d) => {
                    crate::vault::demo::write_demo_vault(&d).with_context(|| {
                        format!("cannot write the demo vault to {}", d.display())
                    })?;
                    d
                }
                None => crate::paths::demo_vault()?,
            };
            println!("{}", visible(&dir.display().to_string()));
            Ok(())
        }
    }
}

/// `agentero threads`: every line of it through `visible` (titles, questions and snippets are
/// the user's and the agents' text).
fn threads(
    vault: &Vault,
    cites: Option<String>,
    search: Option<String>,
    json: bool,
    limit: usize,
) -> anyhow::Result<()> {
    use crate::acp::threads::{ThreadIndex, ThreadQuery};
    let index = ThreadIndex::load(vault);
    for w in &index.warnings {
        eprintln!("warning: {}", visible(w));
    }
    let query = ThreadQuery {
        cites,
        text: search,
    };
    let mut hits = index.search(&query)?;
    let total = hits.len();
    hits.truncate(limit.max(1));
    let mut out = std::io::stdout().lock();
    let written = print_threads(&mut out, vault, &query, &hits, total, json);
    match written {
        // A reader that stopped reading (`| head`) is not an error.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => Ok(other?),
    }
}

fn print_threads(
    out: &mut dyn Write,
    vault: &Vault,
    query: &crate::acp::threads::ThreadQuery,
    hits: &[crate::acp::threads::ThreadHit],
    total: usize,
    json: bool,
) -> std::io::Result<()> {
    if json {
        // JSON escapes control characters itself.
        return writeln!(out, "{}", crate::vault::visible::to_json_pretty(hits)?);
    }
    if hits.is_empty() {
        if query.is_empty() {
            let root = vault.root().display().to_string();
            writeln!(out, "No threads yet in {}.", visible(&root))?;
        } else {
            writeln!(out, "No thread matches.")?;
        }
        return Ok(());
    }
    for h in hits {
        let when = h.updated.get(..16).unwrap_or(&h.updated).replace('T', " ");
        writeln!(
            out,
            "{}  {}  {}  ({} turn{})",
            visible(&h.thread_id),
            visible(&when),
            visible(&h.title),
            h.turn_count,
            if h.turn_count == 1 { "" } else { "s" }
        )?;
        if !query.is_empty() {
            for t in &h.turns {
                writeln!(out, "    turn {}: {}", t.number, visible(&t.question))?;
                for c in &t.cited {
                    writeln!(out, "      cites {}", visible(c))?;
                }
                if query.text.is_some() {
                    writeln!(out, "      {}", visible(&t.snippet))?;
                }
            }
        }
    }
    if total > hits.len() {
        writeln!(out, "({} more; --limit N shows more)", total - hits.len())?;
    }
    Ok(())
}

struct PageOptions {
    dpi: u32,
    quote: Option<String>,
    fresh: bool,
}

/// `agentero page`: one page as a PNG, through the page cache, a quote highlighted on request.
fn page_png(
    vault: &Vault,
    paper: &str,
    page: Option<u32>,
    out: &Path,
    opts: &PageOptions,
) -> anyhow::Result<()> {
    use crate::vault::render::{self, PageCache};
    // A citation URI names its page; an explicit page wins.
    let as_uri = paper.contains('#').then(|| crate::vault::uri::parse(paper));
    let (path, uri_page) = match as_uri.flatten() {
        Some(crate::vault::uri::Target::Vault { path, page, .. }) => (path, page),
        _ => (paper.to_string(), None),
    };
    let Some(page) = page.or(uri_page) else {
        bail!("which page? give a page number (agentero page PAPER N --png OUT)");
    };
    if !(render::MIN_DPI..=render::MAX_DPI).contains(&opts.dpi) {
        bail!(render::RenderError::BadDpi);
    }
    let (pdf, sha) = render::locate_paper(vault, &path)?;
    let cache = PageCache::new(vault);
    let (mut img, cached) = match cache.get(&sha, page, opts.dpi).filter(|_| !opts.fresh) {
        Some(img) => (img, true),
        None => {
            let exe = std::env::current_exe().context("cannot locate the agentero executable")?;
            let renderer = render::Renderer::new(exe, render::Bounds::from_env()?);
            let img = renderer.render_file(&pdf, page, opts.dpi)?;
            cache.put(&sha, page, &img);
            (img, false)
        }
    };
    let mut note = String::new();
    if let Some(q) = &opts.quote {
        let bytes =
            std::fs::read(&pdf).with_context(|| format!("cannot read {}", visible(&path)))?;
        use crate::context::quote::{QuoteBoxError, page_boxes};
        let rects = page_boxes(&bytes, page, q).map_err(|e| match e {
            QuoteBoxError::Pdf(e) => anyhow::Error::from(e),
            other => anyhow::anyhow!("{other} of {}", visible(&path)),
        })?;
        img.highlight(&rects);
        let n = rects.len();
        note = format!(
            ", the quote highlighted ({n} {})",
            if n == 1 { "box" } else { "boxes" }
        );
    }
    let mut png = Vec::new();
    img.image
        .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
        .context("cannot encode the PNG")?;
    let shown = out.display().to_string();
    if shown == "-" {
        match std::io::stdout().lock().write_all(&png) {
            // The reader had what it wanted (`| head`): not an error of ours.
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => return Ok(()),
            r => r?,
        }
    } else {
        std::fs::write(out, &png).with_context(|| format!("cannot write {}", visible(&shown)))?;
    }
    eprintln!(
        "{}",
        visible(&format!(
            "page {page} of {path}: {}x{} pixels at {} dpi{}{note} -> {shown}",
            img.image.width(),
            img.image.height(),
            opts.dpi,
            if cached { " (cached)" } else { "" },
        ))
    );
    Ok(())
}

/// `agentero agents`: the doctor's report, one agent at a time.
fn agents(
    vault: &Vault,
    config: Option<&Path>,
    npx: bool,
    json: bool,
    names: &[String],
) -> anyhow::Result<()> {
    let exe = std::env::current_exe().context("cannot locate the agentero executable")?;
    let config = crate::config::Config::load(config, &exe)?;
    let defs: Vec<crate::config::AgentDef> = if names.is_empty() {
        config.agents.values().cloned().collect()
    } else {
        names
            .iter()
            .map(|n| config.agent(Some(n)).cloned())
            .collect::<Result<_, _>>()?
    };
    vault.ensure_state_dir()?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let mut reports = Vec::new();
    let mut out = std::io::stdout().lock();
    for def in &defs {
        let r = runtime.block_on(async {
            tokio::time::timeout(
                crate::acp::doctor::CHECK_TIMEOUT,
                crate::acp::doctor::check(def, vault, npx),
            )
            .await
        });
        let r = r.unwrap_or_else(|_| {
            crate::acp::doctor::AgentReport::timed_out(
                def,
                crate::acp::doctor::CHECK_TIMEOUT.as_secs(),
            )
        });
        if !json {
            // Agent names, versions and error tails come from other programs.
            write!(
                out,
                "{}",
                visible(&crate::acp::doctor::render(std::slice::from_ref(&r)))
            )?;
            out.flush()?;
        }
        reports.push(r);
    }
    runtime.shutdown_timeout(std::time::Duration::from_millis(500));
    if json {
        writeln!(out, "{}", crate::vault::visible::to_json_pretty(&reports)?)?;
    }
    if reports.iter().any(|r| !r.ok) {
        bail!(
            "{} of {} agents failed a check",
            reports.iter().filter(|r| !r.ok).count(),
            reports.len()
        );
    }
    Ok(())
}

fn open_vault(named: Option<&Path>) -> anyhow::Result<Vault> {
    let path = crate::paths::choose_vault(named)?;
    let vault = Vault::open(&path)?;
    if let Some(notice) = vault.read_only_notice() {
        eprintln!("agentero: {notice}");
    }
    // A state folder that is not agentero's own is said on stderr by the log's opening.
    let _ = vault.ensure_state_dir();
    crate::logging::init(&vault.state_dir());
    Ok(vault)
}

/// A progress bar on stderr and the callback that drives it.
fn progress_bar() -> (indicatif::ProgressBar, impl FnMut(Progress)) {
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
    };
    (bar, progress)
}

fn index_with_progress(vault: &Vault, opts: &IndexOptions) -> Result<IndexSummary, VaultError> {
    let (bar, mut progress) = progress_bar();
    let result = indexer::index_vault(vault, opts, &mut progress);
    bar.finish_and_clear();
    result
}

/// The index summary. Paths, reasons and warnings come from the vault's files: every one is
/// shown through [`visible`].
fn print_summary(vault: &Vault, s: &IndexSummary) {
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
}

fn search(vault: &Vault, query: &str, limit: usize, json: bool) -> anyhow::Result<()> {
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
    crate::vault::annotation_search::merge_into(vault, query, &mut hits, limit, opts.excerpt_chars);
    bar.finish_and_clear();
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
        let mut doc = serde_json::json!({
            "query": query,
            "vault": vault.root(),
            "cards": hits,
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
        writeln!(out, "    {}", visible(&c.path))?;
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

/// "Title · p. 3, 7, 12" (the best pages in page order), "Title · lines 1–40, 81–120".
fn headline(h: &crate::vault::PaperHit) -> String {
    let places = h.places();
    let title = if h.card.title.trim().is_empty() {
        h.card.path.as_str()
    } else {
        h.card.title.as_str()
    };
    if places.is_empty() {
        title.to_string()
    } else {
        format!("{title} · {places}")
    }
}

/// Where a card's excerpt is from: `p. 2 ("284")`, `lines 10–24`.
fn place(c: &Card) -> String {
    match (c.page, &c.page_label, c.lines) {
        (Some(p), Some(l), _) if *l != p.to_string() => format!("p. {p} (\"{l}\")"),
        (Some(p), _, _) => format!("p. {p}"),
        (None, _, Some([a, b])) => format!("lines {a}–{b}"),
        _ => String::new(),
    }
}

fn plan(
    vault: &Vault,
    reading: Reading,
    budget: crate::context::budget::Budget,
    remote: bool,
    grant: bool,
    mentions: Vec<String>,
) -> anyhow::Result<()> {
    use crate::context::{ContextRequest, CurrentPaper, Locality, Selection};
    let Reading {
        paper,
        page,
        selection,
    } = reading;
    let request = ContextRequest {
        budget,
        mentions,
        selection: match (&paper, selection) {
            (Some(p), Some(text)) => Some(Selection {
                path: p.clone(),
                page,
                text,
            }),
            _ => None,
        },
        current: paper.map(|path| CurrentPaper { path, page }),
        locality: if remote {
            Locality::Remote
        } else {
            Locality::Local
        },
        ..ContextRequest::default()
    };
    let catalog = vault.catalog();
    let plan = crate::context::plan::plan_with(vault, &catalog, &request);
    if grant {
        let runtime = crate::context::grant::new_id("rt");
        let (files, _) = crate::context::grant::write(vault, &runtime, &plan)
            .context("cannot write the grant")?;
        // The citing-scan cache is written by the host, never by the context server.
        if let Err(e) = crate::context::library::ensure_cache(vault, &catalog) {
            tracing::warn!(error = %e, "cannot write the citing-scan cache");
        }
        eprintln!("grant: {}", visible(&files.grant().display().to_string()));
    }
    println!(
        "{}",
        crate::vault::visible::json_safe(plan.to_json_pretty())
    );
    Ok(())
}
