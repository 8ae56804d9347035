//! `agentero agents`: the doctor's report.

use super::*;

/// `agentero agents`: the doctor's report, one agent at a time.
pub(super) fn agents(
    vault: &Vault,
    config: Option<&Path>,
    npx: bool,
    json: bool,
    names: &[String],
) -> anyhow::Result<()> {
    let exe = std::env::current_exe().context("cannot locate the agentero executable")?;
    let config = crate::config::Config::load(config, &exe)?;
    let defs: Vec<crate::config::AgentDef> = if names.is_empty() {
        config.agents.values().cloned().collect()
    } else {
        names
            .iter()
            .map(|n| config.agent(Some(n)).cloned())
            .collect::<Result<_, _>>()?
    };
    vault.ensure_state_dir()?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let mut reports = Vec::new();
    let mut out = std::io::stdout().lock();
    for def in &defs {
        // An agent named on the command line is asked for: its absent runtime is a failure.
        let configured = !names.is_empty() || config.configured(&def.name);
        let r = runtime.block_on(async {
            tokio::time::timeout(
                crate::acp::doctor::CHECK_TIMEOUT,
                crate::acp::doctor::check(def, vault, npx, configured),
            )
            .await
        });
        let r = r.unwrap_or_else(|_| {
            crate::acp::doctor::AgentReport::timed_out(
                def,
                configured,
                crate::acp::doctor::CHECK_TIMEOUT.as_secs(),
            )
        });
        if !json {
            // Agent names, versions and error tails come from other programs.
            write!(
                out,
                "{}",
                visible(&crate::acp::doctor::render(std::slice::from_ref(&r)))
            )?;
            out.flush()?;
        }
        reports.push(r);
    }
    runtime.shutdown_timeout(std::time::Duration::from_millis(500));
    if json {
        writeln!(out, "{}", crate::vault::visible::to_json_pretty(&reports)?)?;
    } else if names.is_empty() {
        // tesseract's name and language packs come from another program.
        write!(out, "{}", visible(&ocr_report(&config.ocr)))?;
    }
    let failed = reports.iter().filter(|r| r.failed()).count();
    if failed > 0 {
        bail!("{failed} of {} agents failed a check", reports.len());
    }
    Ok(())
}

/// The doctor's line on OCR: tesseract found (its version, its language packs, the ones the
/// config asks for), or not installed and how to install it. Never a failure: without
/// tesseract scanned pages stay without text and everything else works.
pub(super) fn ocr_report(c: &crate::config::ocr::OcrConfig) -> String {
    let command = c
        .tesseract
        .clone()
        .unwrap_or_else(|| std::path::PathBuf::from("tesseract"));
    let wanted = c.languages.join(", ");
    let off = if c.enabled {
        ""
    } else {
        " – off in the config ([ocr] enabled = false)"
    };
    match crate::vault::ocr::Engine::detect(&command) {
        Ok(engine) => {
            let packs = engine.languages.join(", ");
            match engine.check_languages(&c.languages) {
                Ok(()) => format!(
                    "✓ ocr ({}){off}\n  command: {}\n  languages: {wanted} (installed: {packs})\n",
                    engine.name(),
                    command.display()
                ),
                Err(e) => format!(
                    "✗ ocr ({}){off}\n  command: {}\n  languages: {wanted} (installed: {packs})\n  hint: {e}\n",
                    engine.name(),
                    command.display()
                ),
            }
        }
        Err(e) => format!(
            "– ocr (scanned pages without text){off}\n  command: {} — not installed\n  hint: {e}\n",
            command.display()
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_doctor_says_whether_tesseract_is_there_and_how_to_install_it() {
        let missing = crate::config::ocr::OcrConfig {
            tesseract: Some(PathBuf::from("/nonexistent/tesseract")),
            ..Default::default()
        };
        let r = ocr_report(&missing);
        assert!(r.starts_with("– ocr"), "{r}");
        assert!(r.contains("sudo apt install tesseract-ocr"), "{r}");
        let off = crate::config::ocr::OcrConfig {
            enabled: false,
            ..missing
        };
        assert!(ocr_report(&off).contains("off in the config"));
        // Installed (as .ci/run installs it): its version and packs, and a missing pack named.
        if crate::vault::ocr::Engine::detect(Path::new("tesseract")).is_ok() {
            let r = ocr_report(&crate::config::ocr::OcrConfig::default());
            assert!(r.starts_with("✓ ocr (tesseract "), "{r}");
            let klingon = crate::config::ocr::OcrConfig {
                languages: vec!["tlh".into()],
                ..Default::default()
            };
            let r = ocr_report(&klingon);
            assert!(
                r.starts_with("✗ ocr") && r.contains("tesseract-ocr-tlh"),
                "{r}"
            );
        }
    }
}
