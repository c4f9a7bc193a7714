"""A scripted OpenAI-compatible server on loopback: the model server of the LLM backend's tests
and of the benchmark's overhead measurement (never the network), and a way to dry-run a study's
plumbing without a model.

:class:`FakeOpenAI` serves ``POST /v1/chat/completions`` from Python's ``http.server`` in a
background thread on 127.0.0.1 (a free port). A *responder* decides each answer from the request
body: a :class:`Reply` with the content, an HTTP status (500 for a server error), a delay (for
slow replies and timeouts) and the ``usage`` to report. The server records every request, the
tokens it reported, and the most requests it held at once. :meth:`FakeOpenAI.transport` serves
the same responder through an in-process ``httpx2.MockTransport`` (no socket at all), for tests
that need a non-loopback host name to answer.

A reply may carry native ``tool_calls`` (:class:`ToolCall`: a name and its JSON arguments), as
an agent harness that drives tools through the API expects (the verifiers environment's test);
a request with ``"stream": true`` gets the same answer as server-sent ``chat.completion.chunk``
events (the message, then the finish reason, then the usage, then ``[DONE]``).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx2


@dataclass(frozen=True)
class ToolCall:
    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class Reply:
    content: str = ""
    status: int = 200
    delay: float = 0.0
    usage: tuple[int, int] | None = None  # (prompt, completion) tokens; None: derived from the lengths
    tool_calls: tuple[ToolCall, ...] = ()


Responder = Callable[[dict[str, Any]], Reply]


def turn_of(body: dict[str, Any]) -> int:
    """How many assistant messages the conversation already holds (0 on the first turn)."""
    return sum(1 for m in body["messages"] if m["role"] == "assistant")


def last_user(body: dict[str, Any]) -> str:
    return next(m["content"] for m in reversed(body["messages"]) if m["role"] == "user")


def first_user(body: dict[str, Any]) -> str:
    return next(m["content"] for m in body["messages"] if m["role"] == "user")


class FakeOpenAI:
    def __init__(self, responder: Responder):
        self.responder = responder
        self.requests: list[dict[str, Any]] = []
        self.prompt_tokens = 0
        self.completion_tokens = 0
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._server: ThreadingHTTPServer | None = None

    # -- serving -----------------------------------------------------------------------------
    def __enter__(self) -> FakeOpenAI:
        server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        server.daemon_threads = True
        server.fake = self  # type: ignore[attr-defined]
        self._server = server
        threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    @property
    def base_url(self) -> str:
        assert self._server is not None, "use the server as a context manager"
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def models(self) -> list[str]:
        with self._lock:
            return [r["model"] for r in self.requests]

    def answer(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        """The status and JSON body for ``body``, after the reply's delay (counted in flight)."""
        with self._lock:
            self.requests.append(body)
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            reply = self.responder(body)
            if reply.delay:
                self._stop.wait(reply.delay)
        finally:
            with self._lock:  # before the answer is written, so the count never outlives the client's
                self.in_flight -= 1
        if reply.status >= 400:
            return reply.status, {"error": {"message": f"scripted {reply.status}", "type": "server_error"}}
        prompt = sum(len(m.get("content") or "") for m in body["messages"]) // 4
        message: dict[str, Any] = {"role": "assistant", "content": reply.content}
        if reply.tool_calls:
            message["tool_calls"] = [
                {"id": f"call_{len(self.requests)}_{i}", "type": "function",
                 "function": {"name": call.name, "arguments": json.dumps(call.arguments)}}
                for i, call in enumerate(reply.tool_calls)]
        completion = (len(reply.content) + sum(len(c["function"]["arguments"]) for c in message.get("tool_calls", [])))
        prompt, completion = reply.usage or (prompt, completion // 4 + 1)
        with self._lock:
            self.prompt_tokens += prompt
            self.completion_tokens += completion
        return 200, {
            "id": f"chatcmpl-{len(self.requests)}", "object": "chat.completion", "created": 0, "model": body["model"],
            "choices": [{"index": 0, "message": message,
                         "finish_reason": "tool_calls" if reply.tool_calls else "stop"}],
            "usage": {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion},
        }

    # -- in process --------------------------------------------------------------------------
    def transport(self) -> httpx2.MockTransport:
        """The same answers without a socket (for host names that must not be contacted)."""

        def handle(request: httpx2.Request) -> httpx2.Response:
            if not request.url.path.endswith("/chat/completions"):
                return httpx2.Response(404, json={"error": {"message": "not found"}})
            body = json.loads(request.content)
            status, payload = self.answer(body)
            if status == 200 and body.get("stream"):
                return httpx2.Response(200, content=stream_events(payload),
                                       headers={"Content-Type": "text/event-stream"})
            return httpx2.Response(status, json=payload)

        return httpx2.MockTransport(handle)

    def http_client(self, role_config: object) -> httpx2.AsyncClient:
        """An ``http_client`` factory for the driver that answers through :meth:`transport`."""
        return httpx2.AsyncClient(transport=self.transport())


def stream_events(completion: dict[str, Any]) -> bytes:
    """A chat completion as the server-sent events of its streamed form."""
    head = {k: completion[k] for k in ("id", "created", "model")} | {"object": "chat.completion.chunk"}
    choice = completion["choices"][0]
    delta = dict(choice["message"])
    if "tool_calls" in delta:
        delta["tool_calls"] = [{"index": i, **call} for i, call in enumerate(delta["tool_calls"])]
    chunks = [head | {"choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
              head | {"choices": [{"index": 0, "delta": {}, "finish_reason": choice["finish_reason"]}]},
              head | {"choices": [], "usage": completion["usage"]}]
    return b"".join(f"data: {json.dumps(c)}\n\n".encode() for c in chunks) + b"data: [DONE]\n\n"


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
        fake: FakeOpenAI = self.server.fake  # type: ignore[attr-defined]
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
        if self.path.rstrip("/") != "/v1/chat/completions":
            status, payload = 404, {"error": {"message": "not found"}}
        else:
            status, payload = fake.answer(body)
        streamed = status == 200 and bool(body.get("stream"))
        data = stream_events(payload) if streamed else json.dumps(payload).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "text/event-stream" if streamed else "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):  # the client timed out and left
            pass

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass
