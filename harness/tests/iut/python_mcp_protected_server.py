"""An OAuth-protected MCP server on the official Python SDK (PyPI package `mcp`, 2.x), an
implementation under test of mcpspec's authorization scenarios: the SDK's resource-server mode
(`AuthSettings` with `resource_server_url`, its bearer middleware and PRM routes) with a
`TokenVerifier` on PyJWT, trusting the issuer mcpspec passes in MCPSPEC_AUTH_ISSUER
(`mcpspec server --transport http --auth-issuer -- python python_mcp_protected_server.py {port}`).

The keys are found the way the issuer publishes them (its RFC 8414 metadata names `jwks_uri`);
the audience is the server's own canonical URI, http://127.0.0.1:PORT/mcp; scope `mcp` is
required. Its features are the unprotected server's (`python_mcp_server.register`)."""

import json
import os
import sys
import urllib.request

import jwt
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import MCPServer
from python_mcp_server import register

if len(sys.argv) != 2:
    sys.exit("usage: python_mcp_protected_server.py PORT (with MCPSPEC_AUTH_ISSUER set)")
port = int(sys.argv[1])
issuer = os.environ["MCPSPEC_AUTH_ISSUER"]
with urllib.request.urlopen(f"{issuer}/.well-known/oauth-authorization-server", timeout=10) as r:
    jwks_uri = json.load(r)["jwks_uri"]
resource = f"http://127.0.0.1:{port}/mcp"


class JwtVerifier:
    """Signature (the issuer's JWKS), issuer, audience and validity period, by PyJWT."""

    def __init__(self) -> None:
        # Fetched once, at start: verifying then needs no network (a key id it does not know
        # is refetched, by PyJWT, at most once per its cache lifetime).
        self.keys = jwt.PyJWKClient(jwks_uri, timeout=5)
        self.keys.get_signing_keys()

    async def verify_token(self, token: str) -> AccessToken | None:
        try:
            key = self.keys.get_signing_key_from_jwt(token)
            claims = jwt.decode(token, key.key, algorithms=["ES256"], audience=resource, issuer=issuer)
        except (jwt.PyJWTError, jwt.PyJWKClientError):
            return None
        return AccessToken(
            token=token,
            client_id=str(claims.get("client_id", "")),
            scopes=str(claims.get("scope", "")).split(),
            expires_at=claims.get("exp"),
            resource=resource,
        )


server = register(
    MCPServer(
        "mcpspec-interop-python-protected",
        token_verifier=JwtVerifier(),
        auth=AuthSettings(
            issuer_url=issuer,
            resource_server_url=resource,
            required_scopes=["mcp"],
            validate_token_resource=False,
        ),
    )
)

if __name__ == "__main__":
    server.run("streamable-http", host="127.0.0.1", port=port)
