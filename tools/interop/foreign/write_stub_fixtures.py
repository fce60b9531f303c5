#!/usr/bin/env python3
"""Writes the WireMock and Hoverfly fixtures of fixtures/interop/foreign/ for the traffic script
the recorded cassettes there share (README.md), in the shapes WireMock's recorder (snapshot with
repeats as scenarios, bodies over a size in __files) and Hoverfly's capture mode (`hoverctl
export`, schema v5.2) write, as their documentation shows them. Neither tool installs on the
build machines (WireMock is a JVM server, Hoverfly a Go binary with no Debian package), so these
files are written here rather than recorded. Run from the repository's root."""
import base64, gzip, json, os, sys, uuid

sys.path.insert(0, "fixtures/interop")
from upstream import tiny_png  # the interop server's PNG

PNG = tiny_png()
root = "fixtures/interop/foreign"
ids = iter(uuid.UUID(int=n) for n in range(1, 100))
date = "Tue, 03 Nov 2026 10:00:00 GMT"

def mapping(name, request, response, index, **scenario):
    ident = str(next(ids))
    entry = {"id": ident, "name": name, "request": request, "response": response, "uuid": ident,
             "persistent": True, "insertionIndex": index}
    entry.update(scenario)
    return entry

json_headers = {"Content-Type": "application/json", "Date": date}
mappings = [
    mapping("users_1", {"url": "/users/1", "method": "GET",
                        "headers": {"Accept": {"equalTo": "application/json"}, "Authorization": {"equalTo": "Bearer secret-token"}}},
            {"status": 200, "body": '{"id": 1, "name": "Ada"}', "headers": json_headers}, 1),
    mapping("counter", {"url": "/counter", "method": "GET"},
            {"status": 200, "body": '{"count": 1}', "headers": json_headers}, 2,
            scenarioName="scenario-1-counter", requiredScenarioState="Started", newScenarioState="scenario-1-counter-2"),
    mapping("counter", {"url": "/counter", "method": "GET"},
            {"status": 200, "body": '{"count": 2}', "headers": json_headers}, 3,
            scenarioName="scenario-1-counter", requiredScenarioState="scenario-1-counter-2"),
    mapping("image.png", {"url": "/image.png", "method": "GET"},
            {"status": 200, "bodyFileName": "image.png-00000000-0000-0000-0000-000000000004.png",
             "headers": {"Content-Type": "image/png", "Date": date}}, 4),
    mapping("login", {"url": "/login", "method": "POST",
                      "bodyPatterns": [{"equalToJson": '{"username":"ada","password":"lovelace"}', "ignoreArrayOrder": True, "ignoreExtraElements": True}]},
            {"status": 200, "jsonBody": {"token": "abc123"},
             "headers": {"Content-Type": "application/json", "Set-Cookie": "session=s3cr3t; Path=/", "Date": date}}, 5),
    mapping("missing", {"url": "/missing", "method": "GET"},
            {"status": 404, "body": "Not Found\n", "headers": {"Content-Type": "text/plain", "Date": date}}, 6),
    mapping("latin1", {"url": "/latin1", "method": "GET"},
            {"status": 200, "base64Body": base64.b64encode("café crème\n".encode("latin-1")).decode(),
             "headers": {"Content-Type": "text/plain; charset=ISO-8859-1", "Date": date}}, 7),
    mapping("redirect", {"url": "/redirect", "method": "GET"},
            {"status": 302, "headers": {"Location": "/users/1", "Date": date}}, 8),
    mapping("form", {"urlPath": "/form", "method": "POST", "bodyPatterns": [{"equalTo": "a=1&b=two"}]},
            {"status": 200, "body": '{"a": "1", "b": "two"}', "headers": json_headers}, 9),
    # Beyond the recorder: what hand-written mappings beside recorded ones hold.
    mapping("search", {"urlPathPattern": "/search/.*", "method": "GET"}, {"status": 200, "body": "[]"}, 10),
    mapping("flaky", {"url": "/flaky", "method": "GET"}, {"fault": "CONNECTION_RESET_BY_PEER"}, 11),
    mapping("slow", {"urlPath": "/slow", "method": "ANY", "queryParameters": {"page": {"equalTo": "2"}}},
            {"status": 200, "body": "late", "fixedDelayMilliseconds": 1500}, 12),
]

