//! Prints the page text of a PDF as the crate reads it: `pdftext FILE [FIRST [LAST]]`, pages
//! separated by a form feed (as `pdftotext` does), for comparing with other extractors.

use std::time::{Duration, Instant};

use agentero_pdf::{Limits, extract};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        eprintln!("usage: pdftext FILE [FIRST [LAST]]");
        std::process::exit(2);
    };
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(1);
        }
    };
    let first: u32 = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(1);
    let last: u32 = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(u32::MAX);
    let limits = Limits {
        deadline: Instant::now() + Duration::from_secs(120),
    };
    match extract(&bytes, limits) {
        Ok(doc) => {
            for page in doc
                .pages
                .iter()
                .filter(|p| (first..=last).contains(&p.number))
            {
                print!("{}\n\x0c", page.text);
            }
        }
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(1);
        }
    }
}
