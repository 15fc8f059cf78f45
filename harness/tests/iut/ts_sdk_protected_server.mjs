// An OAuth-protected MCP server on the official TypeScript SDK (npm `@modelcontextprotocol/sdk`,
// found at $MCPSPEC_TS_SDK), an implementation under test of mcpspec's authorization scenarios:
// the SDK's bearer-auth middleware (requireBearerAuth) and metadata router
// (mcpAuthMetadataRouter) in front of its Express app, with a token verifier on jose (the SDK's
// own dependency), trusting the issuer mcpspec passes in MCPSPEC_AUTH_ISSUER
// (`mcpspec server --transport http --auth-issuer -- node ts_sdk_protected_server.mjs {port}`).
//
// The keys are found the way the issuer publishes them (its RFC 8414 metadata names jwks_uri);
// the audience is the server's own canonical URI, http://127.0.0.1:PORT/mcp; scope `mcp` is
// required. Its features and its HTTP serving are the unprotected server's (ts_sdk_server.mjs).
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";

const sdk = process.env.MCPSPEC_TS_SDK;
const issuer = process.env.MCPSPEC_AUTH_ISSUER;
const port = process.argv[2];
if (!sdk || !issuer || !port) {
  console.error("usage: MCPSPEC_TS_SDK=… MCPSPEC_AUTH_ISSUER=… ts_sdk_protected_server.mjs PORT");
  process.exit(2);
}
const load = (path) => import(pathToFileURL(`${sdk}/dist/esm/${path}`).href);
const fromSdk = (name) => import(pathToFileURL(createRequire(`${sdk}/package.json`).resolve(name)).href);
const { serveHttp } = await import(new URL("./ts_sdk_server.mjs", import.meta.url).href);
const { requireBearerAuth } = await load("server/auth/middleware/bearerAuth.js");
const { mcpAuthMetadataRouter, getOAuthProtectedResourceMetadataUrl } = await load("server/auth/router.js");
const { InvalidTokenError } = await load("server/auth/errors.js");
const jose = await fromSdk("jose");

const oauthMetadata = await (await fetch(`${issuer}/.well-known/oauth-authorization-server`)).json();
const keys = jose.createRemoteJWKSet(new URL(oauthMetadata.jwks_uri));
const resource = new URL(`http://127.0.0.1:${port}/mcp`);

/** Signature (the issuer's JWKS), issuer, audience and validity period, by jose. */
const verifier = {
  async verifyAccessToken(token) {
    try {
      const { payload } = await jose.jwtVerify(token, keys, {
        issuer,
        audience: resource.href,
        algorithms: ["ES256"],
      });
      return {
        token,
        clientId: String(payload.client_id ?? ""),
        scopes: String(payload.scope ?? "").split(" ").filter(Boolean),
        expiresAt: payload.exp,
        resource,
      };
    } catch (e) {
      throw new InvalidTokenError(`the token is not valid here: ${e.code ?? e.message}`);
    }
  },
};

const auth = requireBearerAuth({
  verifier,
  requiredScopes: ["mcp"],
  resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(resource),
  expectedResource: resource,
});
await serveHttp(port, {
  guard: auth,
  setup: (app) => app.use(mcpAuthMetadataRouter({ oauthMetadata, resourceServerUrl: resource, scopesSupported: ["mcp"] })),
  name: "mcpspec-interop-ts-protected",
});
