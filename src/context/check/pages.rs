//! A paper's pages as its readers number them: the labels the PDF defines (`xii`, `204`), else
//! the numbers printed on its pages when they run in sequence (a journal article printed as pp.
//! 201–212), else the PDF's own page order.

use crate::vault::furniture;

/// The printed label of each physical page (index 0 = page 1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Labels {
    labels: Vec<String>,
    /// Whether the labels differ from the physical numbers anywhere.
    pub printed: bool,
}

/// Where a cited page is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cited {
    /// The physical page (1-based) whose printed label it is; `same` when it is also that
    /// physical page.
    Page { page: u32, same: bool },
    /// No page is printed so; a physical page of that number is there.
    PhysicalOnly(u32),
    /// Past the end, or no such label.
    Missing,
}

impl Labels {
    /// From the record's labels (`None` where the PDF defines none) and the page texts.
    pub fn new(pdf_labels: &[Option<String>], pages: &[String]) -> Labels {
        let n = pages.len().max(pdf_labels.len());
        let physical = |i: usize| (i + 1).to_string();
        let from_pdf: Vec<String> = (0..n)
            .map(|i| {
                pdf_labels
                    .get(i)
                    .cloned()
                    .flatten()
                    .unwrap_or_else(|| physical(i))
            })
            .collect();
        if (0..n).any(|i| from_pdf[i] != physical(i)) {
            return Labels {
                labels: from_pdf,
                printed: true,
            };
        }
        let texts: Vec<&str> = pages.iter().map(String::as_str).collect();
        match furniture::numbering_offset(&texts).filter(|o| *o != 1) {
            Some(offset) => Labels {
                labels: (0..n)
                    .map(|i| {
                        let v = i as i64 + offset;
                        if v >= 1 { v.to_string() } else { physical(i) }
                    })
                    .collect(),
                printed: true,
            },
            None => Labels {
                labels: from_pdf,
                printed: false,
            },
        }
    }

    pub fn count(&self) -> u32 {
        self.labels.len() as u32
    }

    /// The label of physical page `page` (1-based).
    pub fn label(&self, page: u32) -> Option<&str> {
        self.labels
            .get(page.checked_sub(1)? as usize)
            .map(String::as_str)
    }

    /// Where the page a citation names is: by printed label first, then as a physical page.
    pub fn find(&self, label: &str) -> Cited {
        let want = label.trim().to_lowercase();
        if let Some(i) = self.labels.iter().position(|l| l.to_lowercase() == want) {
            let page = i as u32 + 1;
            return Cited::Page {
                page,
                same: want == page.to_string(),
            };
        }
        match want.parse::<u32>() {
            Ok(p) if (1..=self.count()).contains(&p) => Cited::PhysicalOnly(p),
            _ => Cited::Missing,
        }
    }

    /// The pages as printed, for saying what a paper has: `pp. 201–212`, `12 pages`.
    pub fn span(&self) -> String {
        let n = self.count();
        match (self.label(1), self.label(n)) {
            (Some(a), Some(b)) if self.printed => format!("{n} pages, printed {a}–{b}"),
            _ => format!("{n} pages"),
        }
    }

    /// `p. 204` (printed), with the physical page when it differs: `p. 204 (the PDF's p. 4)`.
    pub fn say(&self, page: u32) -> String {
        match self.label(page) {
            Some(l) if l != page.to_string() => format!("p. {l} (the PDF's p. {page})"),
            _ => format!("p. {page}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn numbered(first: u32, n: u32) -> Vec<String> {
        (0..n)
            .map(|i| {
                format!(
                    "Running head\nSome text of the page {i}.\nMore text.\n{}",
                    first + i
                )
            })
            .collect()
    }

    #[test]
    fn printed_numbers_are_labels() {
        let l = Labels::new(&[], &numbered(201, 6));
        assert!(l.printed);
        assert_eq!(
            l.find("203"),
            Cited::Page {
                page: 3,
                same: false
            }
        );
        assert_eq!(l.find("4"), Cited::PhysicalOnly(4));
        assert_eq!(l.find("230"), Cited::Missing);
        assert_eq!(l.say(3), "p. 203 (the PDF's p. 3)");
        assert_eq!(l.span(), "6 pages, printed 201–206");
    }

    #[test]
    fn pdf_labels_win_and_plain_papers_are_physical() {
        let pdf = vec![
            Some("i".into()),
            Some("ii".into()),
            Some("1".into()),
            Some("2".into()),
        ];
        let l = Labels::new(&pdf, &numbered(1, 4));
        assert_eq!(
            l.find("ii"),
            Cited::Page {
                page: 2,
                same: false
            }
        );
        assert_eq!(
            l.find("1"),
            Cited::Page {
                page: 3,
                same: false
            }
        );
        let plain = Labels::new(&[], &numbered(1, 5));
        assert!(!plain.printed);
        assert_eq!(
            plain.find("3"),
            Cited::Page {
                page: 3,
                same: true
            }
        );
        assert_eq!(plain.find("9"), Cited::Missing);
    }
}
