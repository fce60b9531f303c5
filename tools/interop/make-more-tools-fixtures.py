#!/usr/bin/env python3
"""Writes the "more tools" imitation fixtures in fixtures/interop/ (see its README.md).

Each file imitates the structure one writer gives a HAR file, as read in that writer's source
(named in the README); the content (hosts, paths, bodies) is Tapedeck's own. Deterministic:
running it again gives the same bytes.

    python3 tools/interop/make-more-tools-fixtures.py fixtures/interop
"""
import base64
import hashlib
import json
import os
import sys

OUT = sys.argv[1] if len(sys.argv) > 1 else "fixtures/interop"

# The 85-byte 4x4 greyscale PNG the other imitations use.
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAQAAAAECAAAAACMmsGiAAAAHElEQVR4nGNgUPXKZ+A2CK1iELNOaGVQdMueAAAl5ASBUj/tNQAAAABJRU5ErkJggg=="
)
# Twelve bytes that are not UTF-8 (an upload HTTP Toolkit cannot write as text).
BLOB = bytes([0xA4, 0x26, 0x37, 0x13, 0x35, 0xE7, 0x50, 0x27, 0xFF, 0x00, 0x80, 0x41])


def b64(data):
    return base64.b64encode(data).decode("ascii")


def hv(pairs):
    return [{"name": n, "value": v} for n, v in pairs]


