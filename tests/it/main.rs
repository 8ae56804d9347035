//! The integration tests of agentero, in one test binary (one link instead of thirty): each
//! module is one suite; `common` holds the helpers they share. No suite sets a process
//! environment variable (the app's settings are passed in: `Headless::open_with`). One suite is a
//! binary of its own: `tests/page_render.rs` bounds the peak memory of its render children
//! through the process's children's rusage, which the agents and servers of the other suites
//! would raise.

mod acp_builtin;
mod acp_failures;
mod acp_hostile;
mod agent_sandbox;
mod architecture;
mod bibliography;
mod check;
mod citations;
mod cjk_text;
mod cli_injection;
mod common;
mod config_robustness;
mod context_plan;
mod corpus_index;
mod demo_vault;
mod embeddings;
mod fuzz;
mod fuzz_acp;
mod highlights;
mod hybrid_quality;
mod index_recovery;
mod index_search;
mod judged_home;
mod judged_questions;
mod judged_texdocs;
mod known_items;
mod mcp_attacks;
mod mcp_hardening;
mod mcp_security;
mod mcp_server;
mod ocr;
mod output_gate;
mod page_text_fixtures;
mod pdf_links;
mod pdf_text;
mod real_agents;
mod real_pages;
mod registry_manifests;
mod search_ranking;
mod standalone;
mod state_files;
mod threads;
mod tmux_images;
mod tui_keys;
mod tui_snapshots;
mod tui_tmux;
mod tui_widgets;
mod vault_mcp;
mod verify_held_out;
mod zotero;
