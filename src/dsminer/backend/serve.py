"""Child-process entry point: serve one GGUF over the OpenAI-compatible API until stdin closes."""

from __future__ import annotations

import json
import os
import sys

from dsminer.backend.local_server import default_threads


def main(payload: str) -> None:
    import xllamacpp

    spec = json.loads(payload)
    params = xllamacpp.CommonParams()
    params.model.path = spec["gguf_path"]
    params.model_alias = {spec["alias"]}
    params.hostnames = ["127.0.0.1"]
    params.port = spec["port"]
    params.n_ctx = spec["n_ctx"]
    params.n_parallel = spec["n_parallel"]
    threads = spec["n_threads"] or default_threads()
    params.cpuparams.n_threads = threads
    params.cpuparams_batch.n_threads = threads
    params.verbosity = 0
    server = xllamacpp.Server(params)  # noqa: F841  (keeps the server alive)
    sys.stdin.buffer.read()  # returns when the parent closes the pipe or dies
    os._exit(0)


if __name__ == "__main__":
    main(sys.argv[1])
