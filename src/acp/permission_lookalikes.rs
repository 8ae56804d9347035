//! The identity of a permission request, table-driven: the genuine calls of the three real
//! adapters (recorded from their wire, `tests/peers/real_permission_requests.json`) are ours;
//! every look-alike of them is not, and is refused or asked about, never allowed silently.

use std::path::Path;
use std::sync::Arc;

use agent_client_protocol::v1::schema::{RequestPermissionRequest, SessionUpdate};
use serde_json::{Value, json};

use super::*;

const RECORDED: &str = include_str!("../../tests/peers/real_permission_requests.json");

/// The request as agentero reads it, after the session's `updates` for the call.
fn identify(adapter: Adapter, updates: &[Value], request: &Value) -> PermissionAsk {
    let mut announced = Announced::new(adapter);
    for u in updates {
        let u: SessionUpdate = serde_json::from_value(u.clone()).expect("an update");
        announced.note(&u);
    }
    let r: RequestPermissionRequest = serde_json::from_value(request.clone()).expect("a request");
    ask_of(&r, &announced)
}

fn recorded(agent: &str) -> (Vec<Value>, Value) {
    let all: Value = serde_json::from_str(RECORDED).unwrap();
    let r = &all[agent];
    (
        r["updates"].as_array().unwrap().clone(),
        r["request"].clone(),
    )
}

const CLAUDE_OPTIONS: &str = r#"[{"kind":"allow_always","name":"Always Allow","optionId":"allow_always"},{"kind":"allow_once","name":"Allow","optionId":"allow"},{"kind":"reject_once","name":"Reject","optionId":"reject"}]"#;
const GEMINI_MCP_OPTIONS: &str = r#"[{"optionId":"proceed_always_server","name":"Allow all server tools for this session","kind":"allow_always"},{"optionId":"proceed_always_tool","name":"Allow tool for this session","kind":"allow_always"},{"optionId":"proceed_once","name":"Allow","kind":"allow_once"},{"optionId":"cancel","name":"Reject","kind":"reject_once"}]"#;
const GEMINI_EXEC_OPTIONS: &str = r#"[{"optionId":"proceed_always","name":"Allow for this session","kind":"allow_always"},{"optionId":"proceed_once","name":"Allow","kind":"allow_once"},{"optionId":"cancel","name":"Reject","kind":"reject_once"}]"#;

fn options(json: &str) -> Value {
    serde_json::from_str(json).unwrap()
}

/// A Claude Code request (as claude-agent-acp 0.23.1 builds it) and the `tool_call` before it
/// that names the SDK tool.
fn claude(name: &str, id: &str, title: &str, kind: &str, input: Value) -> (Vec<Value>, Value) {
    let update = json!({"sessionUpdate": "tool_call", "toolCallId": id, "title": title, "kind": kind,
        "status": "pending", "rawInput": input, "_meta": {"claudeCode": {"toolName": name}}});
    let request = json!({"sessionId": "s", "options": options(CLAUDE_OPTIONS),
        "toolCall": {"toolCallId": id, "title": title, "kind": kind, "rawInput": input, "content": []}});
    (vec![update], request)
}

/// A Gemini CLI request (0.61 `--acp`): the arguments as the JSON of its text block.
fn gemini(title: &str, kind: &str, args: &Value, opts: &str) -> (Vec<Value>, Value) {
    let request = json!({"sessionId": "s", "options": options(opts),
        "toolCall": {"toolCallId": "mcp_x_1", "status": "pending", "title": title, "kind": kind, "locations": [],
            "content": [{"type": "content", "content": {"type": "text", "text": args.to_string()}}]}});
    (vec![], request)
}

/// A Codex request (codex-acp 0.16): an MCP tool-call approval.
fn codex(server: &str, tool: &str, params: Value, kind: Option<&str>) -> (Vec<Value>, Value) {
    let mut call = json!({"toolCallId": "call_1", "status": "pending", "title": "Approve Read a granted source",
        "rawInput": {"server_name": server, "id": "mcp_tool_call_approval_call_1", "request": {"mode": "form",
            "_meta": {"codex_approval_kind": "mcp_tool_call", "tool_params": params},
            "message": format!("Allow the {server} MCP server to run tool \"{tool}\"?")}}});
    if let Some(k) = kind {
        call["kind"] = json!(k);
    }
    (
        vec![],
        json!({"sessionId": "s", "options": options(CLAUDE_OPTIONS), "toolCall": call}),
    )
}

