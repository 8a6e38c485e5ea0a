#!/usr/bin/python3
"""The SARIF 2.1.0 report of `locus audit transcripts` on the recorded
sessions: accepted by Microsoft's SARIF validator, one rule per
outcome/tag family with help from docs/tags.md, levels by outcome, the
command in the message, locations into the transcript file and line."""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from audit_common import BIN, ROOT, SAMPLES, check, finish  # noqa: E402
import sarif_check  # noqa: E402



with tempfile.TemporaryDirectory() as tmp:
    sarif = os.path.join(tmp, "audit.sarif")
    jsonl = os.path.join(tmp, "audit.jsonl")
    p = subprocess.run([BIN, "audit", "transcripts", "--format", "sarif", "-o", sarif,
                        "--format", "jsonl", "-o", jsonl, "."], cwd=SAMPLES,
                       capture_output=True, text=True, timeout=120)
    check(p.returncode == 0, "audit exits 0: %s" % p.stderr)
    ok, out = sarif_check.validate(sarif)
    print(out)
    check(ok, "the SARIF validator accepts the report")
    with open(sarif) as f:
        doc = json.load(f)
    with open(jsonl) as f:
        calls = [json.loads(l) for l in f]
    calls = [c for c in calls if c["type"] == "call"]
    run = doc["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    results = run["results"]
    flagged = [c for c in calls if c["outcome"] != "allow" or c["dangerous"]]
    check(len(results) == len(flagged), "one result per held/denied call (%d vs %d)"
          % (len(results), len(flagged)))
    ids = [r["id"] for r in rules]
    check(len(ids) == len(set(ids)), "rule ids unique")
    check("deny/exec:never" in ids and "require_human/exec:destructive" in ids,
          "families: %s" % ids)
    never = rules[ids.index("deny/exec:never")]
    check("never-allow floor" in never["shortDescription"]["text"]
          and "recursive delete" in never["help"]["text"],
          "help text from docs/tags.md: %s" % never["help"]["text"][:120])
    level = {"deny": "error", "require_human": "warning", "allow": "note"}
    for r, c in zip(results, flagged):
        loc = r["locations"][0]["physicalLocation"]
        check(r["level"] == level[c["outcome"]], "level of %s" % c["text"])
        check(rules[r["ruleIndex"]]["id"] == r["ruleId"], "ruleIndex matches")
        check(r["ruleId"] == c["outcome"] + "/" + c["family"], "ruleId of %s" % c["text"])
        check(c["text"][:200] in r["message"]["text"], "command in the message")
        check(loc["region"]["startLine"] == c["line"], "line of %s" % c["text"])
        check(os.path.isfile(os.path.join(SAMPLES, loc["artifactLocation"]["uri"])),
              "uri points at the transcript: %s" % loc["artifactLocation"]["uri"])
    notes = run["invocations"][0]["toolExecutionNotifications"]
    check(len(notes) == 3, "one notification per file with unreadable lines")

finish()
