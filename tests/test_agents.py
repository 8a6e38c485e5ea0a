#!/usr/bin/python3
"""The real agents against locus's hooks, offline.

Claude Code (`claude -p`), Codex (`codex exec`) and Gemini CLI (`gemini -p
--approval-mode yolo`), the binaries of node_modules/.bin, each driven by a
scripted model on 127.0.0.1 (tests/agents/fake_*.py: Anthropic Messages,
OpenAI Responses, Gemini API) that asks for one shell command and then
ends.  The hooks are installed as documented, by `locus hook install AGENT
--project DIR --write` with its defaults (--jail; for Codex it also trusts
them), through a `locus` on PATH that records each payload and answer.
Checked, per agent:

  allow (default)  the installed hook runs with --jail and answers allow
                   with the command rewritten, the agent runs the rewrite
                   in locus jail: the file it makes is there
  hold             the call does not run; the agent ends (no hang) with
                   locus's reason in the tool result
  a miss           (Claude, a policy that allows everything) the jailed
                   line cannot read a masked credential, write outside the
                   workspace or connect to a loopback server, while the
                   same line run directly can (the control)

Usage: test_agents.py LOCUS SOURCE_ROOT
"""
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile

LOCUS, SRC = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
HERE = os.path.join(SRC, "tests", "agents")
BIN = os.path.join(SRC, "node_modules", ".bin")
FAILS = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        FAILS.append(what)


class Model:
    def __init__(self, script, command, log):
        self.p = subprocess.Popen(["/usr/bin/python3",
                                   os.path.join(HERE, script), command, log],
                                  stdout=subprocess.PIPE, text=True)
        self.port = int(self.p.stdout.readline())

    def close(self):
        self.p.kill()
        self.p.wait()


def recording_locus(d, hookargs):
    """A `locus` that records what the agent sends and what locus answers."""
    os.makedirs(os.path.join(d, "bin"), exist_ok=True)
    path = os.path.join(d, "bin", "locus")
    with open(path, "w") as f:
        f.write(f"""#!/bin/sh
if [ "$1" = hook ] && [ "$2" != install ] && [ "$2" != doctor ]; then
  st={d}/status.$$
  tee -a {d}/payloads.jsonl | {{ {LOCUS} "$@" {hookargs}; echo $? > $st; }} | tee -a {d}/answers.jsonl
  s=$(cat $st); rm -f $st; exit $s
else
  exec {LOCUS} "$@"
fi
""")
    os.chmod(path, 0o755)


def answers(d):
    try:
        return open(os.path.join(d, "answers.jsonl")).read()
    except OSError:
        return ""


def run(argv, d, env, timeout=150):
    try:
        p = subprocess.run(argv, cwd=os.path.join(d, "proj"), env=env,
                           capture_output=True, stdin=subprocess.DEVNULL,
                           timeout=timeout)
        return p.returncode, p.stdout.decode(errors="replace")
    except subprocess.TimeoutExpired:
        return "timeout", ""


def base_env(d):
    return {"HOME": os.path.join(d, "home"), "LANG": "C.UTF-8",
            "PATH": f"{d}/bin:{BIN}:/usr/local/bin:/usr/bin:/bin"}


def install(agent, d, env):
    """`locus hook install AGENT --project proj --write`, its defaults;
    the installed hook commands."""
    p = subprocess.run(["locus", "hook", "install", agent, "--project",
                        f"{d}/proj", "--write"], env=env, cwd=f"{d}/proj",
                       capture_output=True, text=True, timeout=120)
    f = {"claude-code": ".claude/settings.json",
         "gemini": ".gemini/settings.json"}[agent]
    with open(f"{d}/proj/{f}") as fh:
        hooks = json.load(fh)["hooks"]
    return p.returncode, [h["command"] for ev in hooks.values()
                          for e in ev for h in e["hooks"]]


INSTALLED = {}


