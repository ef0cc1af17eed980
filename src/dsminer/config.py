"""The one settings object, read from a TOML file, then environment variables, then CLI flags.

Later sources win: a CLI flag beats an environment variable (``DSMINER_LIMIT``,
``DSMINER_BACKEND__API_BASE``), which beats the TOML file given with ``--config``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict, TomlConfigSettingsSource

from dsminer.errors import ConfigError

Condition = Literal["s0", "s1a", "s1b", "s2"]
CONDITIONS: tuple[str, ...] = Condition.__args__  # type: ignore[attr-defined]
# Named S2 variants for ablations (`dsminer experiment --conditions s1a,s2,s2-deterministic`): the condition
# and the agent settings that differ from its defaults.
VARIANTS: dict[str, tuple[str, dict[str, Any]]] = {
    "s2-deterministic": ("s2", {"planner": "deterministic"}),
    "s2-no-planner-memory": ("s2", {"planner_memory": False}),
    "s2-selective": ("s2", {"reflection": "selective"}),
}
DEFAULT_LOCAL_MODEL = "qwen2.5-coder-1.5b-instruct-q4_k_m"
DEFAULT_TRACKING_URI = "sqlite:///mlruns/mlflow.db"
DEFAULT_ARTIFACT_ROOT = "mlruns/artifacts"


class BackendSettings(BaseModel):
    """Which language model answers, and how it is reached."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["local", "openai"] = "local"
    model: str = DEFAULT_LOCAL_MODEL
    api_base: str | None = None
    # more OpenAI-compatible endpoints serving the same model (vLLM replicas): the ray executor's papers call
    # `api_base` and these in turn; each is checked at the start
    api_bases: list[str] = Field(default_factory=list)
    api_key: str = "not-needed"
    gguf_path: Path | None = None
    model_cache_dir: Path | None = None
    temperature: float = Field(0.0, ge=0.0, le=2.0)
    max_tokens: int = Field(768, ge=16, le=32768)
    seed: int = 0
    cache: bool = False
    response_schema: bool = True  # send each step's JSON schema as the response format (llama.cpp, vLLM)
    request_timeout_s: float = Field(900.0, gt=0)
    connect_timeout_s: float = Field(5.0, gt=0)
    fault_retries: int = Field(3, ge=0, le=10)  # retries of a call after a connection, timeout, 429 or 5xx fault
    fault_backoff_s: float = Field(2.0, ge=0.0, le=60.0)  # first wait before such a retry, doubled each time
    n_ctx: int = Field(8192, ge=512)
    n_parallel: int = Field(1, ge=1)
    n_threads: int | None = Field(None, ge=1)


class AgentSettings(BaseModel):
    """Controls of the agent conditions (S1a, S1b, S2); S0 ignores them."""

    model_config = ConfigDict(extra="forbid")

    retry_budget: int = Field(2, ge=0, le=10)
    quality_threshold: float = Field(0.6, ge=0.0, le=1.0)
    memory: bool = True
    memory_path: Path | None = None
    reflection: Literal["rule", "llm", "selective"] | None = None
    planner: Literal["llm", "deterministic"] = "llm"  # S2: the model picks the next tool, or the fixed order
    planner_memory: bool = True  # S2: lessons from memory in the planner's prompt
    step_budget: int = Field(40, ge=2, le=500)  # S2: tool calls per paper
    corpus_memory: bool = True  # the datasets of the papers committed before, offered where a later paper writes them
    memory_catalog: Path | None = None  # a catalogue folder (dsminer catalog build) the corpus memory starts from


