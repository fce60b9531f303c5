"""Record the fixed traffic script with Betamax 0.9.0 + requests.

usage: record_betamax.py BASE_URL OUT_FILE (default|exact)
'exact' sets preserve_exact_body_bytes=True; everything else default.
"""
import os, sys
import requests
from betamax import Betamax

base, out, mode = sys.argv[1:4]
if os.path.exists(out):
    sys.exit(f"{out} exists; refusing to append")
cassette_dir, fname = os.path.split(os.path.abspath(out))
name = fname[:-len(".json")]  # betamax appends .json itself (default serializer)

s = requests.Session()
opts = {}
if mode == "exact":
    opts["preserve_exact_body_bytes"] = True
with Betamax(s, cassette_library_dir=cassette_dir).use_cassette(name, **opts) as rec:
    def call(method, path, **kw):
        # Betamax records the real response, then hands requests a response rebuilt from the
        # cassette. With urllib3 2.x that rebuilt response can fail to read (e.g. the PNG stored
        # lossily as text is longer than its Content-Length): report it and go on, the
        # interaction is already in the cassette.
        try:
            x = s.request(method, base + path, **kw)
            print(method, x.url, x.status_code, [h.status_code for h in x.history], len(x.content))
        except Exception as e:  # noqa: BLE001
            print(method, base + path, "ERROR on the replayed response:", type(e).__name__, e)
    call("GET", "/users/1", headers={"Authorization": "Bearer secret-token", "Accept": "application/json"})
    call("GET", "/counter")
    call("GET", "/counter")
    call("GET", "/gzip", headers={"Accept-Encoding": "gzip"})
    call("GET", "/image.png")
    call("POST", "/login", data=b'{"username":"ada","password":"lovelace"}',
         headers={"Content-Type": "application/json"})
    call("GET", "/missing")
    call("GET", "/latin1")
    call("GET", "/redirect")
    call("POST", "/form", data=b"a=1&b=two", headers={"Content-Type": "application/x-www-form-urlencoded"})
print("written", out)
