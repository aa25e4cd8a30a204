#!/usr/bin/env python3
"""recv.py NAME OUT: receive shim refusal records on the abstract unix
datagram socket @NAME (as the launcher does) and append one line per
record to OUT: pid<TAB>op<TAB>target<TAB>kind<TAB>rule<TAB>src<TAB>comm<TAB>msg.
Stops after --idle seconds without a datagram (default 3)."""
import os, socket, struct, sys

name, out = sys.argv[1], sys.argv[2]
idle = float(sys.argv[3]) if len(sys.argv) > 3 else 3.0
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
s.bind("\0" + name)
open(out + ".ready", "w").close()
s.settimeout(idle)
with open(out, "a") as f:
    while True:
        try:
            data, anc, _, _ = s.recvmsg(8192, socket.CMSG_SPACE(12))
        except socket.timeout:
            break
        pid = 0
        for lvl, typ, val in anc:
            if lvl == socket.SOL_SOCKET and typ == socket.SCM_CREDENTIALS:
                pid = struct.unpack("iII", val[:12])[0]
        fields = data.split(b"\0")[:-1]
        f.write("\t".join([str(pid)] + [x.decode("utf-8", "replace") for x in fields]) + "\n")
        f.flush()
