#!/usr/bin/python3
"""`locus policy fuzz` on Claude Code settings with known-bad grants
(tests/policy-fuzz/bad-*.json: Bash(python3:*), Bash(git:*), Bash(npm
run:*), Bash(find * -delete)), which must be reported with the rule that
admits the line, a reduced example and a fix checked against the gate, and
tight settings that must come out clean: tight.json, and a bare
Bash(find:*), which Claude Code (and locus, docs/policy.md) never lets
cover an option that carries an action (-delete, -exec): its forms are
tried and refused.  The SARIF output is checked with
Microsoft's validator and points at the rule's line."""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from audit_common import BIN, ROOT, SAMPLES, check, finish  # noqa: E402
import sarif_check  # noqa: E402

DIR = os.path.join(ROOT, "tests", "policy-fuzz")


def fuzz(*args):
    p = subprocess.run([BIN, "policy", "fuzz", "--count", "1500", "--time", "120",
                        *args], cwd=DIR, capture_output=True, text=True, timeout=300)
    return p.returncode, p.stdout, p.stderr


def findings(out):
    recs = [json.loads(l) for l in out.splitlines()]
    return [r for r in recs if r["type"] == "finding"], recs


# each known-bad grant alone: reported, with a checked fix
want = {
    "find-delete": lambda f: f["family"] == "exec:destructive" and "-delete" in f["example"],
    "python3": lambda f: "shutil.rmtree" in f["example"] or
    (f["write"] and f["write"]["file"] == "locus_fuzz.py"),
    "git": lambda f: f["example"].startswith("git ") and
    f["family"] in ("exec:destructive", "exec:vcs-push"),
    "npm-run": lambda f: f["write"] and f["write"]["file"] == "package.json" and
    f["example"] == "npm run locus-fuzz" and "scripts" in f["write"]["content"],
}
for name, ok in want.items():
    rc, out, err = fuzz("--claude-settings", "bad-%s.json" % name, "--format", "jsonl")
    check(rc == 1, "bad-%s: exit 1 (got %d: %s)" % (name, rc, err))
    fs, recs = findings(out)
    mine = [f for f in fs if f["rule"].startswith("Bash(")]
    check(mine and all(f["file"] == "bad-%s.json" % name and f["line"] == 4 for f in mine),
          "bad-%s: findings name the rule and its line" % name)
    good = [f for f in mine if ok(f)]
    check(good, "bad-%s: the expected finding: %s" % (name, [f["example"] for f in mine]))
    check(all(f["fix"]["checked"] for f in good), "bad-%s: fixes checked" % name)
    for f in mine:
        check(all(t in f["tags"] for t in ([] if f["family"] == "indirect" else [f["family"]])),
              "family among the tags")
    summary = [r for r in recs if r["type"] == "summary"][0]
    check(summary["tested"] == 1500 and summary["findings"] == len(fs), "bad-%s: summary" % name)

# a bare Bash(find:*): its -delete and -exec forms are tried, none admitted
rc, out, err = fuzz("--claude-settings", "bad-find.json", "--format", "jsonl")
fs, recs = findings(out)
rule = [r for r in recs if r["type"] == "rule" and r["rule"] == "Bash(find:*)"]
check(rc == 0 and not fs and rule and rule[0]["candidates"] > 100,
      "Bash(find:*) tried and clean (rc %d, %s)" % (rc, [f["example"] for f in fs]))

# determinism by --seed (the count ends the run)
a = fuzz("--claude-settings", "bad-all.json", "--format", "jsonl", "--seed", "7")
b = fuzz("--claude-settings", "bad-all.json", "--format", "jsonl", "--seed", "7")
check(a[1] == b[1] and a[0] == 1, "same seed, same findings")

# the combined file: every bad grant reported at its own line; ls is clean
fs, recs = findings(a[1])
lines = {f["rule"]: f["line"] for f in fs}
check(lines == {"Bash(find * -delete)": 6, "Bash(python3:*)": 7, "Bash(git:*)": 8,
                "Bash(npm run:*)": 9}, "rules and lines: %s" % lines)
rules = {r["rule"]: r["findings"] for r in recs if r["type"] == "rule"}
check(rules.get("Bash(ls:*)") == 0, "Bash(ls:*) is clean")

