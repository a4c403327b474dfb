"""A scripted fake OpenAI-compatible HTTP server, so agent -> real HTTP -> openai SDK runs offline.

The server is a real stdlib HTTP/1.1 server on the loopback address. A *policy* decides every answer:
it gets the parsed request body and returns a :class:`Reply` (a chat completion) or a :class:`Fault`
(an HTTP error, a hang, a dropped connection or a malformed body). Generic policies live here
(:func:`scripted`, :func:`echo`, :func:`with_latency`, :func:`with_faults`); suites build their own.

Run it in a separate process with
``python -m execmem.testing.fake_server --policy MODULE:FACTORY [--arg k=v ...] [--port N] [--latency S]``,
``--policy planted`` for the coding suite's planted solver (``planted_coding_solver``, with ``--arg``s),
``--policy oracle`` or ``--policy reader`` for the scripted vehicle oracle or reader, with
``--data [DIR]`` naming their VehicleMemBench folder (default: as every command finds the release;
``--data`` alone serves the oracle); it prints ``READY <base_url>`` once it listens (on a free port unless
``--port`` names one) and serves until SIGTERM or Ctrl-C.

``POST /v1/embeddings`` answers without the policy: each input gets a deterministic hashed
bag-of-words vector (see :func:`hashed_embedding`), so texts sharing words get similar vectors.
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import dataclasses
import hashlib
import importlib
import json
import logging
import math
import re
import signal
import socket
import socketserver
import struct
import sys
import threading
import time
import traceback
from collections.abc import Iterator, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from execmem.llm.config import PROBE_MESSAGES
from execmem.testing.fake_policies import (  # noqa: F401 - re-exported: the server's public API
    FAULT_KINDS,
    MALFORMED_BODY,
    Fault,
    FaultInjector,
    Policy,
    Reply,
    ScriptExhausted,
    ToolCallSpec,
    echo,
    error_body,
    json_tokens,
    scripted,
    with_faults,
    with_latency,
)

log = logging.getLogger(__name__)
DEFAULT_POLICY = "execmem.testing.fake_server:echo"
ORACLE_POLICY = "execmem.testing.vehicle_oracle:oracle"
READER_POLICY = "execmem.testing.vehicle_reader:reader"
PLANTED_POLICY = "execmem.testing.planted_coding_solver:planted"
NAMED_POLICIES = {"oracle": ORACLE_POLICY, "reader": READER_POLICY, "planted": PLANTED_POLICY}
"""Short names for ``--policy``: the vehicle policies, which take ``--data``, and the coding suite's
planted solver (``planted_coding_solver``)."""


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    request_queue_size = 256  # a wave of 64+ simultaneous connects must not overflow the backlog

    def __init__(self, address: tuple[str, int], owner: FakeServer) -> None:
        self.owner = owner
        super().__init__(address, _Handler)

    def server_bind(self) -> None:
        # HTTPServer.server_bind does a reverse DNS lookup (getfqdn), which can stall offline.
        socketserver.TCPServer.server_bind(self)
        self.server_name, self.server_port = self.server_address[:2]


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    server: _HTTPServer

    def setup(self) -> None:
        super().setup()
        self.server.owner._track(self.connection, open_=True)

    def handle(self) -> None:
        with contextlib.suppress(OSError):  # a client that resets its keep-alive connection
            super().handle()

    def finish(self) -> None:
        with contextlib.suppress(OSError):
            super().finish()
        self.server.owner._track(self.connection, open_=False)

    def log_message(self, format: str, *args: Any) -> None:
        log.debug("%s " + format, self.address_string(), *args)

    def do_GET(self) -> None:
        if self.path.rstrip("/") == "/v1/models":
            self._send(200, json.dumps(self.server.owner.models()))
        else:
            self._send(404, error_body(404, f"no route GET {self.path}"))

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("content-length") or 0))
        route = self.path.rstrip("/")
        if route not in ("/v1/chat/completions", "/v1/embeddings"):
            self._send(404, error_body(404, f"no route POST {self.path}"))
            return
        try:
            body = json.loads(raw)
        except ValueError as exc:
            self._send(400, error_body(400, f"request body is not JSON: {exc}"))
            return
        if route == "/v1/embeddings":
            status, text = self.server.owner.embeddings(body)
            self._send(status, text)
            return
        owner = self.server.owner
        with owner.serving():  # left before the answer goes out: the client holds its slot longer
            delay_s, answer = owner.respond(body, self.headers.get("authorization", ""))
            if delay_s > 0:
                owner._stopping.wait(delay_s)
        if isinstance(answer, Fault):
            self._send_fault(answer)
        else:
            self._send(200, answer)

    def _send_fault(self, fault: Fault) -> None:
        if fault.drop_connection:
            self.close_connection = True
            with contextlib.suppress(OSError):
                self.connection.shutdown(socket.SHUT_RDWR)
        elif fault.malformed_body:
            self._send(200, MALFORMED_BODY)
        else:
            text = fault.body if fault.body is not None else error_body(fault.status, f"fake {fault.status}")
            self._send(fault.status, text, fault.headers)

    def _send(self, status: int, text: str, headers: dict[str, str] | None = None) -> None:
        data = text.encode()
        try:
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)
        except OSError:  # the client left (it timed out) or the server is stopping
            self.close_connection = True


class FakeServer:
    """A real HTTP server on ``host`` answering chat completions through ``policy``.

    ``requests`` holds every chat request body in arrival order; ``errors`` the tracebacks of policy
    exceptions (each also answered as a 500 carrying the exception text). The response ``model`` is
    the requested one, else ``model``, which is also the single entry of ``GET /v1/models``.
    ``embedding_requests`` holds every embeddings request body; vectors have ``embedding_dim``
    dimensions unless a request asks for ``dimensions``. ``in_flight`` counts the chat requests
    being answered now (from arrival until the answer is ready to send: inside the time the client
    holds a connection slot, so a client within its limit is never counted over it), ``max_in_flight``
    the most at once.
    """

    def __init__(
        self,
        policy: Policy,
        host: str = "127.0.0.1",
        port: int = 0,
        model: str = "fake-model",
        embedding_dim: int = 384,
        api_key: str | None = None,
        serves: Sequence[str] | None = None,
        echo_auth: bool = False,
        answer_probes: bool = True,
    ):
        self.policy, self.host, self.port, self.model = policy, host, port, model
        self.embedding_dim = embedding_dim
        self.api_key, self.serves, self.echo_auth = api_key, serves, echo_auth
        self.answer_probes = answer_probes
        self.requests: list[dict] = []
        self.probes: list[dict] = []
        self.embedding_requests: list[dict] = []
        self.errors: list[str] = []
        self.in_flight = self.max_in_flight = 0
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._connections: set[socket.socket] = set()
        self._httpd: _HTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        if self._httpd is None:
            raise RuntimeError("FakeServer is not started")
        return f"http://{self.host}:{self.port}/v1"

    def start(self) -> FakeServer:
        if self._httpd is not None:
            raise RuntimeError("FakeServer is already started")
        self._stopping.clear()
        self._httpd = _HTTPServer((self.host, self.port), self)
        self.port = self._httpd.server_address[1]
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, args=(0.05,), name="fake-openai", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop listening, wake delayed answers and close open keep-alive connections."""
        httpd, self._httpd = self._httpd, None
        if httpd is None:
            return
        self._stopping.set()
        httpd.shutdown()
        with self._lock:
            connections = list(self._connections)
        for conn in connections:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
        httpd.server_close()
        if self._thread is not None:
            self._thread.join()

    def __enter__(self) -> FakeServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    @contextlib.contextmanager
    def serving(self) -> Iterator[None]:
        """Counts one chat request as in flight while the block runs."""
        with self._lock:
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            yield
        finally:
            with self._lock:
                self.in_flight -= 1

    def respond(self, body: Any, authorization: str = "") -> tuple[float, Fault | str]:
        """Record ``body`` and ask the policy: the delay, then a fault or the completion's JSON text.

        Bad requests become 400 faults; a policy that raises or returns something unusable (or a
        reply that cannot be rendered) becomes a 500 naming the problem, also kept in ``errors``.
        A wrong key (when ``api_key`` is set) gets a 401 and a model not in ``serves`` a 404, before
        the policy is asked. The client's start-up probe (``PROBE_MESSAGES``) is answered "OK" by
        the server itself and kept in ``probes``, so scripted policies see only a run's requests
        (with ``answer_probes=False`` the policy answers them too).
        With ``echo_auth``, every error body repeats the Authorization header it received.
        """
        refused = self._gate(body, authorization)
        if refused is not None:
            return 0.0, self._echo(refused, authorization)
        if self.answer_probes and _is_probe(body):
            with self._lock:
                self.probes.append(body)
            return 0.0, json.dumps(self.completion(body, Reply(content="OK")))
        with self._lock:
            self.requests.append(body)
        if body.get("stream"):
            return 0.0, Fault(400, body=error_body(400, "the fake server does not support stream=true"))
        try:
            answer = self.policy(body)
            if isinstance(answer, Fault):
                return answer.delay_s, self._echo(answer, authorization)
            if not isinstance(answer, Reply):
                raise TypeError(f"policy returned {type(answer).__name__}, not Reply or Fault")
            return answer.delay_s, json.dumps(self.completion(body, answer))
        except Exception as exc:
            with self._lock:
                self.errors.append(traceback.format_exc())
            log.exception("fake server policy failed")
            return 0.0, Fault(500, body=error_body(500, f"policy failed: {type(exc).__name__}: {exc}"))

    def _gate(self, body: Any, authorization: str) -> Fault | None:
        if not isinstance(body, dict):
            with self._lock:
                self.requests.append(body)
            return Fault(400, body=error_body(400, "request body must be a JSON object"))
        if self.api_key is not None and authorization != f"Bearer {self.api_key}":
            return Fault(401, body=error_body(401, "Incorrect API key provided."))
        if self.serves is not None and body.get("model") not in self.serves:
            return Fault(404, body=error_body(404, f"The model `{body.get('model')}` does not exist."))
        return None

    def _echo(self, fault: Fault, authorization: str) -> Fault:
        """The fault, its error body carrying the Authorization header (when ``echo_auth``)."""
        if not self.echo_auth or fault.drop_connection or fault.malformed_body:
            return fault
        text = fault.body if fault.body is not None else error_body(fault.status, f"fake {fault.status}")
        try:
            document = json.loads(text)
            document["error"]["message"] += f" (request had Authorization: {authorization})"
            text = json.dumps(document)
        except (ValueError, KeyError, TypeError):
            text += f" Authorization: {authorization}"
        return dataclasses.replace(fault, body=text)

    def completion(self, body: dict, reply: Reply) -> dict:
        """The chat.completion document for ``reply``.

        Its ids are hashes of the request, not counters: a client echoes tool-call ids back in later
        messages, so ids that depended on arrival order would change prompts (and token counts)
        between otherwise identical runs.
        """
        digest = _digest(json.dumps(body, sort_keys=True, ensure_ascii=False))
        message: dict[str, Any] = {"role": "assistant", "content": reply.content}
        if reply.tool_calls:
            message["tool_calls"] = [
                _tool_call(f"call_{_digest(f'{digest}:{i}')}", c) for i, c in enumerate(reply.tool_calls)
            ]
        prompt = {"messages": body.get("messages", []), "tools": body.get("tools", [])}
        prompt_tokens, completion_tokens = reply.usage or (json_tokens(prompt), json_tokens(message))
        return {
            "id": f"chatcmpl-{digest}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model") or self.model,
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "finish_reason": reply.finish_reason or ("tool_calls" if reply.tool_calls else "stop"),
                    "logprobs": None,
                }
            ],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }

    def embeddings(self, body: Any) -> tuple[int, str]:
        """Status and JSON text answering an embeddings request (floats, or base64 float32)."""
        with self._lock:
            self.embedding_requests.append(body)
        texts = body.get("input") if isinstance(body, dict) else None
        texts = [texts] if isinstance(texts, str) else texts
        if not isinstance(texts, list) or not texts or not all(isinstance(t, str) for t in texts):
            return 400, error_body(400, "input must be a string or a non-empty list of strings")
        dim = body.get("dimensions") or self.embedding_dim
        if not isinstance(dim, int) or dim < 1:
            return 400, error_body(400, f"dimensions must be a positive integer, got {dim!r}")
        as_base64 = body.get("encoding_format") == "base64"
        data = []
        for index, text in enumerate(texts):
            vector = hashed_embedding(text, dim)
            if as_base64:
                vector = base64.b64encode(struct.pack(f"<{dim}f", *vector)).decode()
            data.append({"object": "embedding", "index": index, "embedding": vector})
        tokens = json_tokens(texts)
        document = {
            "object": "list",
            "data": data,
            "model": body.get("model") or self.model,
            "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
        }
        return 200, json.dumps(document)

    def models(self) -> dict:
        """The ``GET /v1/models`` document."""
        entry = {"id": self.model, "object": "model", "created": 0, "owned_by": "execmem"}
        return {"object": "list", "data": [entry]}

    def _track(self, conn: socket.socket, open_: bool) -> None:
        with self._lock:
            if open_:
                self._connections.add(conn)
            else:
                self._connections.discard(conn)


