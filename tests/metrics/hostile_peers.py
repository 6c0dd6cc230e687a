#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""tests/metrics/hostile_peers.py — the network peers a job may meet, for
tests/metrics/exporter_deadlines.sh:

  silent PORTFILE          an OTLP "collector" that accepts connections,
                           reads what is sent and never answers
  status PORTFILE CODE     a collector that answers every request with CODE
                           (counts requests in PORTFILE.requests)
  capture PORTFILE HEADS   a collector that answers 200 and appends each
                           request's head, as received, to HEADS (each
                           ending with its blank line, CR LF CR LF)
  trickle PORT             a /metrics client sending one byte every 0.5 s
                           until the server closes the connection; prints
                           "connected" once connected
  idle PORT N              N connections to /metrics that send nothing;
                           prints "open N" once they are all connected, then
                           holds them until killed

Servers write their port to PORTFILE once listening. Everything runs until
killed (or, for trickle, until the server closes)."""
import socket
import sys
import threading
import time


def listen(portfile):
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", 0))
    srv.listen(128)
    with open(portfile + ".tmp", "w") as f:
        f.write(str(srv.getsockname()[1]))
    import os
    os.rename(portfile + ".tmp", portfile)
    return srv


def silent(portfile):
    srv = listen(portfile)
    held = []

    def drain(conn):
        try:
            while conn.recv(65536):
                pass
        except OSError:
            pass

    while True:
        conn, _ = srv.accept()
        held.append(conn)  # never answered, never closed
        threading.Thread(target=drain, args=(conn,), daemon=True).start()


def read_request(conn):
    """One request's head (bytes, without the blank line) and body."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            break
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    while len(body) < length:
        chunk = conn.recv(65536)
        if not chunk:
            break
        body += chunk
    return head, body


def answer_all(portfile, code, head_file=None):
    srv = listen(portfile)
    requests = 0
    while True:
        conn, _ = srv.accept()
        conn.settimeout(5)
        try:
            head, _ = read_request(conn)
            requests += 1
            if head_file:
                with open(head_file, "ab") as f:
                    f.write(head + b"\r\n\r\n")
            with open(portfile + ".requests", "w") as f:
                f.write(str(requests))
            conn.sendall(b"HTTP/1.1 %d Answer\r\nContent-Length: 0\r\n"
                         b"Connection: close\r\n\r\n" % code)
        except OSError:
            pass
        conn.close()


def trickle(port):
    conn = socket.create_connection(("127.0.0.1", port))
    print("connected", flush=True)
    start = time.monotonic()
    try:
        for byte in b"GET /metrics HTTP/1.1\r\nHost: x\r\n" * 100:
            conn.sendall(bytes([byte]))
            time.sleep(0.5)
            conn.settimeout(0.01)
            try:
                if conn.recv(1) == b"":
                    break
            except socket.timeout:
                pass
    except OSError:
        pass
    print("closed after %.1f s" % (time.monotonic() - start), flush=True)


def idle(port, n):
    conns = [socket.create_connection(("127.0.0.1", port)) for _ in range(n)]
    print("open %d" % len(conns), flush=True)
    while True:
        time.sleep(3600)


def main():
    what = sys.argv[1]
    if what == "silent":
        silent(sys.argv[2])
    elif what == "status":
        answer_all(sys.argv[2], int(sys.argv[3]))
    elif what == "capture":
        answer_all(sys.argv[2], 200, sys.argv[3])
    elif what == "trickle":
        trickle(int(sys.argv[2]))
    elif what == "idle":
        idle(int(sys.argv[2]), int(sys.argv[3]))
    else:
        sys.exit("unknown peer: " + what)


if __name__ == "__main__":
    main()
