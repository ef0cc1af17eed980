"""S2's episode: the planner loop over the twelve tools for one paper, with S1's reflective loop for the model
tools, and the agent that runs one episode per paper and keeps the run's counts."""

from __future__ import annotations

import re
import time
from collections import Counter
from dataclasses import dataclass
from typing import Any

import dspy

from dsminer.catalog.memory import current_corpus
from dsminer.document.pdf import ParsedPaper
from dsminer.document.text import within_budget
from dsminer.events import EventLog, current_events
from dsminer.evidence.grounding import verify_evidence
from dsminer.evidence.records import complete_refs, url_spells
from dsminer.programs.agent.controller import AgentController, AgentOptions, ReflectiveAgent, step_span
from dsminer.programs.agent.memory import Experience, MemoryStore
from dsminer.programs.agent.step_tools import COUNTS_LOCK, Counts
from dsminer.programs.s2.constraints import TOOL_ORDER, allowed_tools
from dsminer.programs.s2.step_tools import build_tools
from dsminer.programs.steps import run_step
from dsminer.schema import DatasetRecord, PaperRefs
from dsminer.signatures import ChooseNextTool, choose_among
from dsminer.tools.workspace import Workspace, tool_credits

PLANNER_TOKENS = 64
LESSON_CHARS = 300  # memory injected into a prompt, after compression
_DATA_HEADINGS = "data"


def compress_lessons(lessons: tuple[str, ...] | list[str], max_chars: int = LESSON_CHARS) -> tuple[str, ...]:
    """Lessons as injected: first sentence of each, duplicates out, within `max_chars` in all."""
    firsts: dict[str, str] = {}
    for lesson in lessons:
        first = re.split(r"(?<=[.!?])\s", lesson.strip(), maxsplit=1)[0]
        key = re.sub(r"\W+", " ", first.casefold()).strip()
        if key:
            firsts.setdefault(key, first)
    return tuple(within_budget(firsts.values(), max_chars, skip=True))


@dataclass
class PlannerCounters(Counts):
    """Run-level counts of the planner and the episodes, logged as MLflow metrics."""

    papers: int = 0
    steps: int = 0
    distinct_tools: int = 0
    decisions_model: int = 0
    decisions_fallback: int = 0
    decisions_forced: int = 0
    invalid_proposals: int = 0
    budget_ends: int = 0
    stuck: int = 0
    recovered: int = 0
    recovered_borrowed: int = 0  # stuck datasets whose link came from the corpus memory or a catalogue
    evidence_lines: int = 0  # lines the recovery tools added to stuck datasets' evidence
    hinted_details: int = 0  # detail steps whose prompt carried recovered evidence or link candidates
    section_uses: int = 0
    table_uses: int = 0
    reference_uses: int = 0
    records: int = 0
    records_with_link: int = 0
    links_checked: int = 0
    links_supported: int = 0


class OptimisedAgent(ReflectiveAgent):
    """S2: the reflective agent's model steps, reflection and memory, as three of twelve tools chosen by a
    planner from the document state."""

    def __init__(self, options: AgentOptions = AgentOptions(), memory: MemoryStore | None = None,
                 catalog: frozenset[str] = frozenset(), planner: str = "llm", step_budget: int = 40,
                 planner_memory: bool = True, catalog_urls: dict[str, str] | None = None) -> None:
        super().__init__(options, memory, catalog)
        self.planner_mode = planner
        self.step_budget = step_budget
        self.planner_memory = planner_memory
        self.catalog_urls = catalog_urls or {}
        self.planner = dspy.Predict(ChooseNextTool, max_tokens=PLANNER_TOKENS)
        self.episode_counters = PlannerCounters()
        self.tool_calls: Counter[str] = Counter()

    def forward(self, paper: ParsedPaper, supplied: PaperRefs | None = None) -> dspy.Prediction:
        """The paper's records, as `Prediction.records`; events go to the log the run is recording."""
        if self.memory is not None:
            self.memory.start_paper()
        return dspy.Prediction(records=Episode(self, paper, supplied, current_events()).run())

    def run_metrics(self) -> dict[str, float]:
        """S1's counts and per-tool statistics, with the planner's and the episodes' (see PlannerCounters)."""
        counts = self.episode_counters
        papers = max(counts.papers, 1)
        derived = {
            "s2.tool_diversity": counts.distinct_tools / papers,
            "s2.steps_per_paper": counts.steps / papers,
            "s2.link_rate": counts.records_with_link / counts.records if counts.records else 0.0,
            "s2.link_precision": counts.links_supported / counts.links_checked if counts.links_checked else 0.0,
            "s2.retry_productivity": (self.counters.productive_retries / self.counters.retries
                                      if self.counters.retries else 0.0),
        }
        raw = {f"s2.{key}": float(value) for key, value in counts.__dict__.items()}
        calls = {f"s2.calls.{tool}": float(self.tool_calls[tool]) for tool in TOOL_ORDER}
        return {**super().run_metrics(), **raw, **calls, **{k: round(v, 4) for k, v in derived.items()}}


