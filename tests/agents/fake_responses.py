#!/usr/bin/python3
"""A scripted OpenAI Responses API on 127.0.0.1 for `codex exec`: the first
request (no function_call_output in its input) gets a call of the shell
tool Codex offers with COMMAND; a later one gets a message quoting the
output it saw.  Logs each request's tool names and last input item."""
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

COMMAND, LOG = sys.argv[1], sys.argv[2]
lock = threading.Lock()


def ev(t, **kw):
    kw["type"] = t
    return f"event: {t}\ndata: {json.dumps(kw)}\n\n".encode()


class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def do_GET(self):
        out = json.dumps({"data": [], "models": []}).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)

    def do_POST(self):
        n = int(self.headers.get("content-length", 0))
        raw = self.rfile.read(n)
        try:
            body = json.loads(raw or b"{}")
        except Exception:
            body = {}
        tools = [t.get("name") for t in body.get("tools", [])]
        items = body.get("input", [])
        out_seen = [i for i in items if i.get("type") ==
                    "function_call_output"]
        with lock, open(LOG, "a") as f:
            f.write(json.dumps({"path": self.path, "tools": tools,
                                "last": items[-1] if items else None})[:3000]
                    + "\n")
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("connection", "close")
        self.end_headers()
        w = self.wfile.write
        rid = "resp_1"
        w(ev("response.created", response={"id": rid}))
        tool = next((t for t in ("shell", "exec_command", "shell_command")
                     if t in tools), None)
        if not out_seen and tool:
            if tool == "shell":
                args = {"command": ["bash", "-lc", COMMAND]}
            else:
                args = {"cmd": COMMAND} if tool == "exec_command" else {
                    "command": COMMAND}
            item = {"type": "function_call", "id": "fc_1",
                    "call_id": "call_1", "name": tool,
                    "arguments": json.dumps(args)}
        else:
            text = "DONE " + json.dumps(out_seen[-1])[:1500] if out_seen \
                else "ok"
            item = {"type": "message", "id": "msg_1", "role": "assistant",
                    "content": [{"type": "output_text", "text": text}]}
        w(ev("response.output_item.done", item=item))
        w(ev("response.completed", response={
            "id": rid, "usage": {"input_tokens": 10, "output_tokens": 5,
                                 "total_tokens": 15,
                                 "input_tokens_details": {"cached_tokens": 0},
                                 "output_tokens_details": {
                                     "reasoning_tokens": 0}}}))
        self.wfile.flush()
        self.close_connection = True


srv = ThreadingHTTPServer(("127.0.0.1", 0), H)
print(srv.server_address[1], flush=True)
srv.serve_forever()
