"""An independent client of `agentero serve`: the MCP Python SDK (pinned by .ci/run).

    python3 vault_mcp_client.py http URL TOKEN MODE SCENARIO [ARG]
    python3 vault_mcp_client.py stdio AGENTERO_BINARY VAULT MODE SCENARIO [ARG]

MODE is the SDK's connect mode (`auto` negotiates the 2026-07-28 protocol, `legacy` the
initialize handshake). SCENARIO is `suite` (every tool, resources, refusals on the demo vault),
`unauthorized` (connecting must fail), `concurrency` (50 clients x 100 calls), `manual` (page
through a long manual with `next`; ARG is its path), `quotes` (ARG is a JSON file of
{paper, page, quote}) or `steady` (ARG calls of vault_search, one after another, each timed;
the report has their latencies in ms). Checks raise AssertionError; the last stdout line is a JSON report.
"""

import asyncio
import json
import sys

import httpx2
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

TOOLS = ["vault_search", "paper_list", "paper_read", "paper_relations", "file_read", "locate_quote"]


def connect(argv, mode):
    if argv[0] == "http":
        url, token = argv[1], argv[2]
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        http = httpx2.AsyncClient(headers=headers, timeout=60)
        return Client(streamable_http_client(url, http_client=http), mode=mode)
    binary, vault = argv[1], argv[2]
    params = StdioServerParameters(command=binary, args=["serve", "--stdio", "--refresh", "0", vault])
    return Client(params, mode=mode)


async def call(c, tool, args):
    r = await c.call_tool(tool, args)
    return r


def text_of(r):
    return "".join(getattr(b, "text", "") for b in r.content)


async def ok(c, tool, args):
    r = await call(c, tool, args)
    assert not r.is_error, f"{tool} {args} failed: {text_of(r)}"
    s = r.structured_content
    assert isinstance(s, dict), f"{tool}: no structured content"
    return s, text_of(r)


async def refused(c, tool, args):
    r = await call(c, tool, args)
    assert r.is_error, f"{tool} {args} should be refused, got: {text_of(r)[:300]}"
    return text_of(r)


def same_data(s, text, keys):
    """The text carries the structured values that matter (URIs, paths, pages)."""
    for k in keys:
        v = s.get(k)
        if v is None:
            continue
        assert str(v) in text, f"{k}={v!r} is in structuredContent but not in the text"


