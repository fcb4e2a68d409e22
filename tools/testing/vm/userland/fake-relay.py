#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
#
# A fake relay daemon for tring-record's error paths: it listens on
# 127.0.0.1 PORT (control) and PORT+1 (data) and answers the first
# command (VERSION) the wrong way, as MODE says:
#   garbage   random bytes in place of the version
#   major     protocol 3.0
#   minor     protocol 2.3 (before live sessions)
#   silent    accepts, reads, never answers
#   close     accepts and closes at once
#   refuse    version 2.13, then an error status for CREATE_SESSION
# It serves one client and exits; it writes "ready" to its stdout once
# listening.
#
# usage: fake-relay.py MODE PORT
import os
import socket
import struct
import sys
import time

mode, port = sys.argv[1], int(sys.argv[2])
ctrl = socket.socket()
ctrl.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
ctrl.bind(("127.0.0.1", port))
ctrl.listen(1)
data = socket.socket()
data.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
data.bind(("127.0.0.1", port + 1))
data.listen(1)
print("ready", flush=True)
conn, _ = ctrl.accept()
conn.settimeout(60)


def read_cmd():
    hdr = b""
    while len(hdr) < 24:
        chunk = conn.recv(24 - len(hdr))
        if not chunk:
            sys.exit(0)
        hdr += chunk
    _, size, cmd, _ = struct.unpack(">QQII", hdr)
    body = b""
    while len(body) < size:
        chunk = conn.recv(size - len(body))
        if not chunk:
            sys.exit(0)
        body += chunk
    return cmd, body


if mode == "close":
    conn.close()
    sys.exit(0)
cmd, _ = read_cmd()
if mode == "garbage":
    conn.sendall(os.urandom(8))
elif mode == "major":
    conn.sendall(struct.pack(">II", 3, 0))
elif mode == "minor":
    conn.sendall(struct.pack(">II", 2, 3))
elif mode == "silent":
    time.sleep(30)
elif mode == "refuse":
    conn.sendall(struct.pack(">II", 2, 13))
    read_cmd()
    conn.sendall(struct.pack(">QI", 0, 1))
# Let the client read before the connection goes.
time.sleep(1)
conn.close()
