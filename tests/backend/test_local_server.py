import pytest

from dsminer.backend.local_server import LocalModelServer, ServerSpec
from dsminer.errors import BackendError


def test_missing_model_file(tmp_path):
    with pytest.raises(BackendError, match="model file not found"):
        LocalModelServer(ServerSpec(tmp_path / "absent.gguf", alias="m")).start()


def test_a_file_that_is_no_model_stops_with_the_servers_reason(tmp_path):
    pytest.importorskip("xllamacpp")
    bogus = tmp_path / "bogus.gguf"
    bogus.write_bytes(b"this is not a gguf file")
    server = LocalModelServer(ServerSpec(bogus, alias="m"), start_timeout_s=60)
    with pytest.raises(BackendError, match="exited|did not answer"):
        server.start()
    assert server.process is None or server.process.poll() is not None