def write(name, document, indent=2, newline="\n", bom=False, separators=None):
    text = json.dumps(document, indent=indent, ensure_ascii=False, separators=separators)
    if newline != "\n":
        text = text.replace("\n", newline)
    data = text.encode("utf-8")
    if bom:
        data = b"\xef\xbb\xbf" + data
    path = os.path.join(OUT, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as handle:
        handle.write(data)


# --- HTTP Toolkit (httptoolkit-ui src/model/http/har.ts) -----------------------------------------

def htk_timings(send, wait, receive):
    return {"blocked": -1, "dns": -1, "connect": -1, "ssl": -1, "send": send, "wait": wait, "receive": receive}


def htk_no_response():
    return {"status": 0, "statusText": "", "httpVersion": "", "headers": [], "cookies": [],
            "content": {"size": 0, "mimeType": "application/x-unknown"}, "redirectURL": "", "headersSize": -1, "bodySize": -1}


def httptoolkit():
    chrome = "Chrome 131 (Linux)"
    node = "Node.js 22"
    profile = '{"id":7,"name":"Grace","plan":"team"}'
    created = '{"id":"att_19","bytes":12}'
    discarded = "Body discarded during HAR generation: longer than limit of 500000 bytes"
    entries = [
        {   # 0: HTTP/2, pseudo-headers among the raw request headers, repeated response header names
            "pageref": chrome, "startedDateTime": "2026-11-20T10:04:11.208+01:00", "time": 84.31,
            "request": {
                "method": "GET", "url": "https://api.example.com/v2/profile", "httpVersion": "HTTP/2.0",
                "cookies": [{"name": "sid", "value": "c2Vzc2lvbg"}],
                "headers": hv([(":method", "GET"), (":scheme", "https"), (":authority", "api.example.com"), (":path", "/v2/profile"),
                               ("accept", "application/json"), ("cookie", "sid=c2Vzc2lvbg"), ("user-agent", "Mozilla/5.0 (X11; Linux x86_64)")]),
                "queryString": [], "headersSize": -1, "bodySize": 0},
            "response": {
                "status": 200, "statusText": "", "httpVersion": "HTTP/2.0", "cookies": [],
                "headers": hv([("content-type", "application/json"), ("content-length", str(len(profile))),
                               ("vary", "Accept-Encoding"), ("vary", "Origin")]),
                "content": {"mimeType": "application/json", "size": len(profile), "text": profile},
                "redirectURL": "", "headersSize": -1, "bodySize": len(profile)},
            "cache": {}, "timings": htk_timings(0.82, 80.1, 3.39), "_pinned": True},
        {   # 1: a binary upload: no postData, the bytes base64 in request._content
            "pageref": node, "startedDateTime": "2026-11-20T10:04:12.001+01:00", "time": 41.5,
            "request": {
                "method": "POST", "url": "https://api.example.com/v2/attachments", "httpVersion": "HTTP/1.1", "cookies": [],
                "headers": hv([("Host", "api.example.com"), ("Content-Type", "application/octet-stream"), ("Content-Length", str(len(BLOB)))]),
                "queryString": [], "headersSize": -1, "bodySize": len(BLOB),
                "_requestBodyStatus": "discarded:not-representable",
                "_content": {"text": b64(BLOB), "size": len(BLOB), "encoding": "base64"}},
            "response": {
                "status": 201, "statusText": "Created", "httpVersion": "HTTP/1.1", "cookies": [],
                "headers": hv([("Content-Type", "application/json"), ("Content-Length", str(len(created)))]),
                "content": {"mimeType": "application/json", "size": len(created), "text": created},
                "redirectURL": "", "headersSize": -1, "bodySize": len(created)},
            "cache": {}, "timings": htk_timings(1.2, 38.7, 1.6)},
        {   # 2: a request body over the export limit: left out, said in _requestBodyStatus and comment
            "pageref": node, "startedDateTime": "2026-11-20T10:04:12.530+01:00", "time": 212.04,
            "request": {
                "method": "POST", "url": "https://logs.example.com/ingest", "httpVersion": "HTTP/1.1", "cookies": [],
                "headers": hv([("Host", "logs.example.com"), ("Content-Type", "application/x-ndjson"), ("Content-Length", "612480")]),
                "queryString": [], "headersSize": -1, "bodySize": 612480,
                "_requestBodyStatus": "discarded:too-large", "comment": discarded},
            "response": {
                "status": 202, "statusText": "Accepted", "httpVersion": "HTTP/1.1", "cookies": [],
                "headers": hv([("Content-Length", "0")]),
                "content": {"mimeType": "application/octet-stream", "size": 0, "text": ""},
                "redirectURL": "", "headersSize": -1, "bodySize": 0},
            "cache": {}, "timings": htk_timings(150.2, 60.3, 1.54)},
        {   # 3: a response body over the export limit: no text, its real size, a comment saying so
            "pageref": chrome, "startedDateTime": "2026-11-20T10:04:13.114+01:00", "time": 390.6,
            "request": {
                "method": "GET", "url": "https://cdn.example.com/catalog/full.json", "httpVersion": "HTTP/1.1", "cookies": [],
                "headers": hv([("Host", "cdn.example.com"), ("Accept-Encoding", "gzip")]),
                "queryString": [], "headersSize": -1, "bodySize": 0},
            "response": {
                "status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1", "cookies": [],
                "headers": hv([("Content-Type", "application/json"), ("Content-Encoding", "gzip"), ("Content-Length", "98311")]),
                "content": {"mimeType": "application/json", "size": 734003, "comment": discarded},
                "redirectURL": "", "headersSize": -1, "bodySize": 98311},
            "cache": {}, "timings": htk_timings(0.3, 95.2, 295.1)},
        {   # 4: a body that is not UTF-8: base64
            "pageref": chrome, "startedDateTime": "2026-11-20T10:04:13.620+01:00", "time": 22.0,
            "request": {
                "method": "GET", "url": "https://api.example.com/v2/avatar.png", "httpVersion": "HTTP/1.1", "cookies": [],
                "headers": hv([("Host", "api.example.com"), ("Accept", "image/*")]),
                "queryString": [], "headersSize": -1, "bodySize": 0},
            "response": {
                "status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1", "cookies": [],
                "headers": hv([("Content-Type", "image/png"), ("Content-Length", str(len(PNG)))]),
                "content": {"mimeType": "image/png", "size": len(PNG), "text": b64(PNG), "encoding": "base64"},
                "redirectURL": "", "headersSize": -1, "bodySize": len(PNG)},
            "cache": {}, "timings": htk_timings(0.2, 20.5, 1.3)},
        {   # 5: aborted: status 0, application/x-unknown
            "pageref": chrome, "startedDateTime": "2026-11-20T10:04:14.000+01:00", "time": 30004.2,
            "request": {
                "method": "GET", "url": "https://api.example.com/v2/slow", "httpVersion": "HTTP/1.1", "cookies": [],
                "headers": hv([("Host", "api.example.com")]), "queryString": [], "headersSize": -1, "bodySize": 0},
            "response": htk_no_response(), "cache": {}, "timings": htk_timings(0.4, 0, 0)},
        {   # 6: a WebSocket: the upgrade, its messages and how it closed
            "pageref": chrome, "startedDateTime": "2026-11-20T10:04:14.500+01:00", "time": 5120.0,
            "request": {
                "method": "GET", "url": "wss://push.example.com/socket", "httpVersion": "HTTP/1.1", "cookies": [],
                "headers": hv([("Host", "push.example.com"), ("Upgrade", "websocket"), ("Connection", "Upgrade"),
                               ("Sec-WebSocket-Version", "13"), ("Sec-WebSocket-Key", "dGFwZWRlY2sga2V5IDE2Yg==")]),
                "queryString": [], "headersSize": -1, "bodySize": 0},
            "response": {
                "status": 101, "statusText": "Switching Protocols", "httpVersion": "HTTP/1.1", "cookies": [],
                "headers": hv([("Upgrade", "websocket"), ("Connection", "Upgrade"), ("Sec-WebSocket-Accept", "bm90IGEgcmVhbCBhY2NlcHQ=")]),
                "content": {"mimeType": "application/octet-stream", "size": 0, "text": ""},
                "redirectURL": "", "headersSize": -1, "bodySize": 0},
            "cache": {}, "timings": htk_timings(0.1, 12.0, 0),
            "_resourceType": "websocket",
            "_webSocketMessages": [
                {"type": "send", "opcode": 1, "data": '{"subscribe":"orders"}', "time": 1763629454.61},
                {"type": "receive", "opcode": 2, "data": b64(b"\x01\x02\x03"), "time": 1763629455.02}],
            "_webSocketClose": {"code": 1000, "reason": "done", "timestamp": 1763629459.62}},
        {   # 7: still waiting for its response when exported: status 0 and time -1
            "pageref": node, "startedDateTime": "2026-11-20T10:04:15.250+01:00", "time": -1,
            "request": {
                "method": "GET", "url": "https://api.example.com/v2/events?since=42", "httpVersion": "HTTP/1.1", "cookies": [],
                "headers": hv([("Host", "api.example.com"), ("Accept", "text/event-stream")]),
                "queryString": [{"name": "since", "value": "42"}], "headersSize": -1, "bodySize": 0},
            "response": htk_no_response(), "cache": {}, "timings": htk_timings(0.3, 0, 0)},
    ]
    pages = [{"id": source, "title": source, "startedDateTime": started, "pageTimings": {}}
             for source, started in [(chrome, "2026-11-20T10:04:11.208+01:00"), (node, "2026-11-20T10:04:12.001+01:00")]]
    tls_errors = [{"startedDateTime": "2026-11-20T10:04:16.000+01:00", "time": 12.5, "cause": "cert-rejected",
                   "hostname": "pinned.example.net", "clientIPAddress": "::ffff:127.0.0.1", "clientPort": 53122,
                   "tlsMetadata": {"sniHostname": "pinned.example.net", "clientAlpn": ["h2", "http/1.1"]}}]
    write("httptoolkit.har", {"log": {"version": "1.2", "creator": {"name": "HTTP Toolkit", "version": "0e4b7d2c91f35a8e6b0d7c1f2a9e4b3d5c6f7a81"},
                                      "pages": pages, "entries": entries, "_tlsErrors": tls_errors}}, indent=4)


# --- Chrome / Edge DevTools "Export HAR (sanitized)" (devtools-frontend front_end/models/har) -------

def devtools_timings(blocked, dns, connect, ssl, send, wait, receive):
    return {"blocked": blocked, "dns": dns, "ssl": ssl, "connect": connect, "send": send, "wait": wait, "receive": receive,
            "_blocked_queueing": blocked, "_workerStart": -1, "_workerReady": -1, "_workerFetchStart": -1,
            "_workerRespondWithSettled": -1}


def devtools_entry(resource, priority, initiator, request, response, timings, started, page="page_2", address="[2001:db8::7]",
                   connection="443", connection_id="48113", cache=None):
    entry = {}
    if connection_id:
        entry["_connectionId"] = connection_id
    if cache:
        entry["_fromCache"] = cache
    entry.update({"_initiator": initiator, "_priority": priority, "_resourceType": resource, "cache": {}})
    if connection:
        entry["connection"] = connection
    entry.update({"pageref": page, "request": request, "response": response, "serverIPAddress": address,
                  "startedDateTime": started, "time": sum(max(v, 0) for k, v in timings.items()
                                                          if k in ("blocked", "dns", "connect", "send", "wait", "receive")),
                  "timings": timings})
    return entry


def devtools_response(status, version, headers, content, body_size, transfer, headers_size, error=None, redirect=""):
    return {"status": status, "statusText": "", "httpVersion": version, "headers": hv(headers), "cookies": [], "content": content,
            "redirectURL": redirect, "headersSize": headers_size, "bodySize": body_size, "_transferSize": transfer, "_error": error,
            "_fetchedViaServiceWorker": False}


def chrome_sanitized():
    page = "<!doctype html><title>Dashboard</title><main id=app></main>\n"
    widgets = '{"widgets":[{"id":1,"kind":"chart"},{"id":2,"kind":"table"}]}'
    stack = {"callFrames": [{"functionName": "loadWidgets", "scriptId": "31", "url": "https://app.example.com/assets/app.js",
                             "lineNumber": 120, "columnNumber": 17}],
             "parent": {"description": "Promise.then", "callFrames": [
                 {"functionName": "", "scriptId": "31", "url": "https://app.example.com/assets/app.js", "lineNumber": 88, "columnNumber": 4}]}}
    h3_request_headers = [(":authority", "app.example.com"), (":method", "GET"), (":path", "/dashboard"), (":scheme", "https"),
                          ("accept", "text/html"), ("accept-encoding", "gzip, deflate, br, zstd"), ("user-agent", "Mozilla/5.0 Chrome/131.0.0.0")]
    entries = [
        devtools_entry(
            "document", "VeryHigh", {"type": "other"},
            {"method": "GET", "url": "https://app.example.com/dashboard", "httpVersion": "h3", "headers": hv(h3_request_headers),
             "queryString": [], "cookies": [], "headersSize": -1, "bodySize": 0},
            devtools_response(200, "h3", [("content-type", "text/html; charset=utf-8"), ("content-length", str(len(page))),
                                          ("alt-svc", 'h3=":443"; ma=86400')],
                              {"size": len(page), "mimeType": "text/html", "compression": 0, "text": page}, len(page), len(page) + 120, -1),
            devtools_timings(2.1, 11.4, 24.9, 18.2, 0.3, 41.7, 1.2), "2026-11-21T08:30:00.125Z"),
        devtools_entry(
            "preflight", "High", {"type": "preflight", "url": "https://api.example.com/v1/widgets?limit=2", "requestId": "3419.77"},
            {"method": "OPTIONS", "url": "https://api.example.com/v1/widgets?limit=2", "httpVersion": "http/2.0",
             "headers": hv([(":authority", "api.example.com"), (":method", "OPTIONS"), (":path", "/v1/widgets?limit=2"), (":scheme", "https"),
                            ("access-control-request-headers", "authorization"), ("access-control-request-method", "GET"),
                            ("origin", "https://app.example.com")]),
             "queryString": [{"name": "limit", "value": "2"}], "cookies": [], "headersSize": -1, "bodySize": 0},
            devtools_response(204, "http/2.0", [("access-control-allow-headers", "authorization"), ("access-control-allow-origin", "https://app.example.com"),
                                                ("access-control-max-age", "600")],
                              {"size": 0, "mimeType": "x-unknown"}, 0, 91, -1),
            devtools_timings(0.9, -1, -1, -1, 0.2, 30.1, 0.4), "2026-11-21T08:30:00.401Z", address="203.0.113.40", connection_id="48131"),
        devtools_entry(
            "fetch", "High", {"type": "script", "stack": stack},
            {"method": "GET", "url": "https://api.example.com/v1/widgets?limit=2", "httpVersion": "http/2.0",
             # "sanitized": the authorization and cookie headers are gone, the cookies list is empty
             "headers": hv([(":authority", "api.example.com"), (":method", "GET"), (":path", "/v1/widgets?limit=2"), (":scheme", "https"),
                            ("accept", "application/json"), ("origin", "https://app.example.com")]),
             "queryString": [{"name": "limit", "value": "2"}], "cookies": [], "headersSize": -1, "bodySize": 0},
            devtools_response(200, "http/2.0", [("access-control-allow-origin", "https://app.example.com"), ("content-encoding", "br"),
                                                ("content-type", "application/json"), ("vary", "Origin"), ("vary", "Accept-Encoding")],
                              {"size": len(widgets), "mimeType": "application/json", "compression": 17, "text": widgets}, len(widgets) - 17,
                              len(widgets) - 17 + 88, -1),
            devtools_timings(1.3, -1, -1, -1, 0.2, 52.4, 0.9), "2026-11-21T08:30:00.436Z", address="203.0.113.40", connection_id="48131"),
        devtools_entry(
            "image", "Low", {"type": "parser", "url": "https://app.example.com/dashboard", "lineNumber": 0},
            {"method": "GET", "url": "https://static.example.com/img/mark.png", "httpVersion": "http/2.0",
             "headers": hv([(":authority", "static.example.com"), (":method", "GET"), (":path", "/img/mark.png"), (":scheme", "https"),
                            ("accept", "image/avif,image/webp,*/*")]),
             "queryString": [], "cookies": [], "headersSize": -1, "bodySize": 0},
            devtools_response(200, "http/2.0", [("cache-control", "max-age=3600"), ("content-length", str(len(PNG))), ("content-type", "image/png")],
                              {"size": len(PNG), "mimeType": "image/png", "compression": 0, "text": b64(PNG), "encoding": "base64"},
                              len(PNG), len(PNG) + 60, -1),
            devtools_timings(0.5, -1, -1, -1, 0.1, 12.0, 0.3), "2026-11-21T08:30:00.512Z", address="198.51.100.9", connection_id="48140"),
        # The same image again, from the memory cache: no connection, no server address, sizes 0 / -1.
        devtools_entry(
            "image", "Low", {"type": "script", "stack": stack},
            {"method": "GET", "url": "https://static.example.com/img/mark.png", "httpVersion": "http/2.0",
             "headers": hv([("accept", "image/avif,image/webp,*/*")]),
             "queryString": [], "cookies": [], "headersSize": -1, "bodySize": 0},
            devtools_response(200, "http/2.0", [("cache-control", "max-age=3600"), ("content-length", str(len(PNG))), ("content-type", "image/png")],
                              {"size": len(PNG), "mimeType": "image/png", "text": b64(PNG), "encoding": "base64"}, 0, 0, -1),
            devtools_timings(-1, -1, -1, -1, 0, 0.41, 0.05), "2026-11-21T08:30:01.004Z", address="", connection=None, connection_id=None,
            cache="memory"),
        # From the disk cache, and DevTools no longer held the body: `encoding` without `text`.
        devtools_entry(
            "font", "VeryHigh", {"type": "parser", "url": "https://app.example.com/assets/app.css"},
            {"method": "GET", "url": "https://static.example.com/fonts/inter.woff2", "httpVersion": "http/2.0",
             "headers": hv([("origin", "https://app.example.com"), ("referer", "https://app.example.com/assets/app.css")]),
             "queryString": [], "cookies": [], "headersSize": -1, "bodySize": 0},
            devtools_response(200, "http/2.0", [("content-length", "31244"), ("content-type", "font/woff2")],
                              {"size": 31244, "mimeType": "font/woff2", "encoding": "base64"}, 0, 0, -1),
            devtools_timings(0.6, -1, -1, -1, 0, 1.8, 0.7), "2026-11-21T08:30:00.620Z", address="", connection=None, connection_id=None,
            cache="disk"),
        # A host that did not resolve: status 0, the net error in _error, no connection.
        devtools_entry(
            "script", "Low", {"type": "parser", "url": "https://app.example.com/dashboard", "lineNumber": 3},
            {"method": "GET", "url": "https://metrics.example.invalid/collect.js", "httpVersion": "", "headers": hv([("referer", "https://app.example.com/")]),
             "queryString": [], "cookies": [], "headersSize": -1, "bodySize": 0},
            devtools_response(0, "", [], {"size": 0, "mimeType": "x-unknown"}, -1, 0, -1, error="net::ERR_NAME_NOT_RESOLVED"),
            {"blocked": 3.2, "dns": -1, "ssl": -1, "connect": -1, "send": 0, "wait": 0, "receive": 0, "_blocked_queueing": 3.2},
            "2026-11-21T08:30:00.390Z", address="", connection=None, connection_id=None),
    ]
    pages = [{"startedDateTime": "2026-11-21T08:30:00.120Z", "id": "page_2", "title": "https://app.example.com/dashboard",
              "pageTimings": {"onContentLoad": 412.7, "onLoad": 903.1}}]
    write("chrome-devtools-sanitized.har", {"log": {"version": "1.2", "creator": {"name": "WebInspector", "version": "537.36"},
                                                    "pages": pages, "entries": entries}})


# --- Playwright recordHar / routeFromHAR update: mode 'minimal', content 'attach' (harTracer.ts) ---

def playwright_minimal():
    directory = "playwright-minimal"
    files = {}

    def attach(data, extension):
        name = hashlib.sha1(data).hexdigest() + "." + extension
        files[name] = data
        return name

    note = b'{"id":41,"title":"tapes","done":false}'
    created = b'{"id":42,"title":"reels","done":false}'
    posted = b'{"title":"reels"}'
    listing = b'[{"id":41,"title":"tapes","done":false}]'

    def entry(method, url, request_headers, status, status_text, response_headers, content, post=None, api=False, receive=3.2):
        request = {"method": method, "url": url, "httpVersion": "HTTP/1.1", "cookies": [], "headers": hv(request_headers),
                   "queryString": [{"name": k, "value": v} for k, v in ([tuple(url.split("?")[1].split("="))] if "?" in url else [])],
                   "headersSize": -1, "bodySize": -1}
        if post is not None:
            request["postData"] = post
        result = {"startedDateTime": "2026-11-22T14:02:07.311Z", "time": receive,
                  "request": request,
                  "response": {"status": status, "statusText": status_text, "httpVersion": "HTTP/1.1", "cookies": [],
                               "headers": hv(response_headers), "content": content, "headersSize": -1, "bodySize": -1, "redirectURL": ""},
                  "cache": {}, "timings": {"send": -1, "wait": -1, "receive": receive}}
        if api:
            result["_apiRequest"] = True
        return result

    entries = [
        entry("GET", "http://localhost:3000/api/todos/41", [("accept", "application/json"), ("host", "localhost:3000")], 200, "OK",
              [("Content-Type", "application/json"), ("Content-Length", str(len(note)))],
              {"size": -1, "mimeType": "application/json", "_file": attach(note, "json")}),
        entry("POST", "http://localhost:3000/api/todos", [("content-type", "application/json"), ("host", "localhost:3000")], 201, "Created",
              [("Content-Type", "application/json"), ("Content-Length", str(len(created)))],
              {"size": -1, "mimeType": "application/json", "_file": attach(created, "json")},
              post={"mimeType": "application/json", "text": "", "params": [], "_file": attach(posted, "json")}, api=True, receive=5.1),
        entry("GET", "http://localhost:3000/api/todos?done=false", [("accept", "application/json")], 200, "OK",
              [("Content-Type", "application/json")],
              # content: 'omit' for this one (an entry of another run merged in): no body at all
              {"size": -1, "mimeType": "application/json"}),
        entry("GET", "http://localhost:3000/api/todos?done=true", [("accept", "application/json")], 200, "OK",
              [("Content-Type", "application/json"), ("Content-Length", str(len(listing)))],
              {"size": -1, "mimeType": "application/json", "_file": attach(listing, "json")}, receive=0.9),
    ]
    document = {"log": {"version": "1.2", "creator": {"name": "Playwright", "version": "1.65.1"},
                        "browser": {"name": "chromium", "version": "156.0.8078.79"}, "entries": entries}}
    write(os.path.join(directory, "playwright-minimal.har"), document, indent=2)
    for name, data in files.items():
        with open(os.path.join(OUT, directory, name), "wb") as handle:
            handle.write(data)


# --- Insomnia "Export → HAR" (insomnia packages/insomnia/src/common/har.ts) ---------------------------

def insomnia():
    started = "2026-11-23T16:45:09.882Z"   # one date for every entry: the moment of the export
    timings = lambda elapsed: {"blocked": -1, "dns": -1, "connect": -1, "send": 0, "wait": elapsed, "receive": 0, "ssl": -1}
    # A PNG decoded as UTF-8 the way Buffer.toString('utf8') does: bytes that are not UTF-8 become U+FFFD.
    png_as_text = PNG.decode("utf-8", errors="replace")
    token = '{"access_token":"abc.def","expires_in":3600}'
    entries = [
        {"startedDateTime": started, "time": 118.713, "comment": "Log in",
         "request": {"method": "POST", "url": "https://auth.example.com/oauth/token", "httpVersion": "HTTP/1.1", "cookies": [],
                     "headers": hv([("Content-Type", "application/x-www-form-urlencoded"), ("User-Agent", "insomnia/10.3.1")]),
                     "queryString": [],
                     "postData": {"mimeType": "application/x-www-form-urlencoded",
                                  "params": [{"name": "grant_type", "value": "client_credentials"}, {"name": "scope", "value": "read write"}]},
                     "headersSize": -1, "bodySize": -1},
         "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1",
                      "cookies": [{"name": "edge", "value": "b1", "path": "/", "domain": "auth.example.com", "expires": "2026-11-24T16:45:09.000Z",
                                   "httpOnly": True, "secure": True}],
                      "headers": hv([("content-type", "application/json"), ("content-length", str(len(token))),
                                     ("set-cookie", "edge=b1; Path=/; Expires=Tue, 24 Nov 2026 16:45:09 GMT; HttpOnly; Secure")]),
                      "content": {"size": len(token), "mimeType": "application/json", "text": token},
                      "redirectURL": "", "headersSize": -1, "bodySize": -1},
         "cache": {}, "timings": timings(118.713)},
        # A file sent as the body: its bytes base64 in `text`, with no `encoding` to say so.
        {"startedDateTime": started, "time": 64.02, "comment": "Upload logo",
         "request": {"method": "PUT", "url": "https://files.example.com/v1/logo", "httpVersion": "HTTP/1.1", "cookies": [],
                     "headers": hv([("Content-Type", "image/png")]), "queryString": [],
                     "postData": {"mimeType": "image/png", "text": b64(PNG)}, "headersSize": -1, "bodySize": -1},
         "response": {"status": 204, "statusText": "No Content", "httpVersion": "HTTP/1.1", "cookies": [], "headers": [],
                      "content": {"size": 0, "mimeType": "", "text": ""}, "redirectURL": "", "headersSize": -1, "bodySize": -1},
         "cache": {}, "timings": timings(64.02)},
        # A binary response written as UTF-8 text: the bytes that were not UTF-8 are lost (U+FFFD).
        {"startedDateTime": started, "time": 31.5, "comment": "Get logo",
         "request": {"method": "GET", "url": "https://files.example.com/v1/logo", "httpVersion": "HTTP/1.1", "cookies": [],
                     "headers": [], "queryString": [], "postData": {"mimeType": "", "text": ""}, "headersSize": -1, "bodySize": -1},
         "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1", "cookies": [],
                      "headers": hv([("content-type", "image/png"), ("content-length", str(len(PNG)))]),
                      "content": {"size": len(PNG), "mimeType": "image/png", "text": png_as_text},
                      "redirectURL": "", "headersSize": -1, "bodySize": -1},
         "cache": {}, "timings": timings(31.5)},
        # A multipart form with a file: the file param has a fileName and no value.
        {"startedDateTime": started, "time": 88.0, "comment": "Import CSV",
         "request": {"method": "POST", "url": "https://files.example.com/v1/imports", "httpVersion": "HTTP/1.1", "cookies": [],
                     "headers": hv([("Content-Type", "multipart/form-data")]), "queryString": [],
                     "postData": {"mimeType": "multipart/form-data",
                                  "params": [{"name": "kind", "value": "contacts"}, {"name": "file", "fileName": "/home/ada/contacts.csv"}]},
                     "headersSize": -1, "bodySize": -1},
         "response": {"status": 202, "statusText": "Accepted", "httpVersion": "HTTP/1.1", "cookies": [],
                      "headers": hv([("content-type", "application/json")]),
                      "content": {"size": 15, "mimeType": "application/json", "text": '{"job":"j-981"}'},
                      "redirectURL": "", "headersSize": -1, "bodySize": -1},
         "cache": {}, "timings": timings(88.0)},
        # A request never sent: status 0, empty content, time 0.
        {"startedDateTime": started, "time": 0, "comment": "Delete account",
         "request": {"method": "DELETE", "url": "https://auth.example.com/v1/account", "httpVersion": "HTTP/1.1", "cookies": [],
                     "headers": [], "queryString": [], "postData": {"mimeType": "", "text": ""}, "headersSize": -1, "bodySize": -1},
         "response": {"status": 0, "statusText": "", "httpVersion": "HTTP/1.1", "cookies": [], "headers": [],
                      "content": {"size": 0, "mimeType": ""}, "redirectURL": "", "headersSize": -1, "bodySize": -1},
         "cache": {}, "timings": timings(0)},
    ]
    text = json.dumps({"log": {"version": "1.2", "creator": {"name": "Insomnia REST Client", "version": "insomnia.desktop.app:v10.3.1"},
                               "entries": entries}}, indent="\t", ensure_ascii=False)
    with open(os.path.join(OUT, "insomnia.har"), "wb") as handle:
        handle.write(text.encode("utf-8"))


