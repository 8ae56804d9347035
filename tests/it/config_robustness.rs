//! A broken `config.toml` never costs more than its own mistakes: the real binary reports each
//! with `file:line`, keeps the built-in agent, the defaults and every well-formed section, and
//! `agentero plan` honours `[budget]` as `ask` does.

use crate::common;

#[test]
fn a_typo_in_config_toml_keeps_the_builtin_agent_and_the_rest() {
    let dir = common::demo_vault();
    let root = dir.path();
    let v = root.to_str().unwrap();
    let config_dir = root.join(".agentero-test-home/config/agentero");
    std::fs::create_dir_all(&config_dir).unwrap();
    let config = config_dir.join("config.toml");
    std::fs::write(
        &config,
        "default_agent = \"builtin\"\n\
         [budget]\n\
         search_cards = 3\n\
         [agents.claude]\n\
         comand = \"npx\"\n\
         [agents.broken]\n\
         command = \"unterminated\n",
    )
    .unwrap();
    let plan = common::agentero(&["plan", "--vault", v, "notes/"], root);
    assert!(plan.status.success(), "{}", common::stderr(&plan));
    let json: serde_json::Value = serde_json::from_slice(&plan.stdout).unwrap();
    assert_eq!(json["budget"]["search_cards"], 3, "plan ignores [budget]");
    let warnings = common::stderr(&plan);
    let shown = config.display().to_string();
    assert!(
        warnings.contains(&format!("{shown}:5:")) && warnings.contains("comand"),
        "{warnings}"
    );
    assert!(warnings.contains(&format!("{shown}:7:")), "{warnings}");

    let ask = common::agentero(
        &["ask", "--vault", v, "What is in @notes/reading-list.md?"],
        root,
    );
    assert!(ask.status.success(), "{}", common::stderr(&ask));
    assert!(
        common::stdout(&ask).contains("Sources:"),
        "{}",
        common::stdout(&ask)
    );
    assert!(
        common::stderr(&ask).contains(&format!("{shown}:5:")),
        "{}",
        common::stderr(&ask)
    );
}

use std::path::Path;

use agentero::config::{BUILTIN_AGENT, Config, LocalModel};
use agentero::context::budget::Budget;

/// `text` read as `/h/config.toml`: the config and its problems joined by lines.
fn read(text: &str) -> (Config, String) {
    let c = Config::parse(
        text,
        Path::new("/h/config.toml"),
        Path::new("/opt/agentero"),
    )
    .unwrap();
    let p = c.problems.join("\n");
    (c, p)
}

#[test]
fn a_wrong_type_or_unknown_value_drops_only_its_own_key() {
    let (c, p) = read(
        "theme = \"paper\"\n\
         keymap = 3\n\
         turn_timeout_secs = \"fast\"\n\
         default_agent = \"mine\"\n\
         [budget]\n\
         search_cards = \"many\"\n\
         read_chars = 1200\n\
         [agents.mine]\n\
         command = \"/bin/mine\"\n\
         remote = \"yes\"\n\
         warm_pool = -1\n\
         adapter = \"pi\"\n\
         env = { A = 1, B = \"2\" }\n\
         args = [\"--fast\"]\n\
         [local]\n\
         model = 7\n\
         ollama_url = \"ftp://gpu-box\"\n",
    );
    // Each mistake names its file and line …
    for (line, word) in [
        (2, "keymap"),
        (3, "turn_timeout_secs"),
        (6, "search_cards"),
        (10, "remote"),
        (11, "warm_pool"),
        (12, "adapter"),
        (13, "env `A`"),
        (16, "model"),
        (17, "ollama_url"),
    ] {
        assert!(
            p.lines()
                .any(|l| l.starts_with(&format!("/h/config.toml:{line}:")) && l.contains(word)),
            "line {line} ({word}) not reported:\n{p}"
        );
    }
    assert_eq!(c.problems.len(), 9, "{p}");
    // … and only that key falls back to its default.
    assert_eq!(c.theme, "paper");
    assert_eq!(c.keymap, "default");
    assert_eq!(c.default_agent, "mine");
    assert_eq!(c.budget.read_chars, 1200);
    assert_eq!(c.budget.search_cards, Budget::default().search_cards);
    let mine = c.agent(Some("mine")).unwrap();
    assert_eq!(mine.command_line(), "/bin/mine --fast");
    assert!(!mine.remote);
    assert_eq!(mine.warm_pool, agentero::config::DEFAULT_WARM_POOL);
    assert_eq!(mine.adapter, agentero::config::Adapter::Other);
    assert_eq!(mine.env.get("B").map(String::as_str), Some("2"));
    assert!(!mine.env.contains_key("A"));
    let defaults = LocalModel::from_env();
    assert_eq!(c.local_model, defaults);
}

