#!/usr/bin/env python3
"""session2.py BASE: one requests.Session, several requests incl. broke-off ones; report bytes, errors and local ports (connection reuse)"""
import requests, sys, time
s = requests.Session()
for p in ['/ok', '/cl-rst', '/ok', '/zero-gzip', '/ok', '/big', '/ok', '/chunked-rst', '/ok', '/gzip-ok', '/ok']:
    t = time.time()
    try:
        r = s.get(sys.argv[1] + p, timeout=15, stream=True)
        port = r.raw._connection.sock.getsockname()[1] if r.raw._connection and r.raw._connection.sock else None
        n = 0; err = ''
        try:
            for ch in r.iter_content(65536): n += len(ch)
        except Exception as e: err = type(e).__name__
        print(f'{p:13} {r.status_code} bytes={n} port={port} {err} {time.time()-t:.2f}s')
    except Exception as e: print(p, type(e).__name__, str(e)[:90], f'{time.time()-t:.2f}s')
