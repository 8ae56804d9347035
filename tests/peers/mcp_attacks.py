"""Attacks on the real `agentero --agentero-context-mcp` server from an independent client: the
official MCP Python SDK for tool calls, and raw JSON-RPC lines over a pipe for the wire.

Usage: python3 mcp_attacks.py FIXTURE.json   (written by tests/mcp_attacks.rs)

Prints one JSON line at the end: {"attacks": N, "leaks": [...], "crashes": [...], "failures": [...]}.
Every attack must get an answer (an error result or a JSON-RPC error), leak no secret and no
absolute path, and leave the server running.
"""

import asyncio
import json
import os
import select
import subprocess
import sys
import threading
import time

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

FIX = json.load(open(sys.argv[1]))
BIN = FIX["binary"]
ROOT = FIX["root"]
SECRETS = FIX["secrets"]
FORBIDDEN_TEXT = SECRETS + [ROOT, FIX["outside"]]

attacks = 0
leaks = []
crashes = []
failures = []


def fail(what, why):
    failures.append(f"{what}: {why}")


def flat(result):
    parts = []
    for c in getattr(result, "content", None) or []:
        t = getattr(c, "text", None)
        if t:
            parts.append(t)
    sc = getattr(result, "structuredContent", None)
    if sc is None:
        sc = getattr(result, "structured_content", None)
    if sc is not None:
        parts.append(json.dumps(sc))
    return "\n".join(parts)


def is_error(result):
    v = getattr(result, "isError", None)
    if v is None:
        v = getattr(result, "is_error", None)
    return bool(v)


def structured(result):
    sc = getattr(result, "structuredContent", None)
    if sc is None:
        sc = getattr(result, "structured_content", None)
    return sc or {}


def check_leak(what, text):
    for s in FORBIDDEN_TEXT:
        if s and s in text:
            leaks.append(f"{what}: leaked {s[:40]!r}")


async def call(session, tool, args, what=None, expect_error=True, want=None, timeout=20):
    """One attack: a tool call that must answer in time, without a leak."""
    global attacks
    attacks += 1
    what = what or f"{tool} {json.dumps(args)[:120]}"
    started = time.monotonic()
    try:
        r = await asyncio.wait_for(session.call_tool(tool, args), timeout)
    except asyncio.TimeoutError:
        fail(what, f"no answer within {timeout} s")
        return None
    except Exception as e:  # a protocol error is an answer too
        text = str(e)
        check_leak(what, text)
        if want and want not in text:
            fail(what, f"expected {want!r} in the error, got {text[:200]!r}")
        return e
    text = flat(r)
    check_leak(what, text)
    if expect_error is True and not is_error(r):
        fail(what, f"was not refused: {text[:200]!r}")
    if expect_error is False and is_error(r):
        fail(what, f"failed: {text[:200]!r}")
    if want and want not in text:
        fail(what, f"expected {want!r}, got {text[:300]!r}")
    if time.monotonic() - started > timeout / 2:
        fail(what, f"took {time.monotonic() - started:.1f} s")
    return r


def server(grant):
    return StdioServerParameters(command=BIN, args=["--agentero-context-mcp", grant], env=FIX["env"])


async def alive(session, what):
    try:
        await asyncio.wait_for(session.send_ping(), 10)
    except Exception as e:
        crashes.append(f"after {what}: {e!r}")
        raise


PATH_ATTACKS = [
    "../outside.md", "notes/../../etc/passwd", "notes/../private/secret.md", "/etc/passwd",
    FIX["outside_secret"], FIX["grant"], "~/.ssh/id_rsa", "C:/Windows/win.ini",
    "notes\\..\\private\\secret.md", "notes/%2e%2e/private/secret.md",
    "notes%2f..%2fprivate%2fsecret.md", "%2e%2e/%2e%2e/etc/passwd",
    "notes/%252e%252e/private/secret.md", "notes/\uff0e\uff0e/private/secret.md",
    "notes\u2215..\u2215private\u2215secret.md", "notes/\u200b../private/secret.md",
    "private/secret.md", "private", "notes/.secret.md", ".hidden/secret.md",
    ".agentero/catalog.json", ".agentero/context-sessions", "notes/link-out.md", "notes/link-in.md",
    "notes/private-dir/secret.md", "notes/state/catalog.json", "papers/citeweave/paper.pdf#page=1",
    "private/secret.md#line=1,2", "file:///etc/passwd", "notes/TODO\u0000", "", ".",
    "notes/%00", "notes/%1b[2J", "private%2fsecret.md", "PRIVATE/secret.md", "./private/secret.md",
    "notes//../private/secret.md", "notes/./../private/secret.md", "\\\\server\\share",
]

