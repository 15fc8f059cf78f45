"""A plausible, unhurried MCP client on nothing but the Python standard library, used as a client
under test by mcpspec's own tests (written apart from mcpspec's reference client on purpose).

It spawns the server named by MCP_CONFORMANCE_SERVER_COMMAND (a JSON array), offers the revision
MCP_CONFORMANCE_PROTOCOL_VERSION names, declares no capability, lists everything the server
declared (tools, resources, resource templates, prompts; page by page) and calls each tool but
those that run only as tasks (execution.taskSupport "required": it does not do tasks), pausing `--pause` seconds after each request, as a client that shows its user each step would.
It answers the server's pings, refuses every other request of the server's with -32601 (it
declared nothing), and ends the session as basic/lifecycle.mdx#shutdown says: it closes the
server's stdin, waits, then SIGTERM, then SIGKILL.

Usage: explorer_client.py [--pause SECS] [--rounds N] [--probe]

With `--rounds N` it goes over the server N times (a client that keeps at work for long). With
`--probe` it first asks server/discover, as a dual-era client does (2026-07-28
basic/versioning.mdx), and falls back to initialize on any error.
"""

import argparse
import json
import os
import queue
import subprocess
import sys
import threading
import time

# Revisions this client speaks; it offers the one it is asked to, else its latest.
SUPPORTED = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]
# How long it waits for each answer of the server's before it gives up (a bound, not a pace).
ANSWER_WITHIN = 30.0


class Connection:
    """The server process and a reader thread that sorts what it writes: answers go to the
    request waiting for them; requests are answered at once (the client is never too busy to
    answer a ping)."""

    def __init__(self, argv):
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.answers = {}
        self.lock = threading.Lock()
        self.next_id = 1
        threading.Thread(target=self.read, daemon=True).start()

    def write(self, message):
        line = json.dumps(message, separators=(",", ":")) + "\n"
        with self.lock:
            self.proc.stdin.write(line.encode("utf-8"))
            self.proc.stdin.flush()

    def read(self):
        for line in self.proc.stdout:
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if not isinstance(message, dict):
                continue
            if "method" in message and "id" in message:
                if message["method"] == "ping":
                    self.write({"jsonrpc": "2.0", "id": message["id"], "result": {}})
                else:
                    error = {"code": -32601, "message": f"Method not found: {message['method']}"}
                    self.write({"jsonrpc": "2.0", "id": message["id"], "error": error})
            elif "id" in message and "method" not in message:
                waiting = self.answers.get(message["id"])
                if waiting is not None:
                    waiting.put(message)

    def request(self, method, params=None):
        with self.lock:
            rid = self.next_id
            self.next_id += 1
        waiting = queue.Queue()
        self.answers[rid] = waiting
        message = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            message["params"] = params
        self.write(message)
        try:
            answer = waiting.get(timeout=ANSWER_WITHIN)
        except queue.Empty:
            raise SystemExit(f"explorer: no answer to {method} within {ANSWER_WITHIN} s")
        finally:
            del self.answers[rid]
        if "error" in answer:
            raise LookupError(f"{method}: {answer['error']}")
        return answer.get("result", {})

    def close(self):
        """basic/lifecycle.mdx#shutdown (stdio): close stdin, wait, SIGTERM, wait, SIGKILL."""
        self.proc.stdin.close()
        for stop in (None, self.proc.terminate, self.proc.kill):
            if stop is not None:
                stop()
            try:
                self.proc.wait(timeout=2)
                return
            except subprocess.TimeoutExpired:
                pass


def example(schema):
    """A value for a required argument: the first choice, the least number, a short string."""
    if schema.get("enum"):
        return schema["enum"][0]
    kind = schema.get("type")
    if kind == "boolean":
        return False
    if kind in ("integer", "number"):
        return schema.get("minimum", 0)
    if kind == "array":
        return []
    if kind == "object":
        return {}
    return "x"


def list_all(conn, method, key, pause):
    """Every item of a paginated list; the cursor goes back exactly as received."""
    items, cursor = [], None
    for _ in range(1000):
        try:
            result = conn.request(method, {"cursor": cursor} if cursor is not None else None)
        except LookupError:
            break  # a list the server refuses; the user moves on
        time.sleep(pause)
        items.extend(result.get(key, []))
        cursor = result.get("nextCursor")
        if cursor is None:
            break
    return items


def explore(conn, caps, pause):
    """Lists what the server declared, then calls each tool."""
    tools = list_all(conn, "tools/list", "tools", pause) if "tools" in caps else []
    if "resources" in caps:
        list_all(conn, "resources/list", "resources", pause)
        list_all(conn, "resources/templates/list", "resourceTemplates", pause)
    if "prompts" in caps:
        list_all(conn, "prompts/list", "prompts", pause)
    for tool in tools:
        # 2025-11-25 tasks.mdx#tool-level-negotiation: such a tool is called only as a task.
        if (tool.get("execution") or {}).get("taskSupport") == "required":
            continue
        schema = tool.get("inputSchema") or {}
        properties = schema.get("properties") or {}
        arguments = {name: example(properties.get(name, {})) for name in schema.get("required", [])}
        try:
            conn.request("tools/call", {"name": tool["name"], "arguments": arguments})
        except LookupError:
            pass  # a tool that refuses these arguments; the user moves on
        time.sleep(pause)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--pause", type=float, default=0.5)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--probe", action="store_true")
    args = parser.parse_args()
    argv = json.loads(os.environ["MCP_CONFORMANCE_SERVER_COMMAND"])
    asked = os.environ.get("MCP_CONFORMANCE_PROTOCOL_VERSION")
    offer = asked if asked in SUPPORTED else SUPPORTED[-1]
    conn = Connection(argv)
    try:
        if args.probe:
            meta = {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
                "io.modelcontextprotocol/clientInfo": {"name": "mcpspec-explorer", "version": "0.0.0"},
            }
            try:
                conn.request("server/discover", {"_meta": meta})
                return  # a modern server: this explorer speaks only the legacy era
            except LookupError:
                pass  # a legacy server: fall back to initialize, whatever the error
        init = conn.request(
            "initialize",
            {
                "protocolVersion": offer,
                "capabilities": {},
                "clientInfo": {"name": "mcpspec-explorer", "version": "0.0.0"},
            },
        )
        # basic/lifecycle.mdx#version-negotiation: a revision it does not speak ends the session.
        if init.get("protocolVersion") not in SUPPORTED:
            return
        conn.write({"jsonrpc": "2.0", "method": "notifications/initialized"})
        for _ in range(args.rounds):
            explore(conn, init.get("capabilities", {}), args.pause)
    finally:
        conn.close()


if __name__ == "__main__":
    sys.exit(main())
