//! A broken `config.toml` never costs more than its own mistakes: the real binary reports each
//! with `file:line`, keeps the built-in agent, the defaults and every well-formed section, and
//! `agentero plan` honours `[budget]` as `ask` does.

mod common;

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
