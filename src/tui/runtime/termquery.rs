//! Asking the terminal what it can draw, without ever eating a key.
//!
//! The graphics query (kitty's graphics protocol, the cell size in pixels, and the primary
//! device attributes, which every terminal answers and which say whether it has sixel) is
//! written once at start, and its answers are read here, straight from the terminal with
//! `poll`, until the device attributes arrive or a short deadline passes. Nothing is left
//! reading afterwards (a reader thread that outlived its timeout took the first key typed,
//! even seconds later), and any byte that is not part of an answer — a key typed while the
//! query was out — is handed back as a key event.
//!
//! Inside tmux the query goes out only when tmux passes it on (`allow-passthrough`): tmux drops
//! passthrough sequences otherwise, so nothing would answer. tmux answers the device attributes
//! itself, before the terminal's kitty answer has come back through it: there the kitty answer
//! ends the wait (or the deadline does).

use std::os::fd::{AsFd, BorrowedFd, OwnedFd};

use std::time::{Duration, Instant};

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// What the terminal said.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Answers {
    /// It answered the kitty graphics query with OK.
    pub kitty: bool,
    /// It answered the kitty graphics query at all (OK or an error).
    pub kitty_answered: bool,
    /// Its device attributes list sixel graphics (attribute 4).
    pub sixel: bool,
    /// The size of one cell in pixels (width, height), from `CSI 16 t`.
    pub cell_px: Option<(u16, u16)>,
    /// The device attributes arrived (the end of the answers).
    pub complete: bool,
}

/// The answers and the keys typed while they were awaited.
#[derive(Debug, Default)]
pub struct Outcome {
    pub answers: Answers,
    pub keys: Vec<KeyEvent>,
}

/// The kitty graphics query (a 1x1 image, query only), the cell-size report and the primary
/// device attributes, in that order: the terminals answer in order, so the attributes come last.
const KITTY_QUERY: &str = "\x1b_Gi=31,s=1,v=1,a=q,t=d,f=24;AAAA\x1b\\";
const CELL_SIZE_QUERY: &str = "\x1b[16t";
const DEVICE_ATTRIBUTES: &str = "\x1b[c";

/// Where agentero runs, as far as the query is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Host {
    /// A terminal of its own.
    Direct,
    /// Inside tmux with `allow-passthrough` on: the kitty query goes out wrapped.
    TmuxPassthrough,
    /// Inside tmux with passthrough off: no query (tmux would drop it; nothing answers).
    TmuxClosed,
}

/// Where this process runs: tmux is asked for `allow-passthrough` (a short call of `tmux`).
pub fn host() -> Host {
    if std::env::var_os("TMUX").is_none_or(|v| v.is_empty()) {
        return Host::Direct;
    }
    match tmux_passthrough() {
        Some(true) => Host::TmuxPassthrough,
        _ => Host::TmuxClosed,
    }
}

/// tmux's `allow-passthrough` for this pane (`on` or `all`), or `None` when tmux cannot say.
fn tmux_passthrough() -> Option<bool> {
    let value = tmux(&["show", "-Apv", "allow-passthrough"])?.to_ascii_lowercase();
    Some(matches!(value.as_str(), "on" | "all"))
}