_WORD = re.compile(r"[^\W_]+")


def hashed_embedding(text: str, dim: int = 384) -> list[float]:
    """A unit vector: each lower-cased word adds +-1 to a bucket picked by its sha256.

    Texts sharing words get similar vectors. A text without words gets a bucket of its own:
    never the zero vector, which cosine similarity cannot use.
    """
    vector = [0.0] * dim
    for word in _WORD.findall(text.lower()):
        digest = hashlib.sha256(word.encode("utf-8")).digest()
        vector[int.from_bytes(digest[:4], "little") % dim] += 1.0 if digest[4] & 1 else -1.0
    norm = math.sqrt(sum(x * x for x in vector))
    if norm == 0:  # no words, or words that cancel out
        vector[int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:4], "little") % dim] = 1.0
        return vector
    return [x / norm for x in vector]


def _is_probe(body: dict) -> bool:
    return body.get("max_tokens") == 1 and body.get("messages") == list(PROBE_MESSAGES)


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:24]


def _tool_call(call_id: str, spec: ToolCallSpec) -> dict:
    arguments = spec.arguments if isinstance(spec.arguments, str) else json.dumps(spec.arguments)
    return {"id": call_id, "type": "function", "function": {"name": spec.name, "arguments": arguments}}


def load_policy(spec: str, kwargs: dict[str, str]) -> Policy:
    """Import ``MODULE:FACTORY`` and call it with ``kwargs`` (all strings) to get a policy."""
    module_name, _, attr = spec.partition(":")
    if not module_name or not attr:
        raise ValueError(f"--policy must look like MODULE:FACTORY, got {spec!r}")
    factory = getattr(importlib.import_module(module_name), attr)
    return factory(**kwargs)


