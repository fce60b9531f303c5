#!/usr/bin/env python3
"""Record fixtures/interop/playwright-chromium.har with Playwright driving Chromium.

Run with the Python of a venv that has `playwright` (no browser download needed):

    tools/interop/make-playwright-har.py OUT.har \
        [--chromium /usr/bin/chromium] [--gunicorn /tmp/hb/bin/gunicorn]

Starts, all on 127.0.0.1:
  18090  python3 -m http.server serving tools/interop/ (the page, interop-page.html)
  18091  httpbin under gunicorn (gthread worker, so /delay/3 does not block the others)
  18081  fixtures/interop/upstream.py (no CORS headers: the CORS failure)
  18099  nothing (the connection-refused fetch)
then loads the page, waits until its fetches are done, loads it again in a second page
that only runs the page.route()-aborted fetch, closes the context (which writes the HAR)
and stops the servers. Prints what the page's JavaScript saw for each step.
"""
import argparse, json, os, socket, subprocess, sys, time
from playwright.sync_api import sync_playwright

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

def wait_port(port, timeout=20):
    end = time.time() + timeout
    while time.time() < end:
        try:
            socket.create_connection(("127.0.0.1", port), 0.5).close()
            return
        except OSError:
            time.sleep(0.1)
    sys.exit(f"port {port} did not open")

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--chromium", default="/usr/bin/chromium")
    ap.add_argument("--gunicorn", default="/tmp/hb/bin/gunicorn")
    ap.add_argument("--access-log", default="/dev/null", help="gunicorn access log (shows CORS preflights)")
    a = ap.parse_args()
    procs = [
        subprocess.Popen([sys.executable, "-u", "-m", "http.server", "18090", "--bind", "127.0.0.1",
                          "--directory", HERE], stderr=subprocess.DEVNULL),
        subprocess.Popen([a.gunicorn, "-b", "127.0.0.1:18091", "-w", "1", "-k", "gthread",
                          "--threads", "4", "--access-logfile", a.access_log, "httpbin:app"], stderr=subprocess.DEVNULL),
        subprocess.Popen([sys.executable, os.path.join(ROOT, "fixtures/interop/upstream.py"), "18081"],
                         stderr=subprocess.DEVNULL),
    ]
    try:
        for p in (18090, 18091, 18081):
            wait_port(p)
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=a.chromium, headless=True)
            context = browser.new_context(record_har_path=a.out, record_har_content="embed")
            page = context.new_page()
            # Block one URL the way DevTools' "Block request URL" does (net::ERR_BLOCKED_BY_CLIENT).
            # Not page.route() here: a route turns on request interception for every request of the
            # page, and then Playwright records the pre-network request headers (no Host,
            # Accept-Encoding, Sec-Fetch-*...) instead of the ones sent.
            cdp = context.new_cdp_session(page)
            cdp.send("Network.enable")
            cdp.send("Network.setBlockedURLs", {"urls": ["*/anything/blocked"]})
            page.goto("http://127.0.0.1:18090/interop-page.html")
            page.wait_for_function("window.done === true", timeout=30000)
            for r in page.evaluate("window.results"):
                print(json.dumps(r))
            # A second page (second `pages` item) where Playwright itself aborts one request.
            # page.route() intercepts every request of this page only, so page 1 is unaffected.
            page2 = context.new_page()
            page2.route("**/anything/blocked-by-route", lambda route: route.abort("blockedbyclient"))
            page2.goto("http://127.0.0.1:18090/interop-page.html?steps=blocked-route")
            page2.wait_for_function("window.done === true", timeout=30000)
            for r in page2.evaluate("window.results"):
                print(json.dumps(r))
            context.close()   # the HAR is written here
            print("browser", browser.version)
            browser.close()
    finally:
        for p in procs:
            p.terminate()
            p.wait()

if __name__ == "__main__":
    main()
