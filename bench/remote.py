"""The fake Bot API server in its own process, so benchmarks measure the bot's CPU alone."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from tests.support.fake_bot_api import FakeBotAPI


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class RemoteAPI:
    def __init__(self, port: int, control_port: int | None = None) -> None:
        self.port = port
        self.control_port = control_port or port  # stays up while the API port is closed
        self.token = FakeBotAPI.token
        self.base_url = f"http://127.0.0.1:{port}/bot"

    def _call(self, path: str, body: Any = None, timeout: float = 30) -> Any:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            f"http://127.0.0.1:{self.control_port}{path}",
            data=data,
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310
            return json.loads(response.read())

    def fail(self, faults: list[dict[str, Any]]) -> None:
        self._call("/_control/fail", faults)

    def outage(self, refuse: float, bad_gateway: float) -> None:
        """Connections refused for `refuse` s, then 502s for `bad_gateway` s (returns at once)."""
        self._call("/_control/outage", {"refuse": refuse, "bad_gateway": bad_gateway})

    def messages(self, messages: list[dict[str, Any]]) -> None:
        """Users' messages, pushed as updates in this order (user_id, name, text)."""
        self._call("/_control/messages", messages)

    def stats(self) -> dict[str, Any]:
        result: dict[str, Any] = self._call("/_control/stats")
        return result

    def wait_sent(self, total: int, timeout: float) -> dict[str, Any]:
        """The stats once `total` messages have been sent; TimeoutError after `timeout` s."""
        try:
            result: dict[str, Any] = self._call(
                f"/_control/wait_sent?total={total}&timeout={timeout}", timeout=timeout + 10
            )
        except urllib.error.HTTPError as exc:
            if exc.code == 504:
                raise TimeoutError(f"{total} messages were not sent in {timeout} s") from None
            raise
        return result


@contextmanager
def remote_api(latency: float = 0.0) -> Iterator[RemoteAPI]:
    port = _free_port()
    process = subprocess.Popen(  # noqa: S603
        [sys.executable, "-m", "tests.support.fake_bot_api", "--port", str(port),
         "--latency", str(latency)],
        stdout=subprocess.PIPE,
    )  # fmt: skip
    try:
        assert process.stdout is not None
        banner = process.stdout.readline().decode()  # "... control PORT"
        api = RemoteAPI(port, int(banner.rsplit("control", 1)[1]))
        for _ in range(200):
            try:
                api.stats()
                break
            except OSError:
                time.sleep(0.05)
        yield api
    finally:
        process.terminate()
        process.wait(timeout=10)
