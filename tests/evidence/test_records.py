from pathlib import Path

import pytest

from dsminer.demo import write_sample_papers
from dsminer.document.pdf import parse_pdf
from dsminer.events import EventLog
from dsminer.evidence.records import clean_text, first_url, refs_from_metadata, resolve_link

NIGHT_CALL = "https://huggingface.co/datasets/example-lab/night-call-300"


@pytest.fixture(scope="module")
def birdsong(tmp_path_factory):
    papers = write_sample_papers(Path(tmp_path_factory.mktemp("samples")))
    return parse_pdf(next(p for p in papers if p.name == "sample_birdsong_detection.pdf"))


def test_a_link_tied_to_the_name_wins_over_the_models_pick(birdsong):
    assert resolve_link(birdsong, ["DawnChorus-2k"], NIGHT_CALL, None) == "https://zenodo.org/records/0000042"


@pytest.mark.parametrize(
    ("name", "proposed", "others", "expected", "reason"),
    [
        ("Urban Birdsong Corpus", NIGHT_CALL, ["NightCall-300"], None, "tied to another dataset"),
        ("Urban Birdsong Corpus", NIGHT_CALL, [], None, "not tied to the dataset in the paper"),
        ("Urban Birdsong Corpus", "https://invented.example.com/data", [], None, "not in the paper"),
        ("Urban Birdsong Corpus", "", [], None, None),
        ("night call 300", NIGHT_CALL, [], NIGHT_CALL, None),  # untied, but the URL spells the name
    ],
)
def test_untied_names_keep_only_paper_urls_that_name_them(birdsong, name, proposed, others, expected, reason):
    events = EventLog()
    assert resolve_link(birdsong, [name], proposed, events, other_names=others) == expected
    assert [e["reason"] for e in events.events] == ([reason] if reason else [])


def _one_page(text: str, urls: list[str]):
    from dsminer.document.pdf import PageText, PaperLink, ParsedPaper

    return ParsedPaper(Path("x.pdf"), [PageText(1, text)], [PaperLink(url, 1, None, "text") for url in urls])


@pytest.mark.parametrize(("name", "others", "expected"), [
    ("Owlset", ["Kite Index"], "https://owlset.example.org"),  # the URL spells it
    ("Kite Index", ["Owlset", "OWL Archive"], None),  # each URL tied to it and to another, spelled by the other
    ("OWL Archive", ["Kite Index"], "https://data.owl.example.org/get"),  # its acronym is a part of the URL
    ("Kite Index", [], "https://owlset.example.org"),  # no other dataset of the paper: it is tied to this one
])
def test_a_url_tied_to_two_datasets_goes_with_the_one_it_spells(name, others, expected):
    text = ("We join Owlset and the Kite Index (https://owlset.example.org) for every site.\n\n"
            "The OWL Archive and the Kite Index (https://data.owl.example.org/get) are merged.")
    paper = _one_page(text, ["https://owlset.example.org", "https://data.owl.example.org/get"])
    assert resolve_link(paper, [name], None, None, other_names=others) == expected


@pytest.mark.parametrize(
    ("url", "expected"),
    [("http://arxiv.org/abs/1603.03793v2", True), ("https://arxiv.org/pdf/2010.14678v1.pdf", True),
     ("https://zenodo.org/records/1", False)],
)
def test_arxiv_pages_are_self_links(url, expected):
    from dsminer.evidence.records import is_self_link

    assert is_self_link(url) is expected


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


@pytest.mark.parametrize(
    ("url", "name", "expected"),
    [("https://reefcount.example.org/data", "ReefCount-3k", True),
     ("https://example.org/urban-sounds/data", "Urban Corpus", True),  # "urban" is a distinctive word
     ("https://example.org/corpus/data", "Kelp Corpus", False),
     ("http://www.example.org/news_articles.html", "AG's News", False)],
)
def test_url_names(url, name, expected):
    from dsminer.evidence.records import url_names

    assert url_names(url, [name]) is expected


@pytest.mark.parametrize(("url", "names", "expected"), [
    ("https://lab.example.edu/projects/kelpnli/", ["KelpNLI"], True),
    ("https://kelp.example.edu/data/glove.zip", ["KNLI", "Kelp Natural Inference"], False),  # the host only
    ("https://example.edu/x/inference-sets/", ["KNLI", "Kelp Natural Inference"], True),  # a word in the path
    ("https://example.edu/wb/KNLItest.tgz", ["KNLI"], True),  # a part opens with the acronym
    ("https://papers.example.cc/paper/5071-translating-embeddings", ["MultiKelp"], False),
    ("https://papers.example.cc/paper/5071-multi-relational-reefs", ["MultiKelp", "Multi-Genre Kelp"], False),
    ("https://example.edu/sentiment/", ["SKT", "Stanford Kelp Treebank"], False),  # "treebank" says no which
])
def test_url_spells_for_a_link_lent_to_another_paper(url, names, expected):
    from dsminer.evidence.records import url_spells

    assert url_spells(url, names) is expected
