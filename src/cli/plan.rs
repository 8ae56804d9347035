//! `agentero plan`: what a question would be granted, as JSON.

use super::*;

pub(super) fn plan(
    vault: &Vault,
    reading: Reading,
    budget: crate::context::budget::Budget,
    remote: bool,
    grant: bool,
    mentions: Vec<String>,
) -> anyhow::Result<()> {
    use crate::context::{ContextRequest, CurrentPaper, Locality, Selection};
    let Reading {
        paper,
        page,
        selection,
    } = reading;
    let request = ContextRequest {
        budget,
        mentions,
        selection: match (&paper, selection) {
            (Some(p), Some(text)) => Some(Selection {
                path: p.clone(),
                page,
                text,
            }),
            _ => None,
        },
        current: paper.map(|path| CurrentPaper { path, page }),
        locality: if remote {
            Locality::Remote
        } else {
            Locality::Local
        },
        ..ContextRequest::default()
    };
    let catalog = vault.catalog();
    let plan = crate::context::plan::plan_with(vault, &catalog, &request);
    if grant {
        let runtime = crate::context::grant::new_id("rt");
        let (files, _) = crate::context::grant::write(vault, &runtime, &plan)
            .context("cannot write the grant")?;
        // The citing-scan cache is written by the host, never by the context server.
        if let Err(e) = crate::context::library::ensure_cache(vault, &catalog) {
            tracing::warn!(error = %e, "cannot write the citing-scan cache");
        }
        eprintln!("grant: {}", visible(&files.grant().display().to_string()));
    }
    println!(
        "{}",
        crate::vault::visible::json_safe(plan.to_json_pretty())
    );
    Ok(())
}
