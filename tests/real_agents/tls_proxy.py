"""An HTTPS proxy on 127.0.0.1 for the real-agent tests: it answers `CONNECT host:443` for the
one host it holds a certificate for (made by the test with a throwaway CA), terminates TLS and
relays the plain HTTP to the scripted model API; `CONNECT 127.0.0.1:PORT` is a plain tunnel to
this machine. Any other host or request is refused (403), so nothing leaves the machine.

usage: tls_proxy.py HOST CERT KEY UPSTREAM_PORT LOG
Prints the port it listens on, then serves until killed. Each CONNECT is one line of LOG.
"""

import socket
import ssl
import sys
import threading


def pipe(src, dst):
    try:
        while True:
            data = src.recv(65536)
            if not data:
                break
            dst.sendall(data)
    except OSError:
        pass
    finally:
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def handle(conn, host, ctx, upstream, log, lock):
    try:
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = conn.recv(4096)
            if not chunk:
                return
            head += chunk
            if len(head) > 65536:
                return
        first = head.split(b"\r\n", 1)[0].decode("latin-1")
        parts = first.split()
        target = parts[1] if len(parts) > 1 else ""
        with lock:
            with open(log, "a") as f:
                f.write(first + "\n")
        loopback = target.startswith("127.0.0.1:") and target[10:].isdigit()
        if len(parts) < 2 or parts[0] != "CONNECT" or (target != host + ":443" and not loopback):
            conn.sendall(b"HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n")
            return
        conn.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
        if loopback:
            # A client that sends everything through its proxy (undici's ProxyAgent) reaching
            # a server on this machine: a plain tunnel, nothing leaves it.
            tls = conn
            up = socket.create_connection(("127.0.0.1", int(target[10:])))
        else:
            tls = ctx.wrap_socket(conn, server_side=True)
            up = socket.create_connection(("127.0.0.1", upstream))
        t = threading.Thread(target=pipe, args=(up, tls), daemon=True)
        t.start()
        pipe(tls, up)
        t.join(5)
    except (OSError, ssl.SSLError) as e:
        with lock:
            with open(log, "a") as f:
                f.write(f"error: {e}\n")
    finally:
        try:
            conn.close()
        except OSError:
            pass


def main():
    host, cert, key, upstream, log = sys.argv[1:6]
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert, key)
    ctx.set_alpn_protocols(["http/1.1"])
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(64)
    print(srv.getsockname()[1], flush=True)
    lock = threading.Lock()
    while True:
        conn, _ = srv.accept()
        threading.Thread(
            target=handle, args=(conn, host, ctx, int(upstream), log, lock), daemon=True
        ).start()


if __name__ == "__main__":
    main()
