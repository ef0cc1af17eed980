import shutil

import dspy
import pytest
from dspy.utils import DummyLM

from dsminer.config import Settings
from dsminer.document.pdf import parse_pdf
from dsminer.events import EventLog, recording
from dsminer.evidence.candidate_ranker import offer_candidates
from dsminer.programs.agent.controller import AgentOptions, ReflectiveAgent
from dsminer.programs.agent.memory import MemoryStore
from dsminer.programs.registry import build_program
from dsminer.programs.steps import NameCheck
from dsminer.programs.workflow import WorkflowExtractor
from dsminer.schema import PaperRefs

METADATA = {"title": "Learning to Count Reef Fish", "authors": ["Ada Lovelace", "Alan Turing"],
            "institutions": ["Analytical Engines Lab"], "venue": "", "year": "null"}
SUPPLIED = PaperRefs(title="Learning to Count Reef Fish", authors=["Ada Lovelace"])
EVENT_KINDS = {"observation", "thought", "action", "result", "reflection", "retry", "memory_retrieval",
               "memory_injection", "stop"}


def names(*found: str, kind: str = "dataset", role: str = "used") -> dict:
    return {"names": [{"name": name, "kind": kind, "role": role} for name in found]}


def complete(*found: str) -> dict:
    """An answer that also judges the appendix's survey name (not a dataset): nothing the text names is left."""
    answer = names(*found)
    answer["names"].append({"name": "TideLog", "kind": "other", "role": "mentioned"})
    return answer


def details(content: str = "Underwater images with fish counts", data_type: str = "images") -> dict:
    return {"content": content, "data_type": data_type, "domain": "marine biology", "data_fields": ["fish count"]}


def judged(score: float, terms: tuple[str, ...] = ()) -> dict:
    return {"score": score, "risks": ["a dataset may be missing"] if score < 0.6 else [],
            "suggestions": ["read the results"] if score < 0.6 else [], "search_terms": list(terms)}


def run_agent(appendix_pdf, answers, agent=None, supplied=SUPPLIED, **options):
    agent = agent or ReflectiveAgent(AgentOptions(**options))
    lm, events = DummyLM(answers), EventLog()
    with dspy.context(lm=lm):
        with recording(events):
            records = agent(paper=parse_pdf(appendix_pdf), supplied=supplied).records
    return records, lm, events, agent


def of_kind(events, kind, step=None):
    return [e for e in events.events if e["kind"] == kind and (step is None or e["step"] == step)]


def prompt(entry) -> str:
    return entry["messages"][-1]["content"]


def test_low_quality_names_retry_and_stop_at_the_budget(long_appendix_pdf):
    # The text names two datasets near evaluation cues; every answer finds only one.
    answers = [names("ReefCount-3k")] * 3 + [details()]
    records, lm, events, agent = run_agent(long_appendix_pdf, answers, retry_budget=2)
    assert [r.name for r in records] == ["ReefCount-3k"]
    assert len(lm.history) == 4
    assert [e["attempt"] for e in of_kind(events, "retry", "names")] == [1, 2]
    assert [e["reason"] for e in of_kind(events, "stop", "names")] == ["budget_exhausted"]
    assert agent.counters.retries == 2 and agent.counters.productive_retries == 0
    assert agent.counters.budget_stops == 1


def test_every_retry_changes_its_input(long_appendix_pdf):
    answers = [names("ReefCount-3k")] * 3 + [details()]
    _, lm, _, _ = run_agent(long_appendix_pdf, answers, retry_budget=2)
    name_calls = lm.history[:3]
    assert len({prompt(entry) for entry in name_calls}) == 3
    assert [entry["kwargs"].get("rollout_id") for entry in name_calls] == [None, None, None]  # temperature 0
    assert "Feedback:" in prompt(name_calls[1]) and "Feedback:" not in prompt(name_calls[0])