# a fix, applied, makes the finding go away
with tempfile.TemporaryDirectory() as tmp:
    fixed = os.path.join(tmp, "fixed.json")
    deny = sorted({f["fix"]["deny_rule"] for f in fs
                   if f["rule"] == "Bash(git:*)" and "deny_rule" in f["fix"]})
    check(deny, "deny rules are proposed for Bash(git:*)")
    with open(fixed, "w") as f:
        json.dump({"permissions": {"allow": ["Bash(git:*)"], "deny": deny}}, f)
    rc, out, _ = fuzz("--claude-settings", fixed, "--format", "jsonl")
    after = [f for f in findings(out)[0] if f["rule"] == "Bash(git:*)"
             and f["family"] != "indirect"]
    check(not after, "after %s no direct git finding: %s" % (deny, [f["example"] for f in after]))

    # SARIF: validated, one result per finding, located at the rule's line
    sarif = os.path.join(tmp, "fuzz.sarif")
    rc, out, err = fuzz("--claude-settings", "bad-all.json", "--format", "sarif", "-o", sarif,
                        "--format", "text")
    check(rc == 1 and "admits dangerous lines" in out, "text and sarif together")
    ok, vout = sarif_check.validate(sarif)
    print(vout)
    check(ok, "the SARIF validator accepts the fuzz report")
    with open(sarif) as f:
        doc = json.load(f)
    res = doc["runs"][0]["results"]
    check(len(res) == len(fs), "one SARIF result per finding")
    for r in res:
        loc = r["locations"][0]["physicalLocation"]
        check(loc["artifactLocation"]["uri"] == "bad-all.json" and
              loc["region"]["startLine"] == lines[r["properties"]["permissionRule"]] and
              r["level"] == "error" and r["ruleId"].startswith("admit/"),
              "SARIF result %s" % r["ruleId"])

# a locus policy file's own allow rules, located in it; its allowances
rc, out, err = fuzz("--policy", "policy-git.json", "--format", "jsonl")
fs, recs = findings(out)
check(rc == 1 and fs and all(f["file"] == "policy-git.json" for f in fs) and
      {f["rule"] for f in fs} == {"Bash(git:*)"} and all(f["line"] == 6 for f in fs),
      "policy file rules: %s" % [(f["rule"], f["line"]) for f in fs])
check([r for r in recs if r["type"] == "rule" and r["rule"] == "(policy policy-git.json allowances)"],
      "the policy's allowances are fuzzed too")
# the permissive preset allows dangerous lines without any rule
rc, out, err = fuzz("--preset", "permissive", "--format", "jsonl")
fs, _ = findings(out)
check(rc == 1 and fs and all(f["rule"] == "(preset permissive allowances)" and f["file"] is None
                             for f in fs) and all(f["fix"]["checked"] for f in fs),
      "preset allowances: %s" % [(f["rule"], f["example"]) for f in fs][:5])

# the tight settings: clean, exit 0
rc, out, err = fuzz("--claude-settings", "tight.json")
check(rc == 0 and "0 findings" in out and "admits" not in out,
      "tight settings are clean (rc %d):\n%s" % (rc, out))

# usage errors
for args in (["--count", "x"], ["--preset", "nope"], ["--format", "pdf"],
             ["--policy", "a", "--preset", "standard"], ["--claude-settings", "missing.json"],
             ["--bogus"]):
    rc, _, _ = fuzz(*args)
    check(rc == 2, "usage error %s -> 2 (got %d)" % (args, rc))
# a time budget ends the run cleanly
rc, out, _ = fuzz("--claude-settings", "bad-all.json", "--time", "0.001")
check(rc in (0, 1) and "lines tested" in out, "a tiny --time still reports")

# --format / -o as in the audit (cli/reports.c): up to 8 reports, then a
# clear error (a 5th used to exit 2 with no message), and -o follows its --format
many = []
for i in range(9):
    many += ["--format", "jsonl", "-o", os.devnull]
rc, out, err = fuzz("--preset", "standard", *many)
check(rc == 2 and "too many --format" in err, "9 reports: %d %r" % (rc, err))
rc, out, err = fuzz("--preset", "standard", "-o", os.devnull)
check(rc == 2 and "-o FILE follows the --format it is for" in err, "-o first: %r" % err)
rc, out, err = fuzz("--preset", "standard", "--format", "html")
check(rc == 2 and "unknown format 'html' (text, jsonl, sarif)" in err, "html: %r" % err)