async def suite(c):
    report = {}
    assert c.instructions and "papers/x/paper.pdf#page=3" in c.instructions, c.instructions
    assert "agentero://vault/" in c.instructions
    tools = (await c.list_tools()).tools
    names = [t.name for t in tools]
    assert names == TOOLS, names
    for t in tools:
        assert t.output_schema and t.output_schema.get("type") == "object", t.name
        assert t.annotations and t.annotations.read_only_hint, t.name
    report["tools"] = names

    # vault_search, with each filter.
    s, text = await ok(c, "vault_search", {"query": "gutter"})
    assert s["cards"], "no card for gutter"
    for card in s["cards"]:
        assert card["citationUri"] in text
    assert any(card["path"] == "papers/layoutflow/paper.pdf" for card in s["cards"]), s
    s, _ = await ok(c, "vault_search", {"query": "gutter", "kind": "file"})
    assert s["cards"] and all(card["kind"] == "file" for card in s["cards"]), s
    s, _ = await ok(c, "vault_search", {"query": "gutter", "folder": "papers"})
    assert s["cards"] and all(card["path"].startswith("papers/") for card in s["cards"]), s
    s, _ = await ok(c, "vault_search", {"query": "retrieval", "yearFrom": 1900, "yearTo": 2009})
    assert all(card["kind"] == "paper" for card in s["cards"]), s
    s, _ = await ok(c, "vault_search", {"query": "retrieval", "limit": 2})
    assert len(s["cards"]) <= 2
    await refused(c, "vault_search", {"query": "x", "folder": "papers/layoutflow/paper.pdf"})
    await refused(c, "vault_search", {"query": "x", "bogus": 1})

    # paper_list, paged with next.
    s, text = await ok(c, "paper_list", {"limit": 3})
    total = s["total"]
    assert total >= 8, s
    seen = [p["path"] for p in s["papers"]]
    assert s["truncated"] and s["next"] == {"offset": 3, "limit": 3}, s
    assert "paper_list" in text and all(p in text for p in seen)
    while "next" in s:
        s, _ = await ok(c, "paper_list", s["next"])
        seen += [p["path"] for p in s["papers"]]
    assert len(seen) == total == len(set(seen)), seen
    s, _ = await ok(c, "paper_list", {"query": "layoutflow"})
    assert [p["path"] for p in s["papers"]] == ["papers/layoutflow/paper.pdf"], s
    assert s["papers"][0]["year"] == 2021 and s["papers"][0]["pages"] >= 1, s
    report["papers"] = total

    # paper_read: each mode.
    lf = "papers/layoutflow/paper.pdf"
    s, text = await ok(c, "paper_read", {"path": lf})
    assert s["mode"] == "metadata" and s["pages"] >= 2 and s["title"].startswith("LayoutFlow"), s
    pages = s["pages"]
    s, text = await ok(c, "paper_read", {"path": lf, "mode": "page", "page": 1})
    assert s["page"] == 1 and s["text"] and s["next"] == {"path": lf, "mode": "page", "page": 2}, s
    same_data(s, text, ["citationUri", "path"])
    s, _ = await ok(c, "paper_read", {"path": lf + "#page=2"})
    assert s["mode"] == "page" and s["page"] == 2
    s, text = await ok(c, "paper_read", {"path": lf, "mode": "pages", "page": 1, "endPage": 2})
    assert "[page 1]" in s["text"] and "[page 2]" in s["text"], s["text"][:200]
    s, _ = await ok(c, "paper_read", {"path": lf, "mode": "pages", "page": 1, "endPage": 2, "maxChars": 300})
    assert s["truncated"] and s["next"]["mode"] == "pages" and s["next"]["endPage"] == 2, s
    s, _ = await ok(c, "paper_read", {"path": lf, "mode": "excerpt", "quote": "A gutter is a vertical strip of whitespace"})
    excerpt_page = s["page"]
    assert "gutter" in s["text"].lower()
    s, _ = await ok(c, "paper_read", {"path": lf, "mode": "region", "page": 1, "start": 0, "end": 40})
    assert len(s["text"]) <= 40
    s, _ = await ok(c, "paper_read", {"path": lf, "mode": "full", "maxChars": 500})
    assert s["truncated"] and s["next"]["mode"] == "full"
    meta, _ = await ok(c, "paper_read", {"path": lf})
    if meta.get("sections"):
        sec = meta["sections"][0]["title"]
        s, _ = await ok(c, "paper_read", {"path": lf, "mode": "section", "section": sec})
        assert s["text"], s
    await refused(c, "paper_read", {"path": "notes/reading-list.md"})
    await refused(c, "paper_read", {"path": lf, "mode": "page", "page": pages + 1})

    # paper_relations.
    s, text = await ok(c, "paper_relations", {"path": lf})
    assert isinstance(s["cards"], list)
    for card in s["cards"]:
        if "citationUri" in card:
            assert card["citationUri"] in text

    # file_read: a file, lines, a folder.
    s, text = await ok(c, "file_read", {"path": "notes/extraction-pitfalls.md"})
    assert s["kind"] == "file" and "gutter" in s["text"], s
    s, _ = await ok(c, "file_read", {"path": "notes/extraction-pitfalls.md#line=1,3"})
    assert s["lines"] == [1, 3], s
    s, _ = await ok(c, "file_read", {"path": "notes"})
    names = [e["name"] for e in s["entries"]]
    assert "reading-list.md" in names and not any(n.startswith(".") for n in names), names
    await refused(c, "file_read", {"path": lf})
    await refused(c, "file_read", {"path": "notes/reading-list.md", "page": 2})

    # locate_quote: verbatim, and with ligatures, hyphenation and line breaks of another extractor.
    s, text = await ok(c, "locate_quote", {"quote": "A gutter is a vertical strip of whitespace at least 1.5 times the median space width"})
    assert s["found"] and s["matches"][0]["path"] == lf and s["matches"][0]["page"] == excerpt_page, s
    assert s["matches"][0]["citationUri"] in text
    s, _ = await ok(c, "locate_quote", {"quote": "A gut-\nter  is a vertical\n strip of white-\nspace at least 1.5 times the median space width"})
    assert s["found"] and s["matches"][0]["path"] == lf, s
    s, _ = await ok(c, "locate_quote", {"quote": "this sentence occurs in no paper of the vault at all, anywhere"})
    assert not s["found"] and s["matches"] == [], s
    s, _ = await ok(c, "locate_quote", {"quote": "A gutter is a vertical strip of whitespace", "paper": lf})
    assert s["found"] and s["matches"][0]["page"] == excerpt_page
    await refused(c, "locate_quote", {"quote": "ab"})

    # Outside the vault, hidden entries and the app's state are refused.
    for bad in ["../outside.md", "/etc/passwd", ".secret.md", "notes/.hidden.txt", ".agentero/serve-token",
                ".agentero/catalog.json", "notes/escape.md", "notes/%2e%2e/x", "papers/../../etc/passwd"]:
        for tool, args in [("file_read", {"path": bad}), ("paper_read", {"path": bad})]:
            msg = await refused(c, tool, args)
            assert "TOP-SECRET" not in msg and "agt_" not in msg, msg
    await refused(c, "vault_search", {"query": "x", "folder": ".agentero"})
    await refused(c, "locate_quote", {"quote": "some words of a quote", "paper": ".agentero/serve-token"})
    s, _ = await ok(c, "vault_search", {"query": "TOP-SECRET"})
    assert s["cards"] == [], s

    # Resources: papers listed (paged), a page's text.
    listed = []
    cursor = None
    while True:
        res = await c.list_resources(cursor=cursor) if cursor else await c.list_resources()
        listed += [str(r.uri) for r in res.resources]
        cursor = res.next_cursor
        if not cursor:
            break
    assert len(listed) == total and all(u.startswith("agentero://vault/") for u in listed), listed
    templates = (await c.list_resource_templates()).resource_templates
    assert any("?page=" in t.uri_template for t in templates)
    rr = await c.read_resource(f"agentero://vault/{lf}?page=1")
    page1, _ = await ok(c, "paper_read", {"path": lf, "mode": "page", "page": 1})
    assert rr.contents[0].text == page1["text"] and rr.contents[0].mime_type == "text/plain"
    rr = await c.read_resource(f"agentero://vault/{lf}")
    assert json.loads(rr.contents[0].text)["pages"] == pages, rr.contents[0].text[:200]
    try:
        await c.read_resource("agentero://vault/.agentero/serve-token")
        raise AssertionError("the token file was served as a resource")
    except AssertionError:
        raise
    except Exception:
        pass
    report["resources"] = len(listed)
    return report


