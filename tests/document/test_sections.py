import pytest

from dsminer.document.sections import heading_title, is_data_section, section_titles


@pytest.mark.parametrize("text, title", [
    ("4 Experiments", "Experiments"),
    ("3.2 Datasets and Setup", "Datasets and Setup"),
    ("EXPERIMENTS", "EXPERIMENTS"),
    ("B Appendix: Data", "Appendix: Data"),
    ("4.1 Datasets We evaluate on two corpora.", "Datasets"),
    ("Experimental Setup", "Experimental Setup"),
    ("Introduction", "Introduction"),
    ("Penn Treebank", None),  # capitalised words that are no known section title
    ("We use the data.", None),
    ("Table 2: Results on the test set", None),
])
def test_heading_title(text, title):
    assert heading_title(text) == title


@pytest.mark.parametrize("title, expected", [
    ("Experiments", True), ("Datasets and Setup", True), ("Evaluation", True), ("Appendix: Data", True),
    ("Benchmarks", True), ("Introduction", False), ("Related Work", False), (None, False),
])
def test_is_data_section(title, expected):
    assert is_data_section(title) is expected


def test_section_titles_follow_the_headings():
    sentences = ["Some preamble.", "1 Introduction", "We study X.", "4 Experiments", "We evaluate on Y.", "More."]
    assert section_titles(sentences) == [None, "Introduction", "Introduction", "Experiments", "Experiments",
                                         "Experiments"]


@pytest.mark.parametrize("title, expected", [
    ("Introduction", True), ("Related Work", True), ("Discussion", True), ("Limitations and future work", True),
    ("ACKNOWLEDGMENTS", True), ("Methods", False), ("Datasets", False), ("Results", False), (None, False),
])
def test_is_aside_section(title, expected):
    from dsminer.document.sections import is_aside_section

    assert is_aside_section(title) is expected
