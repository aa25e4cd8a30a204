#!/usr/bin/env python3
"""Run a command on a pseudo-terminal, as a person at a terminal would.

    ptyrun.py [--send TEXT]... [--wait-for TEXT] [--timeout S] -- CMD [ARG...]

Each --send is typed (with a newline) once the program has gone quiet for
a moment, or once --wait-for text was seen before the first one.  Prints
everything the terminal showed, then "EXIT <status>" on a line of its own.
"""
import os
import pty
import select
import sys
import time


def main(argv):
    sends, wait_for, timeout = [], None, 20.0
    i = 1
    while i < len(argv) and argv[i] != "--":
        if argv[i] == "--send":
            sends.append(argv[i + 1].encode().decode("unicode_escape"))
            i += 2
        elif argv[i] == "--wait-for":
            wait_for = argv[i + 1].encode()
            i += 2
        elif argv[i] == "--timeout":
            timeout = float(argv[i + 1])
            i += 2
        else:
            sys.exit("ptyrun: unknown option " + argv[i])
    cmd = argv[i + 1:]
    pid, fd = pty.fork()
    if pid == 0:
        os.execvp(cmd[0], cmd)
    out = b""
    end = time.time() + timeout
    last = time.time()
    while time.time() < end:
        r, _, _ = select.select([fd], [], [], 0.05)
        if r:
            try:
                data = os.read(fd, 4096)
            except OSError:
                break
            if not data:
                break
            out += data
            last = time.time()
            continue
        ready = (wait_for is None or wait_for in out) and time.time() - last > 0.4
        if sends and ready:
            os.write(fd, (sends.pop(0) + "\n").encode())
            wait_for = None
            last = time.time()
    try:
        _, st = os.waitpid(pid, 0)
    except ChildProcessError:
        st = 0
    sys.stdout.write(out.decode(errors="replace"))
    code = os.waitstatus_to_exitcode(st)
    print("\nEXIT %d" % code)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
