"""A terminal that answers as kitty does, for the graphics-through-tmux test.

Runs COMMAND (a tmux client) in a pseudo-terminal of COLS x ROWS cells of 10x20 pixels and
plays the outer terminal: every byte the command writes is appended to LOG; the kitty graphics
query is answered OK (`ESC _ G i=31;OK ESC \\`), the primary and secondary device attributes
as kitty answers them, the cell and window size in pixels, and the colour queries. Ends when
the command exits, or after SECONDS (then the command is killed).

usage: fake_kitty.py LOG COLS ROWS SECONDS COMMAND...
"""

import fcntl
import os
import pty
import re
import select
import signal
import struct
import sys
import termios
import time


def answers(buf, cols, rows):
    """The replies for the complete queries in buf, and where the last one ended."""
    out = []
    end = 0
    for m in re.finditer(rb"\x1b_G([^\x1b]*)\x1b\\", buf):
        end = max(end, m.end())
        body = m.group(1)
        fields = dict(
            kv.split(b"=", 1) for kv in body.split(b";", 1)[0].split(b",") if b"=" in kv
        )
        if fields.get(b"a") == b"q":
            out.append(b"\x1b_Gi=" + fields.get(b"i", b"0") + b";OK\x1b\\")
    for m in re.finditer(rb"\x1b\[(>?)(\d*)([ct])", buf):
        end = max(end, m.end())
        kind, num, final = m.groups()
        if final == b"c" and kind == b"" and num in (b"", b"0"):
            out.append(b"\x1b[?62;22;52c")
        elif final == b"c" and kind == b">":
            out.append(b"\x1b[>1;4000;29c")
        elif final == b"t" and num == b"16":
            out.append(b"\x1b[6;20;10t")
        elif final == b"t" and num == b"14":
            out.append(b"\x1b[4;%d;%dt" % (rows * 20, cols * 10))
    for m in re.finditer(rb"\x1b\](1[01]);\?(\x1b\\|\x07)", buf):
        end = max(end, m.end())
        out.append(b"\x1b]" + m.group(1) + b";rgb:ffff/ffff/ffff\x1b\\")
    return out, end


def main():
    log, cols, rows, seconds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
    command = sys.argv[5:]
    pid, fd = pty.fork()
    if pid == 0:
        os.environ["TERM"] = "xterm-256color"
        os.environ.pop("TMUX", None)
        os.execvp(command[0], command)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, cols * 10, rows * 20))
    deadline = time.time() + seconds
    pending = b""
    with open(log, "ab", buffering=0) as out:
        while time.time() < deadline:
            r, _, _ = select.select([fd], [], [], 0.2)
            if not r:
                continue
            try:
                data = os.read(fd, 65536)
            except OSError:
                break
            if not data:
                break
            out.write(data)
            # A query may be cut between two reads: what follows the last one answered waits.
            pending += data
            replies, end = answers(pending, cols, rows)
            for reply in replies:
                os.write(fd, reply)
            pending = pending[end:][-512:]
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        pass
    os.waitpid(pid, 0)


if __name__ == "__main__":
    main()