class Episode(AgentController):
    """One paper under S2: the planner loop over the twelve tools, with S1's reflective loop for the model
    tools."""

    def __init__(self, agent: OptimisedAgent, paper: ParsedPaper, supplied: PaperRefs | None,
                 events: EventLog) -> None:
        super().__init__(agent, paper, supplied, events)
        self.agent: OptimisedAgent = agent
        corpus = current_corpus()
        self.ws = Workspace(paper, supplied, agent.step_budget, {**agent.catalog_urls, **corpus.links(url_spells)},
                            corpus.link_sources(), refs=complete_refs(supplied))
        self.tools = {tool.name: tool for tool in build_tools(self)}

    def run(self) -> list[DatasetRecord]:
        ws, counts = self.ws, self.agent.episode_counters
        self.emit("thought", "plan", goal=self.goal, planner=self.agent.planner_mode, budget=ws.budget)
        while True:
            allowed = allowed_tools(ws)
            if not allowed:
                break
            tool, args = self.decide(allowed)
            self.call_tool(tool, args)
        if ws.records is None:  # the budget ran out before the normalisation
            counts.add(budget_ends=1)
            self.emit("stop", "plan", reason="step_budget", steps=ws.steps, budget=ws.budget)
            self.tools["normalise_records"]()
        records = ws.records or []
        works = ws.datasets.values()
        checked = [d.verification.link_supported for d in works if d.verification is not None]
        counts.add(papers=1, steps=ws.steps, distinct_tools=len(ws.tools_used),
                   stuck=sum(bool(d.stuck) for d in works), recovered=sum(d.recovered for d in works),
                   recovered_borrowed=sum(d.recovered and d.record is not None and d.record.borrowed_link is not None
                                          for d in works),
                   evidence_lines=sum(len(d.evidence) for d in works), records=len(records),
                   records_with_link=sum(r.dataset_link is not None for r in records),
                   section_uses=ws.tools_used["retrieve_section"], table_uses=ws.tools_used["extract_tables"],
                   reference_uses=ws.tools_used["extract_references"],
                   links_checked=sum(supported is not None for supported in checked),
                   links_supported=sum(supported is True for supported in checked))
        with COUNTS_LOCK:
            self.agent.tool_calls.update(ws.tools_used)
        self.learn_tool_choices()
        return records

    def learn_tool_choices(self) -> None:
        """Remember which tools found what the records hold (a candidate name that became a dataset, a record's
        link): a lesson for the planner of later papers, with this paper as its provenance."""
        found: dict[str, list[str]] = {}
        for tool, what in tool_credits(self.ws):
            found.setdefault(tool, []).append(what)
        self.emit("tool_credits", "planner", credits={tool: items for tool, items in found.items()})
        memory = self.agent.memory
        if memory is None or self.view is None:
            return
        for tool, items in found.items():
            lesson = f"Planner: {tool} found {', '.join(items[:3])} in an earlier paper."
            persisted = memory.remember(Experience("planner", self.paper.file_name, 1.0, "improved", lesson,
                                                   tags=self.view.cues.tags()))
            self.counters.add(memory_writes=int(persisted))

    def decide(self, allowed: list[str]) -> tuple[str, dict[str, Any]]:
        """The planner's choice among the allowed tools, with its source: forced (one tool allowed, no call),
        model, fallback (deterministic mode), or rejected (the model's answer named no allowed tool, or its call
        failed; the fallback answers)."""
        counts = self.agent.episode_counters
        tool, reason, source, proposal = allowed[0], "first allowed tool in the fallback order", "fallback", None
        if len(allowed) == 1:
            source, reason = "forced", "the only tool the constraints allow"
            counts.add(decisions_forced=1)
        elif self.agent.planner_mode == "llm":
            with step_span("planner", {"allowed": allowed}) as span:
                prediction = run_step(self.agent.planner, self.events, self.paper, "planner",
                                      self.planner_inputs(allowed))
                if prediction is None:  # no parseable answer naming an allowed tool (the Literal holds it to them)
                    source = "rejected"
                    counts.add(invalid_proposals=1)
                    reason = "the planner's answer named no allowed tool; first allowed tool in the fallback order"
                elif str(prediction.tool) in allowed:
                    tool, reason, source = str(prediction.tool), str(prediction.reason or "")[:200], "model"
                else:
                    proposal, source = str(prediction.tool), "rejected"
                    counts.add(invalid_proposals=1)
                    reason = f"proposed {proposal}, not allowed now; first allowed tool in the fallback order"
                if span is not None:
                    span.set_outputs({"tool": tool, "source": source, "reason": reason})
        counts.add(decisions_model=source == "model", decisions_fallback=source in ("fallback", "rejected"))
        args = self.arguments(tool)
        self.emit("planner_decision", "planner", tool=tool, args=args, reason=reason, source=source,
                  proposal=proposal, allowed=allowed, steps_left=self.ws.steps_left)
        return tool, args

    def planner_inputs(self, allowed: list[str]) -> dict[str, Any]:
        lessons: tuple[str, ...] = ()
        if self.agent.planner_memory:
            lessons = compress_lessons([*self.recall("planner"),
                                        *self.recall("names" if self.ws.names is None else "details")])
            if lessons:
                self.counters.add(memory_injections=1)
                self.emit("memory_injection", "planner", lessons=len(lessons))
        tools = "\n".join(self.tools[name].describe() for name in allowed)
        return {"signature": choose_among(tuple(allowed)), "state": self.ws.describe(), "tools": tools,
                "memory_block": "\n".join(lessons)}

    def arguments(self, tool: str) -> dict[str, Any]:
        """The arguments of the chosen tool, from the state: the current dataset, its page, its name."""
        work = self.ws.current()
        if tool in ("extract_details", "search_links", "verify_evidence"):
            return {"dataset": work.chosen.name}
        if tool == "search_keywords":
            return {"keyword": work.chosen.name if work else "dataset"}
        if tool == "read_page":
            found = verify_evidence(self.paper, work.names, None)
            return {"page": found.page or 1}
        if tool == "retrieve_section":
            return {"heading": _DATA_HEADINGS}
        return {}

    def call_tool(self, name: str, args: dict[str, Any]) -> str:
        """Run one tool as one step: an action and a result event whose step is the tool's name, a span on
        the paper's trace, and rule reflection on its output (an empty output is a failure)."""
        ws = self.ws
        ws.steps += 1
        ws.tools_used[name] += 1
        self.emit("action", name, tool=name, args=args, step_number=ws.steps)
        started = time.monotonic()
        with step_span(name, args) as span:
            observation = self.tools[name](**args)
            if span is not None:
                span.set_outputs({"observation": observation})
        empty = not observation or observation.startswith("nothing")
        if empty:
            ws.failures.append(f"{name}({', '.join(map(str, args.values()))}) found nothing")
        self.emit("result", name, tool=name, observation=observation[:400],
                  seconds=round(time.monotonic() - started, 3))
        self.emit("reflection", name, tool=name, score=0.0 if empty else 1.0, source="rule",
                  issues=[{"code": "empty_output", "message": f"{name} found nothing"}] if empty else [])
        return observation

    def lessons_for(self, step: str) -> tuple[str, ...]:
        """S1's lessons for a retry, compressed before they are injected."""
        return compress_lessons(super().lessons_for(step))
