from dsminer.document.pdf import parse_pdf
from dsminer.document.references import extract_references
from dsminer.evidence.grounding import (
    find_sections,
    normalise_records,
    paper_sections,
    search_keywords,
    search_links,
    verify_evidence,
)
from dsminer.schema import DatasetDescribe, DatasetRecord, Evidence, PaperRefs

CITED = (
    "1 Introduction\n\n"
    "We count gears in photographs.\n\n"
    "2 Datasets\n\n"
    "We also train on the QuuxSet collection [1]. We release a new dataset of gear photographs.\n\n"
    "It is available at https://gears.example.org/gear-\ncount.\n\n"
    "References\n\n"
    "[1] J. Smith. Widget photographs for recognition. https://quux.example.org/set\n\n"
    "[2] K. Jones. Springs and gears. Proc. WidgetConf, 2020."
)


def record(name: str, aliases=(), link=None) -> DatasetRecord:
    return DatasetRecord(dataset_id=name, name=name, aliases=list(aliases), dataset_describe=DatasetDescribe(),
                         paper_refs=PaperRefs(), dataset_link=link, evidence=Evidence(source="x.pdf"))


def test_keyword_search_gives_page_and_snippet_outside_the_references(paper_pdf):
    paper = parse_pdf(paper_pdf)
    hits = search_keywords(paper, "QuuxSet")
    assert [(h.page, h.snippet) for h in hits] == [(2, "A pilot study also used QuuxSet for calibration.")]
    assert search_keywords(paper, "bar corpus")[0].page == 1
    assert search_keywords(paper, "Zebra") == [] and search_keywords(paper, " ") == []


def test_sections_are_found_by_heading(paper_pdf):
    paper = parse_pdf(paper_pdf)
    titles = [section.title for section in paper_sections(paper)]
    assert titles[-3:] == ["Introduction", "Data", "Results"]
    data = find_sections(paper, "data")
    assert [s.title for s in data] == ["Data", "Results"]
    assert data[0].sentences[0].text.startswith("We evaluate on the FooBench-10")
    assert [s.page for s in find_sections(paper, "results")] == [2]
    assert find_sections(paper, "Related Work") == []


def test_links_come_from_annotations_broken_footnotes_references_and_availability(paper_pdf, make_pdf):
    paper = parse_pdf(paper_pdf)
    bar = search_links(paper, ["Bar Corpus"])
    assert [(c.url, c.source, c.page) for c in bar] == [("https://github.com/acme/bar-corpus", "annotation", 1)]
    assert [c.url for c in search_links(paper, ["FooBench-10"])] == ["https://example.org/widgets/foobench-10.zip"]
    cited = parse_pdf(make_pdf("cited.pdf", [CITED]))
    references = extract_references(cited)
    quux = search_links(cited, ["QuuxSet"], references=references)
    assert [(c.url, c.source) for c in quux] == [("https://quux.example.org/set", "reference")]
    assert search_links(cited, ["QuuxSet"]) == []  # without the reference list, no link
    gears = search_links(cited, ["GearCount"], created=True)
    assert [(c.url, c.source) for c in gears] == [("https://gears.example.org/gear-count", "availability")]
    # an availability statement counts for a dataset the paper creates; otherwise only the URL spelling the name
    assert [c.source for c in search_links(cited, ["GearCount"])] == ["spelled"]
    assert search_links(cited, ["Gear Photos"], created=True)[0].source == "availability"
    assert search_links(cited, ["Gear Photos"]) == []


def test_the_catalog_offers_a_link_only_when_given(paper_pdf):
    paper = parse_pdf(paper_pdf)
    found = search_links(paper, ["QuuxSet"], catalog_urls={"quuxset": "https://hub.example.org/quuxset"})
    assert [(c.url, c.source) for c in found] == [("https://hub.example.org/quuxset", "catalog")]


def test_evidence_verification_checks_the_name_and_the_link(paper_pdf):
    paper = parse_pdf(paper_pdf)
    bar = verify_evidence(paper, ["Bar Corpus"], "https://github.com/acme/bar-corpus")
    assert bar.found and bar.exact and bar.page == 1 and bar.quote.startswith("The Bar Corpus consists")
    assert bar.link_supported is True and bar.score == 1.0
    wrong = verify_evidence(paper, ["Bar Corpus"], "https://example.com/elsewhere")
    assert wrong.link_supported is False and wrong.score < 1.0
    assert verify_evidence(paper, ["FooBench-10"], None).link_supported is None
    absent = verify_evidence(paper, ["Zebra Set"], None)
    assert not absent.found and absent.page is None and absent.score == 0.0


def test_link_in_a_cited_reference_is_supported(make_pdf):
    cited = parse_pdf(make_pdf("cited.pdf", [CITED]))
    result = verify_evidence(cited, ["QuuxSet"], "https://quux.example.org/set", extract_references(cited))
    assert result.link_supported is True


def test_normalisation_merges_one_datasets_names_and_drops_tools():
    text = "We use CIFAR-10 (CIFAR10 in the tables) and the Stanford Sentiment Treebank (SST), with PyTorch."
    records = [record("CIFAR-10"), record("CIFAR10", link="https://www.cs.toronto.edu/~kriz/cifar.html"),
               record("Stanford Sentiment Treebank"), record("SST"), record("OpenAI Gym library")]
    kept, dropped = normalise_records(records, text)
    assert [(r.name, r.aliases) for r in kept] == [("CIFAR-10", ["CIFAR10"]), ("Stanford Sentiment Treebank", ["SST"])]
    assert kept[0].dataset_link == "https://www.cs.toronto.edu/~kriz/cifar.html"
    assert "tool" in dict(dropped)["OpenAI Gym library"] and dict(dropped)["CIFAR10"] == "same dataset as CIFAR-10"


def test_an_availability_statement_supports_the_link_of_a_dataset_the_paper_creates(make_pdf):
    cited = parse_pdf(make_pdf("cited.pdf", [CITED]))
    url = "https://gears.example.org/gear-count"
    assert verify_evidence(cited, ["Gear Photos"], url, created=True).link_supported is True
    assert verify_evidence(cited, ["Gear Photos"], url).link_supported is False
