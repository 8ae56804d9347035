//! Page renders in a child process: this executable started with [`RENDER_FLAG`], which limits
//! its own address space and CPU time before it reads the PDF, renders one page and writes it
//! to stdout (one JSON line, then the raw RGB rows). The parent keeps the wall-clock limit,
//! kills and reaps the child past it, and turns each way of failing into a reason.

use std::ffi::OsString;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use image::RgbImage;
use serde::{Deserialize, Serialize};

use super::region::{Region, RegionImage};
use super::{MAX_DPI, MAX_PIXELS, MIN_DPI, PageImage, RenderError};
use crate::vault::visible::visible;

/// The hidden command-line flag of the render child: `--render-page PDF PAGE DPI BYTES SECONDS`.
pub const RENDER_FLAG: &str = "--render-page";
/// Environment variables that change the bounds (MiB of address space, seconds of wall clock).
pub const MEMORY_VAR: &str = "AGENTERO_RENDER_MEMORY_MIB";
pub const TIME_VAR: &str = "AGENTERO_RENDER_SECONDS";
const MIB: u64 = 1 << 20;
const GIB: u64 = 1 << 30;
const MEMORY_MIB: std::ops::RangeInclusive<u64> = 128..=65_536;
const SECONDS: std::ops::RangeInclusive<u64> = 1..=3_600;
/// What the child may say on stdout besides the pixels, and on stderr.
const HEADER_CAP: usize = 64 * 1024;
const STDERR_CAP: usize = 16 * 1024;

/// How much one page render may take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bounds {
    /// The child's address space, in bytes.
    pub memory: u64,
    /// Wall-clock time from start to the last pixel (the child's CPU limit is one second more).
    pub time: Duration,
}

impl Default for Bounds {
    fn default() -> Bounds {
        Bounds {
            memory: GIB,
            time: Duration::from_secs(10),
        }
    }
}

impl Bounds {
    /// The defaults, changed by `AGENTERO_RENDER_MEMORY_MIB` and `AGENTERO_RENDER_SECONDS`.
    pub fn from_env() -> Result<Bounds, RenderError> {
        Bounds::from_vars(|name| std::env::var_os(name).map(|v| v.to_string_lossy().into_owned()))
    }

    /// The bounds the two variables give, as `var` (a value by name) reads them.
    pub fn from_vars(var: impl Fn(&str) -> Option<String>) -> Result<Bounds, RenderError> {
        Bounds::parse(var(MEMORY_VAR).as_deref(), var(TIME_VAR).as_deref())
    }

    /// The defaults, changed by the values of the two variables when set (and not empty).
    pub fn parse(memory_mib: Option<&str>, seconds: Option<&str>) -> Result<Bounds, RenderError> {
        let number = |name: &str, value: &str, range: &std::ops::RangeInclusive<u64>| {
            value
                .trim()
                .parse::<u64>()
                .ok()
                .filter(|n| range.contains(n))
                .ok_or_else(|| {
                    RenderError::BadBounds(
                        visible(&format!(
                            "{name} must be a whole number from {} to {} (it is \"{value}\")",
                            range.start(),
                            range.end()
                        ))
                        .into_owned(),
                    )
                })
        };
        let mut b = Bounds::default();
        if let Some(v) = memory_mib.filter(|v| !v.is_empty()) {
            b.memory = number(MEMORY_VAR, v, &MEMORY_MIB)? * MIB;
        }
        if let Some(v) = seconds.filter(|v| !v.is_empty()) {
            b.time = Duration::from_secs(number(TIME_VAR, v, &SECONDS)?);
        }
        Ok(b)
    }

    fn seconds(&self) -> u64 {
        self.time.as_secs_f64().ceil().max(1.0) as u64
    }
}

/// "1 GiB", "512 MiB": a memory bound as the messages say it.
pub(in crate::vault) fn amount(bytes: u64) -> String {
    if bytes >= GIB && bytes.is_multiple_of(GIB) {
        format!("{} GiB", bytes / GIB)
    } else {
        format!("{} MiB", bytes / MIB)
    }
}

/// Renders pages in child processes of `exe` (the agentero executable) within `bounds`.
#[derive(Debug, Clone)]
pub struct Renderer {
    exe: PathBuf,
    bounds: Bounds,
}

/// The child's first line on stdout.
#[derive(Serialize, Deserialize)]
enum Answer {
    Page {
        width: u32,
        height: u32,
        transform: [f64; 6],
        /// A window's effective resolution and the page's size in points.
        #[serde(default)]
        window: Option<(u32, (f32, f32))>,
    },
    Refused(RenderError),
}

