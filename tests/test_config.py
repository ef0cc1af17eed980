from pathlib import Path

import pytest

from dsminer.config import load_settings
from dsminer.errors import ConfigError


def write_toml(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "dsminer.toml"
    path.write_text(text)
    return path


def test_defaults(monkeypatch):
    monkeypatch.delenv("DSMINER_LIMIT", raising=False)
    settings = load_settings()
    assert settings.condition == "s0"
    assert settings.max_records_per_paper == 5
    assert settings.backend.kind == "local"
    assert settings.backend.request_timeout_s == 900


def test_precedence_file_then_env_then_flags(tmp_path, monkeypatch):
    config = write_toml(tmp_path, 'limit = 3\nexperiment = "from-file"\n[backend]\nmodel = "file-model"\nmax_tokens = 300\n')
    monkeypatch.setenv("DSMINER_LIMIT", "4")
    monkeypatch.setenv("DSMINER_BACKEND__MODEL", "env-model")
    settings = load_settings(config, backend={"model": "flag-model", "api_base": None})
    assert settings.limit == 4  # env beats file
    assert settings.backend.model == "flag-model"  # flag beats env
    assert settings.backend.max_tokens == 300  # file value kept where nothing overrides it
    assert settings.experiment == "from-file"


@pytest.mark.parametrize(
    ("text", "overrides", "fragment"),
    [
        ("limit = 0\n", {}, "limit"),
        ('condition = "s9"\n', {}, "condition"),
        ("[backend]\ntemperature = 5\n", {}, "backend.temperature"),
        ("", {"max_records_per_paper": 0}, "max_records_per_paper"),
        ("unknown_key = 1\n", {}, "unknown_key"),
        ("limit = [\n", {}, "cannot read config file"),
    ],
)
def test_bad_values_give_one_line_errors(tmp_path, text, overrides, fragment):
    with pytest.raises(ConfigError) as info:
        load_settings(write_toml(tmp_path, text), **overrides)
    assert fragment in str(info.value)
    assert "\n" not in str(info.value)


def test_missing_config_file(tmp_path):
    with pytest.raises(ConfigError, match="config file not found"):
        load_settings(tmp_path / "absent.toml")


@pytest.mark.parametrize(("condition", "mode"), [("s0", "none"), ("s1a", "rule"), ("s1b", "llm")])
def test_reflection_mode_follows_condition(condition, mode):
    settings = load_settings(condition=condition)
    assert settings.reflection_mode() == mode
    assert settings.as_params()["agent.reflection"] == mode


def test_params_are_flat_and_hide_the_api_key():
    params = load_settings(backend={"api_key": "secret"}).as_params()
    assert params["backend.kind"] == "local"
    assert "backend.api_key" not in params
    assert all(isinstance(value, str) for value in params.values())