# --- newman-reporter-har (whitehatsec/newman-reporter-har index.js, Postman collections via Newman) ---

def newman():
    posts = '[{"userId":1,"id":1,"title":"tape"}]'
    made = '{"id":101,"title":"reel"}'
    json_type = "application/json; charset=utf-8"
    entries = [
        {"startedDateTime": "2026-11-24T07:12:40.511Z",
         "request": {"method": "GET", "url": "https://jsonapi.example.com/posts?userId=1", "httpVersion": "HTTP/1.1", "cookies": [],
                     "headers": hv([("User-Agent", "PostmanRuntime/7.43.0"), ("Accept", "*/*"), ("Host", "jsonapi.example.com"),
                                    ("Accept-Encoding", "gzip, deflate, br"), ("Connection", "keep-alive")]),
                     "queryString": [{"name": "userId", "value": "1"}],
                     # every request gets postData, a GET too, and the mimeType is always JSON
                     "postData": {"mimeType": json_type, "text": ""}, "headersSize": -1, "bodySize": -1},
         "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1", "cookies": [],
                      "headers": hv([("Content-Type", json_type), ("Content-Encoding", "gzip"), ("Content-Length", "61")]),
                      "content": {"mimeType": json_type, "text": posts}, "redirectURL": "", "headersSize": -1, "bodySize": -1}},
        {"startedDateTime": "2026-11-24T07:12:40.702Z",
         "request": {"method": "POST", "url": "https://jsonapi.example.com/posts", "httpVersion": "HTTP/1.1", "cookies": [],
                     "headers": hv([("Content-Type", "application/json"), ("User-Agent", "PostmanRuntime/7.43.0"),
                                    ("Host", "jsonapi.example.com"), ("Content-Length", "16")]),
                     "queryString": [], "postData": {"mimeType": json_type, "text": '{"title":"reel"}'}, "headersSize": -1, "bodySize": -1},
         "response": {"status": 201, "statusText": "Created", "httpVersion": "HTTP/1.1", "cookies": [],
                      "headers": hv([("Content-Type", json_type), ("Location", "https://jsonapi.example.com/posts/101")]),
                      "content": {"mimeType": json_type, "text": made}, "redirectURL": "", "headersSize": -1, "bodySize": -1}},
        {"startedDateTime": "2026-11-24T07:12:40.913Z",
         "request": {"method": "GET", "url": "https://jsonapi.example.com/about", "httpVersion": "HTTP/1.1", "cookies": [],
                     "headers": hv([("Host", "jsonapi.example.com")]), "queryString": [],
                     "postData": {"mimeType": json_type, "text": ""}, "headersSize": -1, "bodySize": -1},
         "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1", "cookies": [],
                      # an HTML page, labelled JSON in the HAR: the reporter never reads the real type
                      "headers": hv([("Content-Type", "text/html; charset=utf-8")]),
                      "content": {"mimeType": json_type, "text": "<h1>About</h1>"}, "redirectURL": "", "headersSize": -1, "bodySize": -1}},
    ]
    # The reporter passes the version as the number 1.2, the collection's name and id as the creator.
    write("newman-reporter.har", {"log": {"version": 1.2, "creator": {"name": "Tape API smoke", "version": "6f1c3a52-8d0e-4b7a-9c21-5e4d3b2a1f09"},
                                          "entries": entries}})


