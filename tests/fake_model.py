#!/usr/bin/python3
"""A scripted, strict fake of an OpenAI-compatible chat-completions model,
for tests/test_runner.py.  Run with /usr/bin/python3 (stdlib only).

POST /v1/chat/completions only, with `Authorization: Bearer <key>` where
the key is the placeholder the test put in the runner's environment; the
body must have exactly model, messages, tools (optional), stream and
stream_options, the model name the manifest names, well-formed messages
(every tool message answers a tool call of the assistant message before
it, no call left unanswered), and tools of type function.

A script is chosen by the conversation's first user message and a turn by
the number of assistant messages so far, so a resumed run (its messages
restored from a checkpoint) gets the turn after the last one it saw.  A
turn is {"content": str} or {"tool_calls": [{"name", "arguments"}]}
(arguments a dict, or a str sent as is), plus optional "reasoning", and
"mode": "sse" (default, split into small deltas), "json" (one JSON body),
"garbage" (a stream with a malformed chunk), "no_done" (no [DONE]),
"no_id" (a tool call without an id), "bad_index" (a tool-call index of
1000) or "endless" (content deltas until the client goes away, at most
256 MiB); "usage" replaces the usage reported.  Every request is kept in
`requests`; violations go to `violations`.
"""
import json
import threading
from http.server import ThreadingHTTPServer

from fake_gateway import Handler, strict_loads


class FakeModel:
    def __init__(self, key, model="fake-model"):
        self.key = key
        self.model = model
        self.scripts = {}            # first user message -> [turns]
        self.requests = []
        self.violations = []
        self.lock = threading.Lock()
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.httpd.owner = self
        self.url = "http://127.0.0.1:%d/v1" % self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()

    def refuse(self, h, code, why):
        with self.lock:
            self.violations.append(why)
        body = json.dumps({"error": {"message": why}}).encode()
        h.send_response(code)
        h.send_header("Content-Type", "application/json")
        h.send_header("Content-Length", str(len(body)))
        h.end_headers()
        h.wfile.write(body)

    def _check(self, body):
        if set(body) - {"model", "messages", "tools", "stream", "stream_options"} or \
                not {"model", "messages", "stream"} <= set(body):
            return "fields %s" % sorted(body)
        if body["model"] != self.model:
            return "model %r" % body["model"]
        if body["stream"] is not True or body.get("stream_options") != {"include_usage": True}:
            return "not streamed with usage"
        for t in body.get("tools", []):
            if set(t) != {"type", "function"} or t["type"] != "function" or \
                    set(t["function"]) - {"name", "description", "parameters"}:
                return "a malformed tool %r" % t
        open_calls = set()
        for m in body["messages"]:
            role = m.get("role")
            if role in ("system", "user"):
                if open_calls or set(m) != {"role", "content"}:
                    return "a %s message out of place" % role
            elif role == "assistant":
                if open_calls:
                    return "tool calls left unanswered: %s" % sorted(open_calls)
                if set(m) - {"role", "content", "tool_calls"}:
                    return "assistant fields %s" % sorted(m)
                for tc in m.get("tool_calls", []):
                    open_calls.add(tc["id"])
            elif role == "tool":
                if set(m) != {"role", "tool_call_id", "content"} or m["tool_call_id"] not in open_calls:
                    return "a tool message answering no call"
                open_calls.discard(m["tool_call_id"])
            else:
                return "role %r" % role
        if open_calls:
            return "tool calls left unanswered: %s" % sorted(open_calls)
        return None

    def handle(self, h, method):
        if method != "POST" or h.path != "/v1/chat/completions":
            return self.refuse(h, 404, "path %s" % h.path)
        if h.headers.get("Authorization") != "Bearer " + self.key:
            return self.refuse(h, 401, "wrong model key")
        try:
            body = strict_loads(h.rfile.read(int(h.headers.get("Content-Length") or 0)))
        except ValueError:
            return self.refuse(h, 400, "malformed JSON")
        why = self._check(body)
        if why:
            return self.refuse(h, 400, why)
        with self.lock:
            self.requests.append(body)
        msgs = body["messages"]
        first = next((m["content"] for m in msgs if m["role"] == "user"), None)
        script = self.scripts.get(first)
        n = sum(1 for m in msgs if m["role"] == "assistant")
        if script is None or n >= len(script):
            return self.refuse(h, 400, "no scripted turn %d for %r" % (n, first))
        turn = script[n]
        if callable(turn):
            turn = turn(msgs)
        calls = []
        for i, tc in enumerate(turn.get("tool_calls", [])):
            a = tc["arguments"]
            calls.append({"id": tc.get("id", "call_%d_%d" % (n, i)), "name": tc["name"],
                          "arguments": a if isinstance(a, str) else json.dumps(a)})
        usage = {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}
        if "cost" in turn:
            usage["cost"] = turn["cost"]
        usage = turn.get("usage", usage)
        mode = turn.get("mode", "sse")
        if mode == "json":
            msg = {"role": "assistant", "content": turn.get("content")}
            if calls:
                msg["tool_calls"] = [{"id": c["id"], "type": "function",
                                      "function": {"name": c["name"], "arguments": c["arguments"]}}
                                     for c in calls]
            raw = json.dumps({"id": "cmpl", "object": "chat.completion", "model": self.model,
                              "choices": [{"index": 0, "message": msg, "finish_reason": "stop"}],
                              "usage": usage}).encode()
            h.send_response(200)
            h.send_header("Content-Type", "application/json")
            h.send_header("Content-Length", str(len(raw)))
            h.end_headers()
            h.wfile.write(raw)
            return
        try:
            self._stream(h, turn, calls, usage, mode)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the runner gave up on a stream it found malformed

    def _stream(self, h, turn, calls, usage, mode):
        h.send_response(200)
        h.send_header("Content-Type", "text/event-stream")
        h.send_header("Transfer-Encoding", "chunked")
        h.end_headers()

        def send(obj):
            data = obj if isinstance(obj, str) else json.dumps(obj)
            chunk = ("data: %s\n\n" % data).encode()
            h.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            h.wfile.flush()

        def delta(d, finish=None):
            send({"id": "c", "object": "chat.completion.chunk", "model": self.model,
                  "choices": [{"index": 0, "delta": d, "finish_reason": finish}]})

        delta({"role": "assistant"})
        if mode == "endless":
            filler = "x" * 65536
            try:
                for _ in range(4096):
                    delta({"content": filler})
            except OSError:
                pass
            return
        if turn.get("reasoning"):
            delta({"reasoning_content": turn["reasoning"]})
        text = turn.get("content") or ""
        for k in range(0, len(text), 7):
            delta({"content": text[k:k + 7]})
        for i, c in enumerate(calls):
            first = {"index": 1000 if mode == "bad_index" else i, "type": "function",
                     "function": {"name": c["name"], "arguments": ""}}
            if mode != "no_id":
                first["id"] = c["id"]
            delta({"tool_calls": [first]})
            a = c["arguments"]
            for k in range(0, len(a), 5):
                delta({"tool_calls": [{"index": i, "function": {"arguments": a[k:k + 5]}}]})
        if mode == "garbage":
            send("{\"choices\": [{\"index\": 0, \"delta\": {\"content\": ")
        delta({}, "tool_calls" if calls else "stop")
        send({"id": "c", "object": "chat.completion.chunk", "choices": [], "usage": usage})
        if mode != "no_done":
            send("[DONE]")
        h.wfile.write(b"0\r\n\r\n")
        h.wfile.flush()
