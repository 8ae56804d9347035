"""What the ACP test peers share (scripted_agent.py, hostile_agent.py): JSON-RPC lines on
stdout, message chunks, the requests read from stdin and the answer to `initialize`."""
import json
import sys

out = sys.stdout.buffer


def send(obj):
    out.write((json.dumps(obj) + "\n").encode())
    out.flush()


def raw(b):
    out.write(b + b"\n")
    out.flush()


def chunk_message(sid, text):
    return {"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": sid, "update": {
        "sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}}}}


def requests():
    """(method, id, message) of each request on stdin; notifications and bad lines skipped."""
    for line in sys.stdin.buffer:
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        if msg.get("id") is None:
            continue
        yield msg.get("method"), msg["id"], msg


def initialized(mid, name):
    send({"jsonrpc": "2.0", "id": mid, "result": {"protocolVersion": 1,
          "agentCapabilities": {"loadSession": False}, "authMethods": [],
          "agentInfo": {"name": name, "version": "1"}}})
