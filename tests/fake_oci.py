#!/usr/bin/python3
"""A strict loopback fake of OCI Generative AI Sandboxes (tests only).

Run with /usr/bin/python3 (Debian's python3-cryptography).  It binds
127.0.0.1:0, prints "PORT <n>", and serves until its stdin closes or
--lifetime seconds pass.

Strict as the service is (docs/backends.md):
  * every request is signed: draft-cavage "Signature" in Authorization,
    parameters in any order, version="1", algorithm="rsa-sha256", keyId
    known (--keys), "date (request-target) host" signed, plus
    "content-length content-type x-content-sha256" on POST/PUT/PATCH
    (write_file may leave those three out), the date within 5 minutes,
    x-content-sha256 and content-length equal to the body; else 401
    NotAuthenticated.  A chunked request body is refused (411).
  * the sandbox state machine: CREATING -> RUNNING (after --ready-polls
    GETs), stop (STOPPING -> STOPPED), resume, delete (then 404), 404 for
    unknown ids, 409 for an operation in the wrong state, expiry (STOPPED).
  * bodies: unknown fields 400; shape, runtime, durations (at most 48 h),
    absolute cwd; opc-retry-token replays the first answer.
  * commands run for real in bubblewrap with a per-sandbox folder bound at
    /workspace and another at /tmp (where bubblewrap cannot run, the text
    "/workspace" in the command is replaced by the folder and back in the
    output; GET /_fake/mode says which); events get
    seq 1, 2, ...; run_and_stream and stream_events (fromSeq, untilSeq)
    in SSE or NDJSON (--stream).
  * files: paths absolute under /workspace without "..", the
    opc-content-sha256 checked (400), --max-body (413), reads carry the
    hash header.

Faults (POST /_fake/faults with a JSON object; unsigned test-only routes
live under /_fake/):
  {"status": [{"op": "create", "code": 429, "retry_after": "1",
               "times": 1}],      next matching requests get that status
   "cut_after": N,   a stream is cut after N events (once per command)
   "duplicate": true, every event is sent twice
   "drip_ms": D,     events are written in small pieces, D ms apart
   "create_fails": true,   new sandboxes go CREATING -> FAILED
   "bad_read_hash": true,  read_file answers with a wrong hash
   "bad_write_hash": true, write_file claims another hash
   "data_base64": true,    event data is sent base64-encoded
   "bad_event": true}      events after STARTED lack seq and kind
GET /_fake/sandboxes -> {id: state}; GET /_fake/log -> [[method, op,
status], ...]; POST /_fake/expire/<id> makes a sandbox expire now.
"""
import argparse
import base64
import datetime
import email.utils
import hashlib
import json
import os
import re
import secrets
import socket
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, unquote, urlsplit

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding

LOCK = threading.Condition()
STATE = {
    "keys": {}, "routes": [], "stream": "sse", "ready_polls": 1,
    "max_body": 8 << 20, "workdir": None, "faults": {}, "sandboxes": {},
    "tokens": {}, "log": [], "rid": 0,
}
BODY_OPS = ("POST", "PUT", "PATCH")
BINARY_OPS = ("write_file",)
MAX_MINUTES = 48 * 60


class Reply(Exception):
    def __init__(self, code, ecode, msg, headers=None):
        super().__init__(msg)
        self.code, self.ecode, self.msg = code, ecode, msg
        self.headers = headers or {}


def iso_minutes(s):
    """ISO 8601 duration -> minutes (float); Reply 400 when malformed."""
    m = re.fullmatch(r"P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?", s or "")
    if not m or not any(m.groups()) or (s.endswith("T")):
        raise Reply(400, "InvalidParameter", "bad ISO 8601 duration %r" % s)
    d, h, mi, se = (int(x or 0) for x in m.groups())
    return d * 1440 + h * 60 + mi + se / 60


def now_rfc3339(t=None):
    return datetime.datetime.fromtimestamp(
        t if t is not None else time.time(), datetime.timezone.utc
    ).strftime("%Y-%m-%dT%H:%M:%S.000Z")


# ---------------------------------------------------------------- routes

