#!/usr/bin/env python3
"""A hostile ACP agent for the tests (a test peer, not a mock of a real agent): it speaks just
enough ACP v1 over stdio to open a session, then answers `session/prompt` by streaming message
chunks with broken lines in between — not JSON, not UTF-8, JSON of the wrong shape, an update
for a session that does not exist — before it finishes.

HOSTILE_MODE=garbage (default): the broken lines, then the end of the answer.
HOSTILE_MODE=slow: chunks every 100 ms for HOSTILE_CHUNKS chunks (default 60), for kill tests
(a prompt that says "go on" gets three quick chunks). HOSTILE_LOG names a file that gets one
line per chunk sent: the time, then the text.
HOSTILE_MODE=permissions: before answering, asks `session/request_permission` for every look-alike
of our context tools in the encoding of the adapter HOSTILE_ADAPTER (claude, gemini or codex) —
each after the `tool_call` the real adapter sends first — then for the genuine call that adapter
was recorded making (tests/peers/real_permission_requests.json), then for a tool of another server
("publish_note" of notes-sync); the answer has one line per request: `CASE <name> => <optionId or
cancelled>`. HOSTILE_CASES (comma-separated names) keeps only those cases.
"""
import json
import os
import time

from acp_peer import chunk_message, initialized, raw, requests, send
from hostile_permissions import cases


LOG = os.environ.get("HOSTILE_LOG")


def chunk(sid, text):
    if LOG:
        with open(LOG, "a") as f:
            f.write(f"{time.time():.3f} {text}\n")
    send(chunk_message(sid, text))


def ask_each(sid, incoming):
    """Asks every case in turn and waits for its answer; one answer line per case."""
    lines = []
    only = [c for c in os.environ.get("HOSTILE_CASES", "").split(",") if c]
    chosen = [c for c in cases(os.environ.get("HOSTILE_ADAPTER", "claude")) if not only or c[0] in only]
    for n, (name, updates, call, options) in enumerate(chosen):
        for u in updates:
            send({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": sid, "update": u}})
        rid = f"perm-{n}"
        send({"jsonrpc": "2.0", "id": rid, "method": "session/request_permission",
              "params": {"sessionId": sid, "toolCall": call, "options": options}})
        for method, mid, msg in incoming:
            if method is None and mid == rid:
                outcome = msg.get("result", {}).get("outcome", {})
                lines.append(f"CASE {name} => {outcome.get('optionId', outcome.get('outcome'))}\n")
                break
    chunk(sid, "".join(lines))


mode = os.environ.get("HOSTILE_MODE", "garbage")
incoming = requests()
for method, mid, msg in incoming:
    if method == "initialize":
        initialized(mid, "hostile-agent")
    elif method == "session/new":
        send({"jsonrpc": "2.0", "id": mid, "result": {"sessionId": "hostile-1"}})
    elif method == "session/prompt":
        sid = msg["params"]["sessionId"]
        text = json.dumps(msg["params"].get("prompt", []))
        if mode == "permissions":
            ask_each(sid, incoming)
        elif mode == "slow" and "go on" in text:
            for i in range(3):
                chunk(sid, f"more {i}. ")
        elif mode == "slow":
            for i in range(int(os.environ.get("HOSTILE_CHUNKS", "60"))):
                chunk(sid, f"piece {i:02d}. ")
                time.sleep(0.1)
        else:
            chunk(sid, "Part one. ")
            raw(b"this is not json")
            raw(b"\xff\xfe{\"jsonrpc\": \"2.0\"}")
            raw(b'{"jsonrpc": "2.0", "method": "session/update", "params": {"bad": 1}}')
            raw(b'{"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "nobody", "update": {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "INTRUDER"}}}}')
            raw(b"[1, 2, 3]")
            chunk(sid, "Part two.")
        send({"jsonrpc": "2.0", "id": mid, "result": {"stopReason": "end_turn"}})
    else:
        send({"jsonrpc": "2.0", "id": mid, "error": {"code": -32601, "message": "no"}})
