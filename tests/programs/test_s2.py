import dspy
import pytest
from dspy.utils import DummyLM

from dsminer.config import Settings, load_settings, variant_overrides
from dsminer.document.pdf import parse_pdf
from dsminer.errors import ConfigError
from dsminer.events import EventLog, recording
from dsminer.evidence.records import DatasetDetails
from dsminer.mentions.selection import ChosenDataset, Selection
from dsminer.programs.agent.controller import AgentOptions
from dsminer.programs.registry import build_program
from dsminer.programs.s2.constraints import TOOL_ORDER, allowed_tools
from dsminer.programs.s2.episode import OptimisedAgent, compress_lessons
from dsminer.programs.s2.step_tools import TOOLS
from dsminer.schema import PaperRefs
from dsminer.tools.workspace import DatasetWork, Workspace
from tests.helpers import ReadAs

SUPPLIED = PaperRefs(title="Learning to Count Reef Fish", authors=["Ada Lovelace"])
BOTH = {"names": [{"name": "ReefCount-3k", "kind": "dataset", "role": "used"},
                  {"name": "KelpScenes", "kind": "dataset", "role": "used"}]}
DETAILS = {"content": "Underwater images with fish counts", "data_type": "images", "domain": "marine biology",
           "data_fields": ["fish count"]}
EMPTY_DETAILS = {"content": "", "data_type": "", "domain": "", "data_fields": []}


def choose(tool: str, reason: str = "next") -> dict:
    return {"tool": tool, "reason": reason}


def run_s2(paper_pdf, answers, planner="deterministic", supplied=SUPPLIED, **options):
    budget = options.pop("step_budget", 40)
    agent = OptimisedAgent(AgentOptions(**options), planner=planner, step_budget=budget)
    lm, events = DummyLM(answers), EventLog()
    with dspy.context(lm=lm):
        with recording(events):
            records = agent(paper=parse_pdf(paper_pdf), supplied=supplied).records
    return records, lm, events, agent


def decisions(events):
    return [e for e in events.events if e["kind"] == "planner_decision"]


def tools_called(events):
    return [e["step"] for e in events.events if e["kind"] == "action" and e.get("tool")]


def workspace(paper_pdf, budget=40, **fields) -> Workspace:
    ws = Workspace(parse_pdf(paper_pdf), SUPPLIED, budget, parsed=True, refs=SUPPLIED)
    for key, value in fields.items():
        setattr(ws, key, value)
    return ws


def dataset(name: str, **fields) -> DatasetWork:
    work = DatasetWork(ChosenDataset(name, (), "used", 2))
    for key, value in fields.items():
        setattr(work, key, value)
    return work


def test_twelve_tools_each_with_a_docstring_and_typed_arguments():
    assert len(TOOLS) == 12 and sorted(t.name for t in TOOLS) == sorted(TOOL_ORDER)
    for tool in TOOLS:
        wrapped = dspy.Tool(tool(type("E", (), {"ws": None})()), name=tool.name)
        assert wrapped.desc and wrapped.desc.strip()
    tool = dict((t.name, t) for t in TOOLS)
    assert dspy.Tool(tool["read_page"](type("E", (), {"ws": None})())).args["page"]["type"] == "integer"
    assert dspy.Tool(tool["search_keywords"](type("E", (), {"ws": None})())).args["keyword"]["type"] == "string"


def test_nothing_but_parsing_before_the_paper_is_read(paper_pdf):
    ws = Workspace(parse_pdf(paper_pdf), None, 40)
    assert allowed_tools(ws) == ["parse_pdf"]


def test_before_names_the_reading_tools_and_names_are_allowed(paper_pdf):
    ws = workspace(paper_pdf, refs=None)
    assert allowed_tools(ws) == ["extract_metadata", "retrieve_section", "extract_dataset_names"]
    ws.sections = []
    ws.refs = SUPPLIED
    assert allowed_tools(ws) == ["extract_dataset_names"]


def test_a_dataset_is_linked_described_then_verified_and_normalisation_comes_last(paper_pdf):
    work = dataset("ReefCount-3k")
    ws = workspace(paper_pdf, names=Selection(), datasets={"ReefCount-3k": work})
    assert allowed_tools(ws) == ["search_links"]
    work.links = []
    assert allowed_tools(ws) == ["extract_details"]
    work.details = DatasetDetails("images of fish", "images", "biology", ["count"])
    assert allowed_tools(ws) == ["verify_evidence"]
    work.verification = object()
    assert allowed_tools(ws) == ["normalise_records"]
    ws.records = []
    assert allowed_tools(ws) == []


