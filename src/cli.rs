//! Command-line parsing and the headless commands' wiring and output.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use clap::{Parser, Subcommand};

use crate::vault::indexer::{self, IndexOptions, IndexSummary, Progress};
use crate::vault::visible::visible;
use crate::vault::{Card, SearchOptions, Vault, VaultError};

mod agents;
mod check;
mod index;
mod man;
mod marks;
mod model;
mod page;
mod plan;
mod serve_config;
mod threads;

use agents::agents;
use index::{open_vault, search};
use page::{PageOptions, page_png};
use plan::plan;
use threads::threads;

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
    /// Open the app with the citation checklist of this manuscript beside the paper (Markdown,
    /// LaTeX or plain text, in the vault or anywhere); it is checked again when saved.
    #[arg(long, value_name = "DRAFT")]
    pub check: Option<PathBuf>,
    /// With --check: a bibliography its keys resolve through (BibTeX, or CSL-JSON .json; may be
    /// given more than once). Default: the ones the manuscript declares.
    #[arg(long, value_name = "FILE", requires = "check")]
    pub bib: Vec<PathBuf>,
    /// Serve the `agentero-context` MCP server over stdio for a grant file (started by the host
    /// for an agent session; stdout is the protocol).
    #[arg(long, value_name = "GRANT", hide = true)]
    pub agentero_context_mcp: Option<PathBuf>,
    /// Restrict this process's reads (Landlock) to a policy, then become the program (the
    /// launcher of a restricted agent, started by the host).
    #[arg(long, hide = true, num_args = 2.., allow_hyphen_values = true, value_names = ["POLICY", "PROGRAM"])]
    pub sandboxed_exec: Option<Vec<std::ffi::OsString>>,
    /// Pass the MCP bytes of a context server between stdio and the host's broker (the
    /// context server of a restricted agent, started by that agent).
    #[arg(long, hide = true, num_args = 2, value_names = ["SOCKET", "GRANT"])]
    pub agentero_context_relay: Option<Vec<std::ffi::OsString>>,
    /// Run the built-in ACP agent over stdio (started by the host; stdout is the protocol).
    #[arg(long, hide = true)]
    pub builtin_agent: bool,
    /// Render one page (or a window of it) within bounds and write it to stdout (started by
    /// agentero itself).
    #[arg(long, hide = true, num_args = 5..=6, value_names = ["PDF", "PAGE", "DPI", "BYTES", "SECONDS", "WINDOW"])]
    pub render_page: Option<Vec<std::ffi::OsString>>,
    /// OCR one page within bounds (render it, read it with tesseract) and answer on stdout
    /// (started by agentero itself).
    #[arg(long, hide = true, num_args = 7, value_names = ["PDF", "PAGE", "DPI", "BYTES", "SECONDS", "TESSERACT", "LANGS"])]
    pub ocr_page: Option<Vec<std::ffi::OsString>>,
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
        #[command(flatten)]
        args: index::IndexArgs,
    },
    /// Search a vault's index; indexes it first when it has no index yet.
    Search {
        #[arg(long)]
        vault: Option<PathBuf>,
        /// Maximum number of cards.
        #[arg(long, default_value_t = 10)]
        limit: usize,
        /// Print one JSON object (its fields: docs/commands.md, or `agentero man`).
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
    /// login in place, a session opened. Exits non-zero when one fails (a preset never set up
    /// whose runtime is absent is listed as not set up, not failed).
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
    /// Check every quote a thread's answers cited again, against the vault as it is now (on
    /// another machine, or after a paper was replaced by a new version), beside the turn's
    /// receipt: what changed. Exits 1 when a citation that was verified is not any more.
    Reverify {
        #[arg(long)]
        vault: Option<PathBuf>,
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
        /// The thread (its id, or a prefix only it has).
        thread: String,
    },
    /// Write the bundled demo vault into a folder (default: the app's data folder) and print it.
    Demo { dir: Option<PathBuf> },
    /// Check every citation of a manuscript (Markdown/pandoc, LaTeX or plain text) against the
    /// cited page of the vault's paper: a quote is verified there (✓, or ⚠ with what differs,
    /// the page it is really on, or that it is nowhere); a claim without a quote gets the
    /// passages that match it best. Exits 1 when any citation needs a look.
    Check {
        #[arg(long)]
        vault: Option<PathBuf>,
        /// A bibliography (BibTeX, or CSL-JSON when it ends in .json) whose keys the manuscript
        /// uses; its entries are matched to the vault's papers by DOI, arXiv id or title. May be
        /// given more than once. Without it, the bibliographies the manuscript declares are read
        /// (pandoc's `bibliography:`, LaTeX's `\bibliography{}` and `\addbibresource{}`).
        #[arg(long, value_name = "FILE")]
        bib: Vec<PathBuf>,
        /// Print one JSON object (every citation, its outcome and where).
        #[arg(long)]
        json: bool,
        /// Only the citations that need a look.
        #[arg(long, conflicts_with = "json")]
        problems: bool,
        /// The manuscript.
        draft: PathBuf,
    },
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
    /// Print agentero's man page (roff) to stdout: `agentero man | man -l -`, or save it as
    /// agentero.1 in a man folder.
    Man,
    /// Print the shell completion script for SHELL to stdout (bash, zsh, fish, elvish,
    /// powershell), e.g. `agentero completions bash > ~/.local/share/bash-completion/completions/agentero`.
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// The embedding models of hybrid search (model2vec static models, sentence-transformers
    /// BERTs): which are installed (in the Hugging Face cache), which one is used, and this
    /// vault's vectors; `model pull ORG/NAME` downloads one.
    Model {
        #[arg(long)]
        vault: Option<PathBuf>,
        #[command(subcommand)]
        action: Option<ModelAction>,
    },
    /// Serve the whole vault, read-only, to external MCP clients (Claude Desktop, Claude Code,
    /// Cursor, Zed, …): Streamable HTTP on 127.0.0.1 with a bearer token, or --stdio.
    Serve(ServeArgs),
}

