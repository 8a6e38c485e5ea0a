#!/usr/bin/python3
"""A strict loopback fake of the locus gateway, for tests/test_runner.py.

Run with /usr/bin/python3 (stdlib only).  It binds 127.0.0.1:0 and refuses
what a real gateway would refuse: a wrong or missing bearer token, a path
of another run, an unknown route or method, a body that is not JSON or has
unknown or missing fields or wrong types, events out of sequence (seq_from
must be the next number the run expects), a batch of more than 64, an
event of a type not allowed or with fields other than its type's, a
re-admission naming an approval that is not approved or for another call.
Every refusal is also recorded in `violations`: a test passes only when
that list is empty.

Besides the gateway (`Gateway`), there are a strict MCP server over
streamable HTTP that checks the one-shot decision token of every
tools/call against the gateway's admissions (`McpServer`), and an API
connector host that does the same (`ApiServer`).  docs/runner.md says
which parts of the protocol are assumed.
"""
import hashlib
import json
import socket
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

ALLOWED_EVENTS = {
    "token": {"text"},
    "think": {"iteration", "text", "tool_calls"},
    "tool_start": {"call_id", "tool", "arguments"},
    "tool_complete": {"call_id", "tool", "result", "error", "duration_ms"},
    "harness.exec": {"call_id", "command_sha256", "exit_code", "duration_s",
                     "timed_out", "output_sha256", "output_bytes",
                     "truncated", "background", "attested_by"},
}
RESULT_FIELDS = {"status", "final_message", "stop_reason", "error",
                 "usage_reported", "cost_usd_reported", "waiting"}
WAITING_FIELDS = {"approval": {"kind", "call_id", "tool", "approval_id"},
                  "question": {"kind", "call_id", "question"}}


def canonical(value):
    return json.dumps(value, sort_keys=True, separators=(",", ":"),
                      ensure_ascii=False)


def digest(value):
    return "sha256:" + hashlib.sha256(canonical(value).encode()).hexdigest()


def strict_loads(raw):
    """JSON with no key given twice."""
    def hook(pairs):
        keys = [k for k, _ in pairs]
        if len(keys) != len(set(keys)):
            raise ValueError("duplicate key")
        return dict(pairs)
    return json.loads(raw.decode("utf-8"), object_pairs_hook=hook)


class Run:
    def __init__(self, run_id, token, manifest):
        self.run_id = run_id
        self.token = token
        self.manifest = manifest      # a dict, or raw bytes served as is
        self.next_ops = [{"op": "start"}]
        self.events = []              # (seq, event)
        self.next_seq = 0
        self.results = []
        self.checkpoints = {}         # id -> state
        self.checkpoint_order = []
        self.checkpoint_gets = []     # the GET queries, in order
        self.admissions = []          # request bodies
        self.tool_calls = []          # gateway tools performed


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def setup(self):
        super().setup()
        self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, fmt, *args):
        pass

    def _send(self, code, obj=None, raw=None, ctype="application/json",
              headers=None):
        body = raw if raw is not None else (
            b"" if obj is None else json.dumps(obj).encode())
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def _body(self):
        if self.headers.get("Transfer-Encoding"):
            return None
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n else b""

    def do_GET(self):
        self.server.owner.handle(self, "GET")

    def do_POST(self):
        self.server.owner.handle(self, "POST")

    def do_PUT(self):
        self.server.owner.handle(self, "PUT")

    def do_DELETE(self):
        self.server.owner.handle(self, "DELETE")


class Server:
    """A ThreadingHTTPServer on 127.0.0.1:0 in a daemon thread."""

    def __init__(self):
        self.lock = threading.RLock()
        self.violations = []
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.httpd.owner = self
        self.port = self.httpd.server_address[1]
        self.url = "http://127.0.0.1:%d" % self.port
        self.thread = threading.Thread(target=self.httpd.serve_forever,
                                       daemon=True)
        self.thread.start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()

    def refuse(self, h, code, why):
        with self.lock:
            self.violations.append("%s %s: %s" % (h.command, h.path, why))
        h._send(code, {"detail": why})


