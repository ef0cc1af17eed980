import dspy
from dspy.utils import DummyLM

from dsminer.programs.workflow import WorkflowExtractor
from dsminer.runlog import EventLog
from dsminer.schema import DatasetRecord, PaperRefs
from dsminer.tools.pdf import parse_pdf

METADATA = {"title": "Learning to Count Reef Fish", "authors": ["Ada Lovelace", "Alan Turing"],
            "institutions": ["Analytical Engines Lab"], "venue": "", "year": "null"}


def details(link: str = "", content: str = "Underwater images with fish counts") -> dict:
    return {"content": content, "data_type": "images", "domain": "marine biology",
            "data_fields": ["fish count"], "link": link}


def run_s0(paper_pdf, answers, supplied=None, max_records=5):
    lm = DummyLM(answers)
    events = EventLog()
    with dspy.context(lm=lm):
        records = WorkflowExtractor(max_records=max_records)(paper=parse_pdf(paper_pdf), supplied=supplied, events=events).records
    return records, lm, events


def test_one_call_per_step_and_per_dataset(paper_pdf):
    answers = [METADATA, {"dataset_names": ["ReefCount-3k", "KelpScenes"]},
               details("https://reefcount.example.org/data"), details()]
    records, lm, events = run_s0(paper_pdf, answers)
    assert [r.name for r in records] == ["ReefCount-3k", "KelpScenes"]
    assert len(lm.history) == 4
    assert all(isinstance(r, DatasetRecord) for r in records)
    assert records[0].paper_refs.title == "Learning to Count Reef Fish"
    assert records[0].paper_refs.year is None and records[0].paper_refs.is_fellow is None


def test_evidence_is_the_page_and_sentence_of_the_name(paper_pdf):
    answers = [METADATA, {"dataset_names": ["ReefCount-3k"]}, details()]
    record = run_s0(paper_pdf, answers)[0][0]
    assert record.evidence.source == "reef.pdf"
    assert record.evidence.page == 1
    assert "ReefCount-3k" in record.evidence.quote


def test_link_kept_only_when_the_paper_contains_it(paper_pdf):
    answers = [METADATA, {"dataset_names": ["ReefCount-3k", "KelpScenes"]},
               details("https://reefcount.example.org/data"), details("https://kelp-invented.example.com/")]
    records, _, events = run_s0(paper_pdf, answers)
    assert records[0].dataset_link == "https://reefcount.example.org/data"
    assert records[0].platform == "other"
    assert records[1].dataset_link is None and records[1].platform == "unspecified"
    rejected = [e for e in events.events if e["kind"] == "link_rejected"]
    assert [e["url"] for e in rejected] == ["https://kelp-invented.example.com/"]


def test_cap_limits_detail_calls(paper_pdf):
    answers = [METADATA, {"dataset_names": ["ReefCount-3k", "KelpScenes"]}, details()]
    records, lm, _ = run_s0(paper_pdf, answers, max_records=1)
    assert len(records) == 1 and len(lm.history) == 3


def test_names_absent_from_the_paper_are_dropped(paper_pdf):
    answers = [METADATA, {"dataset_names": ["ReefCount-3k", "ImaginaryNet-9", "accuracy"]}, details()]
    records, lm, _ = run_s0(paper_pdf, answers)
    assert [r.name for r in records] == ["ReefCount-3k"]
    assert len(lm.history) == 3


def test_supplied_metadata_skips_the_metadata_call(paper_pdf):
    supplied = PaperRefs(title="Supplied Title", authors=["A. Author"], year=2024, is_fellow=True)
    answers = [{"dataset_names": ["KelpScenes"]}, details()]
    records, lm, events = run_s0(paper_pdf, answers, supplied=supplied)
    assert len(lm.history) == 2
    assert records[0].paper_refs == supplied
    assert events.counts["metadata_supplied"] == 1


def test_ids_are_stable_across_runs(paper_pdf):
    answers = [METADATA, {"dataset_names": ["ReefCount-3k", "KelpScenes"]}, details(), details()]
    first = run_s0(paper_pdf, list(answers))[0]
    second = run_s0(paper_pdf, list(answers))[0]
    assert [r.dataset_id for r in first] == [r.dataset_id for r in second]
    assert len({r.dataset_id for r in first}) == 2


def test_unparseable_step_is_logged_and_the_paper_continues(paper_pdf):
    # The names answer lacks its output field, so the chat adapter and its JSON fallback both fail.
    records, lm, events = run_s0(paper_pdf, [METADATA, {"nothing": "here"}, {"nothing": "here"}])
    assert records == []
    assert events.counts["step_failed"] == 1
    assert [e["step"] for e in events.events if e["kind"] == "step_failed"] == ["names"]