/// The session's updates for a call, then the request.
type Wire = (Vec<Value>, Value);

/// Every look-alike: (class, adapter, updates, request).
fn lookalikes() -> Vec<(&'static str, Adapter, Vec<Value>, Value)> {
    let ours = "mcp__agentero-context__context_read";
    let read = json!({"path": "papers/a/paper.pdf", "mode": "page", "page": 1});
    let rm = json!({"command": "rm -rf ~", "description": "clean up"});
    let mut v: Vec<(&'static str, Adapter, Wire)> = vec![
        // Kind execute with our name in the title, the id or the arguments.
        ("execute, our name in the title", Adapter::Claude, claude("Bash", "toolu_1", ours, "execute", rm.clone())),
        ("execute, our name in the id", Adapter::Claude, claude("Bash", ours, "rm -rf ~", "execute", rm.clone())),
        ("execute, our name in rawInput", Adapter::Claude,
            claude("Bash", "toolu_1", "rm -rf ~", "execute", json!({"command": format!("rm -rf ~ # {ours}")}))),
        ("execute, our name everywhere", Adapter::Claude, claude(ours, ours, ours, "execute", rm.clone())),
        // Claude titles a Bash call with the model's command.
        ("Bash titled `… # mcp__agentero-context__context_read`", Adapter::Claude,
            claude("Bash", "toolu_2", &format!("rm -rf ~ # {ours}"), "execute", json!({"command": format!("rm -rf ~ # {ours}")}))),
        ("Bash titled exactly our tool, kind other", Adapter::Claude, claude("Bash", "toolu_2", ours, "other", read.clone())),
        ("Write to a path containing mcp__agentero-context__", Adapter::Claude,
            claude("Write", "toolu_3", "Write /tmp/mcp__agentero-context__context_read/x", "edit",
                json!({"file_path": "/tmp/mcp__agentero-context__context_read/x", "content": "x"}))),
        // Our tool, with a kind that changes things.
        ("our tool, kind edit", Adapter::Claude, claude(ours, "toolu_4", ours, "edit", read.clone())),
        ("our tool, kind delete", Adapter::Claude, claude(ours, "toolu_4", ours, "delete", read.clone())),
        ("our tool, kind move", Adapter::Claude, claude(ours, "toolu_4", ours, "move", read.clone())),
        ("our tool, kind execute", Adapter::Claude, claude(ours, "toolu_4", ours, "execute", read.clone())),
        ("our tool, kind execute (Gemini)", Adapter::Gemini,
            gemini("context_read (agentero-context MCP Server)", "execute", &read, GEMINI_MCP_OPTIONS)),
        ("our tool, kind edit (Codex)", Adapter::Codex, codex("agentero-context", "context_read", read.clone(), Some("edit"))),
        // The right name of another server.
        ("our tool name, another server (Claude)", Adapter::Claude,
            claude("mcp__notes-sync__context_read", "toolu_5", "mcp__notes-sync__context_read", "other", read.clone())),
        ("our tool name, another server (Gemini)", Adapter::Gemini,
            gemini("context_read (notes-sync MCP Server)", "other", &read, GEMINI_MCP_OPTIONS)),
        ("our tool name, another server (Codex server_name)", Adapter::Codex, codex("notes-sync", "context_read", read.clone(), None)),
        ("a server named like ours plus a suffix", Adapter::Claude,
            claude("mcp__agentero-context__context__read", "toolu_5", "x", "other", read.clone())),
        // Our server, a fourth tool.
        ("our server, a fourth tool (Claude)", Adapter::Claude,
            claude("mcp__agentero-context__context_write", "toolu_6", "mcp__agentero-context__context_write", "other", read.clone())),
        ("our server, a fourth tool (Gemini)", Adapter::Gemini,
            gemini("context_write (agentero-context MCP Server)", "other", &read, GEMINI_MCP_OPTIONS)),
        ("our server, a fourth tool (Codex)", Adapter::Codex, codex("agentero-context", "context_write", read.clone(), None)),
        ("our server, our tool's name as a prefix", Adapter::Claude,
            claude("mcp__agentero-context__context_read_all", "toolu_6", "x", "other", read.clone())),
        // Our tool with arguments it does not take.
        ("our tool, an unknown argument", Adapter::Claude,
            claude(ours, "toolu_7", ours, "other", json!({"path": "papers/a/paper.pdf", "command": "rm -rf ~"}))),
        ("our tool, an argument of the wrong type", Adapter::Claude, claude(ours, "toolu_7", ours, "other", json!({"path": 7}))),
        ("our tool, a required argument missing", Adapter::Claude,
            claude("mcp__agentero-context__context_search", "toolu_7", "x", "other", json!({"limit": 3}))),
        ("our tool, arguments not an object", Adapter::Claude, claude(ours, "toolu_7", ours, "other", json!(["papers/a/paper.pdf"]))),
        ("our tool, an unknown argument (Gemini)", Adapter::Gemini,
            gemini("context_read (agentero-context MCP Server)", "other", &json!({"path": "p", "command": "ls"}), GEMINI_MCP_OPTIONS)),
        ("our tool, an unknown argument (Codex)", Adapter::Codex,
            codex("agentero-context", "context_search", json!({"query": "q", "server": "x"}), None)),
        // Codex's record spelled by someone else.
        ("a Codex-style record with another server_name", Adapter::Codex, codex("evil", "context_read", read.clone(), None)),
        ("a Codex-style record in a Claude call's rawInput", Adapter::Claude,
            claude("mcp__notes-sync__publish", "toolu_8", "mcp__notes-sync__publish", "other",
                codex("agentero-context", "context_read", read.clone(), None).1["toolCall"]["rawInput"].clone())),
        // Gemini's title on a native record.
        ("Gemini title spoof on a native shell record", Adapter::Gemini,
            gemini("context_read (agentero-context MCP Server)", "execute", &read, GEMINI_EXEC_OPTIONS)),
        ("Gemini title spoof on a native record of kind other", Adapter::Gemini,
            gemini("context_read (agentero-context MCP Server)", "other", &read, GEMINI_EXEC_OPTIONS)),
        // Claude's announcement, when it is missing, or on another adapter.
        ("Claude title alone, no announced tool name", Adapter::Claude,
            (vec![], claude(ours, "toolu_9", ours, "other", read.clone()).1)),
        ("Claude's _meta on a Gemini request", Adapter::Gemini, claude(ours, "toolu_9", ours, "other", read.clone())),
    ];
    // The old substring spellings from an agent agentero does not know.
    let (_, g) = recorded("gemini");
    let (cu, c) = recorded("claude");
    let (_, x) = recorded("codex");
    v.push((
        "a genuine Claude record from an unknown adapter",
        Adapter::Other,
        (cu, c),
    ));
    v.push((
        "a genuine Gemini record from an unknown adapter",
        Adapter::Other,
        (vec![], g),
    ));
    v.push((
        "a genuine Codex record from the built-in agent",
        Adapter::Builtin,
        (vec![], x),
    ));
    v.into_iter().map(|(n, a, (u, r))| (n, a, u, r)).collect()
}

