"""Record the fixed traffic script with vcrpy (default settings) through requests or httpx.

usage: record_vcrpy.py BASE_URL OUT_FILE SERIALIZER(yaml|json) CLIENT(requests|httpx) [OPTION]
OPTION:
  textonly  skip steps d (/gzip), e (/image.png), h (/latin1): vcrpy's json serializer
            raises TypeError on any non-UTF-8 body, so the full script cannot be saved as JSON.
  decode    VCR(decode_compressed_response=True) (not a default; an extra variant).
"""
import os, sys
import vcr

base, out, serializer, client = sys.argv[1:5]
option = sys.argv[5] if len(sys.argv) > 5 else ""
textonly = option == "textonly"
if os.path.exists(out):
    sys.exit(f"{out} exists; refusing to append (record_mode=once)")
cassette_dir, name = os.path.split(os.path.abspath(out))

if option == "decode":
    my_vcr = vcr.VCR(serializer=serializer, decode_compressed_response=True)
else:
    my_vcr = vcr.VCR(serializer=serializer)  # everything else default


def script(get, post):
    r = []
    r.append(get("/users/1", headers={"Authorization": "Bearer secret-token", "Accept": "application/json"}))
    r.append(get("/counter"))
    r.append(get("/counter"))
    if not textonly:
        r.append(get("/gzip", headers={"Accept-Encoding": "gzip"}))
        r.append(get("/image.png"))
    r.append(post("/login", content=b'{"username":"ada","password":"lovelace"}',
                  headers={"Content-Type": "application/json"}))
    r.append(get("/missing"))
    if not textonly:
        r.append(get("/latin1"))
    r.append(get("/redirect"))
    r.append(post("/form", content=b"a=1&b=two",
                  headers={"Content-Type": "application/x-www-form-urlencoded"}))
    return r


with my_vcr.use_cassette(os.path.join(cassette_dir, name)) as cass:
    if client == "requests":
        import requests
        s = requests.Session()
        get = lambda p, headers=None: s.get(base + p, headers=headers)
        post = lambda p, content, headers: s.post(base + p, data=content, headers=headers)
        rs = script(get, post)
        for x in rs:
            print(x.request.method, x.url, x.status_code, [h.status_code for h in x.history], len(x.content))
    elif client == "httpx":
        import httpx
        with httpx.Client() as c:
            get = lambda p, headers=None: c.get(base + p, headers=headers)
            post = lambda p, content, headers: c.post(base + p, content=content, headers=headers)
            rs = script(get, post)
            for x in rs:
                print(x.request.method, x.url, x.status_code, len(x.content))
    else:
        sys.exit("unknown client")
print("interactions recorded:", len(cass))