def _parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m execmem.testing.fake_server", description=__doc__.split("\n")[0]
    )
    parser.add_argument(
        "--policy",
        help=f"oracle, reader, planted, or MODULE:FACTORY returning a policy (default {DEFAULT_POLICY}; "
        "with --data alone: oracle)",
    )
    parser.add_argument(
        "--data",
        nargs="?",
        const="",
        metavar="DIR",
        help="the VehicleMemBench folder of the vehicle policy (alone: the release commands find); "
        "without --policy it serves the oracle",
    )
    parser.add_argument("--arg", action="append", default=[], metavar="K=V", help="factory keyword argument")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    parser.add_argument("--latency", type=float, default=0.0, help="seconds added to every answer")
    parser.add_argument("--model", default="fake-model")
    parser.add_argument("--api-key", help="answer 401 unless the request carries this key")
    parser.add_argument("--serves", nargs="+", help="answer 404 to requests for any other model")
    parser.add_argument("--echo-auth", action="store_true", help="error bodies repeat the Authorization")
    parser.add_argument(
        "--mode", choices=("openai", "llama-cpp"), default="openai", help="llama-cpp: see fake_llamacpp"
    )
    parser.add_argument("--window", type=int, default=8192, help="llama-cpp mode: context window")
    parser.add_argument("--tokenizer", help="llama-cpp mode: count prompt tokens with this tokenizer.json")
    parser.add_argument("--runaway", action="store_true", help="llama-cpp mode: text replies run to the cap")
    parser.add_argument("--token-s", type=float, default=0.0, help="llama-cpp mode: seconds per token")
    parser.add_argument("--slots", type=int, help="llama-cpp mode: requests generating at once")
    args = parser.parse_args(argv)
    bad = [item for item in args.arg if "=" not in item]
    if bad:
        parser.error(f"--arg needs K=V, got {bad}")
    args.kwargs = dict(item.split("=", 1) for item in args.arg)
    if args.data is not None:
        args.policy = args.policy or "oracle"
        args.kwargs["data"] = args.data or None
    args.policy = NAMED_POLICIES.get(args.policy or "", args.policy or DEFAULT_POLICY)
    return args