def test_retries_offer_the_candidates_found_once_for_the_paper(long_appendix_pdf, monkeypatch):
    from dsminer.programs import steps

    found = []

    def counted(*args):
        found.append(args)
        return offer_candidates(*args)

    monkeypatch.setattr(steps, "offer_candidates", counted)
    _, _, events, _ = run_agent(long_appendix_pdf, [names("ReefCount-3k")] * 3 + [details()], retry_budget=2)
    shown = [event["text"].rsplit("Candidates: ", 1)[1] for event in of_kind(events, "names_input")]
    assert len(found) == 1 and len(shown) == 3 and len(set(shown)) == 1 and "ReefCount-3k" in shown[0]


def test_a_retry_has_its_own_rollout_id_when_sampling(long_appendix_pdf):
    agent = ReflectiveAgent(AgentOptions(retry_budget=2))
    lm = DummyLM([names("ReefCount-3k")] * 3 + [details()])
    lm.kwargs["temperature"] = 0.7
    with dspy.context(lm=lm):
        with recording(EventLog()):
            agent(paper=parse_pdf(long_appendix_pdf), supplied=SUPPLIED)
    assert [entry["kwargs"].get("rollout_id") for entry in lm.history[:3]] == [None, 1, 2]


def test_zero_budget_never_retries(paper_pdf):
    _, lm, events, agent = run_agent(paper_pdf, [names("ReefCount-3k"), details()], retry_budget=0)
    assert len(lm.history) == 2
    assert of_kind(events, "retry") == []
    assert of_kind(events, "stop", "names")[0]["reason"] == "budget_exhausted"


def test_retry_that_finds_datasets_is_productive(appendix_pdf):
    answers = [names("ReefCount-3k"), names("KelpScenes"), details(), details()]
    records, lm, events, agent = run_agent(appendix_pdf, answers)
    assert [r.name for r in records] == ["ReefCount-3k", "KelpScenes"]
    assert len(lm.history) == 4
    assert agent.counters.retries == 1 and agent.counters.productive_retries == 1
    outcome = of_kind(events, "retry_outcome", "names")[0]
    assert outcome["productive"] is True and outcome["added"] == 1
    assert of_kind(events, "stop", "names")[0]["reason"] == "quality_met"


def test_a_names_retry_reads_only_what_no_attempt_read(long_appendix_pdf, cue_ranker):
    answers = [names("ReefCount-3k")] * 3 + [details()]
    _, _, events, _ = run_agent(long_appendix_pdf, answers, retry_budget=2)
    shown = [event["text"] for event in of_kind(events, "names_input")]
    lines = [{line for line in text.split("Candidates:")[0].splitlines() if line.startswith("[p")} for text in shown]
    assert "We evaluate on the ReefCount-3k dataset" in shown[0]
    assert not any("We evaluate on" in text for text in shown[1:])
    assert not lines[0] & lines[1] and not lines[1] & lines[2] and not lines[0] & lines[2]
    assert all(line.startswith("[p2]") or line.startswith("[p3]") for line in lines[1] | lines[2])
    retries = of_kind(events, "retry", "names")
    # The appendix lines write TideLog, a candidate near the text's cues that no answer gave: read as its spellings.
    assert [sorted(r["params"]["evidence"]) for r in retries] == [["spellings"], ["spellings"]]
    outcomes = of_kind(events, "retry_outcome", "names")
    assert [o["evidence"] for o in outcomes] == [r["params"]["evidence"] for r in retries]


