#!/usr/bin/env bash
# Record fixtures/interop/firefox.har with Debian's Firefox ESR, headless, using the
# DevTools network monitor's HAR auto-export (no WebDriver involved).
#   tools/interop/make-firefox-har.sh OUT.har
# FIREFOX (default firefox-esr) and GUNICORN (default /tmp/hb/bin/gunicorn, a venv with
# httpbin) can be overridden. Servers, all on 127.0.0.1, as for make-playwright-har.py:
#   18090 the page origin (python3 -m http.server over tools/interop/)
#   18091 httpbin under gunicorn, 18081 fixtures/interop/upstream.py, 18099 closed.
set -uo pipefail
OUT=$(realpath -m "${1:?usage: $0 OUT.har}")
FIREFOX=${FIREFOX:-firefox-esr}
GUNICORN=${GUNICORN:-/tmp/hb/bin/gunicorn}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
WORK=$(mktemp -d /tmp/ffhar.XXXXXX)
mkdir -p "$WORK/profile" "$WORK/har"

cat > "$WORK/profile/user.js" <<PREFS
user_pref("devtools.netmonitor.har.enableAutoExportToFile", true);
user_pref("devtools.netmonitor.har.defaultLogDir", "$WORK/har");
user_pref("devtools.netmonitor.har.defaultFileName", "auto-export");
user_pref("devtools.netmonitor.har.includeResponseBodies", true);
user_pref("devtools.netmonitor.har.pageLoadedTimeout", 3000);
user_pref("devtools.toolbox.selectedTool", "netmonitor");
user_pref("browser.shell.checkDefaultBrowser", false);
user_pref("datareporting.policy.dataSubmissionEnabled", false);
user_pref("toolkit.telemetry.reportingpolicy.firstRun", false);
user_pref("browser.startup.homepage_override.mstone", "ignore");
user_pref("app.update.enabled", false);
user_pref("network.captive-portal-service.enabled", false);
user_pref("network.connectivity-service.enabled", false);
user_pref("browser.safebrowsing.malware.enabled", false);
user_pref("browser.safebrowsing.phishing.enabled", false);
user_pref("extensions.update.enabled", false);
PREFS

wait_port() { for _ in $(seq 100); do (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return; sleep 0.1; done; echo "port $1 did not open" >&2; exit 1; }

python3 -m http.server 18090 --bind 127.0.0.1 --directory "$HERE" 2>/dev/null & S1=$!
"$GUNICORN" -b 127.0.0.1:18091 -w 1 -k gthread --threads 4 httpbin:app 2>/dev/null & S2=$!
python3 "$ROOT/fixtures/interop/upstream.py" 18081 2>/dev/null & S3=$!
wait_port 18090; wait_port 18091; wait_port 18081

HOME="$WORK" "$FIREFOX" --headless --no-remote --profile "$WORK/profile" --devtools \
    http://127.0.0.1:18090/firefox-start.html > "$WORK/firefox.log" 2>&1 & FF=$!

found=""
for _ in $(seq 120); do
    found=$(ls "$WORK"/har/*.har 2>/dev/null | head -1)
    [ -n "$found" ] && break
    sleep 0.5
done
sleep 1   # let the write finish
kill $FF; wait $FF 2>/dev/null
kill $S1 $S2 $S3; wait $S1 $S2 $S3 2>/dev/null
if [ -z "$found" ]; then echo "no HAR was written; see $WORK/firefox.log" >&2; exit 1; fi
cp "$found" "$OUT"
echo "wrote $OUT from $found"