QUERY_ATTACKS = [
    ("(" * 1000 + "retrieval" + ")" * 1000, False, None),
    ("(" * 2000, False, None),
    ("(-" * 1999 + "x", False, None),
    ("((a) OR (" * 400 + "b", False, None),
    ("\"" * 3999, False, None),
    ("-:1" + "-1" * 26 + "-", False, None),
    ("sha256:*", False, None),
    ("path:private", False, None),
    ("kind:paper OR dir:private", False, None),
    ("text:*", False, None),
    ("title:[a TO z] AND authors:{a TO z}", False, None),
    ("/.*/", False, None),
    ("retrieval^1e308 sparse^-5 dense~999999999", False, None),
    ("(" * 1998 + ")" * 1998 + "x" * 3, False, None),
    ("x" * 4001, True, "too long"),
    ("(" * 50000, True, "too long"),
    ("\u0000\u001b]52;c;aGk=\u0007", False, None),
    ("TOPSECRET", False, None),
    ("TOPSECRET-OUT", False, None),
]

WRONG_ARGS = [
    ("context_search", {}),
    ("context_search", {"query": 5}),
    ("context_search", {"query": "x", "limit": -1}),
    ("context_search", {"query": "x", "limit": 10**30}),
    ("context_search", {"query": "x", "paths": "notes"}),
    ("context_search", {"query": "x", "paths": ["notes"] * 300}),
    ("context_search", {"query": "x", "verbose": True}),
    ("context_read", {"path": ["notes/TODO"]}),
    ("context_read", {"path": "notes/TODO", "mode": "everything"}),
    ("context_read", {"path": "notes/TODO", "page": -3}),
    ("context_read", {"path": "notes/TODO", "page": 2**40}),
    ("context_read", {"path": "notes/TODO", "start": -1}),
    ("context_read", {"path": "notes/TODO", "maxChars": 0}, None),
    ("context_read", {"path": "notes/TODO", "section": {"x": 1}}, None),
    ("context_read", {"path": FIX["dense"], "mode": "section", "section": "x" * 3000}),
    ("context_read", {"path": FIX["dense"], "mode": "excerpt", "quote": "retrieval " * 10000}),
    ("context_read", {"path": FIX["dense"], "mode": "page", "page": 0}),
    ("context_read", {"path": FIX["dense"], "mode": "region", "page": 1, "start": 10, "end": 2}),
    ("paper_relations", {"path": FIX["dense"], "kinds": ["everything"]}),
    ("paper_relations", {"path": FIX["dense"], "limit": "many"}),
    ("paper_relations", {"path": "notes/TODO"}),
    ("no_such_tool", {"x": 1}),
]


