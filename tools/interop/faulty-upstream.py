#!/usr/bin/env python3
"""A deliberately broken HTTP/1.1 upstream for recording failure flows (stdlib only).

    python3 faulty-upstream.py PORT

Raw sockets, one thread per connection, one request per connection (`Connection: close`).
  GET  /ok          200 JSON, well formed
  POST /echo        200 JSON echo of the request body, well formed
  GET  /truncated   headers say Content-Length: 100, 20 body bytes are sent, then a clean close (FIN)
  GET  /reset       headers say Content-Length: 100, 20 body bytes are sent, then a TCP reset (RST)
  GET  /empty       the request is read, then the connection is closed with no response at all
  GET  /garbage     a response line that is not HTTP
  GET  /hang        the request is read, then nothing is ever sent (the client times out)
"""
import json, socket, struct, sys, threading, time

def read_request(conn):
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return None, None, b""
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    method, path, _ = lines[0].split(" ", 2)
    length = 0
    for line in lines[1:]:
        name, _, value = line.partition(":")
        if name.strip().lower() == "content-length":
            length = int(value.strip())
    while len(body) < length:
        chunk = conn.recv(65536)
        if not chunk:
            break
        body += chunk
    return method, path, body

def response(status, reason, body, ctype="application/json", length=None):
    head = (f"HTTP/1.1 {status} {reason}\r\nContent-Type: {ctype}\r\n"
            f"Content-Length: {len(body) if length is None else length}\r\nConnection: close\r\n\r\n")
    return head.encode() + body

def handle(conn):
    try:
        method, path, body = read_request(conn)
        if path is None:
            return
        if path == "/ok":
            conn.sendall(response(200, "OK", json.dumps({"ok": True}).encode()))
        elif path == "/echo" and method == "POST":
            conn.sendall(response(200, "OK", json.dumps({"echo": body.decode("utf-8", "replace")}).encode()))
        elif path in ("/truncated", "/reset"):
            conn.sendall(response(200, "OK", b"0123456789abcdefghij", "text/plain", length=100))
            time.sleep(0.2)
            if path == "/reset":
                conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        elif path == "/empty":
            pass
        elif path == "/garbage":
            conn.sendall(b"this is not http\r\n\r\n")
        elif path == "/hang":
            time.sleep(30)
        else:
            conn.sendall(response(404, "Not Found", b"Not Found\n", "text/plain; charset=utf-8"))
    finally:
        conn.close()

def main():
    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", int(sys.argv[1])))
    srv.listen(16)
    while True:
        conn, _ = srv.accept()
        threading.Thread(target=handle, args=(conn,), daemon=True).start()

main()
