import dspy
from dspy.utils import DummyLM

from dsminer.document.pdf import parse_pdf
from dsminer.events import EventLog, recording
from dsminer.programs.steps import NameCheck
from dsminer.programs.workflow import WorkflowExtractor
from dsminer.schema import DatasetRecord, PaperRefs
from tests.helpers import ReadAs

METADATA = {"title": "Learning to Count Reef Fish", "authors": ["Ada Lovelace", "Alan Turing"],
            "institutions": ["Analytical Engines Lab"], "venue": "", "year": "null"}


def details(content: str = "Underwater images with fish counts") -> dict:
    return {"content": content, "data_type": "images", "domain": "marine biology", "data_fields": ["fish count"]}


def names(*found: str, kind: str = "dataset", role: str = "used") -> dict:
    return {"names": [{"name": name, "kind": kind, "role": role} for name in found]}


def decisions(*items: tuple[str, str, str]) -> dict:
    return {"names": [{"name": name, "kind": kind, "role": role} for name, kind, role in items]}


def run_s0(paper_pdf, answers, supplied=None, max_records=5, check=None):
    """S0 on the paper with scripted answers; the check step is `check`, by default one that reads every name as a
    dataset without a call (`ReadAs`)."""
    lm = DummyLM(answers)
    events = EventLog()
    extractor = WorkflowExtractor(max_records=max_records)
    extractor.check = ReadAs() if check is None else check
    with dspy.context(lm=lm):
        with recording(events):
            records = extractor(paper=parse_pdf(paper_pdf), supplied=supplied).records
    return records, lm, events


def user_prompt(entry) -> str:
    return entry["messages"][-1]["content"]


def test_one_call_per_step_and_per_dataset(paper_pdf):
    answers = [METADATA, names("ReefCount-3k", "KelpScenes"), details(), details()]
    records, lm, events = run_s0(paper_pdf, answers)
    assert [r.name for r in records] == ["ReefCount-3k", "KelpScenes"]
    assert len(lm.history) == 4
    assert all(isinstance(r, DatasetRecord) for r in records)
    assert records[0].paper_refs.title == "Learning to Count Reef Fish"
    assert records[0].paper_refs.year is None and records[0].paper_refs.is_fellow is None


def test_a_name_the_check_reads_as_something_else_gives_its_place_to_the_next(paper_pdf):
    check = ReadAs({"ReefCount-3k": "software"})
    records, lm, events = run_s0(paper_pdf, [METADATA, names("ReefCount-3k", "KelpScenes"), details()], max_records=1,
                                 check=check)
    assert [r.name for r in records] == ["KelpScenes"] and len(lm.history) == 3  # no detail call for the software
    assert check.asked == ["ReefCount-3k", "KelpScenes"]
    dropped = [e for e in events.events if e["kind"] == "dropped" and e["step"] == "check"]
    assert [(e["dataset"], e["reason"]) for e in dropped] == [("ReefCount-3k", "read as software")]


def test_the_check_asks_the_model_about_one_name_in_its_sentence(paper_pdf):
    answers = [METADATA, names("KelpScenes"), {"kind": "software"}]
    records, lm, events = run_s0(paper_pdf, answers, check=NameCheck())
    assert records == [] and len(lm.history) == 3
    prompt = user_prompt(lm.history[2])
    assert 'is "KelpScenes" in this text?' in prompt
    assert "on the ReefCount-3k dataset and on the KelpScenes corpus" in prompt
    assert "Answer with one word: dataset, method" in prompt and len(lm.history[2]["messages"]) == 1
    read = [e for e in events.events if e["kind"] == "result" and e["step"] == "check"]
    assert [(e["dataset"], e["read_as"]) for e in read] == [("KelpScenes", "software")]


def test_a_name_read_as_an_organisation_stays_where_the_paper_writes_it_before_its_data(paper_pdf):
    from dsminer.mentions.selection import ChosenDataset
    from dsminer.programs.steps import check_keeps

    text = ("Claims came from Harlow Health (HH) and the Tern Agency. We use the HH outpatient claims data; the Tern "
            "Agency's reports are cited. Counts are in the Moss Bureau database.")
    named = {name: ChosenDataset(name, aliases, "used", 1) for name, aliases in
             (("HH", ()), ("Tern Agency", ()), ("Moss", ("Moss Bureau",)))}
    assert check_keeps("organisation", named["HH"], text) and check_keeps("organisation", named["Moss"], text)
    assert not check_keeps("organisation", named["Tern Agency"], text)  # never written before data of its own
    assert not check_keeps("software", named["HH"], text)  # only an organisation names data by its maker
    assert check_keeps(None, named["Tern Agency"], text) and check_keeps("dataset", named["Tern Agency"], text)
    # in a run: "the ReefCount-3k dataset" is data the paper names by it, whatever the check reads the name as
    check = ReadAs({"ReefCount-3k": "organisation", "KelpScenes": "software"})
    records, _, events = run_s0(paper_pdf, [METADATA, names("ReefCount-3k", "KelpScenes"), details()], check=check)
    assert [r.name for r in records] == ["ReefCount-3k"]
    dropped = [e for e in events.events if e["kind"] == "dropped" and e["step"] == "check"]
    assert [(e["dataset"], e["reason"]) for e in dropped] == [("KelpScenes", "read as software")]