async def sdk_attacks():
    async with stdio_client(server(FIX["grant"])) as (read, write):
        async with ClientSession(read, write) as s:
            await s.initialize()
            tools = await s.list_tools()
            names = sorted(t.name for t in tools.tools)
            if names != ["context_read", "context_search", "paper_relations"]:
                fail("tools/list", f"unexpected tools {names}")
            # Warm up: everything granted reads (the server caches its checks).
            for p in FIX["swappable"] + [FIX["dense"], FIX["layout"]]:
                await call(s, "context_read", {"path": p, "mode": "full"}, expect_error=False)

            for p in PATH_ATTACKS:
                await call(s, "context_read", {"path": p})
                await call(s, "context_read", {"path": p, "mode": "full"})
            for p in ["private", "../", "/tmp", ".agentero", "notes/link-in.md", "papers/citeweave/paper.pdf"]:
                await call(s, "context_search", {"query": "secret", "paths": [p]})
            await call(s, "paper_relations", {"path": "papers/citeweave/paper.pdf"})
            await alive(s, "path attacks")

            # Item 1: queries that used to kill the server, and their relatives.
            for q, refused, want in QUERY_ATTACKS:
                r = await call(s, "context_search", {"query": q}, expect_error=refused, want=want)
                if r is not None and not refused and not isinstance(r, Exception):
                    text = flat(r)
                    if "cannot be read" in text:
                        fail(f"query {q[:30]!r}", "reported as an unreadable index")
                    for c in structured(r).get("cards", []):
                        if c.get("path", "").startswith("private"):
                            leaks.append(f"query {q[:30]!r}: a card from private/")
                await alive(s, f"query {q[:40]!r}")

            # Item 6: bad arguments, caps and the 64-bit region.
            for tool, args, *expect in WRONG_ARGS:
                # A few are harmless (a cap of 0 is read as 1; `section` is ignored outside
                # section mode): an answer either way, never a leak.
                await call(s, tool, args, expect_error=expect[0] if expect else True)
                await alive(s, f"{tool} {str(args)[:40]}")
            await call(
                s,
                "context_read",
                {"path": "notes/TODO", "mode": "region", "start": 10**18},
                want="line 1000000000000000000 does not exist",
            )
            started = time.monotonic()
            await call(
                s,
                "context_read",
                {"path": FIX["dense"], "mode": "excerpt", "quote": "retrieval " * 210_000},
                want="at most",
            )
            if time.monotonic() - started > 10:
                fail("2 MB quote", "took more than 10 s")
            await alive(s, "2 MB quote")

            # Item 5: granted sources replaced after the grant was written.
            secret = FIX["secret_in"]
            os.remove(FIX["abs"]["notes/a.md"])
            os.symlink(secret, FIX["abs"]["notes/a.md"])
            os.remove(FIX["abs"]["notes/b.md"])
            os.link(secret, FIX["abs"]["notes/b.md"])
            with open(FIX["abs"]["notes/c.md"], "w") as f:
                f.write("# C\npassage retrieval, REWRITTEN\n")
            os.remove(FIX["abs"]["notes/link.md"])
            os.symlink(secret, FIX["abs"]["notes/link.md"])
            os.remove(FIX["abs"][FIX["layout"]])
            os.symlink(FIX["other_pdf"], FIX["abs"][FIX["layout"]])
            for p in FIX["swappable"] + [FIX["layout"]]:
                for args in [
                    {"path": p},
                    {"path": p, "mode": "full"},
                    {"path": p, "mode": "excerpt", "quote": "passage retrieval"},
                    {"path": p + "#line=1,2"},
                    {"path": p, "mode": "region", "start": 1, "end": 3},
                ]:
                    await call(s, "context_read", args, want="changed_since_grant")
                await call(s, "context_search", {"query": "retrieval", "paths": [p]}, want="changed_since_grant")
            r = await call(s, "context_search", {"query": "passage retrieval TOPSECRET"}, expect_error=False)
            if r is not None and not isinstance(r, Exception):
                changed = sorted(structured(r).get("changedSinceGrant", []))
                # The folder too: a file in it became a link, which its listing leaves out.
                if changed != sorted(FIX["swappable"] + [FIX["layout"], "notes"]):
                    fail("search after the swaps", f"changedSinceGrant = {changed}")
            await call(s, "context_read", {"path": FIX["dense"], "mode": "page", "page": 1}, expect_error=False)
            await alive(s, "swaps")

    # A prompt-only grant: no tools at all.
    async with stdio_client(server(FIX["prompt_only_grant"])) as (read, write):
        async with ClientSession(read, write) as s:
            await s.initialize()
            tools = await s.list_tools()
            global attacks
            attacks += 1
            if tools.tools:
                fail("prompt-only tools/list", f"lists {[t.name for t in tools.tools]}")
            await call(s, "context_read", {"path": "notes/TODO"}, want="tool_not_allowed")


# Raw JSON-RPC lines

class Raw:
    def __init__(self, grant):
        self.p = subprocess.Popen(
            [BIN, "--agentero-context-mcp", grant],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=FIX["env"],
        )
        self.buf = b""

    def send(self, data):
        self.p.stdin.write(data + b"\n")
        self.p.stdin.flush()

    def recv(self, timeout=10):
        deadline = time.monotonic() + timeout
        while b"\n" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            r, _, _ = select.select([self.p.stdout], [], [], left)
            if not r:
                return None
            chunk = os.read(self.p.stdout.fileno(), 1 << 16)
            if not chunk:
                return None
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return json.loads(line)

    def close(self):
        try:
            self.p.stdin.close()
        except Exception:
            pass
        try:
            self.p.wait(10)
        except subprocess.TimeoutExpired:
            self.p.kill()


