"""Which DSPy module runs for which condition."""

from __future__ import annotations

from pathlib import Path

import dspy

from dsminer.catalog.memory import CorpusMemory
from dsminer.config import DEFAULT_LOCAL_MODEL, Settings
from dsminer.errors import ConfigError
from dsminer.evidence.candidate_ranker import use_candidate_ranker
from dsminer.evidence.ranking import use_ranker
from dsminer.mentions.catalog import load_catalog_names, load_catalog_urls
from dsminer.programs.agent.controller import AgentOptions, ReflectiveAgent
from dsminer.programs.agent.memory import MemoryStore
from dsminer.programs.compiled import (
    CompiledProgram,
    apply_program,
    load_program,
    resolve_program,
)
from dsminer.programs.s2.episode import OptimisedAgent
from dsminer.programs.workflow import WorkflowExtractor

AVAILABLE = ("s0", "s1a", "s1b", "s2")


def default_memory_path(settings: Settings) -> Path:
    """Long-term memory beside the run directories: `<out_dir>/../memory.jsonl`, else `runs/memory.jsonl`."""
    if settings.agent.memory_path is not None:
        return settings.agent.memory_path
    return (settings.out_dir.parent if settings.out_dir is not None else Path("runs")) / "memory.jsonl"


def build_agent(settings: Settings) -> ReflectiveAgent:
    """S1a, S1b or S2 from the settings: the condition's reflection mode unless one is set explicitly."""
    options = AgentOptions(
        max_records=settings.max_records_per_paper, context_sentences=settings.context_sentences,
        retry_budget=settings.agent.retry_budget, quality_threshold=settings.agent.quality_threshold,
        reflection=settings.reflection_mode(), check_names=settings.check_names,
        check_examples=settings.check_examples,
    )
    memory = MemoryStore(default_memory_path(settings)) if settings.agent.memory else None
    if settings.condition == "s2":
        agent = OptimisedAgent(options, memory, load_catalog_names(settings.catalog_dir), settings.agent.planner,
                               settings.agent.step_budget, settings.agent.planner_memory,
                               load_catalog_urls(settings.catalog_dir))
    else:
        agent = ReflectiveAgent(options, memory, load_catalog_names(settings.catalog_dir))
    agent.corpus = corpus_memory(settings)
    return agent


def corpus_memory(settings: Settings) -> CorpusMemory | None:
    """The agents' corpus memory, started from the settings' catalogue folder if one is given; None when off."""
    if not settings.agent.corpus_memory:
        return None
    corpus = CorpusMemory()
    if settings.agent.memory_catalog is not None:
        corpus.seed(settings.agent.memory_catalog)
    return corpus


def compiled_program(settings: Settings) -> CompiledProgram | None:
    """The compiled program the settings ask for (`program`), checked; None to run uncompiled."""
    default_model = settings.backend.kind == "local" and settings.backend.model == DEFAULT_LOCAL_MODEL
    path = resolve_program(settings.program, default_model)
    return load_program(path) if path is not None else None


def use_rankers(settings: Settings) -> None:
    """Make the settings' sentence ranker (or the bundled one) the one the names context reads, and their candidate
    ranker the one the candidate finder reads."""
    use_ranker(settings.sentence_ranker)
    use_candidate_ranker(settings.candidate_ranker)


def build_program(settings: Settings) -> dspy.Module:
    """The condition's program, built from the settings, with the compiled program's steps put in (its
    `compiled` attribute says which program, None when uncompiled). The settings' sentence ranker becomes the one
    the names context reads, and their candidate ranker the one the candidate finder reads."""
    use_rankers(settings)
    compiled = compiled_program(settings)
    if settings.condition == "s0":
        program = WorkflowExtractor(settings.max_records_per_paper, settings.context_sentences,
                                    load_catalog_names(settings.catalog_dir), settings.check_names,
                                    settings.check_examples)
    elif settings.condition in ("s1a", "s1b", "s2"):
        program = build_agent(settings)
    else:
        available = ", ".join(AVAILABLE)
        raise ConfigError(f"condition {settings.condition} is not available in this version (available: {available})")
    if compiled is not None:
        apply_program(program, compiled)
    program.compiled = compiled
    return program
