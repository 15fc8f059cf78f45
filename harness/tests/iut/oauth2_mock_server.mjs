// oauth2-mock-server (npm), an OAuth 2 / OpenID Connect authorization server made for tests, as
// the authorization server under test of `mcpspec authorization`: it approves every
// authorization request at once with a 302 to the redirect URI (the headless contract), so
// every step of the code flow can be judged. Usage: node oauth2_mock_server.mjs PORT, with
// MCPSPEC_OAUTH2_MOCK naming the package's folder (interop/matrix.txt passes it).
const pkg = process.env.MCPSPEC_OAUTH2_MOCK;
if (!pkg) {
  console.error("MCPSPEC_OAUTH2_MOCK must name the oauth2-mock-server package folder");
  process.exit(2);
}
const { OAuth2Server } = await import(`${pkg}/dist/index.mjs`);
const port = Number(process.argv[2]);
const server = new OAuth2Server();
await server.issuer.keys.generate("RS256");
await server.start(port, "127.0.0.1");
console.error(`oauth2-mock-server: issuer ${server.issuer.url}`);
// Ended by mcpspec (SIGTERM) at the end of the run.
process.on("SIGTERM", () => server.stop().then(() => process.exit(0)));
