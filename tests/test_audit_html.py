#!/usr/bin/python3
"""The HTML report of `locus audit transcripts`, in a real browser: headless
Chromium (Debian `chromium`) loads it, the summary's figures are read back
from the DOM and must match the JSONL of the same run, the filters (set
from the URL) and the see-through tree work, nothing is fetched, and a
screenshot is kept as a test artefact (LOCUS_ARTIFACT_DIR)."""
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from audit_common import BIN, ROOT, SAMPLES, check, finish  # noqa: E402

ART = os.environ.get("LOCUS_ARTIFACT_DIR", ".")


browser = shutil.which("chromium") or shutil.which("chromium-browser")
if not browser:
    print("SKIP: no chromium (Debian package chromium, .ci/setup installs it)")
    sys.exit(77)

tmp = tempfile.mkdtemp()
profile = os.path.join(tmp, "profile")


def chromium(*args):
    p = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu",
                        "--no-first-run", "--user-data-dir=" + profile,
                        "--hide-scrollbars", *args],
                       capture_output=True, text=True, timeout=120)
    return p


def dom(fragment=""):
    p = chromium("--dump-dom", "file://" + html + fragment)
    check(p.returncode == 0 and 'data-ready="1"' in p.stdout,
          "chromium ran the page's script (%s): %s" % (fragment, p.stderr[-300:]))
    return p.stdout


html = os.path.join(tmp, "report.html")
jsonl = os.path.join(tmp, "report.jsonl")
p = subprocess.run([BIN, "audit", "transcripts", "--format", "html", "-o", html,
                    "--format", "jsonl", "-o", jsonl, "."], cwd=SAMPLES,
                   capture_output=True, text=True, timeout=120)
check(p.returncode == 0, "audit exits 0: %s" % p.stderr)
with open(jsonl) as f:
    recs = [json.loads(l) for l in f]
calls = [r for r in recs if r["type"] == "call"]
summary = [r for r in recs if r["type"] == "summary"][0]

# self-contained: nothing loaded from anywhere
with open(html) as f:
    page = f.read()
check(not re.search(r"<(script|img|link|iframe)[^>]+(src|href)=", page, re.I),
      "no external script, image, style or frame")
check("default-src 'none'" in page, "a CSP that forbids fetches")

d = dom()


def fig(name):
    m = re.search(r'id="s-%s">(\d+)<' % re.escape(name), d)
    return int(m.group(1)) if m else None


outcomes = collections.Counter(c["outcome"] for c in calls)
check(fig("calls") == len(calls), "calls %s vs %d" % (fig("calls"), len(calls)))
for oc in ("allow", "require_human", "deny"):
    check(fig(oc) == outcomes[oc], "%s %s vs %d" % (oc, fig(oc), outcomes[oc]))
check(fig("dangerous") == sum(1 for c in calls if c["dangerous"] and c["outcome"] == "allow"),
      "dangerous allowed")
check(fig("files") == summary["files"] and fig("unknown") == summary["unknown_lines"]
      and fig("malformed") == summary["malformed_lines"], "files and lines")
sessions = {c["session"] or c["file"] for c in calls}
check(fig("sessions") == len(sessions), "sessions %s vs %d" % (fig("sessions"), len(sessions)))


def table(attr):
    return {m.group(1): int(m.group(2)) for m in re.finditer(
        r'<tr %s="([^"]+)">.*?<td class="n">(\d+)</td><td class="barcell">' % attr, d)}


kinds = collections.Counter(c["kind"] or "none" for c in calls)
tags = collections.Counter(t for c in calls for t in c["tags"])
agents = collections.Counter(c["agent"] for c in calls)
check(table("data-kind") == dict(kinds), "by kind %s vs %s" % (table("data-kind"), dict(kinds)))
check(table("data-tag") == dict(tags), "by tag")
check(table("data-agent") == dict(agents), "by agent")
status_name = {"ok": "ran", "error": "failed", "cancelled": "declined", None: "no result"}
statuses = collections.Counter(status_name[c["status"]] for c in calls)
check(table("data-status") == dict(statuses), "by result %s vs %s" % (table("data-status"), dict(statuses)))
held = re.search(r'<table id="held">.*?</table>', d, re.S).group(0)
check(held.count("<tr data-outcome=") == sum(1 for c in calls if c["outcome"] != "allow" or c["dangerous"]),
      "held-or-denied list")
check(d.count('class="session"') == len(sessions), "one timeline per session")
check(d.count('class="dot ') == len(calls), "one timeline dot per call")
check('id="parts"' in d and "calls 1 to %d" % len(calls) in d, "the full table's one part is linked")
check(int(re.search(r'id="shown">(\d+)<', d).group(1)) == len(calls), "all rows shown")

# the filters, set from the URL
for frag, want in [("#outcome=deny", outcomes["deny"]),
                   ("#tag=exec:never&q=rm", sum(1 for c in calls if "exec:never" in c["tags"]
                                              and "rm" in (c["text"] + " " + c["reason"] + " " + c["tool"]).lower())),
                   ("#session=" + calls[0]["session"], sum(1 for c in calls if c["session"] == calls[0]["session"]))]:
    dd = dom(frag)
    rows = re.search(r'<table id="calls">.*?</table>', dd, re.S).group(0)
    n = rows.count('<tr class="call"')
    check(n == want and int(re.search(r'id="shown">(\d+)<', dd).group(1)) == want,
          "filter %s: %d rows, want %d" % (frag, n, want))