def test_the_check_is_asked_of_an_acronym_with_the_words_the_paper_spells_it_out_as():
    from dsminer.programs.steps import checked_name

    text = ("Counts came from the Tidal Reef Observatory (TRO) and from the kelp monitoring unit (KMU). "
            "We train on ReefCount-3k; TRO counts and KMU logs were added.")
    assert checked_name("TRO", text) == "TRO (Tidal Reef Observatory)"
    assert checked_name("KMU", text) == "KMU (kelp monitoring unit)"
    assert checked_name("ReefCount-3k", text) == "ReefCount-3k"  # not an acronym the paper spells out
    lm = DummyLM([{"kind": "organisation"}])
    with dspy.context(lm=lm):
        assert NameCheck()(text="TRO counts and KMU logs were added.", name=checked_name("TRO", text)).kind == \
            "organisation"
    assert 'is "TRO (Tidal Reef Observatory)" in this text?' in user_prompt(lm.history[0])


def test_a_check_answer_that_is_no_kind_keeps_the_name_and_the_paper_whole(paper_pdf):
    answers = [METADATA, names("KelpScenes"), {"kind": "KelpScenes"}, details()]
    records, _, events = run_s0(paper_pdf, answers, check=NameCheck())
    assert [r.name for r in records] == ["KelpScenes"]
    assert events.counts["parse_failed"] == 0 and events.counts["step_failed"] == 0
    assert [e["read_as"] for e in events.events if e["kind"] == "result" and e["step"] == "check"] == [None]


def test_without_the_check_no_check_call_is_made(paper_pdf):
    lm = DummyLM([METADATA, names("ReefCount-3k"), details()])
    with dspy.context(lm=lm), recording(EventLog()):
        records = WorkflowExtractor(check_names=False)(paper=parse_pdf(paper_pdf)).records
    assert [r.name for r in records] == ["ReefCount-3k"] and len(lm.history) == 3


def test_names_step_is_offered_the_candidates_found_by_code(paper_pdf):
    _, lm, events = run_s0(paper_pdf, [METADATA, names("ReefCount-3k"), details()])
    names_prompt = user_prompt(lm.history[1])
    assert "candidates" in names_prompt and "ReefCount-3k" in names_prompt.split("candidates")[-1]
    shown = [e["text"] for e in events.events if e["kind"] == "names_input"]
    assert len(shown) == 1 and "KelpScenes" in shown[0]


def test_only_names_decided_as_datasets_become_records(paper_pdf):
    answer = decisions(("ReefCount-3k", "dataset", "used"), ("KelpScenes", "model", "used"),
                       ("Alan Turing", "other", "mentioned"))
    records, lm, events = run_s0(paper_pdf, [METADATA, answer, details()])
    assert [r.name for r in records] == ["ReefCount-3k"]
    assert len(lm.history) == 3
    dropped = next(e for e in events.events if e["kind"] == "result" and e["step"] == "names")["dropped"]
    assert {d["name"]: d["reason"] for d in dropped} == {"KelpScenes": "kind model", "Alan Turing": "kind other"}


def test_a_name_the_paper_calls_a_corpus_is_a_dataset_whatever_task_kind_it_was_given(paper_pdf):
    answer = decisions(("ReefCount-3k", "dataset", "used"), ("KelpScenes", "task", "used"))
    records, _, _ = run_s0(paper_pdf, [METADATA, answer, details(), details()])
    assert [r.name for r in records] == ["ReefCount-3k", "KelpScenes"]  # "the KelpScenes corpus"


def test_the_role_is_read_in_the_papers_words_and_recorded(paper_pdf):
    # the model calls ReefCount-3k mentioned, but the paper evaluates on it (and describes it) in its experiments
    answer = decisions(("ReefCount-3k", "dataset", "mentioned"), ("KelpScenes", "dataset", "used"))
    records, _, _ = run_s0(paper_pdf, [METADATA, answer, details()], max_records=1)
    assert [(r.name, r.role) for r in records] == [("ReefCount-3k", "used")]  # two sentences write it as data


def test_a_created_role_the_paper_does_not_support_is_read_as_used(paper_pdf):
    answer = decisions(("KelpScenes", "dataset", "created"), ("ReefCount-3k", "dataset", "used"))
    records, _, _ = run_s0(paper_pdf, [METADATA, answer, details(), details()])
    assert [(r.name, r.role) for r in records] == [("ReefCount-3k", "used"), ("KelpScenes", "used")]