# Findings are lines that run their dangerous core, judged by
# hand (policy-fuzz/judged.json) on a realistic settings file: every
# finding judged, none judged false, precision >= 90%
sys.path.insert(0, DIR)
import precision  # noqa: E402
# (6,000 lines, a prefix of the 20,000 the figures in docs/audit.md use:
# the search is the same up to there, so its findings are a subset)
rows, true, false = precision.measure(BIN, ["realistic.json"], 6000)
unjudged = [(f["rule"], f["example"]) for _, f, v in rows if v is None]
wrong = [(f["rule"], f["example"]) for _, f, v in rows if v is False]
check(not unjudged, "every finding on realistic.json is judged: %s" % unjudged)
check(not wrong, "no finding judged false is reported: %s" % wrong)
check(true and true >= 0.9 * (true + false), "precision %d/%d" % (true, true + false))
fs = [f for _, f, _ in rows]
# no argument-only noise: the core must run (git log /dev/sda1, npm run ~)
check(all(not f["example"].startswith(("git log /", "npm run ~", "git diff '"))
          for f in fs), "no argument-only findings")
# deny rules are attacked; since the closed world a Read deny reaches every
# program's operands, so git diff --no-index no longer reads past
# Read(~/.ssh/**) (docs/policy.md, "Precedence, in full")
deny = [f for f in fs if f["rule"] == "Read(~/.ssh/**)"]
check(not any(f["example"] == "git diff --no-index /dev/null ~/.ssh/id_rsa"
              for f in deny), "Read(~/.ssh/**) holds against git diff: %s" % deny)
# fixes in the settings file's own language: never deny_for
check(all("deny_for" not in f["fix"]["text"] and "require_human_for" not in f["fix"]["text"]
          for f in fs), "fixes are Claude Code rules")
check(all(f["fix"]["deny_rule"].startswith(("Bash(", "Edit(", "Read("))
          for f in fs if "deny_rule" in f["fix"]), "deny rules are settings rules")

# a fix holds against every spelling the fuzzer knows: Bash(git:*)'s
# delete-untracked is not fixed by Bash(git *-fdx*), which -xdf, -f -d -x
# and -ffdx get round
rc, out, err = fuzz("--claude-settings", "bad-git.json", "--format", "jsonl", "--quiet")
fs, _ = findings(out)
du = [f for f in fs if f["intent"] == "delete-untracked"]
check(du and du[0]["fix"]["checked"] and du[0]["fix"]["deny_rule"] != "Bash(git *-fdx*)" and
      du[0]["fix"]["spellings"] > 5, "delete-untracked fix: %s" % (du and du[0]["fix"]))
with tempfile.TemporaryDirectory() as tmp:
    fixed = os.path.join(tmp, "fixed.json")
    with open(fixed, "w") as f:
        json.dump({"permissions": {"allow": ["Bash(git:*)"],
                                   "deny": [du[0]["fix"]["deny_rule"]]}}, f)
    for line in ("git clean -xdf", "git clean -f -d -x", "git clean -ffdx", "git clean -fdx"):
        p = subprocess.run([BIN, "gate", "--claude-settings", fixed],
                           input=json.dumps({"tool": "Bash", "arguments": {"command": line}}),
                           capture_output=True, text=True, cwd=DIR)
        check(json.loads(p.stdout)["outcome"] != "allow",
              "%s refused under %s" % (line, du[0]["fix"]["deny_rule"]))

# progress on stderr on a long run, none with --quiet
p = subprocess.run([BIN, "policy", "fuzz", "--claude-settings", "bad-git.json", "--count",
                    "1500", "--time", "600"], cwd=DIR, capture_output=True, text=True)
check("lines tested" in p.stderr and "findings so far" in p.stderr,
      "progress is reported: %r" % p.stderr[:300])
p = subprocess.run([BIN, "policy", "fuzz", "--claude-settings", "bad-git.json", "--count",
                    "1500", "--time", "600", "--quiet"], cwd=DIR, capture_output=True, text=True)
check(p.stderr == "", "--quiet: nothing on stderr: %r" % p.stderr[:300])

finish()
