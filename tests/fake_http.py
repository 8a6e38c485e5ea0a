#!/usr/bin/python3
"""Loopback HTTP/1.1 server for tests/test_http.c (net/http.c's suite).

Run with /usr/bin/python3.  Binds 127.0.0.1:0, prints "PORT <n>" on stdout,
and serves until its stdin closes (the test process ended) or --lifetime
seconds pass.  With --tls DIR it makes a throwaway CA and a server
certificate for 127.0.0.1 (python3-cryptography), writes DIR/ca.pem and
serves HTTPS.

Routes (every response carries opc-request-id: rid-<n>):
  /echo                 200, JSON of the request as received
  /status/<code>        that status, always
  /flaky/<key>/<n>/<code>[?ra=<secs>]
                        the first n requests of <key> get <code> (with
                        Retry-After when ra is given), then 200 "ok"
  /stream/<n>[?ms=<d>]  chunked: n lines "chunk <i>", d ms apart, then a
                        trailer "x-trailer: done"
  /slow?ms=<d>          sleeps d ms, then 200
  /stall?ms=<d>         headers and one chunk, then silence for d ms
  /cut                  claims 100 bytes, sends 10, closes
  /big/<n>              n bytes of "x"
  /log                  JSON list of the requests seen so far
"""
import argparse
import json
import os
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

LOCK = threading.Lock()
LOG = []
COUNTS = {}
RID = [0]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def setup(self):
        super().setup()
        # headers and body go out as two writes: without this, Nagle and
        # the client's delayed ACK add 40 ms to every answer
        self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, fmt, *args):  # quiet
        pass

    def _rid(self):
        with LOCK:
            RID[0] += 1
            return "rid-%d" % RID[0]

    def _send(self, code, body=b"", headers=None, ctype="text/plain"):
        self.send_response(code)
        self.send_header("opc-request-id", self._rid())
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _read_body(self):
        n = self.headers.get("Content-Length")
        if self.headers.get("Transfer-Encoding"):
            return None  # the client must never send chunked bodies
        return self.rfile.read(int(n)) if n else b""

    def _handle(self):
        body = self._read_body()
        url = urlsplit(self.path)
        q = parse_qs(url.query)
        parts = url.path.strip("/").split("/")
        rec = {
            "method": self.command,
            "target": self.path,
            "headers": [[k, v] for k, v in self.headers.items()],
            "body_len": None if body is None else len(body),
            "body": None if body is None else body.decode("latin-1"),
        }
        if parts[0] != "log":
            with LOCK:
                LOG.append(rec)
        if body is None:
            return self._send(400, b"chunked request body")
        route = parts[0]
        if route == "echo":
            return self._send(200, json.dumps(rec).encode(),
                              ctype="application/json")
        if route == "log":
            with LOCK:
                data = json.dumps(LOG).encode()
            return self._send(200, data, ctype="application/json")
        if route == "status":
            return self._send(int(parts[1]),
                              json.dumps({"code": "X", "message": "m"})
                              .encode(), ctype="application/json")
        if route == "flaky":
            key, n, code = parts[1], int(parts[2]), int(parts[3])
            with LOCK:
                COUNTS[key] = COUNTS.get(key, 0) + 1
                seen = COUNTS[key]
            if seen <= n:
                h = {}
                if "ra" in q:
                    h["Retry-After"] = q["ra"][0]
                return self._send(code, b'{"code":"TooMany"}', h,
                                  "application/json")
            return self._send(200, b"ok")
        if route == "stream":
            return self._stream(int(parts[1]), int(q.get("ms", ["0"])[0]))
        if route == "slow":
            time.sleep(int(q["ms"][0]) / 1000)
            return self._send(200, b"slow")
        if route == "stall":
            self.send_response(200)
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            self._chunk(b"first\n")
            time.sleep(int(q["ms"][0]) / 1000)
            self.close_connection = True
            return None
        if route == "cut":
            self.send_response(200)
            self.send_header("Content-Length", "100")
            self.end_headers()
            self.wfile.write(b"0123456789")
            self.wfile.flush()
            self.close_connection = True
            return None
        if route == "big":
            return self._send(200, b"x" * int(parts[1]))
        return self._send(404, b'{"code":"NotFound"}')

    def _chunk(self, data):
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def _stream(self, n, ms):
        self.send_response(200)
        self.send_header("opc-request-id", self._rid())
        self.send_header("Content-Type", "text/plain")
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("Trailer", "x-trailer")
        self.end_headers()
        for i in range(n):
            self._chunk(b"chunk %d\n" % i)
            if ms:
                time.sleep(ms / 1000)
        self.wfile.write(b"0\r\nx-trailer: done\r\n\r\n")
        self.wfile.flush()

    do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = do_PATCH = _handle


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        pass  # resets and refused handshakes are part of the tests


def make_tls(d):
    import datetime
    import ipaddress
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    now = datetime.datetime.utcnow()
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "locus test CA")])
    ca = (x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name)
          .public_key(ca_key.public_key()).serial_number(1)
          .not_valid_before(now - datetime.timedelta(minutes=5))
          .not_valid_after(now + datetime.timedelta(hours=2))
          .add_extension(x509.BasicConstraints(ca=True, path_length=None), True)
          .sign(ca_key, hashes.SHA256()))
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")]))
            .issuer_name(ca_name).public_key(key.public_key()).serial_number(2)
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(hours=2))
            .add_extension(x509.SubjectAlternativeName(
                [x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), False)
            .sign(ca_key, hashes.SHA256()))
    pem = serialization.Encoding.PEM
    with open(os.path.join(d, "ca.pem"), "wb") as f:
        f.write(ca.public_bytes(pem))
    with open(os.path.join(d, "server.pem"), "wb") as f:
        f.write(cert.public_bytes(pem))
        f.write(key.private_bytes(pem, serialization.PrivateFormat.PKCS8,
                                  serialization.NoEncryption()))
    return os.path.join(d, "server.pem")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tls")
    ap.add_argument("--lifetime", type=float, default=300)
    a = ap.parse_args()
    srv = Server(("127.0.0.1", 0), Handler)
    if a.tls:
        import ssl
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(make_tls(a.tls))
        srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    print("PORT %d" % srv.server_address[1], flush=True)
    # Until the parent goes away (stdin EOF) or the lifetime ends.
    t = threading.Thread(target=sys.stdin.read, daemon=True)
    t.start()
    t.join(a.lifetime)
    srv.shutdown()


if __name__ == "__main__":
    main()