def test_details_read_the_datasets_own_evidence(paper_pdf):
    _, lm, _ = run_s0(paper_pdf, [METADATA, names("KelpScenes", "ReefCount-3k"), details(), details()])
    reef_prompt = next(user_prompt(e) for e in lm.history[2:] if "ReefCount-3k" in user_prompt(e).split("evidence")[0])
    assert "3,000 annotated underwater images" in reef_prompt and "reefcount.example.org" in reef_prompt
    kelp_prompt = next(user_prompt(e) for e in lm.history[2:] if "KelpScenes" in user_prompt(e).split("evidence")[0])
    assert "KelpScenes corpus" in kelp_prompt and "reefcount.example.org" not in kelp_prompt
    assert not any("We study counting" in user_prompt(e) for e in lm.history[2:])


def test_evidence_is_the_page_and_sentence_of_the_name(paper_pdf):
    record = run_s0(paper_pdf, [METADATA, names("ReefCount-3k"), details()])[0][0]
    assert record.evidence.source == "reef.pdf"
    assert record.evidence.page == 1
    assert "ReefCount-3k" in record.evidence.quote


def test_link_comes_from_the_pdf_not_the_model(paper_pdf):
    records, _, _ = run_s0(paper_pdf, [METADATA, names("ReefCount-3k", "KelpScenes"), details(), details()])
    assert records[0].dataset_link == "https://reefcount.example.org/data"
    assert records[0].platform == "other"
    assert records[1].dataset_link is None and records[1].platform == "unspecified"


def test_cap_limits_detail_calls(paper_pdf):
    records, lm, _ = run_s0(paper_pdf, [METADATA, names("ReefCount-3k", "KelpScenes"), details()], max_records=1)
    assert len(records) == 1 and len(lm.history) == 3


def test_names_absent_from_the_paper_or_not_datasets_are_dropped(paper_pdf):
    answers = [METADATA, names("ReefCount-3k", "ImaginaryNet-9", "accuracy", "Lovelace et al., 2020"), details()]
    records, lm, _ = run_s0(paper_pdf, answers)
    assert [r.name for r in records] == ["ReefCount-3k"]
    assert len(lm.history) == 3


def test_supplied_metadata_skips_the_metadata_call(paper_pdf):
    supplied = PaperRefs(title="Supplied Title", authors=["A. Author"], year=2024, is_fellow=True)
    answers = [names("KelpScenes"), details()]
    records, lm, events = run_s0(paper_pdf, answers, supplied=supplied)
    assert len(lm.history) == 2
    assert records[0].paper_refs == supplied
    assert events.counts["metadata_supplied"] == 1


def test_ids_are_stable_across_runs(paper_pdf):
    answers = [METADATA, names("ReefCount-3k", "KelpScenes"), details(), details()]
    first = run_s0(paper_pdf, list(answers))[0]
    second = run_s0(paper_pdf, list(answers))[0]
    assert [r.dataset_id for r in first] == [r.dataset_id for r in second]
    assert len({r.dataset_id for r in first}) == 2


def test_unparseable_step_is_logged_and_the_paper_continues(paper_pdf):
    # The names answer lacks its output field, so the chat adapter and its JSON fallback both fail.
    records, lm, events = run_s0(paper_pdf, [METADATA, {"nothing": "here"}, {"nothing": "here"}])
    assert records == []
    assert events.counts["parse_failed"] == 1
    assert [e["step"] for e in events.events if e["kind"] == "parse_failed"] == ["names"]


def test_names_input_widens_with_its_character_budget(tmp_path):
    from dsminer.programs.steps import names_inputs, shown_text
    from tests.helpers import build_pdf

    sentences = " ".join(f"We evaluate on the Set{i:02d} benchmark with {i} examples." for i in range(80))
    paper = parse_pdf(build_pdf(tmp_path / "long.pdf", ["4 Experiments\n\n" + sentences]))
    narrow = names_inputs(paper, 100, max_chars=1000)
    wide = names_inputs(paper, 100, max_chars=3000)
    assert len(narrow["context"]) < 1200 and 2 * len(narrow["context"]) < len(wide["context"]) < 3600
    assert narrow["candidates"] == wide["candidates"] and "Set00" in shown_text(narrow)


def test_with_check_examples_the_check_is_shown_the_worked_examples_first_in_every_condition(paper_pdf, monkeypatch):
    from dsminer.config import Settings
    from dsminer.programs.agent import controller
    from dsminer.programs.registry import build_program
    from dsminer.signatures import CHECK_EXAMPLES

    answers = [METADATA, names("KelpScenes"), {"kind": "software"}]
    _, lm, _ = run_s0(paper_pdf, answers, check=NameCheck(examples=True))
    messages = lm.history[2]["messages"]
    assert len(messages) == 2 * len(CHECK_EXAMPLES) + 1 and messages[1] == {"role": "assistant", "content": "dataset"}
    assert "ReefWatch survey" in messages[0]["content"] and 'is "KelpScenes" in this text?' in messages[-1]["content"]
    monkeypatch.setattr(controller, "NameCheck", NameCheck)  # the agents' real check step, not the tests' table
    for condition in ("s0", "s1a", "s2"):
        for shown in (False, True):
            program = build_program(Settings(condition=condition, check_examples=shown))
            assert len(program.check.predict.demos) == (len(CHECK_EXAMPLES) if shown else 0), (condition, shown)