#[test]
fn a_syntax_error_costs_only_its_line_and_never_the_theme() {
    let (c, p) = read(
        "theme = \"paper\"\n\
         keymap = \"vim\n\
         [agents.far]\n\
         command = \"/bin/far\"\n\
         remote = tru\n\
         warm_pool = 2\n\
         [agents.broken\n\
         command = \"/bin/broken\"\n\
         [budget]\n\
         search_cards = 3\n\
         search_cards = 4\n\
         read_chars = = 9\n\
         turn_chars = 50000\n",
    );
    assert!(p.contains("/h/config.toml:2:"), "{p}");
    assert!(p.contains("/h/config.toml:5:"), "{p}");
    assert!(
        p.contains("/h/config.toml:7:") && p.contains("the section [agents.broken is skipped"),
        "{p}"
    );
    assert!(p.contains("/h/config.toml:11:"), "the duplicate key: {p}");
    assert!(p.contains("/h/config.toml:12:"), "{p}");
    assert_eq!(c.problems.len(), 5, "{p}");
    // The theme is kept though the very next line is broken; the broken keymap is default.
    assert_eq!(c.theme, "paper");
    assert_eq!(c.keymap, "default");
    // [agents.far] keeps its good lines.
    let far = c.agent(Some("far")).unwrap();
    assert_eq!(far.warm_pool, 2);
    assert!(!far.remote);
    assert!(c.agent(Some("broken")).is_err());
    // [budget] after the unreadable header still applies, but for its bad lines.
    assert_eq!(c.budget.search_cards, 3);
    assert_eq!(c.budget.turn_chars, 50_000);
    assert_eq!(c.budget.read_chars, Budget::default().read_chars);
    assert!(c.agent(Some(BUILTIN_AGENT)).is_ok());
}

#[test]
fn errors_in_agents_leave_the_theme_and_keymap_of_a_loaded_file() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("config.toml");
    std::fs::write(
        &file,
        "[agents.claude]\ncommand = [\"npx\"]\n[agents.x]\n= \"y\"\n\
         [agents.gemini]\nargs = 3\n\ntheme = \"nord\"\n",
    )
    .unwrap();
    // `theme` after [agents.gemini] belongs to that table: said, not silently applied.
    let c = Config::load(Some(&file), Path::new("/opt/agentero")).unwrap();
    let p = c.problems.join("\n");
    assert!(p.contains(":2:") && p.contains("command"), "{p}");
    assert!(p.contains(":4:"), "{p}");
    assert!(p.contains(":8:") && p.contains("theme"), "{p}");
    // The presets stay defined when their redefinitions are broken.
    assert!(c.agent(Some("claude")).unwrap().npx_package.is_some());
    assert_eq!(
        c.agent(Some("gemini")).unwrap().command_line(),
        "gemini --acp"
    );

    std::fs::write(
        &file,
        "theme = \"nord\"\nkeymap = \"vim\"\n[agents.claude]\ncommand = 3\n[agents]\nx = 1\n",
    )
    .unwrap();
    let c = Config::load(Some(&file), Path::new("/opt/agentero")).unwrap();
    assert_eq!((c.theme.as_str(), c.keymap.as_str()), ("nord", "vim"));
    assert_eq!(c.problems.len(), 2, "{:?}", c.problems);
}

#[test]
fn local_points_the_preset_at_the_configured_model_and_server() {
    let (c, p) = read("[local]\nmodel = \"qwen3:8b\"\nollama_url = \"http://gpu-box:7000/\"\n");
    assert!(p.is_empty(), "{p}");
    let local = c.agent(Some("local")).unwrap();
    let line = local.command_line();
    assert!(line.starts_with("codex-acp "), "{line}");
    assert!(line.contains("model=\"qwen3:8b\""), "{line}");
    assert!(line.contains("http://gpu-box:7000/v1"), "{line}");
    assert_eq!(local.local_model.as_ref().unwrap().model, "qwen3:8b");
    assert_eq!(local.adapter, agentero::config::Adapter::Codex);
    // Its own advice, not the cloud Codex's login.
    let p = agentero::config::preset_of(local).unwrap();
    assert_eq!(p.name, "local");
    assert!(p.install.contains("ollama pull"), "{}", p.install);
    // A file's own [agents.local] is used as written.
    let (c, _) = read("[agents.local]\ncommand = \"/bin/other\"\n[local]\nmodel = \"x\"\n");
    let local = c.agent(Some("local")).unwrap();
    assert_eq!(local.command_line(), "/bin/other");
    assert!(local.local_model.is_none());
}

#[test]
fn a_table_defined_twice_is_said_and_both_apply() {
    let (c, p) = read("theme = \"paper\"\n[budget]\nsearch_cards = 3\n[budget]\nread_chars = 99\n");
    assert_eq!(c.problems.len(), 1, "{p}");
    assert!(p.starts_with("/h/config.toml:4:"), "{p}");
    assert_eq!(c.theme, "paper");
    assert_eq!((c.budget.search_cards, c.budget.read_chars), (3, 99));
}