class Gateway(Server):
    """The control plane: next, manifest, admit, approvals, events,
    checkpoints, result, children, gateway tools."""

    def __init__(self):
        super().__init__()
        self.runs = {}                # run id -> Run
        self.by_token = {}
        self.policy = lambda run, body: {"outcome": "allow"}
        self.approvals = {}           # id -> {"state", "call": (run, call_id, tool, args)}
        self.approval_polls = {}
        self.decisions = {}           # token -> (run, call_id, tool, args)
        self.used_decisions = set()
        self.down = False             # every route answers 503
        self.down_requests = 0        # the next N requests answer 503
        self.lose_event_answers = 0   # take the next N batches, answer 503
        self.events_down = 0          # the next N event posts answer 503
        self.event_posts = 0
        self.child_manifest = None    # fn(parent run, call_id, agent, prompt)
        self.gateway_tools = {}       # name -> fn(args) -> answer dict

    def add_run(self, run_id, manifest, token=None):
        token = token or "tok-" + uuid.uuid4().hex
        run = Run(run_id, token, manifest)
        with self.lock:
            self.runs[run_id] = run
            self.by_token[token] = run
        return run

    # ---- helpers ----

    def _auth(self, h):
        a = h.headers.get("Authorization", "")
        if not a.startswith("Bearer "):
            self.refuse(h, 401, "no bearer token")
            return None
        run = self.by_token.get(a[7:])
        if run is None:
            self.refuse(h, 401, "unknown token")
        return run

    def _json(self, h, required, optional=()):
        raw = h._body()
        if raw is None:
            self.refuse(h, 400, "chunked body")
            return None
        if h.headers.get("Content-Type") != "application/json":
            self.refuse(h, 415, "Content-Type is not application/json")
            return None
        try:
            body = strict_loads(raw)
        except ValueError as e:
            self.refuse(h, 400, "malformed JSON: %s" % e)
            return None
        if not isinstance(body, dict):
            self.refuse(h, 400, "not an object")
            return None
        keys = set(body)
        if not set(required) <= keys or not keys <= set(required) | set(optional):
            self.refuse(h, 422, "fields %s (required %s, optional %s)" % (
                sorted(keys), sorted(required), sorted(optional)))
            return None
        return body

    def _no_body(self, h):
        if h.headers.get("Content-Length") not in (None, "0"):
            self.refuse(h, 400, "a GET with a body")
            return False
        return True

    def handle(self, h, method):
        with self.lock:
            down = self.down or self.down_requests > 0
            if self.down_requests > 0:
                self.down_requests -= 1
        if down:
            h._body()
            h._send(503, {"detail": "down"})
            return
        url = urlsplit(h.path)
        parts = url.path.split("/")
        q = parse_qs(url.query, keep_blank_values=True)
        run = self._auth(h)
        if run is None:
            return
        with self.lock:
            try:
                self._route(h, method, parts, q, run)
            except Exception as e:  # a bug in the fake is a violation too
                self.refuse(h, 500, "fake error: %r" % e)

    def _route(self, h, method, parts, q, run):
        p = parts[1:]
        if p == ["internal", "v1", "runner", "next"] and method == "GET":
            if self._no_body(h):
                op = run.next_ops.pop(0) if run.next_ops else {"op": "stop", "reason": "nothing to do"}
                if isinstance(op, bytes):
                    h._send(200, raw=op)
                else:
                    h._send(200, op)
            return
        if p == ["internal", "v1", "runner", "manifest"] and method == "GET":
            if self._no_body(h):
                m = run.manifest
                h._send(200, raw=m if isinstance(m, bytes) else json.dumps(m).encode())
            return
        if p == ["v1", "admit"] and method == "POST":
            return self._admit(h, run)
        if p[:3] == ["v1", "admit", "approval"] and len(p) == 4 and method == "GET":
            return self._approval(h, run, p[3])
        if p[:3] == ["internal", "v1", "runs"] and len(p) >= 5:
            if p[3] != run.run_id:
                return self.refuse(h, 403, "the path names run %s, the token is run %s" % (p[3], run.run_id))
            rest = p[4:]
            if rest == ["events"] and method == "POST":
                return self._events(h, run)
            if rest == ["result"] and method == "POST":
                return self._result(h, run)
            if rest == ["checkpoint"] and method == "PUT":
                return self._put_checkpoint(h, run)
            if rest == ["checkpoint"] and method == "GET":
                return self._get_checkpoint(h, run, q)
            if rest == ["children"] and method == "POST":
                return self._children(h, run)
            if len(rest) == 2 and rest[0] == "tools" and method == "POST":
                return self._tool(h, run, rest[1])
        self.refuse(h, 404, "no such route")

    # ---- routes ----

    def _admit(self, h, run):
        body = self._json(h, {"run_id", "call_id", "tool", "arguments"}, {"approval_id"})
        if body is None:
            return
        if body["run_id"] != run.run_id:
            return self.refuse(h, 403, "admission for another run")
        if not isinstance(body["arguments"], dict) or not all(
                isinstance(body[k], str) for k in ("run_id", "call_id", "tool")):
            return self.refuse(h, 422, "mistyped admission")
        run.admissions.append(body)
        ap = body.get("approval_id")
        call = (run.run_id, body["call_id"], body["tool"], canonical(body["arguments"]))
        if ap is not None:
            a = self.approvals.get(ap)
            if a is None or a["call"] != call:
                self.violations.append("re-admission of another call under approval %s" % ap)
                return h._send(200, {"outcome": "deny", "allowed": False,
                                     "reason": "that approval is for another call"})
            if a["state"] != "approved":
                return h._send(200, {"outcome": "deny", "allowed": False,
                                     "reason": "approval %s is %s" % (ap, a["state"])})
            a["state"] = "consumed"
            ans = {"outcome": "allow", "allowed": True, "reason": "approved by a person"}
        else:
            ans = self.policy(run, body)
            ans = dict(ans) if isinstance(ans, dict) else ans
        if isinstance(ans, (bytes, int)):
            if isinstance(ans, int):
                return h._send(ans, {"detail": "scripted failure"})
            return h._send(200, raw=ans)
        ans.setdefault("reason", "policy")
        ans.setdefault("audit_id", "au-%d" % len(run.admissions))
        if ans.get("outcome") == "allow" and ans.get("allowed", True) and "decision_token" not in ans:
            token = "dt-" + uuid.uuid4().hex
            self.decisions[token] = call
            ans["decision_token"] = token
        if ans.get("outcome") == "require_human" and ans.get("approval_id"):
            self.approvals.setdefault(ans["approval_id"], {"state": "pending", "call": call})
            self.approvals[ans["approval_id"]]["call"] = call
        h._send(200, ans)

    def _approval(self, h, run, ap):
        if not self._no_body(h):
            return
        a = self.approvals.get(ap)
        if a is None or a["call"][0] != run.run_id:
            return self.refuse(h, 404, "no approval %s for this run" % ap)
        self.approval_polls[ap] = self.approval_polls.get(ap, 0) + 1
        f = a.get("on_poll")
        if f:
            f(a, self.approval_polls[ap])
        h._send(200, {"approval_id": ap, "state": a["state"]})

    def _check_event(self, ev):
        if not isinstance(ev, dict) or ev.get("type") not in ALLOWED_EVENTS:
            return "an event of a type not allowed: %r" % (ev if not isinstance(ev, dict) else ev.get("type"))
        want = ALLOWED_EVENTS[ev["type"]] | {"type"}
        if set(ev) != want:
            return "event %s has fields %s, not %s" % (ev["type"], sorted(ev), sorted(want))
        if ev["type"] == "harness.exec" and ev["attested_by"] != "runner":
            return "harness.exec not attested by the runner"
        return None

    def _events(self, h, run):
        self.event_posts += 1
        if self.events_down > 0:
            self.events_down -= 1
            h._body()
            return h._send(503, {"detail": "events are down"})
        body = self._json(h, {"seq_from", "events"})
        if body is None:
            return
        evs, frm = body["events"], body["seq_from"]
        if not isinstance(frm, int) or isinstance(frm, bool) or not isinstance(evs, list) or not evs:
            return self.refuse(h, 422, "mistyped batch")
        if len(evs) > 64:
            return self.refuse(h, 413, "a batch of %d events" % len(evs))
        if frm < run.next_seq:
            # a resend after a lost answer is fine if it is the same events
            have = [e for s, e in run.events if frm <= s < frm + len(evs)]
            if have != evs[:len(have)]:
                self.violations.append("events: %d.. resent with other contents" % frm)
            return h._send(409, {"detail": "already have these", "next_seq": run.next_seq})
        if frm != run.next_seq:
            self.violations.append("events: seq_from %d, expected %d" % (frm, run.next_seq))
            return h._send(409, {"detail": "out of sequence", "next_seq": run.next_seq})
        for ev in evs:
            why = self._check_event(ev)
            if why:
                return self.refuse(h, 422, why)
        for i, ev in enumerate(evs):
            run.events.append((frm + i, ev))
        run.next_seq = frm + len(evs)
        if self.lose_event_answers > 0:
            self.lose_event_answers -= 1
            return h._send(503, {"detail": "the answer is lost"})
        h._send(200, {"next_seq": run.next_seq})

    def _result(self, h, run):
        body = self._json(h, {"status"}, RESULT_FIELDS - {"status"})
        if body is None:
            return
        if body["status"] not in ("done", "parked", "refused", "error"):
            return self.refuse(h, 422, "status %r" % body["status"])
        w = body.get("waiting")
        if body["status"] == "parked":
            if not isinstance(w, dict) or set(w) != WAITING_FIELDS.get(w.get("kind"), set()):
                return self.refuse(h, 422, "waiting %r" % (w,))
        elif w is not None:
            return self.refuse(h, 422, "waiting on a run that is not parked")
        run.results.append(body)
        h._send(200, {})

    def _put_checkpoint(self, h, run):
        body = self._json(h, {"thread_id", "state"}, {"checkpoint_id", "metadata"})
        if body is None:
            return
        if body["thread_id"] != run.run_id or not isinstance(body["state"], dict):
            return self.refuse(h, 422, "checkpoint of another thread, or a state that is not an object")
        cid = "cp-%d" % (len(run.checkpoint_order) + 1)
        run.checkpoints[cid] = body["state"]
        run.checkpoint_order.append(cid)
        h._send(200, {"checkpoint_id": cid})

    def _get_checkpoint(self, h, run, q):
        if not self._no_body(h):
            return
        if set(q) - {"thread_id", "checkpoint_id"} or q.get("thread_id") != [run.run_id]:
            return self.refuse(h, 400, "bad checkpoint query %r" % q)
        run.checkpoint_gets.append(q)
        cid = q.get("checkpoint_id", [None])[0] or (run.checkpoint_order[-1] if run.checkpoint_order else None)
        if cid not in run.checkpoints:
            return h._send(404, {"detail": "no checkpoint"})
        h._send(200, {"checkpoint_id": cid, "state": run.checkpoints[cid]})

    def _children(self, h, run):
        body = self._json(h, {"call_id", "agent", "prompt"})
        if body is None:
            return
        if self.child_manifest is None:
            return self.refuse(h, 403, "no child runs in this test")
        child_id = "%s-c%d" % (run.run_id, sum(1 for r in self.runs if r.startswith(run.run_id + "-c")) + 1)
        manifest = self.child_manifest(run, body, child_id)
        child = self.add_run(child_id, manifest)
        child.parent = run.run_id
        h._send(200, {"run_id": child_id, "admit_token": child.token})

    def _tool(self, h, run, name):
        body = self._json(h, {"call_id", "arguments"})
        if body is None:
            return
        f = self.gateway_tools.get(name)
        if f is None:
            return self.refuse(h, 404, "no gateway tool %s" % name)
        run.tool_calls.append((name, body))
        h._send(200, f(body["arguments"]))

    def take_decision(self, token, tool, args):
        """For the MCP/API fakes: a one-shot token admitted for this call."""
        with self.lock:
            call = self.decisions.get(token)
            if call is None or token in self.used_decisions:
                return "decision token unknown or used"
            if call[2] != tool or call[3] != canonical(args):
                return "decision token for another call"
            self.used_decisions.add(token)
            return None