def compile_routes(table):
    out = []
    for op, spec in table.items():
        method, tmpl = spec.split(" ", 1)
        path, _, query = tmpl.partition("?")
        rx = "^" + re.sub(r"\\\{(\w+)\\\}", lambda m: "(?P<%s>%s)" % (
            m.group(1), "[^?]+" if m.group(1) == "filePath" else "[^/?]+"),
            re.escape(path)) + "$"
        qvars = {}
        for pair in filter(None, query.split("&")):
            k, _, v = pair.partition("=")
            m = re.fullmatch(r"\{(\w+)\}", v)
            qvars[k] = m.group(1) if m else None
        out.append((op, method, re.compile(rx), qvars))
    return out


def route(method, target):
    url = urlsplit(target)
    q = {k: v[0] for k, v in parse_qs(url.query, keep_blank_values=True).items()}
    for op, m, rx, qvars in STATE["routes"]:
        mt = rx.match(url.path)
        if m != method or not mt:
            continue
        vars_ = {k: unquote(v) for k, v in mt.groupdict().items()}
        for k, var in qvars.items():
            if k not in q:
                raise Reply(400, "MissingParameter", "query %s missing" % k)
            if var:
                vars_[var] = q[k]
        for k, v in q.items():
            vars_.setdefault(k, v)
        return op, vars_
    raise Reply(404, "NotAuthorizedOrNotFound", "no route %s %s" % (method, url.path))


# ---------------------------------------------------------------- signing

def parse_auth(value):
    if not value or not value.startswith("Signature "):
        raise Reply(401, "NotAuthenticated", "no Signature authorization")
    params = {}
    for m in re.finditer(r'(\w+)="([^"]*)"', value[len("Signature "):]):
        params[m.group(1)] = m.group(2)
    return params


def verify(handler, method, body, op):
    p = parse_auth(handler.headers.get("Authorization"))
    if p.get("version") != "1" or p.get("algorithm") != "rsa-sha256":
        raise Reply(401, "NotAuthenticated", "version or algorithm")
    key = STATE["keys"].get(p.get("keyId", ""))
    if key is None:
        raise Reply(401, "NotAuthenticated", "unknown keyId")
    names = p.get("headers", "").split(" ")
    need = ["date", "(request-target)", "host"]
    body_h = ["content-length", "content-type", "x-content-sha256"]
    if method in BODY_OPS and not (op in BINARY_OPS and not set(body_h) & set(names)):
        need += body_h
    for n in need:
        if n not in names:
            raise Reply(401, "NotAuthenticated", "%s not signed" % n)
    lines = []
    for n in names:
        if n == "(request-target)":
            lines.append("(request-target): %s %s" % (method.lower(), handler.path))
            continue
        v = handler.headers.get(n)
        if v is None:
            raise Reply(401, "NotAuthenticated", "signed header %s missing" % n)
        lines.append("%s: %s" % (n, v))
    try:
        t = email.utils.parsedate_to_datetime(handler.headers.get("date"))
    except (TypeError, ValueError):
        raise Reply(401, "NotAuthenticated", "bad date")
    if abs(t.timestamp() - time.time()) > 300:
        raise Reply(401, "NotAuthenticated", "clock skew over 5 minutes")
    if "x-content-sha256" in names:
        want = base64.b64encode(hashlib.sha256(body).digest()).decode()
        if handler.headers.get("x-content-sha256") != want:
            raise Reply(401, "NotAuthenticated", "x-content-sha256 mismatch")
    if "content-length" in names and handler.headers.get("content-length") != str(len(body)):
        raise Reply(401, "NotAuthenticated", "content-length mismatch")
    try:
        key.verify(base64.b64decode(p.get("signature", "")),
                   "\n".join(lines).encode(), padding.PKCS1v15(), hashes.SHA256())
    except Exception:
        raise Reply(401, "NotAuthenticated", "bad signature")


# ---------------------------------------------------------------- sandboxes

def sandbox(sid, states=None):
    sb = STATE["sandboxes"].get(sid)
    if sb is None or sb["lifecycleState"] == "DELETED":
        raise Reply(404, "NotAuthorizedOrNotFound", "no sandbox %s" % sid)
    if sb["lifecycleState"] == "RUNNING" and time.time() > sb["_expires"]:
        sb["lifecycleState"] = "STOPPED"
    if states and sb["lifecycleState"] not in states:
        raise Reply(409, "IncorrectState", "sandbox is %s" % sb["lifecycleState"])
    return sb


