#!/usr/bin/python3
"""One answer per call, whatever the front end.

Every line of the golden corpus (corpus/shell), every everyday agent line
(corpus/everyday/agent-lines.jsonl) and each everyday line as Codex wraps
it (`/bin/zsh -lc "LINE"`, `bash -lc 'LINE'`, and the argv form
["bash","-lc",LINE]) goes through `locus gate` (tool bash) and every
`locus hook` flavour (Claude Code PreToolUse, Codex PreToolUse, Gemini
BeforeTool; --jsonl) under the same preset and workspace root, and the
outcomes must agree: allow, require_human or deny.  A hook's answer is
read back as an outcome: Claude deny/ask/allow-or-nothing, Codex deny
(a hold's reason says it waits for a person)/nothing, Gemini
deny/ask/allow-or-{}.  Each Codex-wrapped line must also get the answer
of the line it wraps.

The MCP server (`locus mcp --backend local`, so that its workspace is the
same host folder as gate's and the hooks') gets every call as a `bash`
tools/call with `"timeout": 0`, an argument the harness refuses only after
the gate has decided: a held or denied call comes back as the refusal JSON
with its outcome, an allowed one as the argument error, so nothing runs.
The server itself runs under `locus jail` with that folder as the root:
were the order ever to change, an allowed line would run confined, and the
answers would stop matching (the test fails, it does not pass).

Usage: test_frontends.py LOCUS SOURCE_ROOT
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

LOCUS, SRC = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_hook_jail import corpus_lines  # noqa: E402

FAILS = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        FAILS.append(what)


def shq(s):
    return "'" + s.replace("'", "'\\''") + "'"


def dq(s):
    return '"' + "".join("\\" + c if c in '"\\$`' else c for c in s) + '"'


def lines():
    out = []
    for l in corpus_lines():
        try:
            t = l.decode("utf-8")
        except UnicodeDecodeError:
            continue
        if "\0" not in t:
            out.append(("corpus", t, t))
    every = [json.loads(l) for l in open(os.path.join(
        SRC, "corpus", "everyday", "agent-lines.jsonl")) if l.strip()]
    for t in every:
        out.append(("everyday", t, t))
        out.append(("codex-zsh", "/bin/zsh -lc " + dq(t), t))
        out.append(("codex-bash", "bash -lc " + shq(t), t))
        out.append(("codex-argv", ["bash", "-lc", t], t))
    return out


def gate(cases, root, preset):
    text = "".join(json.dumps({"tool": "bash", "arguments": {
        "command": c if isinstance(c, str) else " ".join(shq(w) for w in c)
    }}) + "\n" for _, c, _ in cases)
    p = subprocess.run([LOCUS, "gate", "--preset", preset, "--root", root],
                       input=text.encode(), capture_output=True, timeout=1800)
    res = [json.loads(l) for l in p.stdout.decode().split("\n") if l]
    assert len(res) == len(cases), p.stderr[-400:]
    return [r["outcome"] for r in res]


def hook(agent, cases, root, preset):
    ev, tool = {"claude-code": ("PreToolUse", "Bash"),
                "codex": ("PreToolUse", "Bash"),
                "gemini": ("BeforeTool", "run_shell_command")}[agent]
    text = "".join(json.dumps({"hook_event_name": ev, "cwd": root,
                               "tool_name": tool,
                               "tool_input": {"command": c}}) + "\n"
                   for _, c, _ in cases)
    # --timeout: a decision's own limit (10 s) is for agents; under the
    # load of a shared machine one of 26,000 ASan calls went past it
    p = subprocess.run([LOCUS, "hook", agent, "--jsonl", "--preset", preset,
                        "--timeout", "300"],
                       input=text.encode(), capture_output=True, timeout=1800)
    res = [json.loads(l) for l in p.stdout.decode().split("\n") if l]
    assert len(res) == len(cases), p.stderr[-400:]
    out = []
    for r in res:
        a = r["answer"] or {}
        if agent == "gemini":
            d = a.get("decision")
            reason = a.get("reason", "")
        else:
            h = a.get("hookSpecificOutput", {})
            d = h.get("permissionDecision")
            reason = h.get("permissionDecisionReason", "")
        if r["exit"] != 0:
            out.append("deny")
        elif d == "deny" and "holds this call" in reason:
            out.append("require_human")
        elif d == "deny":
            out.append("deny")
        elif d == "ask":
            out.append("require_human")
        else:
            out.append("allow")
    return out


def mcp(cases, root, preset):
    """The MCP server's outcome for each case (see the docstring)."""
    p = subprocess.Popen([LOCUS, "jail", "--root", root, "--", LOCUS, "mcp",
                          "--backend", "local", "--root", root, "--preset",
                          preset],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)

    def ask(msg):
        p.stdin.write((json.dumps(msg) + "\n").encode())
        p.stdin.flush()
        line = p.stdout.readline()
        assert line, p.stderr.read()[-600:]
        return json.loads(line)

    ask({"jsonrpc": "2.0", "id": 0, "method": "initialize",
         "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                    "clientInfo": {"name": "frontends", "version": "1"}}})
    p.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
    out = []
    for i, (_, c, _) in enumerate(cases):
        cmd = c if isinstance(c, str) else " ".join(shq(w) for w in c)
        r = ask({"jsonrpc": "2.0", "id": i + 1, "method": "tools/call",
                 "params": {"name": "bash", "arguments": {
                     "command": cmd, "timeout": 0}}})
        text = (r.get("result", {}).get("content") or [{}])[0].get("text", "")
        try:
            ref = json.loads(text) if text.startswith("{") else {}
        except ValueError:
            ref = {}
        if isinstance(ref, dict) and ref.get("outcome"):
            out.append(ref["outcome"])
        elif text.startswith("argument 'timeout' must be"):
            out.append("allow")
        else:
            out.append("unknown: " + json.dumps(r)[:200])
    p.stdin.close()
    p.wait(timeout=120)
    return out


def bwrap_works():
    return subprocess.run([LOCUS, "jail", "--", "true"],
                          capture_output=True).returncode == 0


def main():
    base = tempfile.mkdtemp(prefix="locus-frontends-", dir=os.getcwd())
    try:
        root = os.path.join(base, "project")
        os.makedirs(root)
        skipped = []
        cases = lines()
        for preset in ("standard", "strict"):
            g = gate(cases, root, preset)
            for agent in ("claude-code", "codex", "gemini"):
                h = hook(agent, cases, root, preset)
                diff = [(k, c, a, b) for (k, c, _), a, b in zip(cases, g, h)
                        if a != b]
                for k, c, a, b in diff[:8]:
                    print(f"  {preset} {agent} {k}: gate {a}, hook {b}: {c!r}")
                check(not diff, f"{preset}: gate and `hook {agent}` agree on "
                      f"{len(cases)} calls ({len(diff)} differ)")
            # the wrapped forms get the answer of the line they wrap
            plain = {c: o for (k, c, _), o in zip(cases, g) if k == "everyday"}
            wrapped = [(k, c, t, o) for (k, c, t), o in zip(cases, g)
                       if k.startswith("codex-") and plain.get(t) != o]
            for k, c, t, o in wrapped[:8]:
                print(f"  {preset} {k}: {o} but the line alone is "
                      f"{plain.get(t)}: {c!r}")
            check(not wrapped, f"{preset}: a Codex-wrapped everyday line gets "
                  f"the answer of the line itself ({len(wrapped)} differ)")
            if not bwrap_works():
                print("SKIP the MCP server: locus jail cannot run here")
                skipped.append(preset)
                continue
            m = mcp(cases, root, preset)
            diff = [(k, c, a, b) for (k, c, _), a, b in zip(cases, g, m)
                    if a != b]
            for k, c, a, b in diff[:8]:
                print(f"  {preset} mcp {k}: gate {a}, mcp {b}: {c!r}")
            check(not diff, f"{preset}: gate and `locus mcp` agree on "
                  f"{len(cases)} calls ({len(diff)} differ)")
    finally:
        shutil.rmtree(base, ignore_errors=True)
    print(f"{len(FAILS)} failed")
    return 1 if FAILS else 77 if skipped else 0


if __name__ == "__main__":
    sys.exit(main())