async def concurrency(argv, mode, clients=50, calls=100):
    quote = "A gutter is a vertical strip of whitespace at least 1.5 times the median space width"
    plan = [
        ("vault_search", {"query": "retrieval"}),
        ("paper_read", {"path": "papers/layoutflow/paper.pdf", "mode": "page", "page": 1}),
        ("locate_quote", {"quote": quote}),
        ("paper_list", {"limit": 5}),
        ("file_read", {"path": "notes/reading-list.md"}),
        ("paper_read", {"path": "papers/dense-vs-sparse/paper.pdf"}),
    ]
    errors = []

    async def one(i):
        done = 0
        async with connect(argv, mode) as c:
            for k in range(calls):
                tool, args = plan[(i + k) % len(plan)]
                try:
                    r = await c.call_tool(tool, args)
                    if r.is_error:
                        errors.append(f"{tool}: {text_of(r)[:200]}")
                    else:
                        done += 1
                except Exception as e:  # noqa: BLE001 - every failure counts
                    errors.append(f"{tool}: {type(e).__name__}: {e}")
        return done

    done = await asyncio.gather(*(one(i) for i in range(clients)), return_exceptions=True)
    failed = [d for d in done if isinstance(d, BaseException)]
    ok_calls = sum(d for d in done if isinstance(d, int))
    assert not failed, f"{len(failed)} clients failed: {failed[:3]}"
    assert not errors, f"{len(errors)} errors: {errors[:5]}"
    assert ok_calls == clients * calls, ok_calls
    return {"clients": clients, "calls": ok_calls, "errors": 0}