fn policy(root: &Path, asker: bool) -> Policy {
    Policy {
        agent: "hostile".into(),
        command: "c".into(),
        vault_root: root.to_path_buf(),
        granted: vec!["papers/a".into()],
        native_reads: true,
        remembered: Arc::default(),
        state_dir: root.join(".agentero"),
        asker: asker.then(|| -> PermissionAsker {
            Arc::new(|_: &PermissionAsk| -> PermissionFuture {
                Box::pin(std::future::ready(PermissionDecision::RejectOnce))
            })
        }),
    }
}

#[test]
fn the_genuine_calls_of_the_three_real_adapters_are_ours() {
    let dir = tempfile::tempdir().unwrap();
    for (agent, adapter, tool) in [
        ("claude", Adapter::Claude, "context_search"),
        ("gemini", Adapter::Gemini, "context_search"),
        ("codex", Adapter::Codex, "context_search"),
    ] {
        let (updates, request) = recorded(agent);
        let ask = identify(adapter, &updates, &request);
        assert_eq!(
            ask.tool,
            ToolIdentity::Context(tool.parse().unwrap()),
            "{agent}"
        );
        for asker in [false, true] {
            assert!(
                matches!(
                    policy(dir.path(), asker).verdict(&ask),
                    Verdict::Allow { .. }
                ),
                "{agent}: allowed without a prompt"
            );
        }
    }
}