def test_a_name_only_unread_text_writes_is_read_by_a_retry_that_adds_it(make_pdf, cue_ranker):
    # Enough cued sentences to fill the first context; the last names a dataset the model has not judged.
    filler = " ".join(f"We evaluate model variant {i} on held-out benchmark splits." for i in range(45))
    text = f"4 Experiments\n\nWe evaluate on the ReefCount-3k benchmark. {filler} Extra counts come from " \
           "CoralWatch data."
    paper = make_pdf("unread.pdf", [text])
    answers = [names("ReefCount-3k"), names("CoralWatch"), details(), details()]
    records, lm, events, agent = run_agent(paper, answers, retry_budget=2)
    assert [r.name for r in records] == ["ReefCount-3k", "CoralWatch"]
    reflection = of_kind(events, "reflection", "names")[0]
    assert "unread_data" in [issue["code"] for issue in reflection["issues"]]
    assert "CoralWatch data." not in prompt(lm.history[0]) and "CoralWatch data." in prompt(lm.history[1])
    assert of_kind(events, "retry_outcome", "names")[0]["productive"] is True
    assert of_kind(events, "stop", "names")[0]["reason"] in ("quality_met", "nothing_unread")


@pytest.mark.parametrize("first, retry, kept", [
    (names("ReefCount-3k"), names("CoralWatch"), ["ReefCount-3k"]),  # only the retry gives it: not written as data
    ({"names": [*names("ReefCount-3k")["names"], *names("CoralWatch", kind="model")["names"]]}, names("CoralWatch"),
     ["ReefCount-3k"]),  # the first called it a model, the retry a dataset
    (names("ReefCount-3k", "CoralWatch"), names("CoralWatch"), ["ReefCount-3k", "CoralWatch"]),  # the first gave it
])
def test_a_name_only_a_retry_calls_a_dataset_stands_where_the_paper_writes_it_as_data(make_pdf, cue_ranker, first,
                                                                                    retry, kept):
    filler = " ".join(f"We evaluate model variant {i} on held-out benchmark splits." for i in range(45))
    text = f"4 Experiments\n\nWe evaluate on the ReefCount-3k benchmark. {filler} Extra counts come from " \
           "TideLog data. We thank CoralWatch for advice."
    paper = make_pdf("unwritten.pdf", [text])
    answers = [first, retry] + [details()] * len(kept)
    records, _, events, _ = run_agent(paper, answers, retry_budget=1)
    assert [r.name for r in records] == kept
    if kept == ["ReefCount-3k"]:
        summary = of_kind(events, "result", "names")[-1]["summary"]
        assert "CoralWatch (only a retry called it a dataset, never written as data)" in summary
        assert of_kind(events, "retry_outcome", "names")[0]["productive"] is False


def test_an_attempt_that_gave_no_answer_leaves_the_next_one_a_first_answer(make_pdf):
    from dsminer.mentions.selection import Proposal
    from dsminer.programs.agent.step_tools import FoundNames

    agent = ReflectiveAgent(AgentOptions())
    paper = parse_pdf(make_pdf("thanks.pdf", ["We evaluate on the ReefCount-3k benchmark. We thank CoralWatch."]))
    view, step = agent.tools.call("parse", paper), agent.steps["names"]
    coral, reef = Proposal("CoralWatch", "dataset", "used"), Proposal("ReefCount-3k", "dataset", "used")
    failed = step.merge(view, FoundNames(), None)
    assert step.merge(view, failed, [coral]).kept == ("CoralWatch",)  # the model decides its first answer
    answered = step.merge(view, FoundNames(), [reef])
    retried = step.merge(view, answered, [coral])
    assert retried.kept == ("ReefCount-3k",)
    assert ("CoralWatch", "only a retry called it a dataset, never written as data") in retried.selection.dropped


