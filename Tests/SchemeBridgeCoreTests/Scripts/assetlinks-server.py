#!/usr/bin/python3
"""An HTTPS server for the app-link tests (issue 41): python3's http.server over ssl.

usage: assetlinks-server.py ROOT CERT KEY

Serves ROOT/<Host header without port>/<path>. Per host, optional files decide how:
  ROOT/HOST/status   "404", or "301 https://elsewhere/" (a redirect to that Location)
  ROOT/HOST/headers  extra response header lines ("Cache-Control: max-age=60")
  ROOT/HOST/hold     present: the request is held until the test writes a line to stdin
Exits when its stdin is closed.
Prints the port on stdout once listening; logs "GET HOST PATH" per request to stdout.
"""
import http.server
import os
import ssl
import sys
import signal
import threading

# A test runner may start us with SIGTERM blocked (the mask is inherited): take it back.
signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
root, cert, key = sys.argv[1:4]
release = threading.Event()


def wait_for_release():
    for _ in sys.stdin:
        release.set()
    # stdin closed: the test is done with the server.
    os._exit(0)


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_GET(self):
        host = (self.headers.get("Host") or "").split(":")[0].lower()
        print("GET %s %s" % (host, self.path), flush=True)
        base = os.path.join(root, host)
        if os.path.exists(os.path.join(base, "hold")):
            release.wait(120)
        status, location = 200, None
        try:
            with open(os.path.join(base, "status")) as f:
                parts = f.read().split()
                status = int(parts[0])
                location = parts[1] if len(parts) > 1 else None
        except FileNotFoundError:
            pass
        body = b""
        if status == 200:
            try:
                with open(os.path.join(base, self.path.lstrip("/")), "rb") as f:
                    body = f.read()
            except (FileNotFoundError, IsADirectoryError):
                status = 404
        if status != 200:
            body = b"not here\n"
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        if location:
            self.send_header("Location", location)
        try:
            with open(os.path.join(base, "headers")) as f:
                for line in f.read().splitlines():
                    name, _, value = line.partition(":")
                    self.send_header(name.strip(), value.strip())
        except FileNotFoundError:
            pass
        self.end_headers()
        try:
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError, ssl.SSLError):
            pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(cert, key)
server.socket = context.wrap_socket(server.socket, server_side=True)
threading.Thread(target=wait_for_release, daemon=True).start()
print(server.server_address[1], flush=True)
server.serve_forever()
