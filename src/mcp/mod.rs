//! The `agentero-context` stdio MCP server: a thin rmcp adapter over `context`.
