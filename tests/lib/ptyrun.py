#!/usr/bin/env python3
"""Run a command on a pseudo-terminal, as a person at a terminal would.

    ptyrun.py [--send TEXT | --key TEXT | --winsize ROWSxCOLS]...
              [--wait-for TEXT] [--timeout S] -- CMD [ARG...]

The steps are played in order, each once the program has gone quiet for
a moment (and once --wait-for text was seen, before the first one):
--send types TEXT and a newline, --key types TEXT alone (a control key:
--key '\\x03' is Ctrl-C, '\\x1a' Ctrl-Z), --winsize resizes the terminal
(the kernel sends SIGWINCH to its foreground process group).  Prints
everything the terminal showed, then "EXIT <status>" on a line of its own.
"""
import fcntl
import os
import pty
import select
import struct
import sys
import termios
import time


def parse(argv):
    steps, wait_for, timeout = [], None, 20.0
    i = 1
    while i < len(argv) and argv[i] != "--":
        opt, val = argv[i], argv[i + 1] if i + 1 < len(argv) else None
        if val is None:
            sys.exit("ptyrun: " + opt + " needs a value")
        if opt == "--send":
            steps.append(("text", val.encode().decode("unicode_escape") + "\n"))
        elif opt == "--key":
            steps.append(("text", val.encode().decode("unicode_escape")))
        elif opt == "--winsize":
            rows, cols = (int(x) for x in val.split("x"))
            steps.append(("winsize", (rows, cols)))
        elif opt == "--wait-for":
            wait_for = val.encode()
        elif opt == "--timeout":
            timeout = float(val)
        else:
            sys.exit("ptyrun: unknown option " + opt)
        i += 2
    return steps, wait_for, timeout, argv[i + 1:]


def play(fd, step):
    kind, val = step
    if kind == "text":
        os.write(fd, val.encode())
    else:
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", val[0], val[1], 0, 0))


def main(argv):
    steps, wait_for, timeout, cmd = parse(argv)
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
        if steps and ready:
            play(fd, steps.pop(0))
            wait_for = None
            last = time.time()
    timed_out = time.time() >= end
    try:
        done, st = os.waitpid(pid, os.WNOHANG)
        if not done:
            if timed_out:
                os.kill(pid, 9)  # nothing is left running after the test
            _, st = os.waitpid(pid, 0)
    except ChildProcessError:
        st = 0
    sys.stdout.write(out.decode(errors="replace"))
    if timed_out:
        print("\nTIMEOUT")
    code = os.waitstatus_to_exitcode(st)
    print("\nEXIT %d" % code)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
