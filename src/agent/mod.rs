//! The built-in offline ACP agent (`agentero --builtin-agent`).