class McpServer(Server):
    """A strict MCP server over streamable HTTP (spec 2025-06-18): POST
    only, Accept with both types, initialize first, then the session id
    and protocol version on every request, and on tools/call the
    x-locus-decision header the gateway issued for exactly that call."""

    def __init__(self, gateway, credential, tools):
        super().__init__()
        self.gateway = gateway
        self.credential = credential
        self.tools = tools            # name -> fn(args) -> text
        self.sessions = set()
        self.calls = []
        # raw SSE text sent before a tools/call answer's event (tests of
        # the runner's rule for events that are not a JSON-RPC message)
        self.prefix_events = ""

    def handle(self, h, method):
        with self.lock:
            try:
                self._handle(h, method)
            except Exception as e:
                self.refuse(h, 500, "fake error: %r" % e)

    def _handle(self, h, method):
        if method != "POST" or urlsplit(h.path).path != "/mcp":
            return self.refuse(h, 405, "not POST /mcp")
        acc = h.headers.get("Accept", "")
        if "application/json" not in acc or "text/event-stream" not in acc:
            return self.refuse(h, 406, "Accept %r" % acc)
        if h.headers.get("Authorization") != "Bearer " + self.credential:
            return self.refuse(h, 401, "wrong credential")
        try:
            msg = strict_loads(h._body())
        except ValueError:
            return self.refuse(h, 400, "malformed JSON")
        if not isinstance(msg, dict) or msg.get("jsonrpc") != "2.0":
            return self.refuse(h, 400, "not JSON-RPC 2.0")
        m = msg.get("method")
        if m == "initialize":
            if h.headers.get("Mcp-Session-Id"):
                return self.refuse(h, 400, "initialize inside a session")
            sid = uuid.uuid4().hex
            self.sessions.add(sid)
            res = {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                   "serverInfo": {"name": "fake-mcp", "version": "1"}}
            return h._send(200, {"jsonrpc": "2.0", "id": msg["id"], "result": res},
                           headers={"Mcp-Session-Id": sid})
        if h.headers.get("Mcp-Session-Id") not in self.sessions:
            return self.refuse(h, 404, "no session")
        if h.headers.get("MCP-Protocol-Version") != "2025-06-18":
            return self.refuse(h, 400, "no protocol version header")
        if m == "notifications/initialized":
            if "id" in msg:
                return self.refuse(h, 400, "a notification with an id")
            return h._send(202)
        if m != "tools/call":
            return self.refuse(h, 400, "method %r" % m)
        params = msg.get("params") or {}
        name, args = params.get("name"), params.get("arguments")
        why = self.gateway.take_decision(h.headers.get("x-locus-decision", ""), name, args)
        if why:
            return self.refuse(h, 403, why)
        self.calls.append((name, args))
        text = self.tools[name](args)
        ans = {"jsonrpc": "2.0", "id": msg["id"],
               "result": {"content": [{"type": "text", "text": text}], "isError": False}}
        # One event whose data spans several data: lines (SSE joins them
        # with "\n"), behind a comment and an id: line, CRLF ends: the
        # runner must read it as one JSON-RPC message (net/sse.c).
        data = "".join("data: %s\r\n" % l for l in json.dumps(ans, indent=1).split("\n"))
        raw = (self.prefix_events +
               ": keep-alive\r\nevent: message\r\nid: 1\r\n%s\r\n" % data).encode()
        h._send(200, raw=raw, ctype="text/event-stream")


class ApiServer(Server):
    """An API connector's host: every request must carry the credential and
    a decision token admitted for exactly the call it makes."""

    def __init__(self, gateway, credential, routes):
        super().__init__()
        self.gateway = gateway
        self.credential = credential
        self.routes = routes          # (method, path) -> (tool, fn(query, body) -> (args, text))
        self.calls = []

    def handle(self, h, method):
        with self.lock:
            url = urlsplit(h.path)
            raw = h._body()
            if h.headers.get("Authorization") != "Bearer " + self.credential:
                return self.refuse(h, 401, "wrong credential")
            r = self.routes.get((method, url.path))
            if r is None:
                return self.refuse(h, 404, "no route %s %s" % (method, url.path))
            tool, f = r
            body = strict_loads(raw) if raw else None
            args, text = f(parse_qs(url.query), body)
            why = self.gateway.take_decision(h.headers.get("x-locus-decision", ""), tool, args)
            if why:
                return self.refuse(h, 403, why)
            self.calls.append((method, h.path, body))
            h._send(200, raw=text.encode(), ctype="text/plain")
