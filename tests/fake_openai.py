"""A fake OpenAI-compatible server on 127.0.0.1 for HTTP fault tests: scripted replies, request log."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Reply = Callable[[dict[str, Any]], tuple[int, dict[str, Any] | str]]


def chat_reply(content: str, prompt_tokens: int = 10, completion_tokens: int = 5) -> dict[str, Any]:
    return {
        "id": "chatcmpl-fake", "object": "chat.completion", "created": int(time.time()), "model": "fake-model",
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                  "total_tokens": prompt_tokens + completion_tokens},
    }


class FakeOpenAI:
    """Serves /v1/models and /v1/chat/completions; `replies` is consumed one per chat request, then `default`
    answers every request (HTTP 500 without one)."""

    def __init__(self, replies: list[Reply] | None = None, models: tuple[str, ...] = ("fake-model",),
                 models_status: int = 200, default: Reply | None = None) -> None:
        self.replies = list(replies or [])
        self.default = default
        self.models = models
        self.models_status = models_status
        self.requests: list[dict[str, Any]] = []
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def api_base(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __enter__(self) -> FakeOpenAI:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def _send(self, status: int, body: dict[str, Any] | str) -> None:
                data = (body if isinstance(body, str) else json.dumps(body)).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                if self.path.rstrip("/").endswith("/models"):
                    self._send(fake.models_status, {"object": "list", "data": [{"id": m, "object": "model"} for m in fake.models]})
                else:
                    self._send(404, {"error": "not found"})

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                fake.requests.append(body)
                if fake.replies:
                    self._send(*fake.replies.pop(0)(body))
                elif fake.default is not None:
                    self._send(*fake.default(body))
                else:
                    self._send(500, {"error": {"message": "no scripted reply left"}})

        return Handler


def chat_fields(**fields) -> str:
    """The JSON object the default (JSON) adapter expects, wrapped in a code fence as small models do."""
    return "```json\n" + json.dumps(fields) + "\n```"


def scripted(body: dict) -> tuple[int, dict]:
    """Answer each step by the output fields its prompt asks for."""
    prompt = json.dumps(body["messages"])
    tool = ((body.get("response_format") or {}).get("json_schema") or {}).get("schema", {}).get("properties", {})
    if "tool" in tool:  # the S2 planner: the last tool its schema allows
        return 200, chat_reply(chat_fields(tool=tool["tool"]["enum"][-1], reason="scripted choice"))
    if "Answer with one word" in prompt:  # the check step: one word, no JSON
        return 200, chat_reply("dataset")
    if "`names`" in prompt:
        return 200, chat_reply(chat_fields(names=[{"name": "ReefCount-3k", "kind": "dataset", "role": "used"}]))
    if "data_fields" in prompt:
        return 200, chat_reply(chat_fields(content="underwater images", data_type="images", domain="ecology",
                                           data_fields=["count"]))
    return 200, chat_reply(chat_fields(title="Counting Fish", authors=["A. Author"], institutions=[], venue="", year="2020"))
