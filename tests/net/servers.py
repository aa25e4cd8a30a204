#!/usr/bin/env python3
"""Servers for the network tests, run inside the test's own network
namespace (tests/net/_net.bash makes it: loopback only, with the test
addresses on lo).  Nothing here can reach another machine.

  203.0.113.10:8080  HTTP, files from --dir       (allowed.test)
  203.0.113.10:8443  HTTPS, the same files         (allowed.test)
  203.0.113.10:7000  echo, for many connections
  203.0.113.11:8080  HTTP, the same files          (other.test)
  canaries: 127.0.0.1:8080, [::1]:8080, 10.0.0.5:8080,
            169.254.169.254:80 -- each logs "canary ADDR PORT" to --log
            when anything connects, and answers a tiny HTTP 200
  --dns ADDR:PORT: a DNS server (UDP) answering A records from
            --dns-hosts, logging every question to --log as
            "dns NAME TYPE"; "slow.test" is answered after 3 s.

Prints "ready" once everything listens."""
import argparse
import functools
import http.server
import selectors
import socket
import ssl
import struct
import sys
import threading
import time

LOCK = threading.Lock()


def log(path, line):
    with LOCK, open(path, "a") as f:
        f.write(line + "\n")


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *a):
        pass


def http_server(addr, port, directory, ctx=None):
    handler = functools.partial(Quiet, directory=directory)
    srv = http.server.ThreadingHTTPServer((addr, port), handler)
    srv.daemon_threads = True
    if ctx:
        srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    threading.Thread(target=srv.serve_forever, daemon=True).start()


def canary(addr, port, logfile):
    fam = socket.AF_INET6 if ":" in addr else socket.AF_INET
    s = socket.socket(fam, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((addr, port))
    s.listen(64)

    def run():
        while True:
            c, _ = s.accept()
            log(logfile, "canary %s %d" % (addr, port))
            try:
                c.settimeout(2)
                c.recv(4096)
                c.sendall(b"HTTP/1.0 200 OK\r\nContent-Length: 7\r\n\r\ncanary\n")
            except OSError:
                pass
            c.close()

    threading.Thread(target=run, daemon=True).start()


def echo(addr, port):
    sel = selectors.DefaultSelector()
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((addr, port))
    s.listen(4096)
    s.setblocking(False)
    sel.register(s, selectors.EVENT_READ, None)

    def run():
        while True:
            for key, _ in sel.select():
                if key.data is None:
                    try:
                        c, _ = s.accept()
                    except OSError:
                        continue
                    c.setblocking(False)
                    sel.register(c, selectors.EVENT_READ, True)
                    continue
                c = key.fileobj
                try:
                    d = c.recv(65536)
                except OSError:
                    d = b""
                if not d:
                    sel.unregister(c)
                    c.close()
                    continue
                try:
                    c.sendall(d)
                except OSError:
                    pass

    threading.Thread(target=run, daemon=True).start()


def dns_answer(q, table, logfile):
    ident, flags, qd = struct.unpack("!HHH", q[:6])
    i, labels = 12, []
    while q[i]:
        labels.append(q[i + 1:i + 1 + q[i]].decode("ascii", "replace"))
        i += 1 + q[i]
    qtype, _ = struct.unpack("!HH", q[i + 1:i + 5])
    question = q[12:i + 5]
    name = ".".join(labels).lower()
    log(logfile, "dns %s %d" % (name, qtype))
    if name == "slow.test":
        time.sleep(3)
    addrs = table.get(name)
    rcode = 0 if addrs is not None else 3
    answers = b""
    n = 0
    for a in addrs or []:
        if qtype == 1 and ":" not in a:
            answers += struct.pack("!HHHIH", 0xC00C, 1, 1, 60, 4) + socket.inet_aton(a)
            n += 1
        elif qtype == 28 and ":" in a:
            answers += struct.pack("!HHHIH", 0xC00C, 28, 1, 60, 16) + \
                socket.inet_pton(socket.AF_INET6, a)
            n += 1
    hdr = struct.pack("!HHHHHH", ident, 0x8180 | rcode, 1, n, 0, 0)
    return hdr + question + answers


def dns_server(spec, hosts, logfile):
    table = {}
    for line in open(hosts):
        f = line.split("#")[0].split()
        for name in f[1:]:
            table.setdefault(name.lower(), []).append(f[0])
    addr, port = spec.rsplit(":", 1)
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind((addr, int(port)))

    def reply(q, peer):
        try:
            s.sendto(dns_answer(q, table, logfile), peer)
        except (OSError, IndexError, struct.error):
            pass

    def run():
        while True:
            q, peer = s.recvfrom(4096)
            threading.Thread(target=reply, args=(q, peer), daemon=True).start()

    threading.Thread(target=run, daemon=True).start()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    ap.add_argument("--cert", required=True)
    ap.add_argument("--key", required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--dns")
    ap.add_argument("--dns-hosts")
    a = ap.parse_args()
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(a.cert, a.key)
    http_server("203.0.113.10", 8080, a.dir)
    http_server("203.0.113.10", 8443, a.dir, ctx)
    http_server("203.0.113.11", 8080, a.dir)
    echo("203.0.113.10", 7000)
    for addr, port in (("127.0.0.1", 8080), ("::1", 8080), ("10.0.0.5", 8080),
                       ("169.254.169.254", 80)):
        canary(addr, port, a.log)
    if a.dns:
        dns_server(a.dns, a.dns_hosts, a.log)
    print("ready", flush=True)
    while True:
        time.sleep(3600)


if __name__ == "__main__":
    sys.exit(main())