def test_a_dataset_earlier_papers_used_that_no_attempt_judged_is_asked_about_on_a_retry(paper_pdf):
    from dsminer.catalog.memory import CorpusMemory, offering
    from tests.catalog.test_entries import record

    memory = CorpusMemory()
    memory.add([record("earlier.pdf", "KelpScenes", link="https://kelp.example.org")])
    with offering(memory.view()):
        records, lm, events, agent = run_agent(paper_pdf, [names("ReefCount-3k"), names("KelpScenes"), details(),
                                                           details()])
    assert [r.name for r in records] == ["ReefCount-3k", "KelpScenes"]
    assert "earlier.pdf" not in prompt(lm.history[0])  # the first attempt is the workflow's call
    assert "Earlier papers of this corpus used KelpScenes" in prompt(lm.history[1])
    assert "KelpScenes corpus" in prompt(lm.history[1])  # its mention, read again
    offered = of_kind(events, "corpus_offered")[0]["datasets"]
    assert offered == [{"name": "KelpScenes", "written": "KelpScenes", "papers": ["earlier.pdf"],
                        "links": ["https://kelp.example.org"]}]
    assert of_kind(events, "retry", "names")[0]["params"]["evidence"] == {"known": 1}
    assert agent.counters.corpus_offered == 1 and agent.counters.productive_retries == 1
    assert records[1].dataset_link is None  # a paper's record keeps the link the paper gives


def test_nothing_left_unread_ends_the_step_without_a_retry(paper_pdf):
    # The one-page paper's context reads every sentence that may name data: a retry would re-ask the same.
    records, lm, events, agent = run_agent(paper_pdf, [names("ReefCount-3k"), details()], retry_budget=2)
    assert [r.name for r in records] == ["ReefCount-3k"] and len(lm.history) == 2
    assert of_kind(events, "stop", "names")[0]["reason"] == "nothing_unread"
    assert agent.counters.retries == 0 and agent.counters.nothing_unread_stops == 1


def test_a_retry_that_changes_nothing_is_not_productive_whatever_its_score(appendix_pdf):
    _, _, events, agent = run_agent(appendix_pdf, [names("ReefCount-3k"), names("ResNet-50"), details()],
                                    retry_budget=1)
    outcome = of_kind(events, "retry_outcome", "names")[0]
    assert outcome["productive"] is False and outcome["added"] == 0
    assert agent.counters.productive_retries == 0


def test_good_first_answer_is_accepted_without_retry(paper_pdf):
    answers = [METADATA, names("ReefCount-3k", "KelpScenes"), details(), details()]
    records, lm, events, agent = run_agent(paper_pdf, answers, supplied=None)
    assert len(records) == 2 and len(lm.history) == 4
    assert records[0].paper_refs.title == METADATA["title"]
    assert agent.counters.retries == 0
    assert {e["reason"] for e in of_kind(events, "stop")} == {"quality_met"}


def test_the_agent_checks_each_kept_name_as_the_workflow_does(paper_pdf):
    agent = ReflectiveAgent(AgentOptions())
    agent.check = NameCheck()  # the real check step, answered by the scripted LM
    answers = [names("ReefCount-3k", "KelpScenes"), {"kind": "dataset"}, {"kind": "software"}, details()]
    records, lm, events, _ = run_agent(paper_pdf, answers, agent=agent)
    assert [r.name for r in records] == ["ReefCount-3k"] and len(lm.history) == 4
    assert 'is "KelpScenes" in this text?' in prompt(lm.history[2])
    dropped = of_kind(events, "dropped", "check")
    assert [(e["dataset"], e["reason"]) for e in dropped] == [("KelpScenes", "read as software")]


def test_an_agent_without_checks_asks_nothing_about_its_names(paper_pdf):
    records, lm, _, _ = run_agent(paper_pdf, [names("ReefCount-3k"), details()], check_names=False)
    assert [r.name for r in records] == ["ReefCount-3k"] and len(lm.history) == 2


def test_names_that_are_models_or_absent_are_not_kept(paper_pdf):
    answers = [names("ReefCount-3k", "KelpScenes", "ResNet-50", "Imaginary-9"), details(), details()]
    records, _, events, _ = run_agent(paper_pdf, answers)
    assert [r.name for r in records] == ["ReefCount-3k", "KelpScenes"]
    codes = [issue["code"] for issue in of_kind(events, "reflection", "names")[0]["issues"]]
    assert codes == ["non_dataset", "not_in_text"]