impl Renderer {
    pub fn new(exe: impl Into<PathBuf>, bounds: Bounds) -> Renderer {
        Renderer {
            exe: exe.into(),
            bounds,
        }
    }

    pub fn bounds(&self) -> Bounds {
        self.bounds
    }

    /// Physical page `page` (1-based) of the PDF at `pdf` at `dpi`, rendered by a child within
    /// the bounds; past them a [`RenderError`] that says which one.
    pub fn render_file(&self, pdf: &Path, page: u32, dpi: u32) -> Result<PageImage, RenderError> {
        if !(MIN_DPI..=MAX_DPI).contains(&dpi) {
            return Err(RenderError::BadDpi);
        }
        self.run(pdf, page, dpi, None).map(|(img, _)| img)
    }

    /// A window of page `page` at the pixel size it asks for, rendered by a child within the
    /// bounds.
    pub fn render_region_file(
        &self,
        pdf: &Path,
        page: u32,
        region: Region,
    ) -> Result<RegionImage, RenderError> {
        if !region.is_valid() {
            return Err(RenderError::BadBounds(format!(
                "not a window of the page: {}",
                region.arg()
            )));
        }
        let (image, page_pt) = self.run(pdf, page, 0, Some(region))?;
        Ok(RegionImage {
            image,
            page_pt: page_pt.unwrap_or((612.0, 792.0)),
        })
    }

    /// The child run on one page (a window of it with `region`, at `dpi` without).
    fn run(
        &self,
        pdf: &Path,
        page: u32,
        dpi: u32,
        region: Option<Region>,
    ) -> Result<(PageImage, Option<(f32, f32)>), RenderError> {
        // Absolute: a path never reads as a flag to the child.
        let pdf = std::path::absolute(pdf).map_err(|e| RenderError::Io {
            path: pdf.display().to_string(),
            reason: e.to_string(),
        })?;
        let spawned = Command::new(&self.exe)
            .arg(RENDER_FLAG)
            .arg(&pdf)
            .args([
                page.to_string(),
                dpi.to_string(),
                self.bounds.memory.to_string(),
                self.bounds.seconds().to_string(),
            ])
            .args(region.map(|r| r.arg()))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| RenderError::NoRenderer {
                exe: self.exe.display().to_string(),
                reason: e.to_string(),
            })?;
        let out_cap = HEADER_CAP + (MAX_PIXELS * 3) as usize;
        let Some(done) =
            Reaped::new(spawned).finish_within(self.bounds.time, out_cap, STDERR_CAP, Reaped::kill)
        else {
            return Err(RenderError::TookTooLong {
                page,
                secs: self.bounds.seconds(),
            });
        };
        self.interpret(
            (page, dpi),
            done.status,
            (done.out, done.overflow),
            &done.err,
        )
    }

    /// What the child's exit, stdout and stderr say.
    fn interpret(
        &self,
        (page, dpi): (u32, u32),
        status: ExitStatus,
        (mut out, overflow): (Vec<u8>, bool),
        stderr: &[u8],
    ) -> Result<(PageImage, Option<(f32, f32)>), RenderError> {
        let said = String::from_utf8_lossy(stderr);
        if !status.success() {
            // Rust reports a failed allocation so, then aborts: the address space was used up.
            if said.contains("memory allocation of") {
                return Err(RenderError::TooMuchMemory {
                    page,
                    limit: self.bounds.memory,
                });
            }
            if cpu_limit_signal(status) {
                return Err(RenderError::TookTooLong {
                    page,
                    secs: self.bounds.seconds(),
                });
            }
            tracing::warn!(page, %status, stderr = %visible(said.trim()), "the page renderer failed");
            return Err(RenderError::Crashed(page));
        }
        let Some(nl) = out.iter().position(|&b| b == b'\n').filter(|_| !overflow) else {
            return Err(RenderError::Crashed(page));
        };
        let answer: Answer =
            serde_json::from_slice(&out[..nl]).map_err(|_| RenderError::Crashed(page))?;
        match answer {
            Answer::Refused(e) => Err(e),
            Answer::Page {
                width,
                height,
                transform,
                window,
            } => {
                out.drain(..=nl);
                let image = RgbImage::from_raw(width, height, out)
                    .filter(|i| i.as_raw().len() == width as usize * height as usize * 3)
                    .ok_or(RenderError::Crashed(page))?;
                let dpi = window.map_or(dpi, |w| w.0);
                let img = PageImage {
                    image,
                    transform,
                    dpi,
                };
                Ok((img, window.map(|w| w.1)))
            }
        }
    }
}