/// `agentero model`'s actions.
#[derive(Debug, Subcommand)]
pub enum ModelAction {
    /// Download an embedding model (ORG/NAME: a model2vec model, or a sentence-transformers BERT
    /// used when named in the config) from the Hugging Face hub into the Hugging Face cache (the
    /// machine must reach the hub).
    Pull { name: String },
}

/// `agentero serve`'s arguments.
#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// The vault folder (default: the current folder if it is a vault, else the demo vault).
    pub vault: Option<PathBuf>,
    /// The loopback port (0 picks a free one; the URL is printed).
    #[arg(long, default_value_t = crate::mcp::http::DEFAULT_PORT)]
    pub port: u16,
    /// Serve over stdin/stdout, for clients that launch the server themselves (no token).
    #[arg(long, conflicts_with_all = ["token", "rotate_token"])]
    pub stdio: bool,
    /// Print the vault's bearer token (created on first use) and exit.
    #[arg(long, conflicts_with = "rotate_token")]
    pub token: bool,
    /// Print the command or configuration that attaches this vault to CLIENT, and exit:
    /// stdio (the client starts the server), or with --http a running server.
    #[arg(long, value_name = "CLIENT", conflicts_with_all = ["stdio", "token", "rotate_token"])]
    pub print_config: Option<serve_config::Client>,
    /// With --print-config: attach to a running HTTP server instead of starting one.
    #[arg(long, requires = "print_config")]
    pub http: bool,
    /// Replace the token with a new one, print it and exit (a running server accepts only
    /// the new one from then on).
    #[arg(long)]
    pub rotate_token: bool,
    /// Also accept requests from this browser origin (e.g. http://localhost:6274 for the
    /// MCP Inspector's web UI). Repeatable.
    #[arg(long = "allow-origin", value_name = "ORIGIN")]
    pub allow_origin: Vec<String>,
    /// Characters one result returns at most (longer reads continue with `next`).
    #[arg(long, default_value_t = 20_000)]
    pub read_chars: usize,
    /// Re-index the vault every this many seconds (0: only at start).
    #[arg(long, default_value_t = 60)]
    pub refresh: u64,
    #[command(flatten)]
    pub limits: crate::mcp::guard::ServeLimits,
}

