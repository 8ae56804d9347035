//! The doctor's report for a terminal: one block per agent, its mark (✓, ✗, – not installed
//! or not set up) and a line per step.

use super::*;

/// The mark of a report: ✓ passed, ✗ failed, – not installed or not set up (not checked).
fn mark(r: &AgentReport) -> &'static str {
    match (r.found && r.set_up, r.ok) {
        (false, _) => "–",
        (true, true) => "✓",
        (true, false) => "✗",
    }
}

/// The report as text, one block per agent.
pub fn render(reports: &[AgentReport]) -> String {
    let mut s = String::new();
    for r in reports {
        let not_set_up = if r.set_up { "" } else { " – not set up" };
        s.push_str(&format!(
            "{} {} ({}){not_set_up}\n",
            mark(r),
            r.name,
            r.adapter
        ));
        let mut line = |label: &str, text: &str| {
            let mut lines = text.lines();
            s.push_str(&format!("  {label}: {}\n", lines.next().unwrap_or("")));
            for l in lines {
                s.push_str(&format!("      {l}\n"));
            }
        };
        match (&r.found_at, r.found) {
            (Some(at), true) => line("command", &format!("{} ({at})", r.command)),
            (Some(at), false) => line("command", &format!("{} — not installed: {at}", r.command)),
            (None, _) => line("command", &format!("{} — not found", r.command)),
        }
        if let Some(c) = &r.ollama {
            if c.ok || !r.set_up {
                line("ollama", &c.detail);
            } else {
                line("ollama", &format!("FAILED: {}", c.detail));
            }
        }
        if r.initialize.state != State::NotRun {
            let mut text = step_text(&r.initialize);
            if r.initialize.state == State::Ok {
                text = format!(
                    "{} {} · protocol {}{}",
                    r.agent_name.as_deref().unwrap_or("(unnamed)"),
                    r.version.as_deref().unwrap_or(""),
                    r.protocol.map_or("?".into(), |p| p.to_string()),
                    r.initialize
                        .secs
                        .map(|s| format!(" · {s:.1} s"))
                        .unwrap_or_default()
                );
            }
            line("initialize", &text);
        }
        for (label, step) in [
            ("login", &r.login),
            ("session", &r.session),
            ("attach", &r.attach),
            ("load", &r.load),
            ("resume", &r.resume),
        ] {
            if step.state != State::NotRun {
                line(label, &step_text(step));
            }
        }
        if let Some(p) = &r.protections {
            line("protections", &p.lines.join("\n"));
        }
        if let Some(h) = &r.hint {
            line("hint", h);
        }
    }
    s
}

fn step_text(step: &Step) -> String {
    let secs = step
        .secs
        .map(|s| format!(" ({s:.1} s)"))
        .unwrap_or_default();
    let msg = step.message.as_deref().unwrap_or("");
    match step.state {
        State::Ok if msg == "ok" || msg.is_empty() => format!("ok{secs}"),
        State::Ok => format!("{msg}{secs}"),
        State::Refused => format!("refused{secs}: {msg}"),
        State::Failed => format!("FAILED{secs}: {msg}"),
        State::NotOffered => "not offered by the agent".into(),
        State::NotRun => "not run".into(),
    }
}
