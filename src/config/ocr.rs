//! `[ocr]`: whether `agentero index` reads scanned pages with tesseract, in which languages,
//! and which tesseract.
//!
//! ```toml
//! [ocr]
//! enabled = true              # false: scanned pages stay without text (`--ocr` still reads them)
//! languages = ["eng", "jpn"]  # tesseract's language packs (Debian: tesseract-ocr-jpn, …)
//! tesseract = "/usr/bin/tesseract"   # default: `tesseract` on PATH
//! ```

use std::path::PathBuf;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OcrConfig {
    pub enabled: bool,
    pub languages: Vec<String>,
    pub tesseract: Option<PathBuf>,
}

impl Default for OcrConfig {
    fn default() -> OcrConfig {
        OcrConfig {
            enabled: true,
            languages: vec!["eng".into()],
            tesseract: None,
        }
    }
}

impl OcrConfig {
    /// Reads the `[ocr]` table; a mistake is said and the setting left as it was.
    pub fn apply(&mut self, value: toml::Value) -> Result<(), String> {
        let toml::Value::Table(t) = value else {
            return Err("`ocr` must be a table ([ocr])".into());
        };
        for (k, v) in t {
            match (k.as_str(), v) {
                ("enabled", toml::Value::Boolean(b)) => self.enabled = b,
                ("enabled", _) => return Err("[ocr] enabled must be true or false".into()),
                ("languages", toml::Value::Array(a)) => {
                    let langs: Option<Vec<String>> = a
                        .into_iter()
                        .map(|v| match v {
                            toml::Value::String(s) if crate::vault::ocr::valid_language(&s) => {
                                Some(s)
                            }
                            _ => None,
                        })
                        .collect();
                    match langs {
                        Some(l) if !l.is_empty() => self.languages = l,
                        _ => {
                            return Err(
                                "[ocr] languages must be a list of tesseract language names such as [\"eng\", \"jpn\"]"
                                    .into(),
                            );
                        }
                    }
                }
                ("languages", _) => {
                    return Err("[ocr] languages must be a list such as [\"eng\", \"jpn\"]".into());
                }
                ("tesseract", toml::Value::String(s)) if !s.is_empty() && !s.starts_with('-') => {
                    self.tesseract = Some(PathBuf::from(s));
                }
                ("tesseract", _) => {
                    return Err("[ocr] tesseract must be the path of the tesseract command".into());
                }
                (other, _) => {
                    return Err(format!(
                        "unknown setting `{other}` in [ocr] (known: enabled, languages, tesseract)"
                    ));
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ocr_settings_are_read_or_refused() {
        let mut c = OcrConfig::default();
        let v: toml::Value =
            toml::from_str("enabled = false\nlanguages = [\"eng\", \"jpn\"]").unwrap();
        c.apply(v).unwrap();
        assert!(!c.enabled);
        assert_eq!(c.languages, ["eng", "jpn"]);
        for bad in [
            "languages = [\"../x\"]",
            "languages = []",
            "languages = \"eng\"",
            "enabled = 1",
            "tesseract = \"-x\"",
            "color = 1",
        ] {
            let mut c = OcrConfig::default();
            assert!(c.apply(toml::from_str(bad).unwrap()).is_err(), "{bad}");
            assert_eq!(c, OcrConfig::default(), "{bad}");
        }
    }
}