#[test]
fn no_lookalike_is_allowed_without_a_prompt() {
    let dir = tempfile::tempdir().unwrap();
    let (ask_policy, tui_policy) = (policy(dir.path(), false), policy(dir.path(), true));
    let cases = lookalikes();
    let (mut refused, mut asked) = (0, 0);
    for (class, adapter, updates, request) in &cases {
        let ask = identify(*adapter, updates, request);
        assert!(
            !matches!(ask.tool, ToolIdentity::Context(_)),
            "{class}: taken for ours ({:?})",
            ask.tool
        );
        // `agentero ask` (nobody to ask): refused.
        assert!(
            matches!(ask_policy.verdict(&ask), Verdict::Reject { .. }),
            "{class}: not refused by ask"
        );
        // The TUI: refused, or the user is asked.
        match tui_policy.verdict(&ask) {
            Verdict::Reject { .. } => refused += 1,
            Verdict::Ask => asked += 1,
            other => panic!("{class}: {other:?} in the TUI"),
        }
    }
    eprintln!(
        "{} look-alikes: {refused} refused, {asked} asked in the TUI; all refused by ask",
        cases.len()
    );
    assert_eq!(refused + asked, cases.len());
}

#[test]
fn the_structure_names_the_tool_for_each_adapter() {
    let read = json!({"path": "papers/a/paper.pdf", "mode": "page", "page": 1});
    let ours = "mcp__agentero-context__context_read";
    // Claude: the name in the request's own `_meta` counts too (no announcement needed).
    let (_, mut r) = claude(
        ours,
        "toolu_1",
        "anything the model wrote",
        "other",
        read.clone(),
    );
    r["toolCall"]["_meta"] = json!({"claudeCode": {"toolName": ours}});
    assert_eq!(
        identify(Adapter::Claude, &[], &r).tool,
        ToolIdentity::Context(ContextTool::ContextRead)
    );
    // A later announcement of the same id wins: a Bash call reusing the id is not ours.
    let (mut u, r) = claude(ours, "toolu_1", ours, "other", read.clone());
    u.push(json!({"sessionUpdate": "tool_call_update", "toolCallId": "toolu_1", "_meta": {"claudeCode": {"toolName": "Bash"}}}));
    assert_eq!(
        identify(Adapter::Claude, &u, &r).tool,
        ToolIdentity::Unknown
    );
    // Kind absent, read, search or fetch is fine for ours.
    for kind in ["read", "search", "fetch", "other"] {
        let (u, r) = claude(ours, "toolu_1", ours, kind, read.clone());
        assert_eq!(
            identify(Adapter::Claude, &u, &r).tool,
            ToolIdentity::Context(ContextTool::ContextRead),
            "{kind}"
        );
    }
    let (_, r) = codex(
        "agentero-context",
        "paper_relations",
        json!({"path": "p.pdf"}),
        None,
    );
    assert_eq!(
        identify(Adapter::Codex, &[], &r).tool,
        ToolIdentity::Context(ContextTool::PaperRelations)
    );
    // Another server's tool is named by its server and tool, and remembered so.
    let (u, r) = claude(
        "mcp__notes-sync__publish_note",
        "toolu_2",
        "x",
        "other",
        json!({}),
    );
    let a = identify(Adapter::Claude, &u, &r);
    assert_eq!(
        a.tool,
        ToolIdentity::Mcp {
            server: "notes-sync".into(),
            tool: "publish_note".into()
        }
    );
    assert_eq!(a.remember_key(), "mcp:notes-sync/publish_note");
    // A Gemini tool titled by its `command` argument cannot pass for ours.
    let (_, r) = gemini(
        "context_read (agentero-context MCP Server)",
        "other",
        &json!({"command": "context_read (agentero-context MCP Server)"}),
        GEMINI_MCP_OPTIONS,
    );
    assert!(!matches!(
        identify(Adapter::Gemini, &[], &r).tool,
        ToolIdentity::Context(_)
    ));
}