def test_missing_detail_fields_retry_centred_on_the_dataset(appendix_pdf):
    answers = [complete("ReefCount-3k", "KelpScenes"), details("", ""), details(), details()]
    records, lm, events, agent = run_agent(appendix_pdf, answers)
    assert len(lm.history) == 4
    assert records[0].dataset_describe.content == "Underwater images with fish counts"
    retry = of_kind(events, "retry", "details")[0]
    assert retry["dataset"] == "ReefCount-3k" and retry["params"]["evidence"] == {"mentions": 1}
    assert "ReefCount-3k images of the west reef" in prompt(lm.history[2])  # a mention the first call did not read
    assert "We evaluate on" not in prompt(lm.history[2])
    assert of_kind(events, "retry_outcome", "details")[0]["added"] == 2  # content and type filled
    assert agent.counters.productive_retries == 1


def test_unparseable_metadata_is_retried_with_more_text(appendix_pdf):
    answers = [{"nothing": "here"}] * 4 + [METADATA, names("ReefCount-3k", "KelpScenes"), details(), details()]
    records, _, events, agent = run_agent(appendix_pdf, answers, supplied=None, retry_budget=1)
    assert records[0].paper_refs.title == METADATA["title"]
    assert len(of_kind(events, "answer_retry", "metadata")) == 1  # the guard's one retry of a malformed answer
    retry = of_kind(events, "retry", "metadata")[0]
    assert retry["params"]["max_chars"] > 2500
    assert agent.tools.stats["metadata"].failures == 1 and agent.tools.stats["metadata"].retries == 1


def test_memory_from_one_paper_reaches_a_later_papers_retry_not_its_first_attempt(appendix_pdf, tmp_path):
    second = shutil.copy(appendix_pdf, tmp_path / "second.pdf")
    memory = MemoryStore(tmp_path / "memory.jsonl")
    agent = ReflectiveAgent(AgentOptions(), memory)
    first_answers = [names("ReefCount-3k"), names("KelpScenes"), details(), details()]
    _, first_lm, _, _ = run_agent(appendix_pdf, first_answers, agent)
    assert not any("Lessons from earlier papers" in prompt(call) for call in first_lm.history)  # nothing proven yet
    answers = [names("ReefCount-3k"), names("KelpScenes"), details(), details()]
    _, lm, events, _ = run_agent(second, answers, agent)
    assert "Lessons from earlier papers" not in prompt(lm.history[0])  # the first attempt is the workflow's call
    assert "Lessons from earlier papers" in prompt(lm.history[1])
    assert "missed datasets" in prompt(lm.history[1])
    assert "Lessons from earlier papers" not in prompt(lm.history[2])  # no lesson for details yet
    assert agent.counters.memory_injections == 1 and agent.counters.memory_retrievals == 1
    assert of_kind(events, "memory_injection", "names")[0]["attempt"] == 1
    assert of_kind(events, "memory_retrieval", "names")[-1]["sources"][0]["paper"] == "reef.pdf"


def test_a_lesson_sent_to_a_retry_that_scored_lower_is_retired(appendix_pdf, tmp_path):
    second = shutil.copy(appendix_pdf, tmp_path / "second.pdf")
    memory = MemoryStore(tmp_path / "memory.jsonl")
    agent = ReflectiveAgent(AgentOptions(retry_budget=1), memory)
    run_agent(appendix_pdf, [names("ReefCount-3k"), complete("ReefCount-3k", "KelpScenes"), details(), details()],
              agent)  # the retry raised the score: a proven lesson
    worse = {"names": [{"name": n, "kind": "dataset", "role": "used"}
                       for n in ("ResNet-50", "BERT", "Imaginary-9", "Made-Up-2", "Made-Up-3")]}
    _, lm, events, _ = run_agent(second, [names("ReefCount-3k", "KelpScenes"), worse, details(), details()], agent)
    assert "Lessons from earlier papers" in prompt(lm.history[1])
    retired = of_kind(events, "lesson_retired", "names")
    assert retired and retired[0]["score_after"] < retired[0]["score_before"]
    assert agent.counters.lessons_retired == len(retired[0]["lessons"])
    assert memory.retrieve("names", ["few_datasets"]) == []  # never sent again