def raw_attacks():
    global attacks
    r = Raw(FIX["grant"])
    init = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}}
    r.send(json.dumps(init).encode())
    if not r.recv():
        fail("raw initialize", "no answer")
        return
    r.send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')
    cases = [
        (b"hello", -32700, None),
        (b"{", -32700, None),
        (b"[" * 200 + b"]" * 200, -32700, None),
        (b"[" * 100000, -32700, None),
        (b'{"jsonrpc":"2.0","id":41,"method":"ping","params":{"x":' + b"[" * 5000 + b"]" * 5000 + b"}}", -32700, 41),
        (b'{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"context_read","arguments":{"path":"\\ud800"}}}', -32700, 42),
        (b'{"jsonrpc":"2.0","id":43,"method":"tools/call","params":{"name":"context_read","arguments":{"path":"\\udc00x"}}}', -32700, 43),
        (b'{"jsonrpc":"2.0","id":44,"method":"ping","x":"\xff\xfe"}', -32700, 44),
        (b"\x00\x01\x02", -32700, None),
        (b"[]", -32600, None),
        (b'[{"jsonrpc":"2.0","id":45,"method":"ping"}]', -32600, None),
        (b"42", -32600, None),
        (b'"just a string"', -32600, None),
        (b'{"jsonrpc":"2.0","id":46,"method":5}', -32600, 46),
        (b'{"jsonrpc":"1.0","id":47,"method":"ping"}', -32600, 47),
        (b'{"id":48,"method":"ping"}', -32600, 48),
        (b'{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}', -32600, None),
        (b'{"jsonrpc":"2.0","id":[1],"method":"ping"}', -32600, None),
        (b'{"jsonrpc":"2.0","id":49}', -32600, 49),
        (b'{"jsonrpc":"2.0","id":"s50","method":"tools/call","params":{"name":5}}', -32602, "s50"),
        (b'{"jsonrpc":"2.0","id":51,"method":"tools/call","params":{"name":"context_read","arguments":"x"}}', -32602, 51),
        (b'{"jsonrpc":"2.0","id":52,"method":"tools/call","params":[1]}', -32602, 52),
        (b'{"jsonrpc":"2.0","id":53,"method":"tools/call"}', -32602, 53),
        (b'{"jsonrpc":"2.0","id":54,"method":"agentero/nope"}', -32601, 54),
        (b'\xef\xbb\xbf{"jsonrpc":"2.0","id":55,"method":"ping"}\r', None, 55),
    ]
    for line, code, want_id in cases:
        attacks += 1
        r.send(line)
        got = r.recv()
        what = f"raw {line[:50]!r}"
        if got is None:
            fail(what, "no answer")
            if r.p.poll() is not None:
                crashes.append(what)
                return
            continue
        if code is None:
            if "result" not in got or got.get("id") != want_id:
                fail(what, f"expected a result for id {want_id}, got {got}")
            continue
        if got.get("error", {}).get("code") != code or got.get("id", "missing") != want_id:
            fail(what, f"expected {code} with id {want_id!r}, got {got}")
        check_leak(what, json.dumps(got))

    # A 50 MB request: refused with its id, at once, and the server carries on.
    attacks += 1
    big = b'{"jsonrpc":"2.0","id":60,"method":"tools/call","params":{"name":"context_read","arguments":{"path":"notes/TODO","quote":"' + b"a" * (50 << 20) + b'"}}}'
    started = time.monotonic()
    writer = threading.Thread(target=r.send, args=(big,))
    writer.start()
    got = r.recv(timeout=60)
    writer.join()
    if not got or got.get("error", {}).get("code") != -32600 or got.get("id") != 60:
        fail("50 MB request", f"got {got}")
    if time.monotonic() - started > 20:
        fail("50 MB request", f"took {time.monotonic() - started:.1f} s")

    # A burst of 500 requests, pipelined: 500 answers.
    attacks += 1
    for n in range(500):
        r.send(json.dumps({"jsonrpc": "2.0", "id": 1000 + n, "method": "ping"}).encode())
    ids = set()
    for _ in range(500):
        got = r.recv(timeout=20)
        if not got:
            break
        ids.add(got.get("id"))
    if ids != set(range(1000, 1500)):
        fail("500 pipelined pings", f"{len(ids)} answered")

    attacks += 1
    r.send(b'{"jsonrpc":"2.0","id":99,"method":"tools/call","params":{"name":"context_read","arguments":{"path":"notes/TODO"}}}')
    got = r.recv()
    if not got or "result" not in got:
        crashes.append(f"after the raw attacks: {got}")
    r.close()


async def main():
    try:
        await sdk_attacks()
    except Exception as e:
        crashes.append(f"SDK session ended: {e!r}")
    raw_attacks()
    print(json.dumps({"attacks": attacks, "leaks": leaks, "crashes": crashes, "failures": failures}))


asyncio.run(main())
