#!/usr/bin/env bash
# Record fixtures/interop/mitmproxy-failures.har: mitmdump in reverse mode in front of
# faulty-upstream.py (port 18083) and in front of a closed port (18099).
#   tools/interop/make-mitmproxy-failures.sh OUT.har
# MITMDUMP overrides the mitmdump binary (default /tmp/mitm/bin/mitmdump).
# connection_strategy=lazy: with the default (eager) mitmproxy connects upstream as soon as a
# client connects, and a refused upstream then closes the client before any request is read,
# so no flow (and no HAR entry) exists for it.
set -uo pipefail
OUT=$(realpath -m "${1:?usage: $0 OUT.har}")
MITMDUMP=${MITMDUMP:-/tmp/mitm/bin/mitmdump}
cd "$(dirname "$0")"

wait_port() { for _ in $(seq 100); do (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return; sleep 0.1; done; echo "port $1 did not open" >&2; exit 1; }

python3 faulty-upstream.py 18083 & UP=$!
"$MITMDUMP" --listen-host 127.0.0.1 \
    --mode reverse:http://127.0.0.1:18083@18082 \
    --mode reverse:http://127.0.0.1:18099@18084 \
    --set connection_strategy=lazy --set hardump="$OUT" & MD=$!
wait_port 18083; wait_port 18082; wait_port 18084

P=http://127.0.0.1:18082
c() { echo "== curl $*"; curl -sS -o /dev/null -w 'client saw: HTTP %{http_code}\n' "$@"; echo "curl exit $?"; }
c $P/ok
c -X POST -H 'Authorization: Bearer secret-token' -H 'Content-Type: application/json' \
    -d '{"username":"ada"}' $P/echo
c $P/truncated
c $P/reset
c $P/empty
c $P/garbage
c --max-time 2 $P/hang
c http://127.0.0.1:18084/refused

kill -INT $MD; wait $MD     # the HAR is written on shutdown
kill $UP; wait $UP 2>/dev/null
echo "wrote $OUT"
