import hashlib

import pytest

from dsminer.backend.model_file import join_parts
from dsminer.errors import BackendError


def make_parts(tmp_path, chunks):
    paths = []
    for i, chunk in enumerate(chunks):
        path = tmp_path / f"part{i:02d}.bin"
        path.write_bytes(chunk)
        paths.append(path)
    return paths


def test_join_parts_in_order_and_checks_the_hash(tmp_path):
    chunks = [b"GGUF", b"-middle-", b"end"]
    whole = b"".join(chunks)
    target = join_parts(make_parts(tmp_path, chunks), tmp_path / "out" / "m.gguf", len(whole),
                        hashlib.sha256(whole).hexdigest())
    assert target.read_bytes() == whole
    assert target.with_suffix(".sha256").read_text().strip() == hashlib.sha256(whole).hexdigest()


@pytest.mark.parametrize("bad", ["size", "hash"])
def test_corrupt_join_leaves_no_file(tmp_path, bad):
    chunks = [b"GGUF", b"data"]
    whole = b"".join(chunks)
    size = len(whole) + (1 if bad == "size" else 0)
    digest = hashlib.sha256(b"other" if bad == "hash" else whole).hexdigest()
    with pytest.raises(BackendError, match="corrupt"):
        join_parts(make_parts(tmp_path, chunks), tmp_path / "m.gguf", size, digest)
    assert not (tmp_path / "m.gguf").exists() and not (tmp_path / "m.gguf.part").exists()