def test_a_stuck_dataset_may_try_two_recovery_tools_then_retry_or_give_up(paper_pdf):
    work = dataset("KelpScenes", links=[], details=DatasetDetails("kelp", "images", "biology", []), stuck=("link",))
    ws = workspace(paper_pdf, names=Selection(), datasets={"KelpScenes": work})
    # best first for a missing link (the paper has no reference list to read)
    assert allowed_tools(ws) == ["search_keywords", "read_page", "retrieve_section", "verify_evidence"]
    work.recovery = ["search_keywords"]
    assert allowed_tools(ws) == ["read_page", "retrieve_section", "search_links", "verify_evidence"]
    work.recovery = ["search_keywords", "read_page"]
    assert allowed_tools(ws) == ["search_links", "verify_evidence"]
    work.retried = {"search_links"}
    assert allowed_tools(ws) == ["verify_evidence"]


def test_a_dataset_stuck_for_its_details_is_recovered_from_its_section_first(paper_pdf):
    work = dataset("KelpScenes", links=[], details=DatasetDetails(), stuck=("details", "link"))
    ws = workspace(paper_pdf, names=Selection(), datasets={"KelpScenes": work})
    assert allowed_tools(ws)[:2] == ["retrieve_section", "search_keywords"]
    work.recovery = ["retrieve_section", "search_keywords"]
    assert allowed_tools(ws) == ["extract_details", "search_links", "verify_evidence"]


def test_a_short_budget_leaves_only_what_finishes_the_paper(paper_pdf):
    work = dataset("KelpScenes", stuck=("link",))
    ws = workspace(paper_pdf, budget=3, names=Selection(), datasets={"KelpScenes": work})
    assert allowed_tools(ws) == ["extract_details"]  # no link search: details, verification, normalisation left
    ws.steps = 2
    assert allowed_tools(ws) == ["normalise_records"]
    ws.steps = 3
    assert allowed_tools(ws) == []


def test_a_name_the_check_reads_as_software_gets_no_detail_step(paper_pdf):
    agent = OptimisedAgent(AgentOptions(), planner="deterministic", step_budget=40)
    agent.check = ReadAs({"KelpScenes": "software"})
    lm, events = DummyLM([BOTH, DETAILS]), EventLog()
    with dspy.context(lm=lm), recording(events):
        records = agent(paper=parse_pdf(paper_pdf), supplied=SUPPLIED).records
    assert [r.name for r in records] == ["ReefCount-3k"] and agent.check.asked == ["ReefCount-3k", "KelpScenes"]
    assert len(lm.history) == 2  # names and one detail step
    dropped = [e for e in events.events if e["kind"] == "dropped" and e["step"] == "check"]
    assert [(e["dataset"], e["reason"]) for e in dropped] == [("KelpScenes", "read as software")]


def test_deterministic_episode_ends_in_verified_normalised_records(paper_pdf):
    records, lm, events, agent = run_s2(paper_pdf, [BOTH, DETAILS, DETAILS])
    assert [r.name for r in records] == ["ReefCount-3k", "KelpScenes"]
    reef = records[0]
    assert reef.dataset_link == "https://reefcount.example.org/data" and reef.platform == "other"
    assert reef.evidence.page == 1 and "ReefCount-3k" in reef.evidence.quote
    assert reef.paper_refs.title == SUPPLIED.title
    called = tools_called(events)
    assert called[0] == "parse_pdf" and called[-1] == "normalise_records"
    assert called.index("extract_details") < called.index("verify_evidence")
    assert all(d["source"] in ("fallback", "forced") for d in decisions(events))
    assert len(lm.history) == 3  # names and two details: the planner asks no model
    metrics = agent.run_metrics()
    assert metrics["s2.steps"] == len(called) <= 40
    assert metrics["s2.stuck"] == 1 and metrics["s2.link_rate"] == 0.5 and metrics["s2.link_precision"] == 1.0
    assert metrics["s2.decisions_model"] == 0 and metrics["s2.calls.verify_evidence"] == 2