/// Killed by the CPU limit: SIGXCPU at the soft limit, SIGKILL at the hard one.
pub(in crate::vault) fn cpu_limit_signal(status: ExitStatus) -> bool {
    use rustix::process::Signal;
    use std::os::unix::process::ExitStatusExt;
    status
        .signal()
        .is_some_and(|s| s == Signal::XCPU.as_raw() || s == Signal::KILL.as_raw())
}

/// A child that is killed and reaped when dropped, whatever happened before.
pub(in crate::vault) struct Reaped {
    pub(in crate::vault) child: Child,
    reaped: bool,
}

impl Reaped {
    pub(in crate::vault) fn new(child: Child) -> Reaped {
        Reaped {
            child,
            reaped: false,
        }
    }

    /// Its exit status if it exits before `deadline`.
    pub(in crate::vault) fn wait_until(&mut self, deadline: Instant) -> Option<ExitStatus> {
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => {
                    self.reaped = true;
                    return Some(status);
                }
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(2));
                }
                _ => return None,
            }
        }
    }

    /// Reads its stdout (up to `out_cap` bytes) and stderr (up to `err_cap`) on threads of their
    /// own and waits for it to end, all within `time` of now: the child closes stdout when it
    /// ends, then has until the deadline to exit. A child that outruns it is stopped by `stop`
    /// (its readers end with it) and gives `None`.
    pub(in crate::vault) fn finish_within(
        mut self,
        time: Duration,
        out_cap: usize,
        err_cap: usize,
        stop: impl FnOnce(&mut Reaped),
    ) -> Option<Finished> {
        let deadline = Instant::now() + time;
        let (stdout, stderr) = (self.child.stdout.take(), self.child.stderr.take());
        let (done_tx, done_rx) = std::sync::mpsc::channel();
        let out = std::thread::spawn(move || {
            let r = stdout.map(|s| read_capped(s, out_cap));
            let _ = done_tx.send(());
            r
        });
        let err = std::thread::spawn(move || stderr.map(|s| read_capped(s, err_cap)));
        let closed = done_rx.recv_timeout(time).is_ok();
        let status = if closed {
            self.wait_until(deadline)
        } else {
            None
        };
        let Some(status) = status else {
            stop(&mut self);
            self.kill();
            let _ = (out.join(), err.join());
            return None;
        };
        let (out, overflow) = out.join().ok().flatten().unwrap_or_default();
        let (err, _) = err.join().ok().flatten().unwrap_or_default();
        Some(Finished {
            status,
            out,
            overflow,
            err,
        })
    }

    pub(in crate::vault) fn kill(&mut self) {
        if !self.reaped {
            let _ = self.child.kill();
            let _ = self.child.wait();
            self.reaped = true;
        }
    }
}

impl Drop for Reaped {
    fn drop(&mut self) {
        self.kill();
    }
}

/// What a bounded child gave by its end ([`Reaped::finish_within`]).
pub(in crate::vault) struct Finished {
    pub(in crate::vault) status: ExitStatus,
    /// Its stdout, up to the cap, and whether it said more.
    pub(in crate::vault) out: Vec<u8>,
    pub(in crate::vault) overflow: bool,
    /// Its stderr, up to the cap.
    pub(in crate::vault) err: Vec<u8>,
}

/// Up to `cap` bytes of `r`, and whether there were more (read to the end all the same, so
/// the writer never blocks on a full pipe).
pub(in crate::vault) fn read_capped(mut r: impl Read, cap: usize) -> (Vec<u8>, bool) {
    let mut kept = Vec::new();
    let _ = (&mut r).take(cap as u64).read_to_end(&mut kept);
    let more = std::io::copy(&mut r, &mut std::io::sink()).unwrap_or(0) > 0;
    (kept, more)
}