def _llama_cpp(policy: Policy, args: argparse.Namespace) -> Policy:
    from execmem.llm.token_counter import make_counter
    from execmem.testing.fake_llamacpp import LlamaCppLike, three_chars_per_token

    count = make_counter(args.tokenizer, "").count if args.tokenizer else three_chars_per_token
    return LlamaCppLike(policy, args.window, count, args.runaway, args.token_s, args.slots)


def main(argv: Sequence[str] | None = None) -> int:
    """Serve until SIGTERM or Ctrl-C, after printing ``READY <base_url>``."""
    args = _parse_args(argv)
    try:
        policy = load_policy(args.policy, args.kwargs)
    except Exception as exc:  # noqa: BLE001 - any factory's refusal is the user's input: one line, exit 2
        print(f"error: policy {args.policy}: {exc}", file=sys.stderr)
        return 2
    if args.mode == "llama-cpp":
        policy = _llama_cpp(policy, args)
    if args.latency:
        policy = with_latency(policy, args.latency)
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    options = {"api_key": args.api_key, "serves": args.serves, "echo_auth": args.echo_auth}
    with FakeServer(policy, args.host, args.port, args.model, **options) as server:
        print(f"READY {server.base_url}", flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            threading.Event().wait()
    return 0


if __name__ == "__main__":
    # Run the importable module's main, so policies built by --policy factories use the same
    # Reply/Fault classes as the server (under -m this file is also loaded as __main__).
    from execmem.testing.fake_server import main as _main

    raise SystemExit(_main())
