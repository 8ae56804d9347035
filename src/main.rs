#![forbid(unsafe_code)]

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    agentero::logging::install_panic_hook();
    let cli = agentero::cli::Cli::parse();
    match agentero::cli::run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // Errors quote file names and content: never raw control characters.
            let message = format!("{e:#}");
            eprintln!("agentero: {}", agentero::vault::visible::visible(&message));
            ExitCode::FAILURE
        }
    }
}
