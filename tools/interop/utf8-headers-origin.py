# A local origin whose response headers carry UTF-8 bytes (as many servers send filenames and
# redirect targets), for recording a browser's HAR of them.
import sys, json
from http.server import BaseHTTPRequestHandler, HTTPServer
from urllib.parse import unquote

def raw(text):  # http.server writes header values as Latin-1: hand it the UTF-8 bytes one per character
    return text.encode("utf-8").decode("latin-1")

class Handler(BaseHTTPRequestHandler):
    def do_GET(self):
        if self.path == "/download":
            body = b"report"
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Disposition", raw('attachment; filename="résumé ✓.txt"'))
            self.send_header("Content-Length", str(len(body)))
            self.end_headers(); self.wfile.write(body)
        elif self.path == "/moved":
            self.send_response(302)
            self.send_header("Location", raw("/städte/zürich?q=ö"))
            self.send_header("Content-Length", "0")
            self.end_headers()
        else:
            body = json.dumps({"path": self.path, "decoded": unquote(self.path)}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers(); self.wfile.write(body)
    def log_message(self, *args): pass

HTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
