"""A hostile ACP agent for fuzzing the client: runs a real agent (the built-in one) and relays
its stdio, mixing malformed lines into what the client receives.

Usage: python3 acp_mangler.py SEED RATE MODE STATS -- AGENT [ARGS...]

- MODE `inject`: before a real line, with probability RATE, 1-4 bad lines are sent; every
  real line still arrives.
- MODE `replace`: as `inject`, and with probability RATE/4 a real line after the handshake
  (the first two, `initialize` and the session's) is replaced by a mutation of itself, so a
  response may never come: the turn's time limit must end it.
- MODE `replace-all`: the handshake's lines may be mangled too (then the client waits for
  its own handshake time limits, a minute each).

Bad lines: garbage, invalid UTF-8, truncated and bit-flipped copies of real lines, deep
nesting, wrong `jsonrpc`, unknown or stolen ids, duplicated responses, unknown methods and
update kinds, huge lines, requests the client never offered. Seeds from tests/fuzz/acp_lines.txt.
Counts are appended as one JSON line to STATS when the agent's output ends.
"""

import json
import os
import random
import subprocess
import sys
import threading

seed, rate, mode, stats = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3], sys.argv[4]
agent = sys.argv[sys.argv.index("--") + 1:]
rng = random.Random(seed)
here = os.path.dirname(os.path.abspath(__file__))
SEEDS = [
    l.rstrip("\n").encode("utf-8").decode("unicode_escape").encode("latin-1")
    for l in open(os.path.join(here, "..", "fuzz", "acp_lines.txt"), encoding="utf-8")
    if l.strip()
]
counts = {"real": 0, "injected": 0, "replaced": 0}

child = subprocess.Popen(agent, stdin=subprocess.PIPE, stdout=subprocess.PIPE)


def to_agent():
    try:
        for line in sys.stdin.buffer:
            child.stdin.write(line)
            child.stdin.flush()
    except (BrokenPipeError, OSError):
        pass
    try:
        child.stdin.close()
    except OSError:
        pass


def mutate(line):
    b = bytearray(line)
    kind = rng.randrange(12)
    if kind == 0 and b:
        return bytes(b[: rng.randrange(len(b))])
    if kind == 1 and b:
        i = rng.randrange(len(b))
        b[i] ^= 1 << rng.randrange(8)
        return bytes(b)
    if kind == 2:
        return bytes(b) + b"\xff\xfe"
    try:
        v = json.loads(line)
    except Exception:
        return bytes(b[::-1])
    if not isinstance(v, dict):
        return b"[" + line + b"]"
    if kind == 3:
        v["jsonrpc"] = "1.0"
    elif kind == 4:
        v["id"] = rng.choice([rng.randrange(10**6), "stolen", None, [1], {"x": 1}, -1, 1.5])
    elif kind == 5:
        v.pop("id", None)
    elif kind == 6:
        v["method"] = rng.choice(["session/unknown", "fs/delete_everything", 5, "", "terminal/create"])
    elif kind == 7:
        p = v.get("params")
        if isinstance(p, dict):
            u = p.get("update")
            if isinstance(u, dict):
                u["sessionUpdate"] = rng.choice(["bogus_kind", 7, None, "agent_message_chunk"])
                u["content"] = rng.choice([None, 5, {"type": "video"}, {"type": "text", "text": 5}, {"type": "text", "text": "\x1b]52;c;aGk=\x07 chunk"}])
            p["sessionId"] = rng.choice(["nope", 1, None, p.get("sessionId")])
        else:
            v["params"] = rng.choice([None, 5, "x", [1, 2]])
    elif kind == 8:
        depth = rng.choice([100, 129, 5000])
        return b'{"jsonrpc":"2.0","method":"session/update","params":' + b"[" * depth + b"]" * depth + b"}"
    elif kind == 9:
        v["result"] = rng.choice([None, 5, "x", {"stopReason": "sideways"}, {"sessionId": 7}])
    elif kind == 10:
        v["error"] = {"code": "x", "message": 5}
    else:
        return b" " * rng.randrange(0, 4)
    return json.dumps(v).encode()


def real_id(line):
    try:
        v = json.loads(line)
    except Exception:
        return None
    return v.get("id") if isinstance(v, dict) else None


def bad_line(real):
    if rng.random() < 0.35:
        return SEEDS[rng.randrange(len(SEEDS))]
    if rng.random() < 0.02:
        return b'{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"x","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"' + b"A" * (2 << 20) + b'"}}}}'
    bad = mutate(real)
    # In `inject` mode the real line must still be the first readable one with its id: a
    # mutated copy that keeps it would be a legitimate (if wrong) answer to the request.
    rid = real_id(real)
    if mode == "inject" and rid is not None and real_id(bad) == rid:
        v = json.loads(bad)
        v["id"] = f"stolen-{rid}"
        bad = json.dumps(v).encode()
    return bad


def from_agent():
    out = sys.stdout.buffer
    for line in child.stdout:
        real = line.rstrip(b"\n")
        if rng.random() < rate:
            for _ in range(rng.randrange(1, 5)):
                out.write(bad_line(real).replace(b"\n", b" ") + b"\n")
                counts["injected"] += 1
        after_handshake = mode == "replace-all" or counts["real"] + counts["replaced"] >= 2
        if mode.startswith("replace") and after_handshake and rng.random() < rate / 4:
            out.write(mutate(real).replace(b"\n", b" ") + b"\n")
            counts["replaced"] += 1
        else:
            out.write(real + b"\n")
            counts["real"] += 1
        out.flush()
    with open(stats, "a") as f:
        f.write(json.dumps(counts) + "\n")


threading.Thread(target=to_agent, daemon=True).start()
try:
    from_agent()
except (BrokenPipeError, OSError):
    with open(stats, "a") as f:
        f.write(json.dumps(counts) + "\n")
child.wait()