def test_every_tool_call_and_decision_is_an_event_named_after_the_tool(paper_pdf):
    _, _, events, _ = run_s2(paper_pdf, [BOTH, DETAILS, DETAILS])
    actions = [e for e in events.events if e["kind"] == "action" and e.get("tool")]
    assert all(e["step"] == e["tool"] for e in actions)
    assert len(decisions(events)) == len(actions)
    assert {"tool", "reason", "source"} <= set(decisions(events)[0])


def test_the_model_planner_chooses_among_the_allowed_tools(paper_pdf):
    answers = [choose("extract_dataset_names", "the data section is short"), BOTH, DETAILS, DETAILS]
    records, lm, events, agent = run_s2(paper_pdf, answers, planner="llm", supplied=SUPPLIED)
    first = decisions(events)[1]
    assert first["source"] == "model" and first["tool"] == "extract_dataset_names"
    assert first["reason"] == "the data section is short"
    planner_prompt = lm.history[0]["messages"][-1]["content"]
    assert "extract_dataset_names()" in planner_prompt and "retrieve_section(heading: string)" in planner_prompt
    assert "parse_pdf(" not in planner_prompt  # only the allowed tools are offered
    assert len(records) == 2


def test_an_answer_naming_no_allowed_tool_falls_back_to_the_fixed_order(paper_pdf):
    bad = choose("normalise_records")  # not allowed before the names step: the Literal refuses it
    # DSPy's chat adapter falls back to JSON on a failed parse, and the step is retried once: four answers
    records, _, events, agent = run_s2(paper_pdf, [bad] * 4 + [BOTH, DETAILS, DETAILS], planner="llm")
    rejected = decisions(events)[1]
    assert rejected["source"] == "rejected" and rejected["tool"] == "retrieve_section"
    assert agent.run_metrics()["s2.invalid_proposals"] >= 1
    assert [r.name for r in records] == ["ReefCount-3k", "KelpScenes"]


def test_a_dataset_whose_details_stay_empty_is_stuck_and_retried_after_recovery(paper_pdf):
    # KelpScenes' every mention is read by the first detail call: no retry within the step, stuck, then retried
    # by the planner after the recovery tools.
    answers = [BOTH, DETAILS, EMPTY_DETAILS, DETAILS]
    records, _, events, agent = run_s2(paper_pdf, answers, retry_budget=2)
    kelp = [e for e in events.events if e["kind"] == "result" and e.get("tool") == "extract_details"]
    assert "stuck" in kelp[1]["observation"] and "details" in kelp[1]["observation"]
    assert tools_called(events).count("extract_details") == 3
    metrics = agent.run_metrics()
    assert metrics["s2.stuck"] == 1 and metrics["s2.recovered"] == 0  # still without a link
    assert records[1].dataset_describe.type == "images"


def test_the_budget_bounds_an_episode_and_still_writes_records(paper_pdf):
    records, _, events, agent = run_s2(paper_pdf, [BOTH, DETAILS, DETAILS], step_budget=6)
    assert len(tools_called(events)) <= 6
    assert tools_called(events)[-1] == "normalise_records"
    assert [r.name for r in records] == ["ReefCount-3k"]  # the second dataset was never described


def test_lessons_are_compressed_before_injection():
    lessons = ["Read the tables first. They list datasets.", "read the tables first!", "x" * 400, "Check footnotes."]
    assert compress_lessons(lessons) == ("Read the tables first.", "Check footnotes.")


def test_s2_and_its_variants_are_built_from_settings(tmp_path):
    program = build_program(Settings(condition="s2", agent={"memory": False}))
    assert isinstance(program, OptimisedAgent) and program.planner_mode == "llm"
    deterministic = load_settings(None, **variant_overrides("s2-deterministic"))
    assert deterministic.condition == "s2" and deterministic.label == "s2-deterministic"
    assert build_program(deterministic).planner_mode == "deterministic"
    assert load_settings(None, **variant_overrides("s2-selective")).reflection_mode() == "selective"
    with pytest.raises(ConfigError, match="unknown condition or variant 's3'"):
        variant_overrides("s3")


CITED = (
    "2 Datasets\n\n"
    "We train on the QuuxSet collection [1], a set of widget photographs.\n\n"
    "References\n\n"
    "[1] J. Smith. Widget photographs for recognition. https://quux.example.org/set"
)