def test_a_first_attempt_gets_no_lesson_even_when_memory_holds_one(appendix_pdf, tmp_path):
    second = shutil.copy(appendix_pdf, tmp_path / "second.pdf")
    agent = ReflectiveAgent(AgentOptions(), MemoryStore(tmp_path / "memory.jsonl"))
    run_agent(appendix_pdf, [names("ReefCount-3k"), names("KelpScenes"), details(), details()], agent)
    _, lm, events, _ = run_agent(second, [complete("ReefCount-3k", "KelpScenes"), details(), details()], agent)
    assert not any("Lessons from earlier papers" in prompt(call) for call in lm.history)
    assert of_kind(events, "memory_injection") == [] and of_kind(events, "memory_retrieval") == []


def test_memory_persists_across_runs(appendix_pdf, tmp_path):
    path = tmp_path / "memory.jsonl"
    first = ReflectiveAgent(AgentOptions(), MemoryStore(path))
    run_agent(appendix_pdf, [names("ReefCount-3k"), names("KelpScenes"), details(), details()], first)
    later = ReflectiveAgent(AgentOptions(), MemoryStore(path))
    _, lm, _, _ = run_agent(appendix_pdf, [names("ReefCount-3k"), names("KelpScenes"), details(), details()], later)
    assert "Lessons from earlier papers" in prompt(lm.history[1])


def test_without_memory_nothing_is_retrieved_or_injected(appendix_pdf):
    answers = [names("ReefCount-3k"), names("KelpScenes"), details(), details()]
    _, lm, events, agent = run_agent(appendix_pdf, answers)
    assert of_kind(events, "memory_retrieval") == [] and of_kind(events, "memory_injection") == []
    assert "Lessons from earlier papers" not in prompt(lm.history[-1])
    assert agent.counters.memory_injections == 0


def test_an_attempt_with_nothing_to_remember_is_the_workflows_call(appendix_pdf, tmp_path):
    # An empty memory block is left out, so S1a's first attempts send S0's prompts word for word; a lesson adds it.
    answers = [complete("ReefCount-3k", "KelpScenes"), details(), details()]
    s0_lm = DummyLM(answers)
    with dspy.context(lm=s0_lm):
        with recording(EventLog()):
            WorkflowExtractor(check_names=False)(paper=parse_pdf(appendix_pdf), supplied=SUPPLIED)  # no check yet
    _, lm, _, _ = run_agent(appendix_pdf, answers)
    assert [entry["messages"] for entry in lm.history] == [entry["messages"] for entry in s0_lm.history]
    assert "memory_block" not in str(lm.history[0]["messages"])
    memory = MemoryStore(tmp_path / "memory.jsonl")
    agent = ReflectiveAgent(AgentOptions(), memory)
    run_agent(appendix_pdf, [names("ReefCount-3k"), names("KelpScenes"), details(), details()], agent)
    _, lm, _, _ = run_agent(appendix_pdf, [names("ReefCount-3k"), names("KelpScenes"), details(), details()], agent)
    assert "memory_block" not in str(lm.history[0]["messages"])  # a first attempt is the workflow's call
    assert "memory_block" in str(lm.history[1]["messages"]) and "Lessons from earlier papers" in prompt(lm.history[1])


def conditions(tmp_path, condition, **agent):
    settings = Settings(condition=condition, agent={"memory": False, **agent}, out_dir=tmp_path / "run")
    return build_program(settings)


