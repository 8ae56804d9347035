//! OCR of one page in the bounded child process that page rendering uses: this executable
//! started with [`OCR_FLAG`] limits its own address space and CPU time, renders the page with
//! our renderer, and hands the image to `tesseract` (which inherits those limits) on its
//! standard input; it answers with one JSON line: the image's geometry and tesseract's TSV.
//! The parent starts the child in a process group of its own, keeps the wall-clock limit and
//! kills the whole group past it, so neither a hanging tesseract nor a hostile page outlives
//! the limit. Nothing is written to disk: the image goes through a pipe.

use std::ffi::OsString;
use std::io::Write;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use serde::{Deserialize, Serialize};

use super::OcrError;
use crate::vault::render::{self, Bounds, Reaped, RenderError, read_capped};
use crate::vault::visible::visible;

/// The hidden flag of the OCR child: `--ocr-page PDF PAGE DPI BYTES SECONDS TESSERACT LANGS`.
pub const OCR_FLAG: &str = "--ocr-page";
/// tesseract's TSV of one page, at most (a dense page is some hundreds of kilobytes).
const TSV_CAP: usize = 32 << 20;
const STDERR_CAP: usize = 16 * 1024;
/// How long `tesseract --version` and `--list-langs` may take.
const ASK_TIME: Duration = Duration::from_secs(10);

/// The bounds of one page's OCR when nothing else is said: tesseract needs more than a render.
pub fn default_bounds() -> Bounds {
    Bounds {
        memory: 2 << 30,
        time: Duration::from_secs(120),
    }
}

/// What a page's OCR gives: the rendered image's size and transform (PDF user space to
/// pixels), and tesseract's TSV.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Raw {
    pub width: u32,
    pub height: u32,
    pub transform: [f64; 6],
    pub tsv: String,
}

#[derive(Serialize, Deserialize)]
enum Answer {
    Done(Raw),
    Refused(OcrError),
}

/// Language names as tesseract's data files are named (`eng`, `chi_sim`, `jpn_vert`): never a
/// path or a flag.
pub fn valid_language(l: &str) -> bool {
    (1..=32).contains(&l.len()) && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// tesseract as installed: its command, version and language packs.
#[derive(Debug, Clone, PartialEq)]
pub struct Engine {
    pub command: PathBuf,
    pub version: String,
    pub languages: Vec<String>,
}

impl Engine {
    /// Asks `command` for its version and languages; [`OcrError::Missing`] when it cannot be
    /// run or does not answer as tesseract.
    pub fn detect(command: &Path) -> Result<Engine, OcrError> {
        let missing = |why: String| OcrError::Missing(visible(&why).into_owned());
        let version = ask(command, "--version").map_err(missing)?;
        let first = version.lines().next().unwrap_or("").trim();
        let version = first
            .strip_prefix("tesseract ")
            .filter(|v| {
                (1..=40).contains(&v.len())
                    && v.bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b".-_".contains(&b))
            })
            .ok_or_else(|| {
                missing(format!(
                    "{} does not answer as tesseract",
                    command.display()
                ))
            })?
            .to_string();
        let langs = ask(command, "--list-langs").map_err(missing)?;
        let languages = langs
            .lines()
            .skip(1)
            .map(str::trim)
            .filter(|l| valid_language(l))
            .map(str::to_string)
            .collect();
        Ok(Engine {
            command: command.to_path_buf(),
            version,
            languages,
        })
    }

    /// "tesseract 5.3.0": what the text view and the records say made the text.
    pub fn name(&self) -> String {
        format!("tesseract {}", self.version)
    }

    /// `Ok` when every language of `wanted` has its pack installed.
    pub fn check_languages(&self, wanted: &[String]) -> Result<(), OcrError> {
        for l in wanted {
            if !valid_language(l) {
                return Err(OcrError::BadLanguage(visible(l).into_owned()));
            }
            if !self.languages.iter().any(|have| have == l) {
                return Err(OcrError::NoLanguage(l.clone()));
            }
        }
        if wanted.is_empty() {
            return Err(OcrError::BadLanguage("no language".into()));
        }
        Ok(())
    }
}

