"""A small Streamable HTTP MCP server written apart from mcpspec's reference server (Python's
standard library only), for one behaviour a plausible server has: it honours
`notifications/cancelled` for a request still in flight by sending no response to it and ending
that request's SSE stream (basic/utilities/cancellation.mdx: the receiver SHOULD NOT respond).

Its `tools/list` answers after 600 ms, on an SSE stream, unless it is cancelled first. Usage:
`python3 cancel_honouring_http_server.py PORT`; it serves `http://127.0.0.1:PORT/mcp` and exits
when killed.
"""

import json
import sys
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

VERSIONS = ["2025-03-26", "2025-06-18", "2025-11-25"]
SLOW = 0.6
cancelled = {}  # request id (as JSON text) -> threading.Event
lock = threading.Lock()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def reply(self, status, body=None, session=None):
        data = b"" if body is None else json.dumps(body).encode()
        self.send_response(status)
        if body is not None:
            self.send_header("Content-Type", "application/json")
        if session:
            self.send_header("Mcp-Session-Id", session)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        self.send_response(405)
        self.send_header("Allow", "POST, DELETE")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_DELETE(self):
        self.reply(200)

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        try:
            message = json.loads(self.rfile.read(length))
        except ValueError:
            return self.reply(400, {"jsonrpc": "2.0", "error": {"code": -32700, "message": "Parse error"}})
        if not isinstance(message, dict):
            return self.reply(400, {"jsonrpc": "2.0", "error": {"code": -32600, "message": "no batches"}})
        method, rid = message.get("method"), message.get("id")
        if rid is None:
            if method == "notifications/cancelled":
                key = json.dumps((message.get("params") or {}).get("requestId"))
                with lock:
                    event = cancelled.get(key)
                if event:
                    event.set()
            return self.reply(202)
        if method == "initialize":
            asked = (message.get("params") or {}).get("protocolVersion")
            version = asked if asked in VERSIONS else VERSIONS[-1]
            result = {"protocolVersion": version, "capabilities": {"tools": {}},
                      "serverInfo": {"name": "cancel-honouring", "version": "1.0.0"}}
            return self.reply(200, {"jsonrpc": "2.0", "id": rid, "result": result}, str(uuid.uuid4()))
        if method == "tools/list":
            return self.slow_list(rid)
        if method == "ping":
            return self.reply(200, {"jsonrpc": "2.0", "id": rid, "result": {}})
        error = {"code": -32601, "message": f"Method not found: {method}"}
        return self.reply(200, {"jsonrpc": "2.0", "id": rid, "error": error})

    def slow_list(self, rid):
        key = json.dumps(rid)
        event = threading.Event()
        with lock:
            cancelled[key] = event
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.flush()
        if not event.wait(SLOW):
            answer = {"jsonrpc": "2.0", "id": rid, "result": {"tools": []}}
            self.wfile.write(f"event: message\ndata: {json.dumps(answer)}\n\n".encode())
        # Cancelled or answered: the stream ends (a cancelled request gets no response).
        self.wfile.flush()
        self.close_connection = True
        with lock:
            cancelled.pop(key, None)


ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
