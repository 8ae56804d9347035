//! Prints everything the engine says about the layout of PDFs, for comparing two builds of the
//! engine byte for byte: `dump FILE...`. For each file, per page: the text as `extract` gives it,
//! the label, the blocks and lines of `open` with their boxes, the rectangles
//! `PageText::rects` gives over each line and a hash of the page's character boxes, and the
//! page's blocks in content-stream order; then the title hint and the undecodable pages.
//! Floats are printed exactly (`{:?}`), so a change in any threshold that moves a box shows.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::time::{Duration, Instant};

use agentero_pdf::{Limits, extract, open, page_layout, stream_blocks};

fn limits() -> Limits {
    Limits {
        deadline: Instant::now() + Duration::from_secs(600),
    }
}

fn main() {
    let paths: Vec<String> = std::env::args().skip(1).collect();
    if paths.is_empty() {
        eprintln!("usage: dump FILE...");
        std::process::exit(2);
    }
    for path in paths {
        println!("=== {path}");
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) => {
                println!("read error: {e}");
                continue;
            }
        };
        dump(&bytes);
    }
}

fn dump(bytes: &[u8]) {
    let plain = match extract(bytes, limits()) {
        Ok(d) => d,
        Err(e) => {
            println!("extract error: {e}");
            return;
        }
    };
    println!("title_hint {:?}", plain.title_hint);
    println!("undecodable {:?}", plain.undecodable_pages);
    let doc = match open(bytes, limits()) {
        Ok(d) => d,
        Err(e) => {
            println!("open error: {e}");
            return;
        }
    };
    let numbers: Vec<u32> = plain.pages.iter().map(|p| p.number).collect();
    let streams = stream_blocks(bytes, &numbers, limits()).unwrap_or_default();
    for (i, page) in plain.pages.iter().enumerate() {
        println!("--- page {} label {:?}", page.number, page.label);
        println!("{}", page.text);
        let Some(structured) = doc.pages.get(i) else {
            println!("no structured page");
            continue;
        };
        if structured.text != page.text {
            println!("structured text differs:\n{}", structured.text);
        }
        let layout = page_layout(bytes, page.number, limits());
        for block in &structured.blocks {
            println!("block {:?}", block.bbox);
            for line in &block.lines {
                let rects = layout
                    .as_ref()
                    .map(|l| l.rects(line.range.clone()))
                    .unwrap_or_default();
                println!("  line {:?} {:?} {:?}", line.range, line.bbox, rects);
            }
        }
        match &layout {
            Ok(l) => {
                let mut h = DefaultHasher::new();
                format!("{:?}", l.boxes).hash(&mut h);
                println!(
                    "boxes {} hash {:016x} same_text {}",
                    l.boxes.len(),
                    h.finish(),
                    l.text == page.text
                );
            }
            Err(e) => println!("layout error: {e}"),
        }
        if let Some(blocks) = streams.get(i) {
            println!("stream {blocks:?}");
        }
    }
}
