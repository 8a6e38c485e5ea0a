#!/usr/bin/python3
"""Loopback gRPC (HTTP/2 cleartext) server for tests/test_http.c: proves
that net/http.c speaks h2c with prior knowledge and hands over trailers.

Run with /usr/bin/python3 (Debian's python3-grpcio).  Prints "PORT <n>",
serves until stdin closes or --lifetime seconds pass.  Service
locus.test.Echo, raw bytes (no protobuf):
  Stream   unary -> stream: the request, b"two", b"three"; trailing
           metadata x-done: yes
  Missing  aborts with NOT_FOUND (a trailers-only response)
"""
import argparse
import sys
import threading
from concurrent import futures

import grpc


def stream(request, context):
    context.set_trailing_metadata((("x-done", "yes"),))
    yield request
    yield b"two"
    yield b"three"


def missing(request, context):
    context.abort(grpc.StatusCode.NOT_FOUND, "no such thing")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lifetime", type=float, default=300)
    a = ap.parse_args()
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(
        "locus.test.Echo", {
            "Stream": grpc.unary_stream_rpc_method_handler(stream),
            "Missing": grpc.unary_unary_rpc_method_handler(missing),
        }),))
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    print("PORT %d" % port, flush=True)
    t = threading.Thread(target=sys.stdin.read, daemon=True)
    t.start()
    t.join(a.lifetime)
    server.stop(0)


if __name__ == "__main__":
    main()
