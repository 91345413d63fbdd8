#!/usr/bin/env python3
"""The backend behind the three proxies in bench/conformance/ (stdlib only): answers every method on every path
with the request body echoed back (h1spec checks it), or, for a request without a body, a fixed text of about
300 bytes (h2spec's flow-control cases need DATA frames). HTTP/1.1 keep-alive; chunked request bodies are read.

usage: echo-backend.py PORT
"""
import http.server
import socketserver
import sys

TEXT = ("conformance backend\n" + "x" * 280 + "\n").encode()


class Echo(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def body(self):
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            data = b""
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return data
                data += self.rfile.read(size)
                self.rfile.readline()
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length > 0 else b""

    def answer(self):
        data = self.body()
        out = data if data else TEXT
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(out)

    do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = do_OPTIONS = do_PATCH = answer


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True


if __name__ == "__main__":
    Server(("127.0.0.1", int(sys.argv[1])), Echo).serve_forever()
