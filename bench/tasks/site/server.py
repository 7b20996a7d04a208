# The tasks' web site, served inside the lease on 127.0.0.1:8765 (python3's http.server, no
# dependency): a sign-up form, a page of 10 000 rows with a link each, a quote page. Every request
# is appended to log.txt beside this file (method, path, form fields as JSON): the checkers read it.
import json, os, sys, urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

HERE = os.path.dirname(os.path.abspath(__file__))
LOG = os.path.join(HERE, 'log.txt')

FORM = """<!doctype html><html><head><meta charset="utf-8"><title>Sign up</title></head><body>
<h1>Sign up for the newsletter</h1>
<form method="post" action="/signup">
<p><label for="name">Full name</label> <input id="name" name="name" size="30"></p>
<p><label for="email">Email address</label> <input id="email" name="email" size="30"></p>
<p><button type="submit">Sign up</button></p>
</form></body></html>"""

def rows(n):
    body = ''.join('<tr><td>%d</td><td><a href="/pick?row=%d">pick %d</a></td></tr>' % (i, i, i) for i in range(1, n + 1))
    return '<!doctype html><html><head><meta charset="utf-8"><title>Rows</title></head><body><h1>Ten thousand rows</h1><table>%s</table></body></html>' % body

class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def record(self, fields=None):
        with open(LOG, 'a', encoding='utf-8') as f:
            f.write(json.dumps({'method': self.command, 'path': self.path, 'fields': fields or {}}) + '\n')

    def send(self, html, status=200):
        data = html.encode('utf-8')
        self.send_response(status)
        self.send_header('Content-Type', 'text/html; charset=utf-8')
        self.send_header('Content-Length', str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        self.record()
        path = urllib.parse.urlparse(self.path)
        if path.path == '/':
            return self.send(FORM)
        if path.path == '/rows':
            return self.send(rows(10000))
        if path.path == '/pick':
            row = urllib.parse.parse_qs(path.query).get('row', ['?'])[0]
            return self.send('<!doctype html><html><head><title>Picked</title></head><body><h1>Picked row %s</h1></body></html>' % row)
        if path.path == '/quote':
            return self.send('<!doctype html><html><head><title>Quote</title></head><body><p id="q">Simplicity is prerequisite for reliability</p></body></html>')
        self.send('not found', 404)

    def do_POST(self):
        length = int(self.headers.get('Content-Length', '0'))
        fields = {k: v[0] for k, v in urllib.parse.parse_qs(self.rfile.read(length).decode('utf-8')).items()}
        self.record(fields)
        if self.path == '/signup':
            return self.send('<!doctype html><html><head><title>Thanks</title></head><body><h1>Thanks, %s</h1></body></html>' % fields.get('name', ''))
        self.send('not found', 404)

ThreadingHTTPServer(('127.0.0.1', int(sys.argv[1]) if len(sys.argv) > 1 else 8765), Handler).serve_forever()