/// What `tmux ARGS` prints (trimmed), or `None` when it fails or takes longer than half a
/// second (it is killed and reaped then).
fn tmux(args: &[&str]) -> Option<String> {
    let mut child = std::process::Command::new("tmux")
        .args(args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .ok()?;
    let deadline = Instant::now() + Duration::from_millis(500);
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(5)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    }
    let out = child.wait_with_output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// The half-blocks picker, built once (its constructor would change tmux's settings).
pub fn halfblocks() -> ratatui_image::picker::Picker {
    static HALF: std::sync::OnceLock<ratatui_image::picker::Picker> = std::sync::OnceLock::new();
    HALF.get_or_init(|| without_tmux_changes(ratatui_image::picker::Picker::halfblocks))
        .clone()
}

/// Runs `build` (a ratatui-image picker constructor) and leaves tmux's `allow-passthrough` as
/// the user set it: those constructors turn it on for the pane (`tmux set -p
/// allow-passthrough on`) whenever `TERM` or `TERM_PROGRAM` says tmux, which would override a
/// deliberate `off` and make [`host`] see `on`. The pane's own value is put back (or unset).
pub fn without_tmux_changes<T>(build: impl FnOnce() -> T) -> T {
    let seen = std::env::var("TERM").is_ok_and(|t| t.starts_with("tmux"))
        || std::env::var("TERM_PROGRAM").is_ok_and(|t| t == "tmux");
    if !seen || std::env::var_os("TMUX").is_none_or(|v| v.is_empty()) {
        return build();
    }
    let before = tmux(&["show", "-pv", "allow-passthrough"]);
    let built = build();
    match before.as_deref() {
        Some("") => {
            let _ = tmux(&["set", "-pu", "allow-passthrough"]);
        }
        Some(v) => {
            let _ = tmux(&["set", "-p", "allow-passthrough", v]);
        }
        // tmux could not say: nothing to put back.
        None => {}
    }
    built
}

/// The bytes to write for `host` (empty: do not ask).
pub fn query_bytes(host: Host) -> String {
    match host {
        Host::Direct => format!("{KITTY_QUERY}{CELL_SIZE_QUERY}{DEVICE_ATTRIBUTES}"),
        // tmux answers the device attributes itself; the kitty query reaches the outer
        // terminal wrapped in passthrough (every ESC inside doubled).
        Host::TmuxPassthrough => format!(
            "\x1bPtmux;{}\x1b\\{CELL_SIZE_QUERY}{DEVICE_ATTRIBUTES}",
            KITTY_QUERY.replace('\x1b', "\x1b\x1b")
        ),
        Host::TmuxClosed => String::new(),
    }
}

/// Writes the query to the terminal and reads its answers for at most `timeout`. The
/// terminal must be in raw mode (answers are not echoed and arrive byte by byte).
pub fn ask(host: Host, timeout: Duration) -> Outcome {
    let query = query_bytes(host);
    if query.is_empty() {
        return Outcome::default();
    }
    let Some(tty) = Tty::open() else {
        return Outcome::default();
    };
    {
        use std::io::Write;
        let mut out = std::io::stdout();
        if out
            .write_all(query.as_bytes())
            .and_then(|_| out.flush())
            .is_err()
        {
            return Outcome::default();
        }
    }
    let mut buf = Vec::new();
    let deadline = Instant::now() + timeout;
    loop {
        let (answers, _) = parse(&buf, false);
        // Inside tmux the device attributes are tmux's own and come first; the terminal's
        // kitty answer follows through tmux, so it is awaited too (until the deadline).
        let done = match host {
            Host::TmuxPassthrough => answers.complete && answers.kitty_answered,
            _ => answers.complete,
        };
        if done {
            break;
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() || !tty.read_some(&mut buf, left) {
            break;
        }
    }
    let (answers, rest) = parse(&buf, true);
    Outcome {
        answers,
        keys: keys_from_bytes(&rest),
    }
}

/// The terminal to read answers from: standard input when it is the terminal (as crossterm
/// reads it), else `/dev/tty`.
enum Tty {
    Stdin,
    Dev(OwnedFd),
}

impl Tty {
    fn open() -> Option<Tty> {
        if rustix::termios::isatty(std::io::stdin()) {
            return Some(Tty::Stdin);
        }
        rustix::fs::open(
            "/dev/tty",
            rustix::fs::OFlags::RDONLY | rustix::fs::OFlags::CLOEXEC,
            rustix::fs::Mode::empty(),
        )
        .ok()
        .map(Tty::Dev)
    }

    fn fd(&self) -> BorrowedFd<'_> {
        match self {
            Tty::Stdin => rustix::stdio::stdin(),
            Tty::Dev(fd) => fd.as_fd(),
        }
    }

    /// Waits up to `wait` for bytes and appends what is there; false on timeout or error.
    fn read_some(&self, buf: &mut Vec<u8>, wait: Duration) -> bool {
        let fd = self.fd();
        let mut fds = [rustix::event::PollFd::new(
            &fd,
            rustix::event::PollFlags::IN,
        )];
        let ts = rustix::event::Timespec {
            tv_sec: wait.as_secs() as i64,
            tv_nsec: wait.subsec_nanos() as i64,
        };
        match rustix::event::poll(&mut fds, Some(&ts)) {
            Ok(n) if n > 0 => {}
            _ => return false,
        }
        let mut chunk = [0u8; 1024];
        match rustix::io::read(fd, &mut chunk) {
            Ok(n) if n > 0 => {
                buf.extend_from_slice(&chunk[..n]);
                true
            }
            _ => false,
        }
    }
}

/// Splits `buf` into the terminal's answers and the other bytes (keys typed meanwhile). An
/// escape sequence cut off at the end is kept back unless `last` (then it is input).
pub fn parse(buf: &[u8], last: bool) -> (Answers, Vec<u8>) {
    let mut a = Answers::default();
    let mut rest = Vec::new();
    let mut i = 0;
    while i < buf.len() {
        if buf[i] != 0x1b {
            rest.push(buf[i]);
            i += 1;
            continue;
        }
        match answer_at(&buf[i..]) {
            Scan::Answer(len, what) => {
                match what {
                    What::Kitty(ok) => {
                        a.kitty |= ok;
                        a.kitty_answered = true;
                    }
                    What::Attributes(sixel) => {
                        a.sixel |= sixel;
                        a.complete = true;
                    }
                    What::Cell(w, h) => a.cell_px = Some((w, h)),
                }
                i += len;
            }
            Scan::Cut if !last => break,
            Scan::Cut | Scan::NotAnswer => {
                rest.push(buf[i]);
                i += 1;
            }
        }
    }
    (a, rest)
}

enum What {
    Kitty(bool),
    Attributes(bool),
    Cell(u16, u16),
}

enum Scan {
    Answer(usize, What),
    /// The start of an answer that has not fully arrived.
    Cut,
    NotAnswer,
}

/// An answer starting at `s[0]` (an ESC).
fn answer_at(s: &[u8]) -> Scan {
    match s.get(1) {
        None => Scan::Cut,
        // APC: `ESC _ G … ESC \`
        Some(b'_') => {
            if s.get(2).is_some_and(|b| *b != b'G') {
                return Scan::NotAnswer;
            }
            match s.windows(2).position(|w| w == b"\x1b\\") {
                Some(end) if end >= 2 => {
                    let body = &s[2..end];
                    let ok = body.windows(3).any(|w| w == b";OK");
                    Scan::Answer(end + 2, What::Kitty(ok))
                }
                _ => Scan::Cut,
            }
        }
        Some(b'[') => {
            let body = &s[2..];
            let Some(end) = body.iter().position(|b| (0x40..=0x7e).contains(b)) else {
                return if body
                    .iter()
                    .all(|b| b.is_ascii_digit() || *b == b';' || *b == b'?')
                {
                    Scan::Cut
                } else {
                    Scan::NotAnswer
                };
            };
            let params = &body[..end];
            let text = String::from_utf8_lossy(params);
            match body[end] {
                b'c' if params.first() == Some(&b'?') => {
                    let sixel = text[1..].split(';').any(|p| p == "4");
                    Scan::Answer(2 + end + 1, What::Attributes(sixel))
                }
                b't' if text.starts_with("6;") => {
                    let mut it = text[2..].split(';').map(|n| n.parse::<u16>().ok());
                    match (it.next().flatten(), it.next().flatten()) {
                        (Some(h), Some(w)) if h > 0 && w > 0 => {
                            Scan::Answer(2 + end + 1, What::Cell(w, h))
                        }
                        _ => Scan::Answer(2 + end + 1, What::Cell(0, 0)),
                    }
                }
                _ => Scan::NotAnswer,
            }
        }
        Some(_) => Scan::NotAnswer,
    }
}

/// Keys from raw terminal bytes: characters, the usual control keys, arrows and
/// alt-letters — what a person can type in the moment the query is out.
pub fn keys_from_bytes(bytes: &[u8]) -> Vec<KeyEvent> {
    let text = String::from_utf8_lossy(bytes);
    let chars: Vec<char> = text.chars().collect();
    let mut keys = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        i += 1;
        let key = match c {
            '\r' | '\n' => KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE),
            '\t' => KeyEvent::new(KeyCode::Tab, KeyModifiers::NONE),
            '\x7f' | '\x08' => KeyEvent::new(KeyCode::Backspace, KeyModifiers::NONE),
            '\x1b' => match chars.get(i) {
                None => KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE),
                Some('[') | Some('O') => {
                    let code = chars.get(i + 1).and_then(|c| match c {
                        'A' => Some(KeyCode::Up),
                        'B' => Some(KeyCode::Down),
                        'C' => Some(KeyCode::Right),
                        'D' => Some(KeyCode::Left),
                        'H' => Some(KeyCode::Home),
                        'F' => Some(KeyCode::End),
                        _ => None,
                    });
                    match code {
                        Some(code) => {
                            i += 2;
                            KeyEvent::new(code, KeyModifiers::NONE)
                        }
                        None => {
                            // Another sequence: skip to its final byte.
                            i += 1;
                            while i < chars.len() && !('\x40'..='\x7e').contains(&chars[i]) {
                                i += 1;
                            }
                            i += 1;
                            continue;
                        }
                    }
                }
                Some(&next) => {
                    i += 1;
                    KeyEvent::new(KeyCode::Char(next), KeyModifiers::ALT)
                }
            },
            c if (c as u32) < 0x20 => {
                let letter = char::from(b'a' + (c as u8) - 1);
                KeyEvent::new(KeyCode::Char(letter), KeyModifiers::CONTROL)
            }
            c => KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE),
        };
        keys.push(key);
    }
    keys
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_taken_and_keys_left() {
        let buf = b"j\x1b_Gi=31;OK\x1b\\\x1b[6;20;10tk\x1b[?62;4;22c";
        let (a, rest) = parse(buf, true);
        assert!(a.kitty && a.sixel && a.complete);
        assert_eq!(a.cell_px, Some((10, 20)));
        assert_eq!(rest, b"jk");
    }

    #[test]
    fn a_terminal_without_graphics_says_only_its_attributes() {
        let (a, rest) = parse(b"\x1b[?1;2c", true);
        assert!(a.complete && !a.kitty && !a.sixel);
        assert!(rest.is_empty());
        let (a, _) = parse(b"\x1b_Gi=31;ENOTSUPPORTED\x1b\\\x1b[?62;22c", true);
        assert!(a.complete && !a.kitty && !a.sixel);
    }

    #[test]
    fn a_cut_answer_waits_unless_it_is_the_end() {
        let (a, rest) = parse(b"\x1b[?62;4", false);
        assert!(!a.complete);
        assert!(rest.is_empty());
        // At the deadline, what came is input: an ESC then characters.
        let (_, rest) = parse(b"\x1b[?62;4", true);
        assert_eq!(rest, b"\x1b[?62;4");
    }

    #[test]
    fn typed_keys_come_back_as_keys() {
        let keys = keys_from_bytes(b"?j\r\x1b[B\x1bx\x03\x7f\x1b");
        let want = [
            KeyEvent::new(KeyCode::Char('?'), KeyModifiers::NONE),
            KeyEvent::new(KeyCode::Char('j'), KeyModifiers::NONE),
            KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE),
            KeyEvent::new(KeyCode::Down, KeyModifiers::NONE),
            KeyEvent::new(KeyCode::Char('x'), KeyModifiers::ALT),
            KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL),
            KeyEvent::new(KeyCode::Backspace, KeyModifiers::NONE),
            KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE),
        ];
        assert_eq!(keys, want);
        assert_eq!(keys_from_bytes("é".as_bytes()).len(), 1);
    }

    #[test]
    fn an_arrow_key_is_not_an_answer() {
        let (a, rest) = parse(b"\x1b[A\x1b[?1c", true);
        assert!(a.complete);
        assert_eq!(
            keys_from_bytes(&rest),
            [KeyEvent::new(KeyCode::Up, KeyModifiers::NONE)]
        );
    }

    #[test]
    fn inside_tmux_the_kitty_answer_after_tmux_s_attributes_counts() {
        // tmux answers the attributes itself, at once; the terminal's answer comes after.
        let (a, rest) = parse(b"\x1b[?1;2;4c\x1b_Gi=31;OK\x1b\\", true);
        assert!(a.complete && a.kitty && a.kitty_answered && a.sixel);
        assert!(rest.is_empty());
        let (a, _) = parse(b"\x1b[?1;2c", false);
        assert!(a.complete && !a.kitty_answered);
    }

    #[test]
    fn tmux_without_passthrough_is_not_asked() {
        assert!(query_bytes(Host::TmuxClosed).is_empty());
        let q = query_bytes(Host::TmuxPassthrough);
        assert!(q.starts_with("\x1bPtmux;\x1b\x1b_G"));
        assert!(q.ends_with("\x1b[c"));
        assert!(query_bytes(Host::Direct).ends_with("\x1b[c"));
    }
}
