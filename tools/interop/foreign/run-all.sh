#!/bin/bash
# Start a fresh upstream (so /counter restarts at 1) before each recording and run every recorder.
# Outputs go to $ROOT/out/ (default /tmp/foreignrec/out) exactly as the tools wrote them; copy them
# beside this folder to replace the fixtures (README.md there says what each holds).
# Needs: venv with vcrpy==9.4.2 betamax==0.9.0 requests httpx; apt: ruby-vcr ruby-webmock ruby-multi-json
# (VCR json serializer needs multi_json) golang-go golang-github-dnaeon-go-vcr-dev.
set -eo pipefail
ROOT=${ROOT:-/tmp/foreignrec}
OUT=$ROOT/out
REC=$(cd "$(dirname "$0")" && pwd)
PY=$ROOT/venv/bin/python
mkdir -p "$OUT" "$ROOT/logs"
rm -f "$OUT"/vcrpy-requests.yaml "$OUT"/vcrpy-requests.json "$OUT"/vcrpy-httpx.yaml "$OUT"/vcrpy-requests-decoded.yaml \
      "$OUT"/betamax.json "$OUT"/betamax-exact.json \
      "$OUT"/vcr-ruby.yml "$OUT"/vcr-ruby.json "$OUT"/vcr-ruby.zz "$OUT"/vcr-ruby-exact.yml "$OUT"/go-vcr.yaml

UP_PID=
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
start_upstream() {
  PORT=$(free_port)
  python3 "$REC/../../../fixtures/interop/foreign/upstream.py" "$PORT" 2>>"$ROOT/logs/upstream-$1.log" &
  UP_PID=$!
  for _ in $(seq 50); do curl -s -o /dev/null "http://127.0.0.1:$PORT/probe" 2>/dev/null && break; sleep 0.1; done
  # the probe above hit /probe (404) only, so /counter is still at 0
  BASE="http://127.0.0.1:$PORT"
  echo "== $1: upstream pid $UP_PID on $BASE"
}
stop_upstream() { kill "$UP_PID"; wait "$UP_PID" 2>/dev/null || true; UP_PID=; }
trap '[ -n "$UP_PID" ] && kill "$UP_PID" 2>/dev/null || true' EXIT

run() { # name 'command using $BASE'  (evaluated after the fresh upstream is up)
  local name=$1 cmd=$2
  start_upstream "$name"
  ( cd "$OUT" && eval "$cmd" ) 2>&1 | tee "$ROOT/logs/$name.log"
  stop_upstream
}

run vcrpy-requests-yaml  '$PY $REC/record_vcrpy.py $BASE $OUT/vcrpy-requests.yaml yaml requests'
# Full script with serializer=json: vcrpy raises TypeError on save (binary bodies) and writes nothing.
run vcrpy-requests-json-full '$PY $REC/record_vcrpy.py $BASE $OUT/vcrpy-requests.json json requests || echo "EXPECTED FAILURE: exit $?"'
# So the JSON cassette is made from the text-only subset (no /gzip, /image.png, /latin1).
run vcrpy-requests-json  '$PY $REC/record_vcrpy.py $BASE $OUT/vcrpy-requests.json json requests textonly'
# Extra, non-default variant: decode_compressed_response=True
run vcrpy-requests-decoded '$PY $REC/record_vcrpy.py $BASE $OUT/vcrpy-requests-decoded.yaml yaml requests decode'
run vcrpy-httpx-yaml     '$PY $REC/record_vcrpy.py $BASE $OUT/vcrpy-httpx.yaml yaml httpx'
run betamax              '$PY $REC/record_betamax.py $BASE $OUT/betamax.json default'
run betamax-exact        '$PY $REC/record_betamax.py $BASE $OUT/betamax-exact.json exact'
run vcr-ruby-yaml        'ruby $REC/record_vcr.rb $BASE $OUT yaml'
# Default settings + json serializer: raises JSON::GeneratorError on eject (binary bodies), writes nothing.
run vcr-ruby-json-default 'ruby $REC/record_vcr.rb $BASE $OUT json || echo "EXPECTED FAILURE: exit $?"'
# So the JSON cassette uses VCR's documented preserve_exact_body_bytes recipe for binary bodies.
run vcr-ruby-json        'ruby $REC/record_vcr.rb $BASE $OUT json vcr-ruby exact'
# Extra: the same recipe with YAML (shows base64_string in YAML)
run vcr-ruby-exact-yaml  'ruby $REC/record_vcr.rb $BASE $OUT yaml vcr-ruby-exact exact'
run vcr-ruby-compressed  'ruby $REC/record_vcr.rb $BASE $OUT compressed'
# go-vcr 1.2.0 from Debian, GOPATH mode (offline); it appends ".yaml" to the name itself
mkdir -p "$ROOT/gowork/src/govcrrec"
cp "$REC/record_govcr.go" "$ROOT/gowork/src/govcrrec/main.go"
( cd "$ROOT/gowork" && GO111MODULE=off GOPATH=/usr/share/gocode go build -o "$ROOT/gowork/govcrrec" ./src/govcrrec )
run go-vcr               '$ROOT/gowork/govcrrec $BASE $OUT/go-vcr'

echo "== done"
ls -l "$OUT"
sha256sum "$OUT"/*
