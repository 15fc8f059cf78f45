"""An OAuth-protected MCP server on FastMCP (PyPI package `fastmcp`), an implementation under
test of mcpspec's authorization scenarios: FastMCP's `JWTVerifier` behind its
`RemoteAuthProvider`, trusting the issuer mcpspec passes in MCPSPEC_AUTH_ISSUER
(`mcpspec server --transport http --auth-issuer -- python fastmcp_protected_server.py {port}`).

The keys are found the way the issuer publishes them: its RFC 8414 metadata names `jwks_uri`.
The audience is the server's own canonical URI, http://127.0.0.1:PORT/mcp; scope `mcp` is
required. Its features are the unprotected server's (`fastmcp_server.register`)."""

import json
import os
import sys
import urllib.request

from fastmcp import FastMCP
from fastmcp.server.auth import RemoteAuthProvider
from fastmcp.server.auth.providers.jwt import JWTVerifier
from fastmcp_server import register

if len(sys.argv) != 2:
    sys.exit("usage: fastmcp_protected_server.py PORT (with MCPSPEC_AUTH_ISSUER set)")
port = int(sys.argv[1])
issuer = os.environ["MCPSPEC_AUTH_ISSUER"]
with urllib.request.urlopen(f"{issuer}/.well-known/oauth-authorization-server", timeout=10) as r:
    jwks_uri = json.load(r)["jwks_uri"]

base = f"http://127.0.0.1:{port}"
verifier = JWTVerifier(
    jwks_uri=jwks_uri,
    issuer=issuer,
    audience=f"{base}/mcp",
    algorithm="ES256",
    required_scopes=["mcp"],
)
auth = RemoteAuthProvider(token_verifier=verifier, authorization_servers=[issuer], base_url=base)
server = register(FastMCP("mcpspec-interop-fastmcp-protected", auth=auth))

if __name__ == "__main__":
    server.run("http", host="127.0.0.1", port=port, path="/mcp", show_banner=False)