def public(sb):
    sb["timeExpires"] = now_rfc3339(sb["_expires"])
    return {k: v for k, v in sb.items() if not k.startswith("_")}


def check_fields(body, allowed, required=()):
    if not isinstance(body, dict):
        raise Reply(400, "InvalidParameter", "body is not an object")
    for k in body:
        if k not in allowed:
            raise Reply(400, "InvalidParameter", "unknown field %s" % k)
    for k in required:
        if k not in body:
            raise Reply(400, "MissingParameter", "%s is required" % k)


def op_create(vars_, body):
    check_fields(body, ("displayName", "runtime", "shape", "expirationDuration",
                        "expiresInMinutes", "environmentVariables", "warmpoolName",
                        "source", "publishPorts", "publishedPortAuthMode",
                        "credentialProfileLabel"))
    if not vars_.get("projectId"):
        raise Reply(400, "MissingParameter", "projectId is required")
    if body.get("runtime", "python-3.11") != "python-3.11":
        raise Reply(400, "InvalidParameter", "unknown runtime")
    if body.get("shape", "SMALL") not in ("SMALL", "MEDIUM", "LARGE"):
        raise Reply(400, "InvalidParameter", "unknown shape")
    if ("expirationDuration" in body) == ("expiresInMinutes" in body):
        raise Reply(400, "InvalidParameter", "one of expirationDuration, expiresInMinutes")
    mins = (iso_minutes(body["expirationDuration"]) if "expirationDuration" in body
            else body["expiresInMinutes"])
    if not isinstance(mins, (int, float)) or mins <= 0 or mins > MAX_MINUTES:
        raise Reply(400, "InvalidParameter", "expiration must be 1 min .. 48 h")
    for e in body.get("environmentVariables", []):
        check_fields(e, ("name", "value"), ("name", "value"))
    sid = "sbx-" + "".join(secrets.choice("abcdefghijklmnopqrstuvwxyz234567") for _ in range(16))
    root = tempfile.mkdtemp(prefix="ws-", dir=STATE["workdir"])
    sb = {"id": sid, "projectId": vars_["projectId"],
          "displayName": body.get("displayName", sid), "runtime": "python-3.11",
          "shape": body.get("shape", "SMALL"), "lifecycleState": "CREATING",
          "timeCreated": now_rfc3339(), "_expires": time.time() + mins * 60,
          "_polls": 0, "_root": root, "_commands": {},
          "_env": {e["name"]: e["value"] for e in body.get("environmentVariables", [])}}
    STATE["sandboxes"][sid] = sb
    return 200, public(sb)


def op_get(vars_, body):
    sb = sandbox(vars_["sandboxId"])
    sb["_polls"] += 1
    st = sb["lifecycleState"]
    if st == "CREATING" and sb["_polls"] >= STATE["ready_polls"]:
        sb["lifecycleState"] = "FAILED" if STATE["faults"].get("create_fails") else "RUNNING"
    elif st in ("STOPPING", "RESUMING", "SUSPENDING"):
        sb["lifecycleState"] = {"STOPPING": "STOPPED", "RESUMING": "RUNNING",
                                "SUSPENDING": "SUSPENDED"}[st]
    return 200, public(sb)


def op_delete(vars_, body):
    sb = sandbox(vars_["sandboxId"])
    for c in sb["_commands"].values():
        c.kill()
    sb["lifecycleState"] = "DELETED"
    shutil.rmtree(sb["_root"], ignore_errors=True)
    shutil.rmtree(sb["_root"] + ".tmp", ignore_errors=True)
    return 204, None


def op_stop(vars_, body):
    check_fields(body, ("isForce",))
    sb = sandbox(vars_["sandboxId"], ("RUNNING", "SUSPENDED"))
    for c in sb["_commands"].values():
        c.kill()
    sb["lifecycleState"] = "STOPPING"
    return 202, None


def op_resume(vars_, body):
    check_fields(body, ())
    sb = sandbox(vars_["sandboxId"], ("SUSPENDED",))
    sb["lifecycleState"] = "RESUMING"
    return 202, None