def claude(base, command, hookargs, home=None):
    d = tempfile.mkdtemp(dir=base)
    os.makedirs(f"{d}/proj")
    if home:
        os.symlink(home, f"{d}/home")
    else:
        os.makedirs(f"{d}/home")
    recording_locus(d, hookargs)
    INSTALLED["claude-code"] = install("claude-code", d, base_env(d))
    m = Model("fake_anthropic.py", command, f"{d}/model.log")
    env = base_env(d)
    env.update(ANTHROPIC_BASE_URL=f"http://127.0.0.1:{m.port}",
               ANTHROPIC_API_KEY="sk-fake",
               CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
               DISABLE_TELEMETRY="1", DISABLE_AUTOUPDATER="1")
    try:
        rc, out = run(["claude", "-p", "run it", "--output-format", "json"],
                      d, env)
    finally:
        m.close()
    try:
        result = json.loads(out).get("result", "")
    except ValueError:
        result = out
    return d, rc, result


def codex(base, command, hookargs):
    d = tempfile.mkdtemp(dir=base)
    os.makedirs(f"{d}/proj")
    os.makedirs(f"{d}/codex")
    recording_locus(d, hookargs)
    m = Model("fake_responses.py", command, f"{d}/model.log")
    with open(f"{d}/codex/config.toml", "w") as f:
        f.write(f"""model = "fake-model"
model_provider = "fake"
approval_policy = "never"
sandbox_mode = "danger-full-access"

[model_providers.fake]
name = "fake"
base_url = "http://127.0.0.1:{m.port}/v1"
wire_api = "responses"
env_key = "FAKE_KEY"
""")
    env = base_env(d)
    env.update(CODEX_HOME=f"{d}/codex", HOME=d, FAKE_KEY="sk-fake")
    try:
        inst = subprocess.run(["locus", "hook", "install", "codex",
                               "--write"], cwd=f"{d}/proj", env=env,
                              capture_output=True, text=True, timeout=120)
        doc = subprocess.run(["locus", "hook", "doctor", "codex"],
                             cwd=f"{d}/proj", env=env, capture_output=True,
                             text=True, timeout=300)
        rc, out = run(["codex", "exec", "--skip-git-repo-check", "run it"],
                      d, env)
    finally:
        m.close()
    return d, rc, out, inst.stderr, doc.stdout


def gemini(base, command, hookargs):
    d = tempfile.mkdtemp(dir=base)
    os.makedirs(f"{d}/proj")
    os.makedirs(f"{d}/home/.gemini")
    recording_locus(d, hookargs)
    INSTALLED["gemini"] = install("gemini", d, base_env(d))
    with open(f"{d}/home/.gemini/settings.json", "w") as f:
        json.dump({"security": {"auth": {"selectedType":
                                         "gemini-api-key"}}}, f)
    m = Model("fake_gemini.py", command, f"{d}/model.log")
    env = base_env(d)
    env.update(GEMINI_API_KEY="fake",
               GOOGLE_GEMINI_BASE_URL=f"http://127.0.0.1:{m.port}",
               GEMINI_CLI_NO_RELAUNCH="true", GEMINI_CLI_TRUST_WORKSPACE="true")
    try:
        rc, out = run(["gemini", "-p", "run it", "--approval-mode", "yolo"],
                      d, env)
    finally:
        m.close()
    return d, rc, out


