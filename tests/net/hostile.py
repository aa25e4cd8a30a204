#!/usr/bin/env python3
"""Hostile and heavy clients of the filtering proxy, for tests/net.
Every loop is bounded in count and time; every address is the proxy's
(on the test namespace's loopback).

  hostile.py slowloris PORT N SECONDS  N clients that never finish their
        request head, one byte every 0.2 s; prints "closed K of N" for
        those the proxy closed within SECONDS
  hostile.py huge PORT KB              a head of KB kilobytes; prints the
        status line of the answer, or "closed"
  hostile.py garbage PORT              binary bytes; prints "closed" when
        the proxy hung up, else what it said
  hostile.py many PORT N HOST ECHOPORT N clients at once, each CONNECT
        HOST:ECHOPORT and one echo round; prints "ok K of N"
  hostile.py socks PORT HOST PORT [ATYP]  one SOCKS5 CONNECT (ATYP 1, 3
        or 4); prints the reply code
"""
import os
import resource
import selectors
import socket
import struct
import sys
import time


def conn(port):
    return socket.create_connection(("127.0.0.1", int(port)), timeout=10)


def closed_by_peer(s, wait):
    s.settimeout(wait)
    try:
        return s.recv(4096) == b""
    except (ConnectionResetError, BrokenPipeError):
        return True
    except socket.timeout:
        return False


def slowloris(port, n, seconds):
    n, seconds = int(n), float(seconds)
    socks = []
    for _ in range(n):
        s = conn(port)
        s.sendall(b"GET http://allowed.test:8080/ HTTP/1.1\r\nX-Slow: ")
        s.setblocking(False)
        socks.append(s)
    end, closed = time.time() + seconds, set()
    while time.time() < end and len(closed) < n:
        for i, s in enumerate(socks):
            if i in closed:
                continue
            try:
                if s.recv(4096) == b"":
                    closed.add(i)
                    continue
            except BlockingIOError:
                pass
            except OSError:
                closed.add(i)
                continue
            try:
                s.send(b"a")
            except OSError:
                closed.add(i)
        time.sleep(0.2)
    print("closed %d of %d" % (len(closed), n))


def huge(port, kb):
    s = conn(port)
    head = b"GET http://allowed.test:8080/ HTTP/1.1\r\n"
    try:
        s.sendall(head)
        for i in range(int(kb)):
            s.sendall(b"X-Pad-%d: %s\r\n" % (i, b"a" * 1000))
    except OSError:
        pass
    s.settimeout(5)
    try:
        line = s.recv(4096).split(b"\r\n")[0].decode()
    except OSError:
        line = ""
    print(line or "closed")


def garbage(port):
    s = conn(port)
    s.sendall(bytes(range(0, 32)) + os.urandom(2000))
    print("closed" if closed_by_peer(s, 5) else "open")


def many(port, n, host, eport):
    n = int(n)
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, n * 2 + 64), hard))
    socks = [conn(port) for _ in range(n)]
    req = b"CONNECT %s:%s HTTP/1.1\r\n\r\n" % (host.encode(), eport.encode())
    for s in socks:
        try:
            s.sendall(req)
        except OSError:
            pass
    ok = 0
    # every tunnel is open at once before any echo round
    for s in socks:
        buf = b""
        try:
            while b"\r\n\r\n" not in buf:
                d = s.recv(4096)
                if not d:
                    break
                buf += d
        except OSError:
            pass
        ok += buf.startswith(b"HTTP/1.1 200")
    good = 0
    for i, s in enumerate(socks):
        msg = b"ping %d\n" % i
        got = b""
        try:
            s.sendall(msg)
            while len(got) < len(msg):
                d = s.recv(4096)
                if not d:
                    break
                got += d
        except OSError:
            pass
        good += got == msg
    # with all of them still open, a fresh tunnel is served at once (the
    # bound is a sanity one: a loop stalled by the others takes seconds)
    t0 = time.monotonic()
    fresh = tunnel_echo(port, req, b"fresh\n")
    ms = (time.monotonic() - t0) * 1000
    print("ok %d of %d (tunnels %d); fresh %s" % (
        good, n, ok, "refused" if not fresh else "served" if ms < 3000
        else "slow (%.0f ms)" % ms))
    for s in socks:
        s.close()


def tunnel_echo(port, req, msg):
    try:
        s = conn(port)
        s.sendall(req)
        buf = b""
        while b"\r\n\r\n" not in buf:
            d = s.recv(4096)
            if not d:
                return False
            buf += d
        if not buf.startswith(b"HTTP/1.1 200"):
            return False
        rest = buf.split(b"\r\n\r\n", 1)[1]
        s.sendall(msg)
        while len(rest) < len(msg):
            d = s.recv(4096)
            if not d:
                break
            rest += d
        s.close()
        return rest == msg
    except OSError:
        return False


def socks5(port, host, dport, atyp="3"):
    s = conn(port)
    s.sendall(b"\x05\x01\x00")
    if s.recv(2) != b"\x05\x00":
        print("no method")
        return
    if atyp == "1":
        addr = b"\x01" + socket.inet_aton(host)
    elif atyp == "4":
        addr = b"\x04" + socket.inet_pton(socket.AF_INET6, host)
    else:
        addr = b"\x03" + bytes([len(host)]) + host.encode()
    s.sendall(b"\x05\x01\x00" + addr + struct.pack("!H", int(dport)))
    rep = s.recv(10)
    print("reply %d" % rep[1] if len(rep) >= 2 else "closed")


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    {"slowloris": slowloris, "huge": huge, "garbage": garbage,
     "many": many, "socks": socks5}[cmd](*args)


if __name__ == "__main__":
    main()