# --- Burp Suite through the Logger++ extension (nccgroup/LoggerPlusPlus exports/HarSerializer.java) --

def logger_plus_plus():
    form = "user=ada&remember=on"
    html = "<html><body>Welcome back</body></html>"
    entries = [
        {"startedDateTime": "2026-11-25T11:20:33.418+0100", "time": 57,
         "request": {"method": "POST", "url": "https://portal.example.com:443/login", "httpVersion": "HTTP/1.1", "origin": "Proxy",
                     "cookies": [{"name": "pre", "value": "1"}],
                     "headers": hv([("Host", "portal.example.com"), ("Cookie", "pre=1"), ("Content-Type", "application/x-www-form-urlencoded"),
                                    ("Content-Length", str(len(form)))]),
                     "queryString": [],
                     "postData": {"mimeType": "application/x-www-form-urlencoded",
                                  "params": [{"name": "user", "value": "ada"}, {"name": "remember", "value": "on"}], "text": form},
                     "headersSize": 160, "bodySize": len(form)},
         "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1",
                      "cookies": [{"name": "sess", "value": "7f3a", "path": "/", "domain": None}],
                      "headers": hv([("Content-Type", "text/html; charset=utf-8"), ("Set-Cookie", "sess=7f3a; Path=/"),
                                     ("Content-Length", str(len(html)))]),
                      # String.valueOf(null): the word "null" when there is no redirect
                      "redirectURL": "null", "headersSize": 120, "bodySize": len(html),
                      "content": {"size": len(html), "mimeType": "text/html", "text": html}},
         "cache": {}, "timings": {"send": 0, "wait": 57, "receive": 0}},
        {"startedDateTime": "2026-11-25T11:20:34.002+0100", "time": 12,
         "request": {"method": "GET", "url": "https://portal.example.com:443/robots.txt", "httpVersion": "HTTP/1.1", "origin": "Repeater",
                     "cookies": [], "headers": hv([("Host", "portal.example.com")]), "queryString": [], "headersSize": 52, "bodySize": 0},
         "response": {"status": 404, "statusText": "Not Found", "httpVersion": "HTTP/1.1", "cookies": [],
                      "headers": hv([("Content-Length", "0")]),
                      "redirectURL": "null", "headersSize": 40, "bodySize": 0,
                      # no Content-Type header: Burp's content type is null
                      "content": {"size": 0, "mimeType": None, "text": ""}},
         "cache": {}, "timings": {"send": 0, "wait": 12, "receive": 0}},
        {"startedDateTime": "2026-11-25T11:20:35.250+0100", "time": 0,
         "request": {"method": "GET", "url": "https://portal.example.com:443/admin", "httpVersion": "HTTP/1.1", "origin": "Proxy",
                     "cookies": [], "headers": hv([("Host", "portal.example.com")]), "queryString": [], "headersSize": 48, "bodySize": 0},
         # dropped by the user in Burp's intercept: no response, so nothing but zeros and "null"
         "response": {"status": 0, "statusText": None, "httpVersion": None, "cookies": [], "headers": [],
                      "redirectURL": "null", "headersSize": 0, "bodySize": 0,
                      "content": {"size": 0, "mimeType": None, "text": "null"}},
         "cache": {}, "timings": {"send": 0, "wait": None, "receive": 0}},
    ]
    write("logger-plus-plus.har", {"log": {"version": "1.2", "creator": {"name": "LoggerPlusPlus", "version": "3.20.0"}, "pages": [],
                                           "entries": entries}}, indent=None, separators=(",", ":"))