pub fn run(cli: Cli) -> anyhow::Result<()> {
    // The embedding model of every vault this process opens (resolved when one is):
    // `AGENTERO_EMBEDDINGS`, else the config's `[search] embeddings`.
    if cli.render_page.is_none() && cli.ocr_page.is_none() && cli.sandboxed_exec.is_none() {
        let setting = std::env::var("AGENTERO_EMBEDDINGS").ok().or_else(|| {
            let exe = std::env::current_exe().unwrap_or_default();
            crate::config::Config::load(None, &exe)
                .ok()
                .and_then(|c| c.embeddings)
        });
        crate::vault::embed::set_process_setting(setting);
    }
    if let Some(grant) = &cli.agentero_context_mcp {
        return crate::mcp::run(grant);
    }
    if cli.builtin_agent {
        return crate::agent::run();
    }
    if let Some(args) = &cli.sandboxed_exec {
        return crate::acp::sandbox::exec_main(args);
    }
    if let Some(args) = &cli.agentero_context_relay {
        return crate::acp::sandbox::relay_main(args);
    }
    if let Some(args) = &cli.render_page {
        return crate::vault::render::child_main(args);
    }
    if let Some(args) = &cli.ocr_page {
        return crate::vault::ocr::child_main(args);
    }
    match cli.command {
        None => {
            let path = crate::paths::choose_vault(cli.vault.as_deref())?;
            let draft = match cli.check {
                Some(d) => Some((draft_at(&path, &d)?, cli.bib)),
                None => None,
            };
            crate::tui::run(&path, draft)
        }
        Some(command) => dispatch(command),
    }
}

/// A manuscript named on the command line: a vault path when it is a file of the vault (read
/// through the vault's rules then), else the file itself. A file that is not there is said now,
/// before the terminal is taken.
fn draft_at(vault: &Path, draft: &Path) -> anyhow::Result<crate::context::check::source::DraftAt> {
    use crate::context::check::source::DraftAt;
    let abs = std::fs::canonicalize(draft)
        .with_context(|| format!("cannot read the manuscript {}", draft.display()))?;
    if !abs.is_file() {
        bail!("the manuscript {} is not a file", draft.display());
    }
    let root = std::fs::canonicalize(vault).unwrap_or_else(|_| vault.to_path_buf());
    Ok(
        match abs.strip_prefix(&root).ok().and_then(|r| r.to_str()) {
            Some(rel) if !rel.is_empty() => DraftAt::Vault(rel.replace('\\', "/")),
            _ => DraftAt::File(abs),
        },
    )
}

/// Each subcommand to its own function.
fn dispatch(command: Command) -> anyhow::Result<()> {
    match command {
        Command::Index { vault, args } => index::run_index(vault.as_deref(), args),
        Command::Search {
            vault,
            limit,
            json,
            query,
        } => {
            let vault = open_vault(vault.as_deref())?;
            let query = query.join(" ");
            search(&vault, &query, limit, json)
        }
        Command::Plan {
            vault,
            reading,
            remote,
            grant,
            config,
            mentions,
        } => run_plan(
            vault.as_deref(),
            reading,
            remote,
            grant,
            config.as_deref(),
            mentions,
        ),
        Command::Ask {
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
        } => {
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
            run_ask(vault.as_deref(), opts)
        }
        Command::Agents {
            vault,
            config,
            npx,
            json,
            names,
        } => {
            let vault = open_vault(vault.as_deref())?;
            agents(&vault, config.as_deref(), npx, json, &names)
        }
        Command::Serve(args) => serve(args),
        Command::Threads {
            vault,
            cites,
            search,
            json,
            limit,
            export,
            output,
            thread,
        } => {
            let vault = open_vault(vault.as_deref())?;
            match (export, thread) {
                (Some(format), Some(id)) => {
                    marks::export_thread(&vault, &id, format, output.as_deref())
                }
                _ => threads(&vault, cites, search, json, limit),
            }
        }
        Command::Highlights {
            vault,
            paper,
            export,
            output,
            delete,
            json,
        } => {
            let vault = open_vault(vault.as_deref())?;
            let what = match (export, delete) {
                (Some(_), _) => marks::HighlightsDo::Export(output),
                (None, Some(id)) => marks::HighlightsDo::Delete(id),
                (None, None) => marks::HighlightsDo::List { json },
            };
            marks::highlights(&vault, &paper, what)
        }
        Command::Page {
            vault,
            paper,
            page,
            png,
            dpi,
            quote,
            fresh,
        } => {
            let vault = open_vault(vault.as_deref())?;
            let opts = PageOptions { dpi, quote, fresh };
            page_png(&vault, &paper, page, &png, &opts)
        }
        Command::Model { vault, action } => match action {
            Some(ModelAction::Pull { name }) => model::pull(&name),
            None => model::list(vault.as_deref()),
        },
        Command::Demo { dir } => run_demo(dir),
        Command::Reverify {
            vault,
            json,
            thread,
        } => {
            let vault = open_vault(vault.as_deref())?;
            check::reverify(&vault, &thread, json)
        }
        Command::Check {
            vault,
            bib,
            json,
            problems,
            draft,
        } => {
            let vault = open_vault(vault.as_deref())?;
            check::run(&vault, &draft, &bib, json, problems)
        }
        Command::Man => man::print_man(&mut std::io::stdout().lock()),
        Command::Completions { shell } => {
            man::print_completions(shell, &mut std::io::stdout().lock())
        }
    }
}

