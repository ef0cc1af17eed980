from pathlib import Path

import pytest

from dsminer.runlog import EventLog
from dsminer.tools.pdf import parse_pdf
from dsminer.tools.records import clean_text, first_url, refs_from_metadata, resolve_link
from dsminer.tools.sample import write_sample_papers

NIGHT_CALL = "https://huggingface.co/datasets/example-lab/night-call-300"


@pytest.fixture(scope="module")
def birdsong(tmp_path_factory):
    papers = write_sample_papers(Path(tmp_path_factory.mktemp("samples")))
    return parse_pdf(next(p for p in papers if p.name == "sample_birdsong_detection.pdf"))


def test_a_link_tied_to_the_name_wins_over_the_models_pick(birdsong):
    assert resolve_link(birdsong, ["DawnChorus-2k"], NIGHT_CALL, None) == "https://zenodo.org/records/0000042"


def test_a_link_tied_to_another_dataset_is_rejected(birdsong):
    events = EventLog()
    link = resolve_link(birdsong, ["Urban Birdsong Corpus"], NIGHT_CALL, events, other_names=["NightCall-300"])
    assert link is None
    assert [e["reason"] for e in events.events] == ["the paper ties it to another dataset"]


@pytest.mark.parametrize(
    ("proposed", "expected"),
    [(NIGHT_CALL, NIGHT_CALL), ("https://invented.example.com/data", None), ("", None)],
)
def test_untied_names_keep_only_paper_urls(birdsong, proposed, expected):
    assert resolve_link(birdsong, ["Urban Birdsong Corpus"], proposed, None) == expected


@pytest.mark.parametrize(
    ("text", "url"),
    [("https://github.com/a/b, p1", "https://github.com/a/b"), ("The link is not provided.", None),
     ("See https://zenodo.org/records/1.", "https://zenodo.org/records/1")],
)
def test_first_url_from_model_text(text, url):
    assert first_url(text) == url


@pytest.mark.parametrize("value", ["N/A", "not provided in the text", "none", "  ", None])
def test_placeholders_become_none(value):
    assert clean_text(value) is None


def test_refs_keep_supplied_values_and_never_guess_fellowship():
    from dsminer.schema import PaperRefs

    refs = refs_from_metadata("Model Title", ["A"], [], "", "circa 2019", PaperRefs(venue="NeurIPS 2024"))
    assert refs.title == "Model Title" and refs.venue == "NeurIPS 2024" and refs.year == 2019
    assert refs.is_fellow is None
