//! Logs go to `{vault}/.agentero/logs/agentero.log` through `tracing`, never to the terminal:
//! stdout belongs to the TUI or to a JSON-RPC peer.

use std::borrow::Cow;
use std::io::Write;
use std::path::Path;
use std::sync::Mutex;

use crate::vault::visible::visible;

use tracing_subscriber::EnvFilter;

/// Starts file logging. `AGENTERO_LOG` sets the filter (default `info`). Failing to open the
/// log is not fatal: the app works without it. A log file or folder that is not agentero's
/// own (a planted link, another user's file) is refused, and stderr (never stdout) says so.
pub fn init(state_dir: &Path) {
    let file =
        match crate::vault::statefs::open_append(&state_dir.join("logs").join("agentero.log")) {
            Ok(f) => f,
            Err(e) => {
                if e.problem().is_some() {
                    eprintln!("agentero: not logging: {e}");
                }
                return;
            }
        };
    let filter = EnvFilter::try_from_env("AGENTERO_LOG").unwrap_or_else(|_| EnvFilter::new("info"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(false)
        .with_writer(Escaping(Mutex::new(file)))
        .try_init();
}

/// The log file's writer: each event arrives as one formatted line, written with its control
/// characters escaped (see [`log_safe`]), so a title or a path from an agent or a vault file
/// can neither forge a line nor carry terminal escapes to whoever reads the log.
struct Escaping<W>(Mutex<W>);

struct EscapingGuard<'a, W>(std::sync::MutexGuard<'a, W>);

impl<'a, W: Write + 'a> tracing_subscriber::fmt::MakeWriter<'a> for Escaping<W> {
    type Writer = EscapingGuard<'a, W>;

    fn make_writer(&'a self) -> Self::Writer {
        EscapingGuard(self.0.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

impl<W: Write> Write for EscapingGuard<'_, W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let text = String::from_utf8_lossy(buf);
        self.0.write_all(log_safe(&text).as_bytes())?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}

/// A log record with its control characters shown as escapes ([`visible`]), newlines inside
/// it too (`\n`); only the newline that ends it stays.
pub fn log_safe(record: &str) -> Cow<'_, str> {
    let (body, end) = match record.strip_suffix('\n') {
        Some(body) => (body, "\n"),
        None => (record, ""),
    };
    let shown = visible(body);
    if !shown.contains('\n') && matches!(shown, Cow::Borrowed(_)) {
        return Cow::Borrowed(record);
    }
    Cow::Owned(format!("{}{end}", shown.replace('\n', "\\n")))
}

/// Panics in the isolated extraction threads are expected on hostile PDFs: they are reported
/// as per-file errors, so they go to the log instead of the terminal.
pub fn install_panic_hook() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let isolated = std::thread::current()
            .name()
            .is_some_and(|n| n == crate::vault::extract::ISOLATED_THREAD);
        if isolated {
            tracing::warn!(panic = %info, "a document crashed the parser");
        } else if crate::vault::index::panic_is_contained() {
            tracing::warn!(panic = %info, "a damaged index made tantivy panic");
        } else {
            tracing::error!(panic = %info, "panic");
            default(info);
        }
    }));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_records_keep_one_line_and_no_controls() {
        assert!(matches!(log_safe("plain record\n"), Cow::Borrowed(_)));
        let got = log_safe("title=\u{9b}31m\u{202e}x\nFAKE line\u{1b}[2J\n");
        assert_eq!(got, "title=\\u{9b}31m\\u{202e}x\\nFAKE line\\033[2J\n");
        let mut file = Vec::new();
        EscapingGuard(Mutex::new(&mut file).lock().unwrap())
            .write_all("a\u{85}b\n".as_bytes())
            .unwrap();
        assert_eq!(String::from_utf8(file).unwrap(), "a\\u{85}b\n");
    }
}
