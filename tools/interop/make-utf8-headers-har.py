# Records fixtures/interop/playwright-utf8-headers.har: Chromium (through Playwright) loads a page of
# tools/interop/utf8-headers-origin.py (running on PORT) and fetches its two UTF-8 header answers.
#   python3 tools/interop/utf8-headers-origin.py 18471 &
#   python3 tools/interop/make-utf8-headers-har.py 18471 fixtures/interop/playwright-utf8-headers.har
import sys
from playwright.sync_api import sync_playwright
port, out = sys.argv[1], sys.argv[2]
with sync_playwright() as p:
    browser = p.chromium.launch(executable_path="/usr/bin/chromium")
    context = browser.new_context(record_har_path=out)
    page = context.new_page()
    page.goto(f"http://127.0.0.1:{port}/start")
    page.evaluate("async () => { await fetch('/download'); await fetch('/moved'); }")
    context.close(); browser.close()
