#!/usr/bin/python3
"""A scripted Gemini API on 127.0.0.1 for Gemini CLI: a request whose
last turn holds no functionResponse gets a run_shell_command call with
COMMAND; a later one gets a text quoting the response it saw."""
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

COMMAND, LOG = sys.argv[1], sys.argv[2]
lock = threading.Lock()


class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def reply(self, obj, sse):
        if sse:
            out = ("data: " + json.dumps(obj) + "\r\n\r\n").encode()
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
        else:
            out = json.dumps(obj).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)

    def do_POST(self):
        n = int(self.headers.get("content-length", 0))
        body = json.loads(self.rfile.read(n) or b"{}")
        with lock, open(LOG, "a") as f:
            names = [d.get("name") for t in body.get("tools", [])
                     for d in t.get("functionDeclarations", [])]
            f.write(json.dumps({"path": self.path, "tools": names,
                                "last": body.get("contents", [{}])[-1]})[:3000] + "\n")
        if ":countTokens" in self.path:
            return self.reply({"totalTokens": 10}, False)
        contents = body.get("contents", [])
        last = contents[-1] if contents else {}
        resp = None
        for p in last.get("parts", []):
            if "functionResponse" in p:
                resp = p["functionResponse"]
        tools = json.dumps(body.get("tools", []))
        if resp is None and "run_shell_command" in tools:
            part = {"functionCall": {"name": "run_shell_command",
                                     "args": {"command": COMMAND}}}
        elif "run_shell_command" not in tools:
            part = {"text": json.dumps({
                "complexity_reasoning": "simple", "complexity_score": 10,
                "reasoning": "done", "next_speaker": "user"})}
        else:
            part = {"text": "DONE " + json.dumps(resp)[:1500] if resp
                    else "ok"}
        obj = {"candidates": [{"content": {"role": "model", "parts": [part]},
                               "finishReason": "STOP", "index": 0}],
               "usageMetadata": {"promptTokenCount": 10,
                                 "candidatesTokenCount": 5,
                                 "totalTokenCount": 15}}
        self.reply(obj, "alt=sse" in self.path)

    def do_GET(self):
        self.reply({}, False)


srv = ThreadingHTTPServer(("127.0.0.1", 0), H)
print(srv.server_address[1], flush=True)
srv.serve_forever()