# the result column and its filter: "dangerous and actually ran" is
# outcome=dangerous&status=ran; declined calls are listed as such
for frag, want in [("#status=declined", sum(1 for c in calls if c["status"] == "cancelled")),
                   ("#outcome=deny&status=ran", sum(1 for c in calls if c["outcome"] == "deny"
                                                    and c["status"] == "ok"))]:
    dd = dom(frag)
    n = re.search(r'<table id="calls">.*?</table>', dd, re.S).group(0).count('<tr class="call"')
    check(n == want, "filter %s: %d rows, want %d" % (frag, n, want))
# Write/Read rows name the tool; an MCP call's command cell is filled
held_rows = re.findall(r'<tr data-outcome="[^"]+" data-status="[^"]+">(.*?)</tr>', held, re.S)
check(all("<b>" in r for r in held_rows), "held rows name their tool")
mcp = [c for c in calls if c["tool"].startswith("mcp__")]
check(mcp and all(c["text"] for c in mcp), "MCP calls have a command text: %s" % [c["text"] for c in mcp])
# the riskiest commands: distinct, each with its first place
risky = re.search(r'<table id="riskiest">.*?</table>', d, re.S).group(0)
texts = re.findall(r'<b>[^<]*</b> <span class="cmd">([^<]*)</span>', risky)
check(texts and len(texts) == len(set(texts)), "riskiest commands distinct: %s" % texts)
check(re.search(r'\.jsonl:\d+</td>', risky), "riskiest commands located")

# the see-through tree of `rm -rf build && sudo rm -rf /`: rm, then sudo with its rm inside
dd = dom("#q=sudo&open=1")
tree = re.search(r'<tr class="detail">.*?</tr>', dd, re.S)
check(tree and re.search(r'<li data-index="1"><code>sudo rm -rf /</code><ul class="tree">'
                         r'<li data-index="2"><code>rm -rf /</code>', tree.group(0)),
      "nested tree: %s" % (tree.group(0)[:400] if tree else None))

# the screenshot, kept as an artefact and looked at by a person
shot = os.path.join(ART, "audit-report.png")
p = chromium("--window-size=1400,2600", "--screenshot=" + shot, "file://" + html)
ok = os.path.isfile(shot) and os.path.getsize(shot) > 20000
if ok:
    with open(shot, "rb") as f:
        ok = f.read(8) == b"\x89PNG\r\n\x1a\n"
check(ok, "screenshot written: %s" % shot)
print("screenshot:", shot)

# ---- a larger generated input (bench/gen_transcripts.py): past the page's
# row cap, the summary still counts every call, the findings come first,
# the full table is split into plain files beside the page, and the first
# screen is drawn (a screenshot; no time is asserted: the figure at 200 MB
# is a measurement in docs/audit.md) ----
big = os.path.join(tmp, "big")
p = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "gen_transcripts.py"), big, "6"],
                   capture_output=True, text=True, timeout=300)
check(p.returncode == 0, "generator: %s" % p.stderr[-300:])
html = os.path.join(tmp, "big.html")
jsonl = os.path.join(tmp, "big.jsonl")
p = subprocess.run([BIN, "audit", "transcripts", "--format", "html", "-o", html, "--format", "jsonl",
                    "-o", jsonl, big], capture_output=True, text=True, timeout=600)
check(p.returncode == 0, "big audit exits 0: %s" % p.stderr[-300:])
with open(jsonl) as f:
    recs = [json.loads(l) for l in f]
summary = [r for r in recs if r["type"] == "summary"][0]
check(summary["calls"] > 5000, "more calls than the page holds: %d" % summary["calls"])
parts = sorted(n for n in os.listdir(tmp) if n.startswith("big-calls-"))
check(len(parts) == (summary["calls"] + 1999) // 2000, "parts of 2,000 calls: %s" % parts)
rows_in_parts = 0
for n in parts:
    with open(os.path.join(tmp, n)) as f:
        t = f.read()
    rows_in_parts += t.count("<tr><td>")
    check("<script" not in t and "default-src 'none'" in t, "part %s is plain and fetches nothing" % n)
check(rows_in_parts == summary["calls"], "every call in the parts: %d" % rows_in_parts)
check(os.path.getsize(html) < 8 << 20, "the page stays small: %d bytes" % os.path.getsize(html))
d = dom()
check(fig("calls") == summary["calls"] and fig("deny") == summary["outcomes"]["deny"] and
      fig("require_human") == summary["outcomes"]["require_human"], "big: figures are the totals")
check(d.count('href="big-calls-') == len(parts), "big: the page links every part")
shot = os.path.join(ART, "audit-report-big.png")
p = chromium("--window-size=1400,900", "--screenshot=" + shot, "file://" + html)
check(os.path.isfile(shot) and os.path.getsize(shot) > 20000, "big: first screen captured: %s" % shot)
print("screenshot:", shot)
shutil.rmtree(tmp, ignore_errors=True)
finish()