class Settings(BaseSettings):
    """Everything a run depends on; each value is logged as an MLflow parameter."""

    model_config = SettingsConfigDict(env_prefix="DSMINER_", env_nested_delimiter="__", extra="forbid")

    condition: Condition = "s0"
    variant: str | None = None  # a named variant of the condition (see VARIANTS), its label in runs and comparisons
    limit: int | None = Field(None, ge=1)
    max_records_per_paper: int = Field(5, ge=1, le=100)
    context_sentences: int = Field(40, ge=5, le=400)
    # one short call per kept name, the model reading it in its sentence; a name it reads as software, a method,
    # an organisation, ... gives its place to the next (every condition)
    check_names: bool = True
    # the check step shown worked examples first (invented names: a survey and a catalogue read as datasets, an
    # archive that holds data as an organisation, an ontology, a disease, a file format): about 480 prompt tokens more
    # a check with the default model
    check_examples: bool = False
    sentence_ranker: Path | None = None  # a sentence ranker file (`dsminer fit-ranker`); unset: the bundled one
    candidate_ranker: Path | None = None  # a candidate ranker file (`dsminer fit-candidates`); unset: the bundled one
    adapter: Literal["json", "chat"] = "json"
    workers: int = Field(1, ge=1, le=64)  # papers processed at once (the local model gets as many slots)
    # processes parsing PDFs ahead of the model steps (None: one per worker, at most one per core; 0: none)
    parse_processes: int | None = Field(None, ge=0, le=64)
    paper_timeout_s: float | None = Field(1800.0, gt=0)  # a paper still running after this fails
    stop_after_failed_papers: int = Field(3, ge=1)  # papers in a row failed by the endpoint before the run stops
    executor: Literal["local", "ray"] = "local"  # threads in this process, or Ray tasks (pip install 'dsminer[ray]')
    ray_address: str | None = None  # a Ray cluster to join (e.g. ray://head:10001 or auto); None: a local one
    ray_task_retries: int = Field(3, ge=0, le=10)  # attempts Ray adds for a paper whose worker died
    # a compiled program file (`dsminer optimize`); none: uncompiled; unset: the bundled one for the default model
    program: str | None = None
    out_dir: Path | None = None
    metadata_file: Path | None = None
    catalog_dir: Path | None = None
    tracking_uri: str | None = None
    experiment: str = "dsminer"
    backend: BackendSettings = Field(default_factory=BackendSettings)
    agent: AgentSettings = Field(default_factory=AgentSettings)

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return (init_settings, env_settings, TomlConfigSettingsSource(settings_cls))

    @property
    def label(self) -> str:
        """The run's label: the variant's name, else the condition."""
        return self.variant or self.condition

    def reflection_mode(self) -> str:
        """The reflection mode in force: the explicit setting, else the condition's own."""
        if self.agent.reflection:
            return self.agent.reflection
        return {"s0": "none", "s1a": "rule", "s1b": "llm", "s2": "rule"}[self.condition]

    def as_params(self) -> dict[str, str]:
        """The settings flattened to ``section.key`` strings, as MLflow parameters."""
        flat: dict[str, str] = {}
        for key, value in self.model_dump(mode="json").items():
            if isinstance(value, dict):
                flat.update({f"{key}.{k}": str(v) for k, v in value.items() if k != "api_key"})
            else:
                flat[key] = str(value)
        flat["agent.reflection"] = self.reflection_mode()
        return flat


def load_settings(config_file: Path | None = None, **overrides: Any) -> Settings:
    """Build the settings from a TOML file, the environment and explicit overrides (None = not given)."""
    if config_file is not None and not Path(config_file).is_file():
        raise ConfigError(f"config file not found: {config_file}")

    class FileSettings(Settings):
        model_config = SettingsConfigDict(toml_file=config_file)

    try:
        return FileSettings(**_drop_unset(overrides))
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(part) for part in err["loc"]) or "settings"
        raise ConfigError(f"bad config value for {where}: {err['msg']}") from exc
    except ValueError as exc:  # malformed TOML
        raise ConfigError(f"cannot read config file {config_file}: {exc}") from exc


def variant_overrides(name: str) -> dict[str, Any]:
    """The settings of a condition or named variant given by `name` ("s2", "s2-deterministic")."""
    name = name.strip()
    if name in VARIANTS:
        condition, agent = VARIANTS[name]
        return {"condition": condition, "variant": name, "agent": dict(agent)}
    if name in CONDITIONS:
        return {"condition": name}
    known = ", ".join([*CONDITIONS, *VARIANTS])
    raise ConfigError(f"unknown condition or variant {name!r} (known: {known})")


def _drop_unset(values: dict[str, Any]) -> dict[str, Any]:
    """Remove None leaves so an absent CLI flag does not hide the file or environment value."""
    kept: dict[str, Any] = {}
    for key, value in values.items():
        if isinstance(value, dict):
            value = _drop_unset(value)
            if value:
                kept[key] = value
        elif value is not None:
            kept[key] = value
    return kept
