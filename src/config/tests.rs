use super::*;

/// An adapter's name is one spelling: what a config file writes, what serde reads, what
/// `as_str` says.
#[test]
fn adapter_names_round_trip() {
    use strum::IntoEnumIterator;
    for a in Adapter::iter() {
        assert_eq!(serde_json::to_value(a).unwrap(), a.as_str());
        assert_eq!(a.as_str().parse::<Adapter>(), Ok(a));
    }
    assert!("Claude".parse::<Adapter>().is_err());
}

fn exe() -> PathBuf {
    PathBuf::from("/opt/agentero")
}

#[test]
fn defaults_have_the_builtin_agent() {
    let c = Config::defaults(&exe());
    let a = c.agent(None).unwrap();
    assert_eq!(a.name, "builtin");
    assert_eq!(a.command_line(), "/opt/agentero --builtin-agent");
    assert!(!a.remote);
}

#[test]
fn parses_agents_budget_and_default() {
    let text = r#"
default_agent = "claude"
turn_timeout_secs = 20
[budget]
search_cards = 3
[agents.claude]
command = "npx"
args = ["-y", "@zed-industries/claude-agent-acp"]
env = { A = "1" }
native_reads = true
[agents.far]
command = "/bin/far"
remote = true
warm_pool = 2
"#;
    let c = Config::parse(text, Path::new("c.toml"), &exe()).unwrap();
    assert_eq!(c.default_agent, "claude");
    assert_eq!(c.turn_timeout_secs, 20);
    assert_eq!(c.budget.search_cards, 3);
    assert_eq!(c.budget.read_chars, Budget::default().read_chars);
    let claude = c.agent(None).unwrap();
    assert_eq!(claude.env.get("A").map(String::as_str), Some("1"));
    assert!(claude.install_hint.as_deref().unwrap().contains("Node.js"));
    assert_eq!(claude.adapter, Adapter::Claude);
    assert!(claude.native_reads);
    // Written by hand through npx: no second npx fallback.
    assert_eq!(claude.npx_package, None);
    let far = c.agent(Some("far")).unwrap();
    assert!(far.remote);
    assert_eq!(far.warm_pool, 2);
    assert!(c.agent(Some("builtin")).is_ok());
}

#[test]
fn errors_name_file_and_line() {
    let problems = |text: &str| {
        let c = Config::parse(text, Path::new("/h/config.toml"), &exe()).unwrap();
        // Whatever is wrong, the built-in agent and the defaults still work.
        assert!(c.agent(Some(BUILTIN_AGENT)).is_ok());
        assert!(c.agent(None).is_ok());
        c.problems
    };
    let p = problems("default_agent = \"builtin\"\n[agents.x]\ncommand = 3\n");
    assert_eq!(p.len(), 1, "{p:?}");
    assert!(p[0].starts_with("/h/config.toml:3:"), "{p:?}");
    let p = problems("bogus = 1\n");
    assert!(
        p[0].starts_with("/h/config.toml:1:") && p[0].contains("bogus"),
        "{p:?}"
    );
    let p = problems("default_agent = \"nope\"\n");
    assert!(p[0].contains("names no agent"), "{p:?}");
    let p = problems("[agents.builtin]\ncommand = \"x\"\n");
    assert!(
        p[0].contains("reserved") && p[0].starts_with("/h/config.toml:1:"),
        "{p:?}"
    );
}

