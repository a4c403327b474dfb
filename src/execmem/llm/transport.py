"""Plain HTTP for the chat client: post a JSON body, get the status, headers and text back.

The client sends bodies it has already serialised (the same bytes are its cache key), so the
transport does nothing per request beyond HTTP itself. Failures below HTTP become
:class:`TransportError` with a kind: ``connect`` (nothing accepted the connection), ``timeout``,
or ``io`` (the connection broke while the request or answer was under way).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal, Protocol

import aiohttp

TransportKind = Literal["aiohttp", "httpx"]
PROXY_VARIABLES = ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy")


@dataclass(frozen=True)
class Answer:
    status: int
    headers: Mapping[str, str]
    text: str


class TransportError(Exception):
    def __init__(self, kind: Literal["connect", "timeout", "io"], message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message


class Transport(Protocol):
    async def post(self, path: str, data: bytes) -> Answer: ...

    async def aclose(self) -> None: ...


def make_transport(
    kind: TransportKind, base_url: str, headers: dict[str, str], timeout_s: float, connections: int
) -> Transport:
    if kind == "aiohttp":
        return AiohttpTransport(base_url, headers, timeout_s, connections)
    return HttpxTransport(base_url, headers, timeout_s, connections)


def _proxy_set() -> bool:
    return any(os.environ.get(name) for name in PROXY_VARIABLES)


def _join(base_url: str, path: str) -> str:
    return base_url.rstrip("/") + "/" + path.lstrip("/")


class AiohttpTransport:
    """aiohttp: about a third less CPU per request than httpx. The session is made on first use,
    inside the event loop that uses it."""

    def __init__(self, base_url: str, headers: dict[str, str], timeout_s: float, connections: int) -> None:
        self.base_url, self.headers = base_url, headers
        self.timeout = aiohttp.ClientTimeout(total=timeout_s)
        self.connections = connections
        self._session: aiohttp.ClientSession | None = None

    def _open(self) -> aiohttp.ClientSession:
        if self._session is None:
            connector = aiohttp.TCPConnector(limit=self.connections, limit_per_host=0)
            # trust_env makes aiohttp look up netrc and proxies in a thread on every request:
            # turn it on only when a proxy is configured.
            self._session = aiohttp.ClientSession(
                headers=self.headers, timeout=self.timeout, connector=connector, trust_env=_proxy_set()
            )
        return self._session

    async def post(self, path: str, data: bytes) -> Answer:
        url = _join(self.base_url, path)
        try:
            async with self._open().post(url, data=data) as response:
                text = await response.text(encoding="utf-8", errors="replace")
                return Answer(response.status, response.headers, text)
        except aiohttp.ClientConnectorError as exc:
            raise TransportError("connect", f"cannot connect to {url}: {exc.os_error}") from None
        except TimeoutError:
            raise TransportError("timeout", f"no answer from {url} within {self.timeout.total:g} s") from None
        except aiohttp.ClientError as exc:
            raise TransportError("io", f"{type(exc).__name__} from {url}: {exc}") from None

    async def aclose(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None


class HttpxTransport:
    def __init__(self, base_url: str, headers: dict[str, str], timeout_s: float, connections: int) -> None:
        import httpx  # only for this transport: it costs 60 ms to import

        self._httpx = httpx
        self.base_url, self.timeout_s = base_url, timeout_s
        limits = httpx.Limits(max_connections=connections, max_keepalive_connections=connections)
        self._client = httpx.AsyncClient(headers=headers, timeout=timeout_s, limits=limits)

    async def post(self, path: str, data: bytes) -> Answer:
        url, httpx = _join(self.base_url, path), self._httpx
        try:
            response = await self._client.post(url, content=data)
        except httpx.ConnectError as exc:
            raise TransportError("connect", f"cannot connect to {url}: {exc}") from None
        except httpx.TimeoutException:
            raise TransportError("timeout", f"no answer from {url} within {self.timeout_s:g} s") from None
        except httpx.HTTPError as exc:
            raise TransportError("io", f"{type(exc).__name__} from {url}: {exc}") from None
        return Answer(response.status_code, response.headers, response.text)

    async def aclose(self) -> None:
        await self._client.aclose()
