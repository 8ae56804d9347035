//! `agentero page`: one page as a PNG.

use super::*;

pub(super) struct PageOptions {
    pub(super) dpi: u32,
    pub(super) quote: Option<String>,
    pub(super) fresh: bool,
}

/// `agentero page`: one page as a PNG, through the page cache, a quote highlighted on request.
pub(super) fn page_png(
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
        use crate::vault::boxes::BoxError;
        let shown = visible(&path);
        // A scanned page: where its OCR placed the words.
        let ocr = || {
            crate::vault::ocr::OcrCache::new(vault)
                .get(&sha, page)
                .and_then(|o| crate::context::quote::ocr_boxes(&o, q, 0))
        };
        let rects = match crate::context::quote::page_boxes(&pdf, page, q, 0) {
            Ok(r) => r,
            Err(e) => ocr().ok_or_else(|| match e {
                BoxError::Pdf(e) => anyhow::Error::from(e),
                BoxError::NotFound(p) => {
                    anyhow::anyhow!("the quote is not in the text of page {p} of {shown}")
                }
                BoxError::NoPosition(p) => {
                    anyhow::anyhow!(
                        "the text layer gives no position for the quote on page {p} of {shown}"
                    )
                }
                other => {
                    anyhow::anyhow!("cannot place the quote on page {page} of {shown}: {other}")
                }
            })?,
        };
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
        crate::vault::output::file::write_atomic(out, &png)
            .with_context(|| format!("cannot write {}", visible(&shown)))?;
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