#[test]
fn one_typo_costs_only_its_own_key_or_line() {
    let text = "default_agent = \"far\"\n\
                turn_timeout_secs = 0\n\
                [budget]\n\
                search_cards = 3\n\
                exerpt_chars = 10\n\
                [agents.broken]\n\
                command = \"x\n\
                [agents.far]\n\
                command = \"/bin/far\"\n\
                remote = true\n\
                [agents.typo]\n\
                command = \"/bin/typo\"\n\
                remtoe = true\n";
    let c = Config::parse(text, Path::new("c.toml"), &exe()).unwrap();
    let p = c.problems.join("\n");
    // The unclosed string (line 7, and so no command for [agents.broken] of line 6), the
    // unknown budget key (line 5), the zero timeout (line 2) and the misspelt agent key
    // (line 13), each with its line.
    assert!(
        p.contains("c.toml:7:") && p.contains("this line is skipped"),
        "{p}"
    );
    assert!(
        p.contains("c.toml:6:") && p.contains("[agents.broken] has no `command`"),
        "{p}"
    );
    assert!(p.contains("c.toml:5:") && p.contains("exerpt_chars"), "{p}");
    assert!(
        p.contains("c.toml:2:") && p.contains("turn_timeout_secs"),
        "{p}"
    );
    assert!(p.contains("c.toml:13:") && p.contains("remtoe"), "{p}");
    assert_eq!(c.problems.len(), 5, "{p}");
    // Everything else still counts: the default agent, the well-formed agent, the agent
    // with a misspelt key (without that key), the budget's good key.
    assert_eq!(c.default_agent, "far");
    assert!(c.agent(Some("far")).unwrap().remote);
    assert!(c.agent(Some("broken")).is_err());
    let typo = c.agent(Some("typo")).unwrap();
    assert_eq!(typo.command_line(), "/bin/typo");
    assert!(!typo.remote);
    assert!(c.agent(Some(BUILTIN_AGENT)).is_ok());
    assert_eq!(c.turn_timeout_secs, DEFAULT_TURN_TIMEOUT_SECS);
    assert_eq!(c.budget.search_cards, 3);
    assert_eq!(c.budget.excerpt_chars, Budget::default().excerpt_chars);
    let ok = Config::parse("[budget]\nsearch_cards = 3\n", Path::new("c.toml"), &exe()).unwrap();
    assert!(ok.problems.is_empty());
    assert_eq!(ok.budget.search_cards, 3);
}

#[test]
fn an_agent_is_configured_when_the_file_sets_it_up() {
    let shipped = Config::defaults(&exe());
    assert!(shipped.configured(BUILTIN_AGENT));
    for name in ["claude", "gemini", "codex", LOCAL_AGENT] {
        assert!(!shipped.configured(name), "{name}");
    }
    let text = "default_agent = \"gemini\"\n[local]\nmodel = \"llama3.2:3b\"\n\
                [agents.claude]\ncommand = \"claude-agent-acp\"\n";
    let c = Config::parse(text, Path::new("c.toml"), &exe()).unwrap();
    for name in ["claude", "gemini", LOCAL_AGENT] {
        assert!(c.configured(name), "{name}");
    }
    assert!(!c.configured("codex"));
}

#[test]
fn presets_are_defined_and_unknown_agents_list_them() {
    let c = Config::defaults(&exe());
    let claude = c.agent(Some("claude")).unwrap();
    assert_eq!(claude.command_line(), "claude-agent-acp");
    assert_eq!(
        claude.npx_package.as_deref(),
        Some("@zed-industries/claude-agent-acp")
    );
    assert_eq!(
        c.agent(Some("gemini")).unwrap().command_line(),
        "gemini --acp"
    );
    assert_eq!(c.agent(Some("codex")).unwrap().adapter, Adapter::Codex);
    let e = c.agent(Some("nope")).unwrap_err().to_string();
    assert!(e.contains("@zed-industries/claude-agent-acp"), "{e}");
    assert!(e.contains("--acp"), "{e}");
    assert!(e.contains("codex-acp"), "{e}");
}

#[test]
fn adapters_are_recognized_by_command_and_package() {
    let d = |c: &str, a: &[&str]| {
        Adapter::detect(
            Path::new(c),
            &a.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
        )
    };
    assert_eq!(
        d("npx", &["-y", "@zed-industries/claude-agent-acp@0.23.1"]),
        Adapter::Claude
    );
    assert_eq!(d("/opt/bin/claude-agent-acp", &[]), Adapter::Claude);
    assert_eq!(d("/usr/local/bin/gemini", &["--acp"]), Adapter::Gemini);
    assert_eq!(d("npx", &["@google/gemini-cli", "--acp"]), Adapter::Gemini);
    assert_eq!(d("codex-acp", &["-c", "x=1"]), Adapter::Codex);
    assert_eq!(d("/bin/my-agent", &[]), Adapter::Other);
}

#[test]
fn explicit_missing_file_is_an_error_default_missing_is_not() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nope.toml");
    assert!(Config::load(Some(&missing), &exe()).is_err());
}
