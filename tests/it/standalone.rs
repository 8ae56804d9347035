//! The binary needs nothing from the repository at run time: the keymaps, themes and demo vault
//! are embedded. The built binary, alone in a folder of its own, runs from an empty
//! working folder with an empty HOME, XDG folders in temporary places and no environment from
//! the build (no `CARGO_MANIFEST_DIR`): what a `cargo install`ed or packaged binary meets.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use serde_json::Value;

struct Alone {
    tmp: tempfile::TempDir,
}

impl Alone {
    fn new() -> Alone {
        let tmp = tempfile::tempdir().unwrap();
        for d in [
            "bin",
            "home",
            "cwd",
            "xdg/config",
            "xdg/data",
            "xdg/state",
            "xdg/cache",
        ] {
            std::fs::create_dir_all(tmp.path().join(d)).unwrap();
        }
        // A hard link where the file system allows it (the debug binary is large), else a copy:
        // either way the binary runs from a folder of its own.
        let (built, alone) = (
            env!("CARGO_BIN_EXE_agentero"),
            tmp.path().join("bin/agentero"),
        );
        if std::fs::hard_link(built, &alone).is_err() {
            std::fs::copy(built, &alone).unwrap();
        }
        Alone { tmp }
    }
    fn path(&self, p: &str) -> PathBuf {
        self.tmp.path().join(p)
    }
    fn run(&self, args: &[&str]) -> Output {
        let mut cmd = Command::new(self.path("bin/agentero"));
        cmd.args(args)
            .current_dir(self.path("cwd"))
            .env_clear()
            .env("PATH", "/usr/bin:/bin")
            .env("HOME", self.path("home"))
            .env("XDG_CONFIG_HOME", self.path("xdg/config"))
            .env("XDG_DATA_HOME", self.path("xdg/data"))
            .env("XDG_STATE_HOME", self.path("xdg/state"))
            .env("XDG_CACHE_HOME", self.path("xdg/cache"));
        let out = common::output_within(cmd, Duration::from_secs(120));
        assert!(
            out.status.success(),
            "agentero {args:?} failed:\n{}\n{}",
            common::stdout(&out),
            common::stderr(&out)
        );
        out
    }
}

fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn the_binary_runs_alone_from_an_empty_folder_with_an_empty_home() {
    let alone = Alone::new();
    let out = alone.run(&["--version"]);
    assert_eq!(
        common::stdout(&out).trim(),
        format!("agentero {}", env!("CARGO_PKG_VERSION"))
    );

    let vault = alone.path("cwd/vault");
    let v = vault.to_str().unwrap();
    alone.run(&["demo", v]);
    for f in [
        "papers/layoutflow/paper.pdf",
        "notes/reading-list.md",
        "references.bib",
    ] {
        assert!(vault.join(f).is_file(), "{f} of the demo vault");
    }

    let out = alone.run(&["search", "--vault", v, "--json", "reading order"]);
    let hits: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", common::stdout(&out)));
    assert_eq!(
        hits["cards"][0]["path"], "papers/layoutflow/paper.pdf",
        "the demo paper on reading order comes first: {hits}"
    );

    // A turn with the built-in agent: the binary starts itself as the agent and as its context
    // server, from where it lies.
    let out = alone.run(&[
        "ask",
        "--vault",
        v,
        "--json",
        "What is the reading order of a page? @papers/layoutflow/paper.pdf",
    ]);
    let answer: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        answer["sources"]
            .as_array()
            .is_some_and(|s| s.iter().any(|s| s
                .as_str()
                .is_some_and(|s| s.starts_with("papers/layoutflow/paper.pdf")))),
        "{answer}"
    );

    // The man page and completions come from the parser, not from files.
    assert!(common::stdout(&alone.run(&["man"])).contains(".TH agentero 1"));
    assert!(common::stdout(&alone.run(&["completions", "bash"])).contains("agentero"));

    // Nothing was needed, or left, beside the binary.
    assert_eq!(names_in(&alone.path("bin")), ["agentero"]);
}