def listener():
    """A loopback server that accepts nothing by itself: a connection a
    process made waits in the backlog, so accepted() after the process has
    ended counts every one (no thread to race)."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(8)
    s.setblocking(False)
    return s


def accepted(s):
    """Connections made to s since the last call."""
    n = 0
    while True:
        try:
            c, _ = s.accept()
        except BlockingIOError:
            return n
        c.close()
        n += 1


def main():
    for b in ("claude", "codex", "gemini"):
        if not os.path.exists(os.path.join(BIN, b)):
            sys.stderr.write(f"{b} is not installed (npm ci): skipped\n")
            return 77
    probe = subprocess.run(["bwrap", "--unshare-all", "--ro-bind", "/", "/",
                            "true"], capture_output=True)
    if probe.returncode != 0:
        sys.stderr.write("bwrap cannot make namespaces here: skipped\n")
        return 77
    base = tempfile.mkdtemp(prefix="locus-agents-", dir=os.getcwd())
    # a credential store and a folder outside every workspace, not under
    # /tmp (the jail's /tmp is its own)
    home = os.path.join(base, "victim-home")
    outside = os.path.join(base, "outside")
    os.makedirs(os.path.join(home, ".ssh"))
    os.makedirs(outside)
    with open(os.path.join(home, ".ssh", "id_rsa"), "w") as f:
        f.write("HOST-SECRET\n")
    allow_all = os.path.join(base, "allow-all.json")
    with open(allow_all, "w") as f:
        json.dump({"require_verification_score": 0, "require_human_for": [],
                   "deny_for": [], "require_sandbox_strict": False,
                   "require_sandbox_for": ["workspace.exec",
                                           "workspace.read"]}, f)
    made = "echo hello > made.txt; ls"
    try:
        # Claude Code
        d, rc, res = claude(base, made, "")
        st, cmds = INSTALLED["claude-code"]
        check(st == 0 and cmds and all(" --jail " in c for c in cmds),
              f"claude: `hook install` writes its {len(cmds)} hooks with "
              "--jail by default")
        check("updatedInput" in answers(d) and " jail --root " in answers(d)
              and os.path.exists(f"{d}/proj/made.txt") and "made.txt" in res,
              "claude: an allowed call runs rewritten into the jail")
        d, rc, res = claude(base, "git push origin main; touch pushed", "")
        check('"ask"' in answers(d) and rc == 0 and
              not os.path.exists(f"{d}/proj/pushed") and
              "holds this call" in res,
              "claude -p: a hold is asked, not run, the reason reaches the "
              "model")
        srv = listener()
        port = srv.getsockname()[1]
        miss = (f"cat {home}/.ssh/id_rsa; echo x > {outside}/planted; "
                f"python3 -c \"import socket; "
                f"socket.create_connection(('127.0.0.1', {port}), 3)\"; "
                f"echo end")
        ctl = subprocess.run(["/bin/bash", "-c", miss], capture_output=True,
                             text=True, env=dict(os.environ, HOME=home))
        check("HOST-SECRET" in ctl.stdout and accepted(srv) == 1 and
              os.path.exists(f"{outside}/planted"),
              "control: the same line run directly reads, writes, connects")
        os.unlink(f"{outside}/planted")
        d, rc, res = claude(base, miss, f"--policy {allow_all}", home=home)
        check(" jail --root " in answers(d) and "end" in res and
              "HOST-SECRET" not in res and not os.listdir(outside) and
              accepted(srv) == 0,
              "claude: a miss allowed by the policy stays in the jail (no "
              "credential, no write outside, no connection)")
        srv.close()
        # Codex
        d, rc, out, inst, doc = codex(base, made, "")
        codex_cfg = open(f"{d}/proj/.codex/config.toml").read() \
            if os.path.exists(f"{d}/proj/.codex/config.toml") else \
            open(f"{d}/codex/config.toml").read()
        check("locus hook codex --jail" in codex_cfg and
              "Codex trusts the 2 locus hooks" in inst and
              "0 problems" in doc and "Codex trusts" in doc and
              "--jail: an allowed shell call runs confined" in doc,
              "codex: install trusts the hooks as Codex does; doctor agrees")
        if "Codex trusts the 2 locus hooks" not in inst or "0 problems" not in doc:
            print("install said:\n" + inst + "\ndoctor said:\n" + doc)
        check("updatedInput" in answers(d) and
              os.path.exists(f"{d}/proj/made.txt"),
              "codex: an allowed call runs rewritten into the jail")
        d, rc, out, inst, doc = codex(base, "git push origin main; "
                                      "touch pushed", "")
        check(os.path.exists(f"{d}/payloads.jsonl") and
              '"deny"' in answers(d) and
              not os.path.exists(f"{d}/proj/pushed") and
              "holds this call" in out,
              "codex: a hold is a deny with the reason; the call does not "
              "run")
        # Gemini CLI
        d, rc, out = gemini(base, made, "")
        st, cmds = INSTALLED["gemini"]
        check(st == 0 and cmds and all(c.endswith(" --jail") for c in cmds),
              f"gemini: `hook install` writes its {len(cmds)} hook with "
              "--jail by default")
        check('"allow"' in answers(d) and " jail --root " in answers(d) and
              os.path.exists(f"{d}/proj/made.txt"),
              "gemini: an allowed call runs rewritten into the jail")
        d, rc, out = gemini(base, "git push origin main; touch pushed", "")
        check(rc == 0 and '"deny"' in answers(d) and
              not os.path.exists(f"{d}/proj/pushed") and
              "holds this call" in out,
              "gemini -p: a hold is a deny with the reason, no hang")
    finally:
        shutil.rmtree(base, ignore_errors=True)
    print(f"{len(FAILS)} failed")
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
