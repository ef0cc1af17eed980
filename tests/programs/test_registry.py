from pathlib import Path

import pytest

from dsminer.config import Settings
from dsminer.programs.agent.controller import ReflectiveAgent
from dsminer.programs.registry import build_program, default_memory_path
from dsminer.programs.s2.episode import OptimisedAgent
from dsminer.programs.workflow import WorkflowExtractor


@pytest.mark.parametrize(
    ("condition", "reflection", "mode"),
    [("s1a", None, "rule"), ("s1b", None, "llm"), ("s1a", "selective", "selective"), ("s1b", "rule", "rule")],
)
def test_agent_conditions_differ_only_by_reflection(tmp_path, condition, reflection, mode):
    settings = Settings(condition=condition, out_dir=tmp_path / "run",
                        agent={"reflection": reflection, "retry_budget": 3, "quality_threshold": 0.7})
    program = build_program(settings)
    assert isinstance(program, ReflectiveAgent)
    assert program.options.reflection == mode
    assert (program.options.retry_budget, program.options.quality_threshold) == (3, 0.7)
    assert program.memory is not None and program.memory.path == tmp_path / "memory.jsonl"


def test_memory_off_builds_no_store(tmp_path):
    program = build_program(Settings(condition="s1a", out_dir=tmp_path / "run", agent={"memory": False}))
    assert program.memory is None


@pytest.mark.parametrize(
    ("out_dir", "memory_path", "expected"),
    [(None, None, Path("runs/memory.jsonl")), (Path("x/run1"), None, Path("x/memory.jsonl")),
     (Path("x/run1"), Path("m.jsonl"), Path("m.jsonl"))],
)
def test_default_memory_path(out_dir, memory_path, expected):
    settings = Settings(condition="s1a", out_dir=out_dir, agent={"memory_path": memory_path})
    assert default_memory_path(settings) == expected


def test_every_condition_builds_its_program():
    assert isinstance(build_program(Settings(condition="s0")), WorkflowExtractor)
    assert type(build_program(Settings(condition="s1a"))) is ReflectiveAgent
    assert isinstance(build_program(Settings(condition="s2")), OptimisedAgent)