folder = f"{root}/wiremock"
os.makedirs(f"{folder}/mappings", exist_ok=True)
os.makedirs(f"{folder}/__files", exist_ok=True)
for entry in mappings:
    # The recorder's file names: the stub's name and id; a folder's files are read in any order.
    with open(f"{folder}/mappings/{entry['name']}-{entry['id']}.json", "w") as out:
        json.dump(entry, out, indent=2)
        out.write("\n")
with open(f"{folder}/__files/image.png-00000000-0000-0000-0000-000000000004.png", "wb") as out:
    out.write(PNG)

# One file with a `mappings` list (`GET /__admin/mappings` saved), without insertion indexes and
# with the counter's scenario in reverse: the states, not the list, give the order.
listed = [dict(m) for m in mappings if m["name"] in ("counter", "users_1", "missing")]
for m in listed:
    m.pop("insertionIndex")
listed.sort(key=lambda m: m.get("requiredScenarioState", "") != "scenario-1-counter-2")
with open(f"{root}/wiremock-mappings.json", "w") as out:
    json.dump({"mappings": listed, "meta": {"total": len(listed)}}, out, indent=2)
    out.write("\n")

def exact(value):
    return [{"matcher": "exact", "value": value}]

def pair(method, path, status, body, headers, query=None, request_body="", encoded=False, state=None):
    request = {"path": exact(path), "method": exact(method), "destination": exact("127.0.0.1:8500"),
               "scheme": exact("http"), "body": exact(request_body)}
    if query:
        request["query"] = {name: exact(value) for name, value in query.items()}
    if state:
        request["requiresState"] = state[0]
    response = {"status": status, "body": body, "encodedBody": encoded, "headers": headers, "templated": False}
    if state:
        response["transitionsState"] = state[1]
    return {"request": request, "response": response}

h = lambda ctype: {"Content-Type": [ctype], "Date": [date], "Hoverfly": ["Was-Here"]}
pairs = [
    pair("GET", "/users/1", 200, '{"id": 1, "name": "Ada"}', h("application/json")),
    pair("GET", "/counter", 200, '{"count": 1}', h("application/json"), state=({"sequence:1": "1"}, {"sequence:1": "2"})),
    pair("GET", "/counter", 200, '{"count": 2}', h("application/json"), state=({"sequence:1": "2"}, {})),
    pair("GET", "/gzip", 200, base64.b64encode(gzip.compress(b'{"compressed": true, "message": "hello gzip"}', mtime=0)).decode(),
         {**h("application/json"), "Content-Encoding": ["gzip"]}, encoded=True),
    pair("GET", "/image.png", 200, base64.b64encode(PNG).decode(), h("image/png"), encoded=True),
    pair("POST", "/login", 200, '{"token": "abc123"}', {**h("application/json"), "Set-Cookie": ["session=s3cr3t; Path=/"]},
         request_body='{"username":"ada","password":"lovelace"}'),
    pair("GET", "/missing", 404, "Not Found\n", h("text/plain")),
    pair("GET", "/items", 200, '{"page": 2}', h("application/json"), query={"page": "2", "sort": "name"}),
    pair("POST", "/form", 200, '{"a": "1", "b": "two"}', h("application/json"), request_body="a=1&b=two"),
    {"request": {"path": [{"matcher": "glob", "value": "/search/*"}], "method": exact("GET")},
     "response": {"status": 200, "body": "[]", "encodedBody": False, "headers": {}, "templated": False}},
]
simulation = {"data": {"pairs": pairs, "globalActions": {"delays": [], "delaysLogNormal": []}},
              "meta": {"schemaVersion": "v5.2", "hoverflyVersion": "v1.9.1", "timeExported": "2026-11-03T10:00:00Z"}}
with open(f"{root}/hoverfly.json", "w") as out:
    json.dump(simulation, out, indent=2)
    out.write("\n")
