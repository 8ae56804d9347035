//! Text files: read, titled and cut into line-ranged chunks for the index.

/// A run of lines of a text file (1-based, inclusive).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk {
    pub start: u32,
    pub end: u32,
    pub text: String,
}

/// About this many characters per chunk; chunks end at blank lines when one is near.
const TARGET_CHARS: usize = 1200;
const MAX_LINES: usize = 60;

pub fn chunks(text: &str) -> Vec<Chunk> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut start = 1u32;
    let mut lines_in = 0usize;
    for (i, line) in text.lines().enumerate() {
        let n = i as u32 + 1;
        if lines_in == 0 {
            start = n;
        }
        cur.push_str(line);
        cur.push('\n');
        lines_in += 1;
        let at_break = line.trim().is_empty() && cur.len() >= TARGET_CHARS / 2;
        if at_break || cur.len() >= TARGET_CHARS * 2 || lines_in >= MAX_LINES {
            if !cur.trim().is_empty() {
                out.push(Chunk {
                    start,
                    end: n,
                    text: std::mem::take(&mut cur),
                });
            }
            cur.clear();
            lines_in = 0;
        }
    }
    if !cur.trim().is_empty() {
        out.push(Chunk {
            start,
            end: text.lines().count().max(1) as u32,
            text: cur,
        });
    }
    out
}

/// The lines `start..=end` (1-based) of `text`.
pub fn lines(text: &str, start: u32, end: u32) -> String {
    text.lines()
        .skip(start.saturating_sub(1) as usize)
        .take(end.saturating_sub(start) as usize + 1)
        .collect::<Vec<_>>()
        .join("\n")
}

/// A file's title: YAML front matter `title:`, else the first Markdown heading, else its name.
pub fn title(path: &str, text: &str) -> String {
    let mut lines = text.lines();
    if text.starts_with("---") {
        lines.next();
        for line in lines.by_ref() {
            if line.trim() == "---" {
                break;
            }
            if let Some(t) = line.strip_prefix("title:") {
                let t = t.trim().trim_matches(['"', '\'']);
                if !t.is_empty() {
                    return t.to_string();
                }
            }
        }
    }
    for line in text.lines().take(40) {
        if let Some(h) = line.strip_prefix("# ") {
            return h.trim().to_string();
        }
        if let Some(h) = line.strip_prefix("\\title{") {
            return h.trim_end_matches('}').trim().to_string();
        }
    }
    path.rsplit('/').next().unwrap_or(path).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunking_keeps_line_ranges() {
        let para = "word ".repeat(150);
        let text = format!("# T\n{para}\n\n{para}\nlast\n");
        let cs = chunks(&text);
        assert!(cs.len() >= 2);
        assert_eq!(cs[0].start, 1);
        assert_eq!(cs.last().unwrap().end, text.lines().count() as u32);
        for w in cs.windows(2) {
            assert_eq!(w[0].end + 1, w[1].start);
        }
        assert_eq!(lines("a\nb\nc\nd", 2, 3), "b\nc");
    }

    #[test]
    fn titles() {
        assert_eq!(title("n/a.md", "---\ntitle: \"Hello\"\n---\n# X"), "Hello");
        assert_eq!(title("n/a.md", "intro\n# Heading\n"), "Heading");
        assert_eq!(title("n/TODO", "plain"), "TODO");
    }
}