/// `agentero plan`: the config's budget (its problems said), then the plan.
fn run_plan(
    vault: Option<&Path>,
    reading: Reading,
    remote: bool,
    grant: bool,
    config: Option<&Path>,
    mentions: Vec<String>,
) -> anyhow::Result<()> {
    let vault = open_vault(vault)?;
    let exe = std::env::current_exe().unwrap_or_default();
    let config = crate::config::Config::load(config, &exe)?;
    for p in &config.problems {
        eprintln!("warning: {}", visible(p));
    }
    plan(&vault, reading, config.budget, remote, grant, mentions)
}

/// `agentero ask`.
fn run_ask(vault: Option<&Path>, opts: crate::acp::ask::AskOptions) -> anyhow::Result<()> {
    let vault = open_vault(vault)?;
    crate::acp::ask::run(&vault, opts)
}

/// `agentero serve`: the snippet of `--print-config`, the token, or the server.
fn serve(a: ServeArgs) -> anyhow::Result<()> {
    if let Some(client) = a.print_config {
        return run_print_config(a.vault.as_deref(), client, a.http, a.port);
    }
    let opts = crate::mcp::serve::ServeOptions {
        stdio: a.stdio,
        http: crate::mcp::http::HttpOptions {
            port: a.port,
            limits: crate::context::tools::vault::Limits {
                read_chars: a.read_chars,
                ..Default::default()
            },
            extra_origins: a.allow_origin,
            guard: a.limits,
        },
        refresh: (a.refresh > 0).then(|| std::time::Duration::from_secs(a.refresh)),
    };
    run_serve(a.vault.as_deref(), a.token, a.rotate_token, opts)
}

/// `agentero serve`: print (or rotate) the token, or serve the vault.
fn run_serve(
    vault: Option<&Path>,
    token: bool,
    rotate_token: bool,
    opts: crate::mcp::serve::ServeOptions,
) -> anyhow::Result<()> {
    let path = crate::paths::choose_vault(vault)?;
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
    if opts.http.limits.read_chars < 1000 {
        bail!("--read-chars must be at least 1000");
    }
    crate::mcp::serve::run(vault, opts)
}

/// `agentero serve --print-config CLIENT [--http]`: the snippet on stdout, where it goes on
/// stderr. For HTTP the vault's token is created if it has none (as `--token` does).
fn run_print_config(
    vault: Option<&Path>,
    client: serve_config::Client,
    http: bool,
    port: u16,
) -> anyhow::Result<()> {
    let path = crate::paths::choose_vault(vault)?;
    let path = path.canonicalize().unwrap_or(path);
    let vault_dir = path.display().to_string();
    let exe = serve_config::exe_name(&std::env::current_exe()?);
    let token = if http {
        let v = Vault::open(&path)?;
        v.ensure_state_dir()?;
        Some(crate::mcp::http::ensure_token(&v)?)
    } else {
        None
    };
    let target = serve_config::Target {
        exe: &exe,
        vault: &vault_dir,
        url: format!("http://127.0.0.1:{port}/mcp"),
        token: token.as_deref(),
    };
    eprintln!("agentero: {}", serve_config::where_it_goes(client));
    if http {
        eprintln!("agentero: start the server first: {exe} serve {vault_dir} --port {port}",);
    }
    print!("{}", serve_config::snippet(client, http, &target));
    Ok(())
}

/// `agentero demo`: write the demo vault (to `dir`, or the app's data folder) and print where.
fn run_demo(dir: Option<PathBuf>) -> anyhow::Result<()> {
    let dir = match dir {
        Some(d) => {
            crate::vault::demo::write_demo_vault(&d)
                .with_context(|| format!("cannot write the demo vault to {}", d.display()))?;
            d
        }
        None => crate::paths::demo_vault()?,
    };
    println!("{}", visible(&dir.display().to_string()));
    Ok(())
}
