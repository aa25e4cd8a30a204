#!/usr/bin/env python3
"""Press TAB in a real interactive shell and print the line it leaves.

    tabpty.py bash|zsh|fish COMPLETION_FILE 'sbxrun --pro'

Starts the shell on a pseudo-terminal without the user's rc files, loads
COMPLETION_FILE the way that shell loads completions (bash: source; zsh:
the file's directory in fpath, then compinit; fish: source), types the
words, presses TAB once and prints what the shell echoed after it, so a
test sees exactly what a person would.  Exits 1 if the shell did not
answer in time.
"""
import os
import pty
import select
import sys
import time


def drain(fd, seconds, until=None, quiet=None):
    """Read for up to seconds; stop early once until was read, or once
    quiet seconds passed without output after some output."""
    out = b""
    end = time.time() + seconds
    last = None
    while time.time() < end:
        r, _, _ = select.select([fd], [], [], 0.05)
        if not r:
            if quiet and last and time.time() - last > quiet:
                break
            continue
        last = time.time()
        try:
            data = os.read(fd, 4096)
        except OSError:
            break
        if not data:
            break
        out += data
        if until is not None and until in out:
            break
    return out


def main():
    shell, comp, words = sys.argv[1], os.path.abspath(sys.argv[2]), sys.argv[3]
    if shell == "bash":
        argv = ["bash", "--norc", "--noprofile", "-i"]
        setup = ["PS1='$ '", "source '%s'" % comp]
    elif shell == "zsh":
        argv = ["zsh", "-f", "-i"]
        setup = ["PS1='$ '", "fpath=('%s' $fpath)" % os.path.dirname(comp),
                 "autoload -Uz compinit", "compinit -u -D"]
    elif shell == "fish":
        argv = ["fish", "--no-config", "-i"]
        setup = ["source '%s'" % comp]
    else:
        sys.exit("tabpty.py: unknown shell " + shell)
    pid, fd = pty.fork()
    if pid == 0:
        os.environ["TERM"] = "dumb"
        os.execvp(argv[0], argv)
    for line in setup:
        os.write(fd, line.encode() + b"\n")
    # Wait for the shell to have run the set-up, then clear what it echoed.
    os.write(fd, b"echo @@READY''@@\n")
    if b"@@READY@@\r\n" not in drain(fd, 10, b"@@READY@@\r\n"):
        sys.exit("tabpty.py: %s did not start" % shell)
    drain(fd, 1, quiet=0.2)
    os.write(fd, words.encode() + b"\t")
    out = drain(fd, 5, quiet=0.5)
    try:
        os.kill(pid, 9)
    except ProcessLookupError:
        pass
    os.waitpid(pid, 0)
    # The last state of the line: fish redraws it after \r.
    text = out.decode(errors="replace").split("\r")[-1]
    print(text)


main()