# --- Proxyman export (ProxymanApp/proxyman-windows-linux issue 560; Proxyman issue 1614) ----------------

def proxyman():
    ok = '{"status":"ok"}'
    entries = [
        {"startedDateTime": "2026-11-26T09:14:02+01:00", "time": 1948,
         "request": {"method": "GET", "url": "https://status.example.com/api/health", "httpVersion": "HTTP/1.1", "cookies": [],
                     "headers": hv([("Host", "status.example.com"), ("Accept", "*/*")]), "queryString": [], "headersSize": 71, "bodySize": 0},
         "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1", "cookies": [],
                      "headers": hv([("Content-Type", "application/json"), ("Content-Length", str(len(ok)))]),
                      "content": {"size": len(ok), "mimeType": "application/json", "text": ok}, "redirectURL": "", "headersSize": 88, "bodySize": len(ok)},
         "cache": {}, "timings": {"blocked": -1, "dns": -1, "connect": -1, "ssl": -1, "send": 0, "wait": 1948, "receive": 0}},
        # Still in flight when exported: no response at all ...
        {"startedDateTime": "2026-11-26T09:14:03+01:00", "time": 0,
         "request": {"method": "GET", "url": "https://status.example.com/api/stream", "httpVersion": "HTTP/1.1", "cookies": [],
                     "headers": hv([("Host", "status.example.com")]), "queryString": [], "headersSize": 52, "bodySize": 0},
         "cache": {}, "timings": {"send": 0, "wait": 0, "receive": 0}},
        # ... or a null one.
        {"startedDateTime": "2026-11-26T09:14:04+01:00", "time": 0,
         "request": {"method": "POST", "url": "https://status.example.com/api/ping", "httpVersion": "HTTP/1.1", "cookies": [],
                     "headers": hv([("Host", "status.example.com"), ("Content-Type", "application/json")]), "queryString": [],
                     "postData": {"mimeType": "application/json", "text": "{}"}, "headersSize": 80, "bodySize": 2},
         "response": None, "cache": {}, "timings": {"send": 0, "wait": 0, "receive": 0}},
    ]
    write("proxyman.har", {"log": {"version": "1.2", "creator": {"name": "Proxyman", "version": "3.5.0"}, "entries": entries}})


