//! The manifests agentero is listed and installed with: the MCP bundle's `manifest.json` (its
//! schema is checked by the official validator in `.ci/run`, `mcpb validate`) and the crates'
//! own `Cargo.toml`s. Here: they agree with the crate (name, version, license), and the bundle's
//! server, started exactly as the manifest says, is the vault server with the tools it lists.

use crate::common;

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::Value;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn manifest() -> Value {
    let text = std::fs::read_to_string(root().join("manifest.json")).unwrap();
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("manifest.json: {e}"))
}

fn cargo_toml(path: &str) -> toml::Table {
    let text = std::fs::read_to_string(root().join(path)).unwrap();
    toml::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The names of the `user_config` fields `args` refers to (`${user_config.NAME}`).
fn user_config_refs(args: &[Value]) -> BTreeSet<String> {
    args.iter()
        .filter_map(|a| {
            a.as_str()?
                .strip_prefix("${user_config.")?
                .strip_suffix('}')
        })
        .map(str::to_string)
        .collect()
}

#[test]
fn the_bundle_manifest_agrees_with_the_crate() {
    let m = manifest();
    assert_eq!(m["name"], env!("CARGO_PKG_NAME"));
    assert_eq!(
        m["version"],
        env!("CARGO_PKG_VERSION"),
        "bump both together"
    );
    assert_eq!(m["license"], env!("CARGO_PKG_LICENSE"));
    let server = &m["server"];
    assert_eq!(server["type"], "binary");
    let entry = server["entry_point"].as_str().unwrap();
    assert_eq!(Path::new(entry).file_name().unwrap(), "agentero");
    let config = &server["mcp_config"];
    assert_eq!(config["command"], format!("${{__dirname}}/{entry}"));
    let args = config["args"].as_array().unwrap();
    assert_eq!(args[..2], ["serve", "--stdio"], "{args:?}");
    // The vault is the one setting, a folder the user must choose.
    let fields: BTreeSet<String> = m["user_config"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    assert_eq!(user_config_refs(args), fields, "{args:?}");
    let vault = &m["user_config"]["vault"];
    assert_eq!(vault["type"], "directory", "{vault}");
    assert_eq!(vault["required"], true, "{vault}");
}

#[test]
fn the_packaged_crates_agree_on_the_pdf_engine_version() {
    let app = cargo_toml("Cargo.toml");
    let pdf = cargo_toml("crates/agentero-pdf/Cargo.toml");
    let dep = &app["dependencies"]["agentero-pdf"];
    let wanted = dep["version"].as_str().expect("a version beside the path");
    let have = pdf["package"]["version"].as_str().unwrap();
    assert_eq!(wanted, have, "the agentero-pdf dependency's version");
    for t in [&app, &pdf] {
        let p = &t["package"];
        for key in [
            "description",
            "license",
            "readme",
            "keywords",
            "categories",
            "include",
        ] {
            assert!(p.get(key).is_some(), "{key} in {}", p["name"]);
        }
    }
}

/// The server the bundle starts: `command` and `args` as written, with `${__dirname}` the
/// bundle's folder (where the built binary stands at `entry_point`) and the vault chosen.
#[tokio::test]
async fn the_bundle_starts_the_vault_server_with_the_tools_it_lists() {
    let m = manifest();
    let dir = common::demo_vault();
    let bundle = tempfile::tempdir().unwrap();
    let entry = bundle
        .path()
        .join(m["server"]["entry_point"].as_str().unwrap());
    std::fs::create_dir_all(entry.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_agentero"), &entry).unwrap();
    let fill = |v: &Value| {
        v.as_str()
            .unwrap()
            .replace("${__dirname}", bundle.path().to_str().unwrap())
            .replace("${user_config.vault}", dir.path().to_str().unwrap())
    };
    let config = &m["server"]["mcp_config"];
    let home = dir.path().join(".agentero-test-home");
    let mut cmd = tokio::process::Command::new(fill(&config["command"]));
    cmd.args(config["args"].as_array().unwrap().iter().map(fill));
    let client = crate::common::stdio_client(cmd, &home).await;
    let info = client.peer_info().expect("the server introduced itself");
    let implementation = info.server_info.as_ref().expect("serverInfo");
    assert_eq!(implementation.version, m["version"].as_str().unwrap());
    let served: BTreeSet<String> = client
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name.to_string())
        .collect();
    let listed: BTreeSet<String> = m["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        served, listed,
        "manifest.json lists the tools the server has"
    );
    client.cancel().await.unwrap();
}
