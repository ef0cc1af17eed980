"""Fixtures of the corpus tests: a fake proceedings site on 127.0.0.1."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import ThreadingHTTPServer

import pytest
from neurips_site import FakeSite, FakeSiteHandler


@pytest.fixture
def fake_site() -> Iterator[FakeSite]:
    """A running fake site on an ephemeral port of 127.0.0.1."""
    site = FakeSite()
    handler = type("Handler", (FakeSiteHandler,), {"site": site})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    site.base_url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    yield site
    site.stopping.set()
    server.shutdown()
    server.server_close()
    thread.join(timeout=5)