async def manual(c, path):
    meta, _ = await ok(c, "paper_read", {"path": path})
    pages = meta["pages"]
    # Page by page, following `next`.
    args = {"path": path, "mode": "page", "page": 1}
    read = []
    longest = 0
    while args:
        s, text = await ok(c, "paper_read", args)
        longest = max(longest, len(text))
        if args.get("mode") == "page":
            read.append(s["page"])
        args = s.get("next")
    assert read == list(range(1, pages + 1)), (len(read), pages)
    # The whole text in budget-sized steps, following `next`.
    args = {"path": path, "mode": "full"}
    steps, seen_pages = 0, set()
    while args:
        s, text = await ok(c, "paper_read", args)
        steps += 1
        longest = max(longest, len(text))
        for line in s["text"].splitlines():
            if line.startswith("[page ") and line.endswith("]"):
                # "[page 9]", or "[page 9 · OCR (tesseract …)]" on a scanned page.
                seen_pages.add(int(line[6:-1].split(" ")[0]))
        args = s.get("next")
        assert steps < 10 * pages, "the cursor does not advance"
    assert seen_pages == set(range(1, pages + 1)), (len(seen_pages), pages)
    return {"pages": pages, "full_steps": steps, "longest_text": longest}


async def quotes(c, path):
    cases = json.load(open(path))
    hits, misses = 0, []
    for case in cases:
        s, _ = await ok(c, "locate_quote", {"quote": case["quote"]})
        m = s["matches"][0] if s["matches"] else None
        if m and m["path"] == case["paper"] and m["page"] == case["page"]:
            hits += 1
        else:
            misses.append({"want": [case["paper"], case["page"]], "got": m and [m["path"], m["page"]],
                           "quote": case["quote"][:80]})
    return {"cases": len(cases), "hits": hits, "misses": misses}


async def steady(c, calls):
    import time
    latencies = []
    for k in range(calls):
        started = time.perf_counter()
        s, _ = await ok(c, "vault_search", {"query": ["retrieval", "gutter", "layout"][k % 3], "limit": 2})
        latencies.append((time.perf_counter() - started) * 1000.0)
        assert s["cards"], s
    return {"calls": len(latencies), "latencies_ms": latencies}


async def main():
    argv = sys.argv[1:]
    mode, scenario = argv[3], argv[4]
    arg = argv[5] if len(argv) > 5 else None
    if scenario == "unauthorized":
        try:
            async with connect(argv, mode) as c:
                await c.list_tools()
        except BaseException as e:  # noqa: BLE001 - the SDK raises its own error kinds
            text = repr(e)
            print(json.dumps({"refused": True, "error": text[:500]}))
            return
        raise AssertionError("connected without a valid token")
    if scenario == "concurrency":
        print(json.dumps(await concurrency(argv, mode)))
        return
    async with connect(argv, mode) as c:
        if scenario == "suite":
            report = await suite(c)
        elif scenario == "manual":
            report = await manual(c, arg)
        elif scenario == "quotes":
            report = await quotes(c, arg)
        elif scenario == "steady":
            report = await steady(c, int(arg or "20"))
        else:
            raise SystemExit(f"unknown scenario {scenario}")
        report["protocol"] = c.protocol_version
    print(json.dumps(report))


if __name__ == "__main__":
    asyncio.run(main())