# --- node-fetch-har (exogen/node-fetch-har index.js) ------------------------------------------------------

def node_fetch_har():
    final = '{"id":"v2","items":[]}'
    hr = lambda s, n: [s, n]
    entries = [
        # the redirect that fetch followed: no `time`, no content text, size -1
        {"_timestamps": {"start": hr(912, 11000), "socket": hr(912, 21000), "firstByte": hr(912, 9021000)},
         "_resourceType": "fetch", "startedDateTime": "2026-11-24T12:00:00.010Z",
         "cache": {"beforeRequest": None, "afterRequest": None},
         "timings": {"blocked": -1, "dns": -1, "connect": -1, "send": 0, "wait": 0, "receive": 0, "ssl": -1},
         "request": {"method": "GET", "url": "http://registry.example.com/v1/list", "cookies": [],
                     "headers": hv([("x-har-request-id", "q9Zk3_aR"), ("Accept", "*/*"), ("User-Agent", "node-fetch/1.0")]),
                     "queryString": [], "headersSize": -1, "bodySize": -1, "httpVersion": "HTTP/1.1"},
         "response": {"status": 301, "statusText": "Moved Permanently", "httpVersion": "HTTP/1.1", "cookies": [],
                      "headers": hv([("Location", "http://registry.example.com/v2/list"), ("Content-Length", "0")]),
                      "content": {"size": -1}, "redirectURL": "http://registry.example.com/v2/list", "headersSize": -1, "bodySize": -1},
         "pageref": "page_1"},
        {"_timestamps": {"start": hr(912, 9100000), "received": hr(912, 30100000)}, "_resourceType": "fetch", "_compressed": True,
         "startedDateTime": "2026-11-24T12:00:00.019Z", "cache": {"beforeRequest": None, "afterRequest": None},
         "timings": {"blocked": 0.01, "dns": 0, "connect": 0.6, "send": 0.2, "wait": 19.4, "receive": 0.8, "ssl": -1},
         "request": {"method": "GET", "url": "http://registry.example.com/v2/list", "cookies": [],
                     "headers": hv([("x-har-request-id", "q9Zk3_aR"), ("Accept", "*/*"), ("User-Agent", "node-fetch/1.0")]),
                     "queryString": [], "headersSize": -1, "bodySize": -1, "httpVersion": "HTTP/1.1"},
         "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1", "cookies": [],
                      "headers": hv([("Content-Type", "application/json"), ("Content-Encoding", "gzip"), ("Content-Length", "42")]),
                      "content": {"size": len(final), "mimeType": "application/json", "text": final, "compression": len(final) - 42},
                      "redirectURL": "", "headersSize": -1, "bodySize": 42},
         "time": 21.01, "pageref": "page_1"},
    ]
    write("node-fetch-har.har", {"log": {"version": "1.2", "creator": {"name": "node-fetch-har", "version": "1.0.1"},
                                         "pages": [{"startedDateTime": "2026-11-24T12:00:00.000Z", "id": "page_1", "title": "Page",
                                                    "pageTimings": {"onContentLoad": -1, "onLoad": -1}}],
                                         "entries": entries}})