def test_a_link_stuck_dataset_is_recovered_from_its_cited_reference(tmp_path):
    from tests.helpers import build_pdf

    pdf = build_pdf(tmp_path / "cited.pdf", [CITED])
    quux = {"names": [{"name": "QuuxSet", "kind": "dataset", "role": "used"}]}
    answers = [choose("extract_dataset_names"), quux, quux, quux, DETAILS,
               choose("extract_references", "the link may be in its reference"), choose("search_links")]
    records, _, events, agent = run_s2(pdf, answers, planner="llm")
    assert [(r.name, r.dataset_link) for r in records] == [("QuuxSet", "https://quux.example.org/set")]
    recovery = [d["tool"] for d in decisions(events) if d["source"] == "model"]
    assert recovery == ["extract_dataset_names", "extract_references", "search_links"]
    metrics = agent.run_metrics()
    assert metrics["s2.stuck"] == 1 and metrics["s2.recovered"] == 1 and metrics["s2.link_precision"] == 1.0


def test_a_dataset_left_without_a_link_borrows_one_from_an_earlier_paper_marked_as_such(paper_pdf):
    from dsminer.catalog.memory import CorpusMemory, offering
    from tests.catalog.test_entries import record

    memory = CorpusMemory()
    memory.add([record("earlier.pdf", "KelpScenes", link="https://example.org/data/kelpscenes.zip")])
    with offering(memory.view()):
        records, _, events, agent = run_s2(paper_pdf, [BOTH, DETAILS, DETAILS])
    kelp = next(r for r in records if r.name == "KelpScenes")
    assert kelp.dataset_link is None  # the paper gives none
    assert kelp.borrowed_link.url == "https://example.org/data/kelpscenes.zip"
    assert kelp.borrowed_link.source == "earlier.pdf"
    reef = next(r for r in records if r.name == "ReefCount-3k")
    assert reef.dataset_link is not None and reef.borrowed_link is None  # a paper's own link is never replaced
    borrowed = [e for e in events.events if e["kind"] == "link_borrowed"]
    assert [(e["dataset"], e["source"]) for e in borrowed] == [("KelpScenes", "earlier.pdf")]
    metrics = agent.run_metrics()
    assert metrics["s2.recovered_borrowed"] == metrics["s2.recovered"] == 1


def test_the_planner_is_told_what_the_names_step_will_not_read(long_appendix_pdf):
    from dsminer.evidence.context import paper_context
    from dsminer.programs.agent.step_tools import ReadPaper

    ws = workspace(long_appendix_pdf)
    ws.view = ReadPaper()(ws.paper)
    ws.first_context = paper_context(ws.paper, 40)  # as the parse tool sets it
    state = ws.describe()
    assert "not read by the names step: " in state and "of an appendix" in state
    ws.references = [type("Entry", (), {"urls": ["https://x.example.org"]})(), type("Entry", (), {"urls": []})()]
    assert "1 reference entries with URLs" in ws.describe()


def test_the_planner_is_told_when_the_names_step_reads_all(paper_pdf):
    from dsminer.evidence.context import paper_context
    from dsminer.programs.agent.step_tools import ReadPaper

    ws = workspace(paper_pdf)
    ws.view = ReadPaper()(ws.paper)
    ws.first_context = paper_context(ws.paper, 40)  # as the parse tool sets it
    assert "the names step reads every sentence that may name data" in ws.describe()


def test_the_tools_that_found_what_the_records_hold_become_a_planner_lesson(paper_pdf, tmp_path):
    from dsminer.programs.agent.memory import MemoryStore

    memory = MemoryStore(tmp_path / "memory.jsonl")
    agent = OptimisedAgent(AgentOptions(), memory, planner="deterministic")
    events = EventLog()
    with dspy.context(lm=DummyLM([BOTH, DETAILS, DETAILS])), recording(events):
        agent(paper=parse_pdf(paper_pdf), supplied=SUPPLIED)
    credits = [e for e in events.events if e["kind"] == "tool_credits"][0]["credits"]
    assert credits == {"search_links": ["the link of ReefCount-3k"]}
    lessons = [e for e in memory.long if e.step == "planner"]
    assert [(e.paper, e.lesson) for e in lessons] == [
        ("reef.pdf", "Planner: search_links found the link of ReefCount-3k in an earlier paper.")]
    assert memory.retrieve("planner", []) == lessons  # proven: what it names is in a record
