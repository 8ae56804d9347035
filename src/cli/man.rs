//! `agentero man` and `agentero completions SHELL`: the man page and the shell completion
//! scripts, both made from the command-line parser itself, so they list every command and flag
//! there is and nothing that is gone.

use std::io::Write;

use clap::CommandFactory;

use super::Cli;

/// The man page (roff), with every subcommand's page after the main one.
pub fn print_man(out: &mut dyn Write) -> anyhow::Result<()> {
    let cmd = Cli::command();
    clap_mangen::Man::new(cmd.clone()).render(out)?;
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        let name = format!("agentero-{}", sub.get_name());
        let sub = sub.clone().name(name);
        writeln!(out)?;
        clap_mangen::Man::new(sub).render(out)?;
    }
    Ok(())
}

/// The completion script for `shell`.
pub fn print_completions(shell: clap_complete::Shell, out: &mut dyn Write) -> anyhow::Result<()> {
    clap_complete::generate(shell, &mut Cli::command(), "agentero", out);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_man_page_names_every_visible_command() {
        let mut out = Vec::new();
        print_man(&mut out).unwrap();
        let page = String::from_utf8(out).unwrap();
        assert!(page.starts_with(".ie \\n(.g .ds Aq"), "{}", &page[..80]);
        for sub in Cli::command().get_subcommands() {
            let name = format!("agentero\\-{}", sub.get_name());
            assert_eq!(
                page.contains(&name),
                !sub.is_hide_set(),
                "{name} in the man page"
            );
        }
    }

    #[test]
    fn completions_complete_the_subcommands() {
        for shell in [
            clap_complete::Shell::Bash,
            clap_complete::Shell::Zsh,
            clap_complete::Shell::Fish,
        ] {
            let mut out = Vec::new();
            print_completions(shell, &mut out).unwrap();
            let script = String::from_utf8(out).unwrap();
            for sub in ["index", "search", "ask", "serve", "completions"] {
                assert!(script.contains(sub), "{shell:?} lacks {sub}");
            }
        }
    }
}