# --- Shapes with no single writer: BOM + CRLF, HAR 1.1, only the fields a replay needs ------------------

def bom_crlf_minimal():
    entries = [
        # har-extractor-style minimum: no time, cache, timings, cookies, headersSize, bodySize, httpVersion
        {"request": {"method": "GET", "url": "https://min.example.com/a", "headers": []},
         "response": {"status": 200, "content": {"mimeType": "text/plain", "text": "alpha\r\nbeta\r\n"}}},
        # duplicate header names and HTTP/2 pseudo-headers in the request, odd version strings
        {"startedDateTime": "2026-11-26T22:00:00Z", "time": 3,
         "request": {"method": "GET", "url": "https://min.example.com/b", "httpVersion": "HTTP/3",
                     "headers": hv([(":method", "GET"), (":authority", "min.example.com"), (":scheme", "https"), (":path", "/b"),
                                    ("accept", "text/plain"), ("accept", "application/json")])},
         "response": {"status": 200, "statusText": "OK", "httpVersion": "unknown",
                      "headers": hv([("set-cookie", "a=1"), ("set-cookie", "b=2"), ("x-trace", "one"), ("x-trace", "two")]),
                      "content": {"size": 2, "mimeType": "application/json", "text": "{}"}}},
        # blocked before it was sent: status 0, no error text at all
        {"request": {"method": "GET", "url": "https://ads.min.example.com/pixel", "httpVersion": ""},
         "response": {"status": 0, "httpVersion": "", "content": {}}},
    ]
    write("bom-crlf-minimal.har", {"log": {"version": "1.1", "entries": entries}}, newline="\r\n", bom=True)


if __name__ == "__main__":
    httptoolkit()
    chrome_sanitized()
    playwright_minimal()
    insomnia()
    newman()
    logger_plus_plus()
    proxyman()
    node_fetch_har()
    bom_crlf_minimal()