/// The render child (`agentero --render-page PDF PAGE DPI BYTES SECONDS [WINDOW]`): limits
/// itself, renders the page (or the window `LEFT,TOP,RIGHT,BOTTOM,WIDTH,HEIGHT` of it, DPI
/// then unused), answers on stdout.
pub fn child_main(args: &[OsString]) -> anyhow::Result<()> {
    let (pdf, page, dpi, memory, seconds, window) = match args {
        [a, b, c, d, e] => (a, b, c, d, e, None),
        [a, b, c, d, e, w] => {
            let w = w
                .to_str()
                .and_then(Region::parse)
                .with_context(|| format!("{RENDER_FLAG}: not a window of a page"))?;
            (a, b, c, d, e, Some(w))
        }
        _ => bail!("{RENDER_FLAG} takes PDF PAGE DPI BYTES SECONDS [WINDOW]"),
    };
    let number = |v: &OsString, what: &str| {
        v.to_str()
            .and_then(|s| s.parse::<u64>().ok())
            .with_context(|| format!("{RENDER_FLAG}: {what} must be a number"))
    };
    let (memory, seconds) = (number(memory, "BYTES")?, number(seconds, "SECONDS")?);
    let page = u32::try_from(number(page, "PAGE")?).context("PAGE is too large")?;
    let dpi = u32::try_from(number(dpi, "DPI")?).context("DPI is too large")?;
    confine(memory, seconds).context("cannot limit the page renderer")?;
    let result = read_pdf(Path::new(pdf), page, memory).and_then(|bytes| match window {
        None => super::render_within(&bytes, page, dpi, memory).map(|img| (img, None)),
        Some(w) => super::region::render_region_within(&bytes, page, w, memory)
            .map(|r| (r.image, Some(r.page_pt))),
    });
    let mut stdout = std::io::stdout().lock();
    match result {
        Ok((img, page_pt)) => {
            let header = Answer::Page {
                width: img.image.width(),
                height: img.image.height(),
                transform: img.transform,
                window: page_pt.map(|p| (img.dpi, p)),
            };
            serde_json::to_writer(&mut stdout, &header)?;
            stdout.write_all(b"\n")?;
            stdout.write_all(img.image.as_raw())?;
        }
        Err(e) => {
            serde_json::to_writer(&mut stdout, &Answer::Refused(e))?;
            stdout.write_all(b"\n")?;
        }
    }
    stdout.flush()?;
    Ok(())
}

/// The bounds on this process, before it touches the PDF: no core dumps, `memory` bytes of
/// address space, `seconds` of CPU time (SIGXCPU, then SIGKILL a second later), and death
/// with the parent.
pub(in crate::vault) fn confine(memory: u64, seconds: u64) -> std::io::Result<()> {
    use rustix::process::{Resource, Rlimit, getrlimit, setrlimit};
    let lower = |res: Resource, soft: u64, hard: u64| {
        let max = getrlimit(res).maximum;
        let cap = |v: u64| max.map_or(v, |m| v.min(m));
        setrlimit(
            res,
            Rlimit {
                current: Some(cap(soft)),
                maximum: Some(cap(hard)),
            },
        )
    };
    lower(Resource::Core, 0, 0)?;
    lower(Resource::As, memory, memory)?;
    lower(Resource::Cpu, seconds, seconds + 1)?;
    #[cfg(target_os = "linux")]
    let _ = rustix::process::set_parent_process_death_signal(Some(rustix::process::Signal::KILL));
    Ok(())
}

/// The PDF's bytes, unless the file alone is larger than the memory bound.
pub(in crate::vault) fn read_pdf(
    pdf: &Path,
    page: u32,
    memory: u64,
) -> Result<Vec<u8>, RenderError> {
    let io = |e: std::io::Error| RenderError::Io {
        path: pdf.display().to_string(),
        reason: e.to_string(),
    };
    let len = std::fs::metadata(pdf).map_err(io)?.len();
    if len > memory / 2 {
        return Err(RenderError::TooMuchMemory {
            page,
            limit: memory,
        });
    }
    std::fs::read(pdf).map_err(io)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_come_from_the_environment_or_are_refused() {
        assert_eq!(Bounds::parse(None, None).unwrap(), Bounds::default());
        assert_eq!(
            Bounds::parse(Some(""), Some("")).unwrap(),
            Bounds::default()
        );
        let b = Bounds::parse(Some("256"), Some("3")).unwrap();
        assert_eq!((b.memory, b.time), (256 * MIB, Duration::from_secs(3)));
        for (m, s, says) in [
            (Some("12"), None, MEMORY_VAR),
            (Some("lots"), None, MEMORY_VAR),
            (None, Some("0"), TIME_VAR),
            (None, Some("-1"), TIME_VAR),
        ] {
            let e = Bounds::parse(m, s).unwrap_err().to_string();
            assert!(e.contains(says) && e.contains("whole number"), "{e}");
        }
        assert_eq!(amount(GIB), "1 GiB");
        assert_eq!(amount(3 * GIB), "3 GiB");
        assert_eq!(amount(384 * MIB), "384 MiB");
    }

    #[test]
    fn a_missing_renderer_is_an_error() {
        let r = Renderer::new("/nonexistent/agentero", Bounds::default());
        let e = r
            .render_file(Path::new("/nonexistent.pdf"), 1, 100)
            .unwrap_err();
        assert!(matches!(e, RenderError::NoRenderer { .. }), "{e}");
        assert_eq!(
            r.render_file(Path::new("x.pdf"), 1, 5).unwrap_err(),
            RenderError::BadDpi
        );
    }
}
