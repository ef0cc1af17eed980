import time

import dspy
import pytest

from dsminer.backend.lm import check_endpoint, open_backend
from dsminer.backend.local_server import free_port
from dsminer.config import BackendSettings
from dsminer.errors import BackendError
from tests.fake_openai import FakeOpenAI, chat_reply


def openai_settings(api_base: str, **extra) -> BackendSettings:
    return BackendSettings(kind="openai", api_base=api_base, model="fake-model", **extra)


def test_unreachable_endpoint_fails_fast_with_one_line():
    api_base = f"http://127.0.0.1:{free_port()}/v1"
    started = time.monotonic()
    with pytest.raises(BackendError) as info:
        with open_backend(openai_settings(api_base)):
            pass
    assert "not reachable" in str(info.value) and api_base in str(info.value)
    assert "\n" not in str(info.value)
    assert time.monotonic() - started < 30  # well under the 900 s request timeout


def test_http_error_on_models_is_reported():
    with FakeOpenAI(models_status=503) as fake:
        with pytest.raises(BackendError, match="HTTP 503"):
            check_endpoint(fake.api_base, "k", 2.0)


def test_model_not_served_is_reported():
    with FakeOpenAI(models=("other-model",)) as fake:
        with pytest.raises(BackendError, match="not served"):
            with open_backend(openai_settings(fake.api_base)):
                pass


def test_openai_backend_needs_api_base():
    with pytest.raises(BackendError, match="api_base"):
        with open_backend(BackendSettings(kind="openai")):
            pass


def test_lm_sends_sampling_controls_and_leaves_retries_to_the_paper_guard():
    replies = [lambda body: (500, {"error": {"message": "overloaded"}}),
               lambda body: (200, chat_reply("[[ ## answer ## ]]\nblue\n\n[[ ## completed ## ]]"))]
    with FakeOpenAI(replies) as fake:
        with open_backend(openai_settings(fake.api_base, temperature=0.0, max_tokens=64, seed=7)) as backend:
            with dspy.context(lm=backend.lm):
                with pytest.raises(dspy.utils.exceptions.LMServerError):
                    dspy.Predict("question -> answer")(question="sky colour?")
                answer = dspy.Predict("question -> answer")(question="sky colour?").answer
    assert answer == "blue"
    assert len(fake.requests) == 2
    sent = fake.requests[-1]
    assert sent.get("max_completion_tokens", sent.get("max_tokens")) == 64
    assert sent["seed"] == 7 and sent["temperature"] == 0.0
    assert fake.requests[-1]["model"] == "fake-model"
