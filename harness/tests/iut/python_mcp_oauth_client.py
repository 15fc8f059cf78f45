"""An OAuth MCP client written on the official Python SDK (PyPI package `mcp`, 2.x), used as a
third-party client under test over Streamable HTTP: the SDK's high-level Client on a
streamable_http_client whose HTTP client authenticates with the SDK's OAuthClientProvider, so
that the SDK does the flow (protected resource metadata, authorization server discovery,
dynamic registration, PKCE, `resource`, scope selection and step-up, the `state` and RFC 9207
`iss` checks of the authorization response). The "browser" is headless: the redirect handler
fetches the authorization URL without following the redirect (as the official conformance
suite's clients do) and the callback handler hands the SDK the code, state and iss of its
Location. Pre-registered credentials come from MCP_CONFORMANCE_CONTEXT (`client_id`,
`client_secret`), as the official suite passes them. It connects to the URL in its last
argument, lists the tools, calls the first one that needs no arguments and exits. Secrets are
never printed."""

import asyncio
import json
import os
import sys
from urllib.parse import parse_qs, urlparse

import httpx2

from mcp import Client, types
from mcp.client.auth import AuthorizationCodeResult, OAuthClientProvider, TokenStorage
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata, OAuthToken

REDIRECT_URI = "http://127.0.0.1:33420/callback"


class Memory(TokenStorage):
    """Tokens and the client's registration, in memory; pre-registered credentials first."""

    def __init__(self, context: dict) -> None:
        self.tokens: OAuthToken | None = None
        self.client: OAuthClientInformationFull | None = None
        if context.get("client_id"):
            self.client = OAuthClientInformationFull(
                client_id=context["client_id"],
                client_secret=context.get("client_secret"),
                redirect_uris=[REDIRECT_URI],
                token_endpoint_auth_method="client_secret_basic" if context.get("client_secret") else "none",
            )

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client = client_info


class HeadlessBrowser:
    """Visits the authorization URL without following its redirect and reads the answer."""

    def __init__(self) -> None:
        self.answer: AuthorizationCodeResult | None = None

    async def redirect(self, authorization_url: str) -> None:
        async with httpx2.AsyncClient(follow_redirects=False, timeout=10) as http:
            response = await http.get(authorization_url)
        location = response.headers.get("location")
        if not location:
            raise RuntimeError(f"the authorization endpoint answered {response.status_code} without a redirect")
        query = parse_qs(urlparse(location).query)
        first = lambda name: query.get(name, [None])[0]  # noqa: E731
        if first("error"):
            raise RuntimeError(f"authorization refused: {first('error')}")
        self.answer = AuthorizationCodeResult(code=first("code") or "", state=first("state"), iss=first("iss"))

    async def callback(self) -> AuthorizationCodeResult:
        if self.answer is None:
            raise RuntimeError("no authorization response")
        answer, self.answer = self.answer, None
        return answer


async def sample(context, params: types.CreateMessageRequestParams) -> types.CreateMessageResult:
    """The application's model: a fixed text reply."""
    return types.CreateMessageResult(
        role="assistant",
        content=types.TextContent(type="text", text="Hello from the Python SDK OAuth client."),
        model="mcpspec-interop",
        stop_reason="endTurn",
    )


async def main() -> None:
    url = sys.argv[-1]
    try:
        context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}") or {}
    except ValueError:
        context = {}
    browser = HeadlessBrowser()
    provider = OAuthClientProvider(
        server_url=url,
        client_metadata=OAuthClientMetadata(
            client_name="mcpspec-interop-python-oauth",
            redirect_uris=[REDIRECT_URI],
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
            token_endpoint_auth_method="none",
            application_type="native",
        ),
        storage=Memory(context),
        redirect_handler=browser.redirect,
        callback_handler=browser.callback,
        # The client ID metadata document the client names itself by where the authorization
        # server takes one (nothing is hosted there: `.invalid` is reserved).
        client_metadata_url="https://mcpspec-interop.invalid/python-sdk-oauth-client.json",
    )
    http = httpx2.AsyncClient(auth=provider, timeout=httpx2.Timeout(10, read=30))
    async with http:
        async with Client(streamable_http_client(url, http_client=http), sampling_callback=sample) as client:
            if client.server_capabilities.tools is None:
                return
            tools = []
            cursor = None
            while True:
                page = await client.list_tools(cursor=cursor)
                tools.extend(page.tools)
                cursor = page.next_cursor
                # An empty string is a cursor too (pagination.mdx#implementation-guidelines).
                if cursor is None:
                    break
            for tool in tools:
                if not (tool.input_schema or {}).get("required"):
                    await client.call_tool(tool.name, {})
                    break


if __name__ == "__main__":
    try:
        asyncio.run(asyncio.wait_for(main(), timeout=30))
    except Exception as e:  # the run's verdict is mcpspec's; say why it stopped, then fail
        print(f"python-oauth-client: {type(e).__name__}: {e}", file=sys.stderr)
        sys.exit(1)