def test_llm_reflection_runs_in_s1b_and_not_in_s1a(paper_pdf, tmp_path):
    plain = [names("ReefCount-3k", "KelpScenes"), details(), details()]
    _, lm_a, events_a, agent_a = run_agent(paper_pdf, plain, conditions(tmp_path, "s1a"))
    reflective = [names("ReefCount-3k", "KelpScenes"), judged(0.9), details(), judged(0.9), details(), judged(0.8)]
    _, lm_b, events_b, agent_b = run_agent(paper_pdf, reflective, conditions(tmp_path, "s1b"))
    assert len(lm_a.history) == 3 and agent_a.counters.llm_reflections == 0
    assert len(lm_b.history) == 6 and agent_b.counters.llm_reflections == 3
    assert {e["source"] for e in of_kind(events_a, "reflection")} == {"rule"}
    assert {e["source"] for e in of_kind(events_b, "reflection")} == {"llm"}


def test_a_low_model_score_alone_does_not_retry(paper_pdf, tmp_path):
    answers = [names("ReefCount-3k", "KelpScenes"), judged(0.2, ("appendix tables",)), details(), judged(0.9),
               details(), judged(0.9)]
    _, lm, events, agent = run_agent(paper_pdf, answers, conditions(tmp_path, "s1b"))
    assert len(lm.history) == 6 and agent.counters.retries == 0
    first = of_kind(events, "reflection", "names")[0]
    assert first["model_score"] == 0.2 and first["score"] == 1.0


def test_a_rule_retry_carries_the_model_search_terms(appendix_pdf, tmp_path):
    answers = [names("ReefCount-3k"), judged(0.2, ("appendix tables",)), names("ReefCount-3k", "KelpScenes"),
               judged(0.9), details(), judged(0.9), details(), judged(0.9)]
    _, lm, events, agent = run_agent(appendix_pdf, answers, conditions(tmp_path, "s1b"))
    assert len(lm.history) == 8
    retry = of_kind(events, "retry", "names")[0]
    assert "appendix tables" in retry["params"]["keywords"]
    assert "read the results" in prompt(lm.history[2])
    assert agent.counters.productive_retries == 1


@pytest.mark.parametrize(("first_names", "model_calls"), [(("ReefCount-3k", "KelpScenes"), 0), (("ReefCount-3k",), 1)])
def test_selective_reflection_asks_the_model_only_under_the_threshold(appendix_pdf, tmp_path, first_names, model_calls):
    retry = [judged(0.9), complete("ReefCount-3k", "KelpScenes")] if model_calls else []
    answers = [complete(*first_names), *retry, details(), details()]
    records, lm, _, agent = run_agent(appendix_pdf, answers, conditions(tmp_path, "s1a", reflection="selective"))
    assert agent.counters.llm_reflections == model_calls and agent.counters.retries == model_calls
    assert len(lm.history) == 1 + 2 * model_calls + len(records)


def test_the_event_log_holds_each_event_kind(appendix_pdf, tmp_path):
    agent = ReflectiveAgent(AgentOptions(), MemoryStore(tmp_path / "memory.jsonl"))
    _, _, first, _ = run_agent(appendix_pdf, [names("ReefCount-3k"), names("KelpScenes"), details(), details()], agent)
    _, _, second, _ = run_agent(appendix_pdf, [names("ReefCount-3k"), names("KelpScenes"), details(), details()], agent)
    assert EVENT_KINDS <= set(first.counts) | set(second.counts)
    assert all(e["paper"] == "reef.pdf" for e in first.events)


def test_run_metrics_count_reflections_retries_and_tools(appendix_pdf):
    _, lm, _, agent = run_agent(appendix_pdf, [names("ReefCount-3k"), names("KelpScenes"), details(), details()])
    metrics = agent.run_metrics()
    assert metrics["reflections"] == 4 and metrics["retries"] == 1 and metrics["productive_retries"] == 1
    assert metrics["tool.names.calls"] == 2 and metrics["tool.names.retries"] == 1
    assert metrics["tool.details.calls"] == 2 and metrics["tool.parse.calls"] == 1
    assert metrics["tool.metadata.calls"] == 0
    assert sum(metrics[f"tool.{t}.calls"] for t in ("metadata", "names", "details", "reflect")) == len(lm.history)
