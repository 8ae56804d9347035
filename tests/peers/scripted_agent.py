#!/usr/bin/env python3
"""A scripted ACP agent for the tests (a test peer speaking ACP v1 over stdio): it opens sessions
and answers every `session/prompt` with the text of the file SCRIPTED_ANSWER, streamed in
chunks of a few lines, then ends the turn. It connects no MCP server: what it says is fixed by
the test, so the host's checks of the answer (citation verdicts) can be tested against an
answer that cites correctly, cites the wrong page and invents a quote.
"""
import os

from acp_peer import chunk_message, initialized, requests, send


def chunk(sid, text):
    send(chunk_message(sid, text))


answer = open(os.environ["SCRIPTED_ANSWER"], encoding="utf-8").read()
sessions = 0
for method, mid, msg in requests():
    if method == "initialize":
        initialized(mid, "scripted-agent")
    elif method == "session/new":
        sessions += 1
        send({"jsonrpc": "2.0", "id": mid, "result": {"sessionId": f"scripted-{sessions}"}})
    elif method == "session/prompt":
        sid = msg["params"]["sessionId"]
        lines = answer.splitlines(keepends=True)
        for i in range(0, len(lines), 2):
            chunk(sid, "".join(lines[i:i + 2]))
        send({"jsonrpc": "2.0", "id": mid, "result": {"stopReason": "end_turn"}})
    else:
        send({"jsonrpc": "2.0", "id": mid, "error": {"code": -32601, "message": "no"}})
