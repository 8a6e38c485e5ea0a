#!/usr/bin/python3
"""A scripted Anthropic Messages API on 127.0.0.1 for Claude Code: the
first request whose last user message holds no tool_result gets a Bash
tool_use with COMMAND; any later one gets a final text that quotes the
tool_result it saw.  Prints the port, logs requests to LOG."""
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

COMMAND = sys.argv[1]
LOG = sys.argv[2]
lock = threading.Lock()


def sse(ev, data):
    return f"event: {ev}\ndata: {json.dumps(data)}\n\n".encode()


class H(BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass

    def do_GET(self):
        self.send_response(404)
        self.end_headers()

    def do_POST(self):
        n = int(self.headers.get("content-length", 0))
        body = json.loads(self.rfile.read(n) or b"{}")
        with lock, open(LOG, "a") as f:
            f.write(json.dumps({"path": self.path, "body": body})[:4000] + "\n")
        if "count_tokens" in self.path:
            out = json.dumps({"input_tokens": 10}).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(out)))
            self.end_headers()
            self.wfile.write(out)
            return
        msgs = body.get("messages", [])
        last = msgs[-1] if msgs else {}
        result = None
        if isinstance(last.get("content"), list):
            for c in last["content"]:
                if c.get("type") == "tool_result":
                    result = c
        has_tools = any(t.get("name") == "Bash" for t in body.get("tools", []))
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.end_headers()
        w = self.wfile.write
        w(sse("message_start", {"type": "message_start", "message": {
            "id": "msg_1", "type": "message", "role": "assistant",
            "model": body.get("model", "m"), "content": [],
            "stop_reason": None, "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 1}}}))
        if result is None and has_tools:
            w(sse("content_block_start", {"type": "content_block_start",
                  "index": 0, "content_block": {"type": "tool_use",
                  "id": "toolu_01", "name": "Bash", "input": {}}}))
            w(sse("content_block_delta", {"type": "content_block_delta",
                  "index": 0, "delta": {"type": "input_json_delta",
                  "partial_json": json.dumps({"command": COMMAND,
                                              "description": "run"})}}))
            w(sse("content_block_stop", {"type": "content_block_stop",
                                         "index": 0}))
            stop = "tool_use"
        else:
            text = "DONE " + json.dumps(result)[:1500] if result else "ok"
            w(sse("content_block_start", {"type": "content_block_start",
                  "index": 0, "content_block": {"type": "text", "text": ""}}))
            w(sse("content_block_delta", {"type": "content_block_delta",
                  "index": 0, "delta": {"type": "text_delta", "text": text}}))
            w(sse("content_block_stop", {"type": "content_block_stop",
                                         "index": 0}))
            stop = "end_turn"
        w(sse("message_delta", {"type": "message_delta", "delta": {
            "stop_reason": stop, "stop_sequence": None},
            "usage": {"output_tokens": 5}}))
        w(sse("message_stop", {"type": "message_stop"}))


srv = ThreadingHTTPServer(("127.0.0.1", 0), H)
print(srv.server_address[1], flush=True)
srv.serve_forever()
