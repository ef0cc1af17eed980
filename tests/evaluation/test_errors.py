import pytest

from dsminer.document.pdf import parse_pdf
from dsminer.evaluation.errors import (
    NamesTrace,
    classify_missed,
    classify_wrong,
    context_coverage,
    error_counts,
    error_rows,
    errors_markdown,
    mentions_any,
    name_tokens,
    names_traces,
)
from dsminer.evaluation.gold import GoldDataset, GoldPaper
from dsminer.evaluation.runs import read_run_dir
from dsminer.schema import DatasetRecord
from tests.helpers import build_pdf

GOLD = [GoldPaper("a.pdf", "A", [GoldDataset("Penn Treebank", ("PTB",)), GoldDataset("OrcaSet-5"),
                                 GoldDataset("Yahoo Answers"), GoldDataset("SQuAD 1.1")],
                  {"WSJ": 3, "Penn Treebank": 1})]


def events(shown: str, proposed: list[dict]) -> list[dict]:
    return [{"paper": "a.pdf", "kind": "names_input", "step": "names", "text": shown},
            {"paper": "a.pdf", "kind": "result", "step": "names", "raw": proposed, "kept": []}]


@pytest.mark.parametrize("names, text, found", [
    (["Yahoo  Answers"], "results on Yahoo! Answers and more", True),
    (["SQuAD1 1"], "we use SQuAD 1.1 here", True),
    (["PTB"], "the PTBX corpus", False),
    (["AG News"], "AG's news", False),
])
def test_mentions_any_matches_whole_token_runs(names, text, found):
    assert mentions_any(names, name_tokens(text)) is found


@pytest.mark.parametrize("dataset, trace, text, expected", [
    (GoldDataset("AG News"), NamesTrace(["AG News here"]), "no such name", "not_in_text"),
    (GoldDataset("Penn Treebank", ("PTB",)), NamesTrace(["other sentences"]), "we use PTB", "not_shown"),
    (GoldDataset("Penn Treebank", ("PTB",)), None, "we use PTB", "not_shown"),
    (GoldDataset("Penn Treebank", ("PTB",)), NamesTrace(["we use PTB"], ["WSJ"]), "we use PTB", "shown_not_named"),
    (GoldDataset("Penn Treebank", ("PTB",)), NamesTrace(["we use PTB"], ["the PTB corpus"]), "we use PTB",
     "named_but_dropped"),
    (GoldDataset("Penn Treebank", ("PTB",)), NamesTrace(["we use PTB"], ["WSJ"]), None, "shown_not_named"),
])
def test_classify_missed(dataset, trace, text, expected):
    tokens = name_tokens(text) if text is not None else None
    assert classify_missed(dataset, trace, tokens) == expected


def record(name: str, aliases: tuple[str, ...] = ()) -> DatasetRecord:
    return DatasetRecord(dataset_id=f"ds-{name}", name=name, aliases=list(aliases),
                         evidence={"source": "a.pdf", "page": 1, "quote": None})


@pytest.mark.parametrize("name, kinds, expected", [
    ("WSJ", {}, "real_dataset_gold_lacks"),
    ("CIFAR-10", {"cifar10": "dataset"}, "real_dataset_gold_lacks"),
    ("Exact Match", {"exactmatch": "metric"}, "metric"),
    ("accuracy", {}, "metric"),
    ("parsing", {}, "task"),
    ("BiLSTM-CRF", {}, "model"),
    ("baseline ensemble", {}, "method"),
    ("Quarterly Report", {}, "other"),
])
def test_classify_wrong(name, kinds, expected):
    assert classify_wrong(record(name), GOLD[0], kinds, None) == expected


def test_a_name_written_only_in_a_table_is_a_table_header(tmp_path):
    pages = ["We train a model on our data.\n\nSetting Alpha 71.2 80.3 66.1 - 54.0 2.1"]
    paper = parse_pdf(build_pdf(tmp_path / "t.pdf", pages))
    assert classify_wrong(record("Setting Alpha"), GOLD[0], {}, paper) == "table_header"
    assert classify_wrong(record("Setting Beta"), GOLD[0], {}, paper) == "other"


def test_error_rows_and_counts_from_a_run(write_run, paper):
    shown = "We evaluate on the Penn Treebank and on Yahoo! Answers. Candidates: OrcaSet-5"
    proposed = [{"name": "Penn Treebank", "kind": "dataset", "role": "used"},
                {"name": "OrcaSet-5", "kind": "dataset", "role": "used"}]
    records = [record("PTB").model_dump(), record("WSJ").model_dump(), record("Mystery").model_dump()]
    run = read_run_dir(write_run("r", records, [paper("a.pdf")], events(shown, proposed)))
    rows = error_rows(run, GOLD, {}, {})
    assert {(r["error"], r["name"], r["class"]) for r in rows} == {
        ("missed", "OrcaSet-5", "named_but_dropped"), ("missed", "Yahoo Answers", "shown_not_named"),
        ("missed", "SQuAD 1.1", "not_shown"), ("wrong", "WSJ", "real_dataset_gold_lacks"),
        ("wrong", "Mystery", "other")}
    counts = error_counts(rows)
    assert counts["missed.not_in_text"] == 0 and counts["wrong.other"] == 1 and sum(counts.values()) == 5
    assert "| missed | named_but_dropped | 1 | OrcaSet-5 |" in errors_markdown(rows, "s0")
    assert context_coverage(run, GOLD) == {"context_coverage": 0.75}


def test_coverage_is_absent_when_the_run_logged_no_names_input(write_run, paper):
    run = read_run_dir(write_run("r", [record("PTB").model_dump()], [paper("a.pdf")], []))
    assert context_coverage(run, GOLD) == {}


def test_traces_gather_every_attempt_of_the_agent():
    log = [{"paper": "a.pdf", "kind": "names_input", "step": "names", "text": "first"},
           {"paper": "a.pdf", "kind": "names_output", "step": "names", "raw": [{"name": "X", "kind": "model"}]},
           {"paper": "a.pdf", "kind": "names_input", "step": "names", "text": "second"},
           {"paper": "a.pdf", "kind": "result", "step": "names", "raw": ["Y"]}]
    trace = names_traces(log)["a.pdf"]
    assert trace.shown == ["first", "second"] and trace.proposed == ["X", "Y"] and trace.kinds == {"X": "model"}