def op_extend(vars_, body):
    check_fields(body, ("additionalDuration",), ("additionalDuration",))
    sb = sandbox(vars_["sandboxId"], ("RUNNING",))
    mins = iso_minutes(body["additionalDuration"])
    if mins <= 0 or mins > MAX_MINUTES:
        raise Reply(400, "InvalidParameter", "additionalDuration 1 min .. 48 h")
    sb["_expires"] += mins * 60
    return 200, public(sb)


# ---------------------------------------------------------------- commands

class Command:
    def __init__(self, sb, body):
        self.id = "cmd-" + secrets.token_hex(8)
        self.sb, self.events, self.done = sb, [], False
        self.exit_code, self.cut_done = None, False
        root = sb["_root"]
        cwd = body.get("cwd", "/workspace")
        if not cwd.startswith("/workspace"):
            raise Reply(400, "InvalidParameter", "cwd outside /workspace")
        self.timeout = iso_minutes(body["timeout"]) * 60 if "timeout" in body else 3600
        tmp = sb["_root"] + ".tmp"  # the sandbox's own /tmp
        os.makedirs(tmp, exist_ok=True)
        env = dict(os.environ, HOME=root, TMPDIR=tmp, **sb["_env"])
        for e in body.get("environmentVariables", []):
            check_fields(e, ("name", "value"), ("name", "value"))
            env[e["name"]] = e["value"]
        args = body.get("args", [])
        self.root = root
        if STATE["bwrap"]:
            # /workspace and /tmp are the sandbox's own folders; no PID
            # namespace, so background jobs outlive the command, as in
            # the real sandbox.
            argv = ["bwrap", "--unshare-ipc", "--unshare-net", "--unshare-uts",
                    "--ro-bind", "/usr", "/usr"]
            for d in ("/bin", "/sbin", "/lib", "/lib64", "/etc"):
                argv += ["--ro-bind-try", d, d]
            argv += ["--proc", "/proc", "--dev", "/dev", "--bind", root,
                     "/workspace", "--bind", tmp, "/tmp", "--chdir", cwd,
                     "--setenv", "HOME", "/workspace", "--setenv", "TMPDIR", "/tmp",
                     "sh", "-c", body["command"], "sh"] + args
            run_cwd = root
        else:
            argv = ["sh", "-c", body["command"].replace("/workspace", root), "sh"] + args
            run_cwd = cwd.replace("/workspace", root, 1)
        self.proc = subprocess.Popen(
            argv, cwd=run_cwd, env=env, stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
        self.add("STARTED", None)
        self.readers = [threading.Thread(target=self.pump, args=(f, k), daemon=True)
                        for f, k in ((self.proc.stdout, "STDOUT"), (self.proc.stderr, "STDERR"))]
        for t in self.readers:
            t.start()
        threading.Thread(target=self.wait, daemon=True).start()

    def add(self, kind, data, exit_code=None):
        with LOCK:
            ev = {"commandId": self.id, "seq": len(self.events) + 1,
                  "timestamp": now_rfc3339(), "event": kind}
            if data is not None:
                ev["data"] = data
            if exit_code is not None:
                ev["exitCode"] = exit_code
            self.events.append(ev)
            LOCK.notify_all()

    def pump(self, f, kind):
        while True:
            chunk = os.read(f.fileno(), 4096)
            if not chunk:
                return
            text = chunk.decode("utf-8", "replace")
            if not STATE["bwrap"]:
                text = text.replace(self.root, "/workspace")
            self.add(kind, text)

    def wait(self):
        # wait(timeout) polls with sleeps of up to 50 ms: a timer kills
        # on the service's timeout instead, and wait() blocks
        timer = threading.Timer(self.timeout, self.kill)
        timer.daemon = True
        timer.start()
        rc = self.proc.wait()
        timer.cancel()
        for t in self.readers:
            t.join()
        self.exit_code = rc if rc >= 0 else 128 - rc
        self.add("FINISHED", None, self.exit_code)
        with LOCK:
            self.done = True
            LOCK.notify_all()

    def kill(self, sig=signal.SIGKILL):
        try:
            os.killpg(self.proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass

    def output(self):
        out = "".join(e.get("data", "") for e in self.events if e["event"] == "STDOUT")
        err = "".join(e.get("data", "") for e in self.events if e["event"] == "STDERR")
        o = {"commandId": self.id, "stdout": out, "stderr": err,
             "lastSeq": len(self.events)}
        if self.done:
            o["exitCode"] = self.exit_code
        return o


RUN_FIELDS = ("command", "args", "cwd", "environmentVariables", "timeout")


def op_run_and_stream(vars_, body):
    check_fields(body, RUN_FIELDS, ("command",))
    sb = sandbox(vars_["sandboxId"], ("RUNNING",))
    c = Command(sb, body)
    sb["_commands"][c.id] = c
    return "stream", (c, 1, None)


def op_run(vars_, body):
    check_fields(body, RUN_FIELDS, ("command",))
    sb = sandbox(vars_["sandboxId"], ("RUNNING",))
    c = Command(sb, body)
    sb["_commands"][c.id] = c
    return 200, {"id": c.id}


def command(vars_):
    sb = sandbox(vars_["sandboxId"])
    c = sb["_commands"].get(vars_["commandId"])
    if c is None:
        raise Reply(404, "NotAuthorizedOrNotFound", "no command")
    return c


def op_stream_events(vars_, body):
    c = command(vars_)
    try:
        frm = int(vars_.get("fromSeq", "1"))
        until = int(vars_["untilSeq"]) if "untilSeq" in vars_ else None
    except ValueError:
        raise Reply(400, "InvalidParameter", "fromSeq")
    if frm < 1:
        raise Reply(400, "InvalidParameter", "fromSeq must be >= 1")
    return "stream", (c, frm, until)


def op_get_command(vars_, body):
    c = command(vars_)
    return 200, {"id": c.id, "sandboxId": c.sb["id"], "exitCode": c.exit_code,
                 "output": c.output()}


def op_get_output(vars_, body):
    return 200, command(vars_).output()


def op_cancel(vars_, body):
    check_fields(body, ("signal",))
    sig = {"SIGTERM": signal.SIGTERM, "SIGKILL": signal.SIGKILL}.get(body.get("signal", "SIGTERM"))
    if sig is None:
        raise Reply(400, "InvalidParameter", "signal")
    command(vars_).kill(sig)
    return 202, None


# ---------------------------------------------------------------- files

def file_path(sb, p):
    if not p or not p.startswith("/workspace/") or ".." in p.split("/") or "\0" in p:
        raise Reply(400, "InvalidParameter", "filePath must be absolute under /workspace")
    return os.path.join(sb["_root"], p[len("/workspace/"):])


def op_write_file(vars_, body, headers):
    sb = sandbox(vars_["sandboxId"], ("RUNNING",))
    path = file_path(sb, vars_.get("filePath"))
    want = base64.b64encode(hashlib.sha256(body).digest()).decode()
    if headers.get("opc-content-sha256") != want:
        raise Reply(400, "InvalidParameter", "opc-content-sha256 does not match the body")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(body)
    h = want if not STATE["faults"].get("bad_write_hash") else base64.b64encode(b"x" * 32).decode()
    return 200, {"sandboxId": sb["id"], "filePath": vars_["filePath"], "contentSha256": h}, \
        {"opc-content-sha256": h}


def op_read_file(vars_, body, headers):
    sb = sandbox(vars_["sandboxId"], ("RUNNING",))
    path = file_path(sb, vars_.get("filePath"))
    try:
        with open(path, "rb") as f:
            data = f.read()
    except (FileNotFoundError, IsADirectoryError):
        raise Reply(404, "NotAuthorizedOrNotFound", "no such file")
    h = base64.b64encode(hashlib.sha256(data).digest()).decode()
    if STATE["faults"].get("bad_read_hash"):
        h = base64.b64encode(hashlib.sha256(data + b"!").digest()).decode()
    return "raw", data, {"opc-content-sha256": h}


OPS = {"create": op_create, "get": op_get, "delete": op_delete, "stop": op_stop,
       "resume": op_resume, "extend": op_extend, "run": op_run,
       "run_and_stream": op_run_and_stream, "stream_events": op_stream_events,
       "get_command": op_get_command, "get_output": op_get_output,
       "cancel": op_cancel}
FILE_OPS = {"write_file": op_write_file, "read_file": op_read_file}
RETRY_OPS = ("create", "extend", "stop", "resume", "run", "cancel", "write_file")


# ---------------------------------------------------------------- HTTP

class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def setup(self):
        super().setup()
        # headers and body go out as two writes: without this, Nagle and
        # the client's delayed ACK add 40 ms to every answer
        self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, fmt, *args):
        pass

    def _rid(self):
        with LOCK:
            STATE["rid"] += 1
            return "fake-%d/%s" % (STATE["rid"], self.headers.get("opc-request-id", "-"))

    def _send(self, code, body=b"", ctype="application/json", headers=None):
        self.send_response(code)
        self.send_header("opc-request-id", self._rid())
        if body or code not in (204,):
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD" and body:
            self.wfile.write(body)

    def _error(self, r):
        self._send(r.code, json.dumps({"code": r.ecode, "message": r.msg}).encode(),
                   headers=r.headers)

    def _body(self):
        if self.headers.get("Transfer-Encoding"):
            raise Reply(411, "LengthRequired", "chunked request bodies are refused")
        n = self.headers.get("Content-Length")
        if n is None:
            if self.command in BODY_OPS:
                raise Reply(411, "LengthRequired", "Content-Length required")
            return b""
        n = int(n)
        if n > STATE["max_body"] + (1 << 20):
            raise Reply(413, "RequestEntityTooLarge", "body too large")
        return self.rfile.read(n)

    def _fake(self, body):
        parts = self.path.strip("/").split("/")
        with LOCK:
            if self.command == "GET" and parts[1] == "sandboxes":
                data = {k: v["lifecycleState"] for k, v in STATE["sandboxes"].items()}
            elif self.command == "GET" and parts[1] == "mode":
                data = {"bwrap": STATE["bwrap"]}
            elif self.command == "GET" and parts[1] == "log":
                data = STATE["log"]
            elif self.command == "POST" and parts[1] == "faults":
                STATE["faults"] = json.loads(body or b"{}")
                if "stream" in STATE["faults"]:
                    STATE["stream"] = STATE["faults"]["stream"]
                data = STATE["faults"]
            elif self.command == "POST" and parts[1] == "expire":
                STATE["sandboxes"][parts[2]]["_expires"] = time.time() - 1
                data = {}
            else:
                raise Reply(404, "NotFound", "no fake route")
        self._send(200, json.dumps(data).encode())

    def _injected(self, op):
        """The next status fault for op: raised now, or (with "after")
        returned to be raised once the request has been carried out."""
        for f in STATE["faults"].get("status", []):
            if f.get("op") in (op, "*") and f.get("times", 1) > 0:
                f["times"] = f.get("times", 1) - 1
                h = {"Retry-After": f["retry_after"]} if "retry_after" in f else {}
                r = Reply(f["code"], "Injected", "injected fault", h)
                if f.get("after"):
                    return r
                raise r
        return None

    def _handle(self):
        op, status = "?", 0
        try:
            body = self._body()
            if self.path.startswith("/_fake/"):
                return self._fake(body)
            op, vars_ = route(self.command, self.path)
            verify(self, self.command, body, op)
            with LOCK:
                late = self._injected(op)
            token = self.headers.get("opc-retry-token")
            key = (op, token, self.path) if token and op in RETRY_OPS else None
            with LOCK:
                cached = STATE["tokens"].get(key) if key else None
            if cached:
                status = cached[0]
                return self._send(*cached)
            if op in FILE_OPS:
                if op == "write_file" and len(body) > STATE["max_body"]:
                    raise Reply(413, "RequestEntityTooLarge", "file over the limit")
                with LOCK:
                    res = FILE_OPS[op](vars_, body, self.headers)
            else:
                try:
                    parsed = json.loads(body) if body else {}
                except ValueError:
                    raise Reply(400, "InvalidParameter", "body is not JSON")
                if self.command in BODY_OPS and not isinstance(parsed, dict):
                    raise Reply(400, "InvalidParameter", "body is not an object")
                with LOCK:
                    res = OPS[op](vars_, parsed)
            status = 200 if res[0] in ("stream", "raw") else res[0]
            if res[0] == "stream":
                return self._stream(*res[1])
            if res[0] == "raw":
                return self._send(200, res[1], "application/octet-stream", res[2])
            out = (res[0], json.dumps(res[1]).encode() if res[1] is not None else b"",
                   "application/json", res[2] if len(res) > 2 else None)
            if key:
                with LOCK:
                    STATE["tokens"][key] = out
            if late:  # done, but the answer is lost: the retry must replay
                raise late
            return self._send(*out)
        except Reply as r:
            status = r.code
            return self._error(r)
        finally:
            if not self.path.startswith("/_fake/"):
                with LOCK:
                    STATE["log"].append([self.command, op, status])

    def _write_chunk(self, data):
        drip = STATE["faults"].get("drip_ms", 0)
        pieces = [data] if not drip else [data[i:i + 7] for i in range(0, len(data), 7)]
        for p in pieces:
            self.wfile.write(b"%x\r\n%s\r\n" % (len(p), p))
            self.wfile.flush()
            if drip:
                time.sleep(drip / 1000)

    def _stream(self, c, frm, until):
        sse = STATE["stream"] == "sse"
        self.send_response(200)
        self.send_header("opc-request-id", self._rid())
        self.send_header("Content-Type", "text/event-stream" if sse else "application/x-ndjson")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        seq, sent = frm, 0
        if sse:
            self._write_chunk(b": locus fake stream\n\n")
        while True:
            with LOCK:
                while len(c.events) < seq and not (c.done and len(c.events) < seq):
                    LOCK.wait(1)
                if len(c.events) < seq:
                    break
                ev = c.events[seq - 1]
                cut = STATE["faults"].get("cut_after")
                if cut and sent >= cut and not c.cut_done:
                    c.cut_done = True
                    self.close_connection = True
                    self.wfile.write(b"5\r\ndata:")  # a torn chunk, then EOF
                    self.wfile.flush()
                    return
            if STATE["faults"].get("data_base64") and "data" in ev:
                ev = dict(ev, data=base64.b64encode(ev["data"].encode()).decode())
            if STATE["faults"].get("bad_event"):
                ev = {"noseq": True} if ev["event"] != "STARTED" else ev
            line = json.dumps(ev).encode()
            frame = b"data: " + line + b"\n\n" if sse else line + b"\n"
            for _ in range(2 if STATE["faults"].get("duplicate") else 1):
                self._write_chunk(frame)
            sent += 1
            if ev["event"] == "FINISHED" or (until is not None and seq >= until):
                break
            seq += 1
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = _handle


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        pass


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--keys", required=True, help="JSON {keyId: PEM file}")
    ap.add_argument("--routes", required=True, help="JSON {op: 'METHOD /path'}")
    ap.add_argument("--stream", choices=("sse", "ndjson"), default="sse")
    ap.add_argument("--ready-polls", type=int, default=1)
    ap.add_argument("--max-body", type=int, default=8 << 20)
    ap.add_argument("--lifetime", type=float, default=600)
    ap.add_argument("--tls", help="serve HTTPS; write a test CA to DIR/ca.pem")
    a = ap.parse_args()
    with open(a.keys) as f:
        for kid, path in json.load(f).items():
            with open(path, "rb") as k:
                pem = k.read()
            try:
                key = serialization.load_pem_public_key(pem)
            except ValueError:
                key = serialization.load_pem_private_key(pem, None).public_key()
            STATE["keys"][kid] = key
    with open(a.routes) as f:
        STATE["routes"] = compile_routes(json.load(f))
    STATE.update(stream=a.stream, ready_polls=a.ready_polls, max_body=a.max_body,
                 workdir=tempfile.mkdtemp(prefix="locus-fake-oci-"))
    # Commands run in bubblewrap with the sandbox's folder at /workspace
    # when it works here; else "/workspace" is replaced in the text.
    STATE["bwrap"] = subprocess.run(
        ["bwrap", "--unshare-ipc", "--ro-bind", "/", "/", "true"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0 \
        if shutil.which("bwrap") else False
    srv = Server(("127.0.0.1", 0), Handler)
    if a.tls:
        import ssl
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from fake_http import make_tls  # the same throwaway CA
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(make_tls(a.tls))
        srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    print("PORT %d" % srv.server_address[1], flush=True)
    t = threading.Thread(target=sys.stdin.read, daemon=True)
    t.start()
    t.join(a.lifetime)
    srv.shutdown()
    for sb in STATE["sandboxes"].values():
        for c in sb["_commands"].values():
            c.kill()
    shutil.rmtree(STATE["workdir"], ignore_errors=True)


if __name__ == "__main__":
    main()