/// What `command ARG` prints (stdout, else stderr: old versions print the version there),
/// within [`ASK_TIME`].
fn ask(command: &Path, arg: &str) -> Result<String, String> {
    let child = Command::new(command)
        .arg(arg)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .map_err(|e| format!("cannot run {}: {e}", command.display()))?;
    let group = rustix::process::Pid::from_child(&child);
    let mut child = Reaped::new(child);
    let (out, err) = (child.child.stdout.take(), child.child.stderr.take());
    let out = std::thread::spawn(move || out.map(|s| read_capped(s, 64 * 1024)));
    let err = std::thread::spawn(move || err.map(|s| read_capped(s, 64 * 1024)));
    let Some(status) = child.wait_until(Instant::now() + ASK_TIME) else {
        let _ = rustix::process::kill_process_group(group, rustix::process::Signal::KILL);
        child.kill();
        return Err(format!("{} {arg} did not answer", command.display()));
    };
    let out = out.join().ok().flatten().unwrap_or_default().0;
    let err = err.join().ok().flatten().unwrap_or_default().0;
    if !status.success() {
        return Err(format!("{} {arg} failed ({status})", command.display()));
    }
    let text = if out.is_empty() { err } else { out };
    Ok(String::from_utf8_lossy(&text).into_owned())
}

/// OCRs pages in child processes of `exe` (the agentero executable) within `bounds`.
#[derive(Debug, Clone)]
pub struct OcrRunner {
    pub exe: PathBuf,
    pub bounds: Bounds,
    pub tesseract: PathBuf,
}

impl OcrRunner {
    /// Page `page` (1-based) of the PDF at `pdf`, rendered at `dpi` and read in `languages`.
    pub fn page(
        &self,
        pdf: &Path,
        page: u32,
        dpi: u32,
        languages: &[String],
    ) -> Result<Raw, OcrError> {
        if languages.is_empty() || !languages.iter().all(|l| valid_language(l)) {
            return Err(OcrError::BadLanguage(
                visible(&languages.join("+")).into_owned(),
            ));
        }
        let pdf = std::path::absolute(pdf).map_err(|e| {
            OcrError::Render(RenderError::Io {
                path: pdf.display().to_string(),
                reason: e.to_string(),
            })
        })?;
        let secs = self.bounds.time.as_secs().max(1);
        let spawned = Command::new(&self.exe)
            .arg(OCR_FLAG)
            .arg(&pdf)
            .args([
                page.to_string(),
                dpi.to_string(),
                self.bounds.memory.to_string(),
                secs.to_string(),
            ])
            .arg(&self.tesseract)
            .arg(languages.join("+"))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .spawn()
            .map_err(|e| {
                OcrError::Render(RenderError::NoRenderer {
                    exe: self.exe.display().to_string(),
                    reason: e.to_string(),
                })
            })?;
        let group = rustix::process::Pid::from_child(&spawned);
        // Past the time, the child and tesseract below it are killed at once.
        let kill_group = |_: &mut Reaped| {
            let _ = rustix::process::kill_process_group(group, rustix::process::Signal::KILL);
        };
        let Some(done) = Reaped::new(spawned).finish_within(
            self.bounds.time,
            TSV_CAP * 2,
            STDERR_CAP,
            kill_group,
        ) else {
            return Err(OcrError::TookTooLong { page, secs });
        };
        let (status, out, overflow) = (done.status, done.out, done.overflow);
        let said = String::from_utf8_lossy(&done.err);
        if !status.success() {
            // Killed at its CPU bound, it may leave tesseract behind in its group (the group
            // lives on while tesseract does, so its id is still theirs).
            let _ = rustix::process::kill_process_group(group, rustix::process::Signal::KILL);
            if said.contains("memory allocation of") {
                return Err(OcrError::Render(RenderError::TooMuchMemory {
                    page,
                    limit: self.bounds.memory,
                }));
            }
            if render::cpu_limit_signal(status) {
                return Err(OcrError::TookTooLong { page, secs });
            }
            return Err(OcrError::Failed {
                page,
                reason: visible(&format!("the OCR process failed ({status})")).into_owned(),
            });
        }
        let garbage = |reason: &str| OcrError::Garbage {
            page,
            reason: reason.into(),
        };
        if overflow {
            return Err(garbage("more output than a page has"));
        }
        let line = out.split(|&b| b == b'\n').next().unwrap_or_default();
        match serde_json::from_slice::<Answer>(line) {
            Ok(Answer::Done(raw)) => Ok(raw),
            Ok(Answer::Refused(e)) => Err(e),
            Err(_) => Err(garbage("the OCR process gave no answer")),
        }
    }
}

/// The OCR child (`agentero --ocr-page PDF PAGE DPI BYTES SECONDS TESSERACT LANGS`): limits
/// itself, renders the page, runs tesseract on it, answers on stdout.
pub fn child_main(args: &[OsString]) -> anyhow::Result<()> {
    let [pdf, page, dpi, memory, seconds, tesseract, langs] = args else {
        bail!("{OCR_FLAG} takes PDF PAGE DPI BYTES SECONDS TESSERACT LANGS");
    };
    let number = |v: &OsString, what: &str| {
        v.to_str()
            .and_then(|s| s.parse::<u64>().ok())
            .with_context(|| format!("{OCR_FLAG}: {what} must be a number"))
    };
    let (memory, seconds) = (number(memory, "BYTES")?, number(seconds, "SECONDS")?);
    let page = u32::try_from(number(page, "PAGE")?).context("PAGE is too large")?;
    let dpi = u32::try_from(number(dpi, "DPI")?).context("DPI is too large")?;
    let langs = langs
        .to_str()
        .filter(|l| l.split('+').all(valid_language))
        .with_context(|| format!("{OCR_FLAG}: not a list of languages"))?;
    render::confine(memory, seconds).context("cannot limit the OCR process")?;
    let answer = match ocr_here(
        Path::new(pdf),
        page,
        dpi,
        memory,
        Path::new(tesseract),
        langs,
    ) {
        Ok(raw) => Answer::Done(raw),
        Err(e) => Answer::Refused(e),
    };
    let mut stdout = std::io::stdout().lock();
    serde_json::to_writer(&mut stdout, &answer)?;
    stdout.write_all(b"\n")?;
    stdout.flush()?;
    Ok(())
}

/// In the child: the page rendered, encoded as a grey PNG, read by tesseract.
fn ocr_here(
    pdf: &Path,
    page: u32,
    dpi: u32,
    memory: u64,
    tesseract: &Path,
    langs: &str,
) -> Result<Raw, OcrError> {
    let bytes = render::read_pdf(pdf, page, memory).map_err(OcrError::Render)?;
    let img = render::render_within(&bytes, page, dpi, memory).map_err(OcrError::Render)?;
    drop(bytes);
    let (width, height, transform) = (img.image.width(), img.image.height(), img.transform);
    let grey = image::DynamicImage::ImageRgb8(img.image).into_luma8();
    let mut png = Vec::new();
    let encoder = image::codecs::png::PngEncoder::new_with_quality(
        &mut png,
        image::codecs::png::CompressionType::Fast,
        image::codecs::png::FilterType::Adaptive,
    );
    image::ImageEncoder::write_image(
        encoder,
        grey.as_raw(),
        width,
        height,
        image::ExtendedColorType::L8,
    )
    .map_err(|_| OcrError::Render(RenderError::Crashed(page)))?;
    drop(grey);
    let failed = |reason: String| OcrError::Failed {
        page,
        reason: visible(&reason).into_owned(),
    };
    let mut child = Command::new(tesseract)
        .args([
            "stdin",
            "stdout",
            "-l",
            langs,
            "--dpi",
            &dpi.to_string(),
            "tsv",
        ])
        // One page at a time on one core: the machine is shared with the reader.
        .env("OMP_THREAD_LIMIT", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| {
            OcrError::Missing(visible(&format!("{}: {e}", tesseract.display())).into_owned())
        })?;
    let stdin = child.stdin.take();
    let writer = std::thread::spawn(move || {
        if let Some(mut s) = stdin {
            let _ = s.write_all(&png);
        }
    });
    let stderr = child.stderr.take();
    let err = std::thread::spawn(move || stderr.map(|s| read_capped(s, STDERR_CAP)));
    let (out, overflow) = child
        .stdout
        .take()
        .map(|s| read_capped(s, TSV_CAP))
        .unwrap_or_default();
    let status = child.wait().map_err(|e| failed(e.to_string()))?;
    let _ = writer.join();
    let said = err.join().ok().flatten().unwrap_or_default().0;
    if !status.success() {
        let said = String::from_utf8_lossy(&said);
        let last = said
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("");
        let last: String = last.chars().take(200).collect();
        return Err(failed(format!("tesseract failed ({status}): {last}")));
    }
    if overflow {
        return Err(OcrError::Garbage {
            page,
            reason: "more output than a page has".into(),
        });
    }
    Ok(Raw {
        width,
        height,
        transform,
        tsv: String::from_utf8_lossy(&out).into_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn language_names_are_never_paths_or_flags() {
        for ok in ["eng", "jpn", "chi_sim", "jpn_vert"] {
            assert!(valid_language(ok), "{ok}");
        }
        for bad in ["", "-l", "../eng", "eng+jpn", "eng jpn", &"x".repeat(33)] {
            assert!(!valid_language(bad), "{bad}");
        }
    }

    #[test]
    fn a_missing_tesseract_is_named() {
        let e = Engine::detect(Path::new("/nonexistent/tesseract")).unwrap_err();
        assert!(matches!(e, OcrError::Missing(_)), "{e}");
        assert!(e.to_string().contains("tesseract-ocr"), "{e}");
    }
}
