"""URL finding and repair, line-end hyphens, sentence splitting and name patterns."""

from __future__ import annotations

import pytest

from dsminer.document.text import dehyphenate, find_urls, name_pattern, split_sentences, within_budget


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("see https://example.org/data.", ["https://example.org/data"]),
        ("code (https://github.com/a/b), data", ["https://github.com/a/b"]),
        ("at http://x.org/a_(b) now", ["http://x.org/a_(b)"]),
        ("visit www.example.com/page; thanks", ["www.example.com/page"]),
        ("https://github.com/some-\nuser/repo is ours", ["https://github.com/some-user/repo"]),
        ("https://example.org/data/\nfile.zip.", ["https://example.org/data/file.zip"]),
        ("https://www.openml.org/d/\n99999", ["https://www.openml.org/d/99999"]),
        ("https://example.org/a?x=\n1&y=2]", ["https://example.org/a?x=1&y=2"]),
        ("see http://example.org.\nThe next sentence", ["http://example.org"]),
        ("at https://a.org/zhihu/.\n3www.b.org", ["https://a.org/zhihu/", "www.b.org"]),
        ("at https://a.org/x/\n2https://b.org", ["https://a.org/x/", "https://b.org"]),
        ("www.cs.\ncmu.edu/data", ["www.cs.cmu.edu/data"]),
        ("ends https://example.org/x\nnext line", ["https://example.org/x"]),
        ("a https://a.org/x b https://a.org/x", ["https://a.org/x"]),
        ("mail me@www.example.com or http://", []),
        ("1https://zenodo.org/record/42\u2020", ["https://zenodo.org/record/42"]),
        ("no links here", []),
        ("its interface (whaletree.org). Next", ["whaletree.org"]),
        ("see kite-of-life.es/map.php, and github.com/a/b", ["kite-of-life.es/map.php", "github.com/a/b"]),
        ("at https://a.org/x and b.com/y", ["https://a.org/x", "b.com/y"]),
        ("data.acme.ac.uk/owl\nis ours", ["data.acme.ac.uk/owl"]),
        ("README.md, run.py, data.csv, e.g. in this, Fig.1, version 1.2.org, me@x.org", []),
    ],
)
def test_find_urls(text: str, expected: list[str]) -> None:
    assert find_urls(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("our exper-\niments", "our experiments"),
        ("state-of-the-\nart", "state-of-the-art"),
        ("Coral-\nScan", "Coral-Scan"),
        ("CoralScan-\n5k", "CoralScan-5k"),
        ("https://a.org/some-\nuser", "https://a.org/some-\nuser"),
        ("a semi-\nsupervised method is semi-supervised", "a semi-supervised method is semi-supervised"),
        ("no break - here", "no break - here"),
    ],
)
def test_dehyphenate(text: str, expected: str) -> None:
    assert dehyphenate(text) == expected


def test_dehyphenate_uses_the_reference_text() -> None:
    assert dehyphenate("human-\ngenerated", reference="labels are human-generated") == "human-generated"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("One here. Two there.", ["One here.", "Two there."]),
        ("We use e.g. gears. Then more.", ["We use e.g. gears.", "Then more."]),
        ("As Smith et al. (2019) show, it works. Yes.", ["As Smith et al. (2019) show, it works.", "Yes."]),
        ("See Fig. 2 and Sec. 3 for details. Next.", ["See Fig. 2 and Sec. 3 for details.", "Next."]),
        ("Accuracy was 91.5 on it. Good.", ["Accuracy was 91.5 on it.", "Good."]),
        ("A sentence\nbroken   over\nlines. Done!", ["A sentence broken over lines.", "Done!"]),
        ("J. Smith wrote it. Fine.", ["J. Smith wrote it.", "Fine."]),
        ("Model AG Yelp P. Yelp F. Yah. A. Amz. P.", ["Model AG Yelp P. Yelp F. Yah. A. Amz. P."]),
        ("3 Experiments\n\nWe evaluate on X.", ["3 Experiments", "We evaluate on X."]),
        ("a long sentence that runs on across a column\n\nbreak into the next block.",
         ["a long sentence that runs on across a column break into the next block."]),
        ("", []),
    ],
)
def test_split_sentences(text: str, expected: list[str]) -> None:
    assert split_sentences(text) == expected


@pytest.mark.parametrize(
    ("name", "text", "found"),
    [
        ("SST", "results on SST and MR", True),
        ("SST", "results on SSTB only", False),
        ("SST", "results on the xSST set", False),
        ("SST", "results on SST-2 only", False),
        ("SST", "results on Yelp-SST only", False),
        ("PTB", "the PTB\u2010XL records", False),  # a Unicode hyphen joins a name as "-" does
        ("XL", "the PTB\u2011XL records", False),
        ("PTB-XL", "the PTB\u2010XL records", True),
        ("SST-2", "results on SST-2, SST-5", True),
        ("CoralScan-5k", "the coralscan 5k images", True),
        ("CoralScan-5k", "the CoralScan-\n5k images", True),
        ("Penn Treebank", "the Penn\nTreebank", True),
        ("Penn Treebank", "the Penn-Treebank", True),
        ("CIFAR-10", "on CIFAR10 and", True),
        ("CIFAR-10", "on CIFAR-100 and", False),
        ("Yelp'13", "Yelp\u201913 reviews", True),
        ("Yelp P.", "on Yelp P. we", True),
    ],
)
def test_name_pattern(name: str, text: str, found: bool) -> None:
    pattern = name_pattern(name)
    assert pattern is not None
    assert bool(pattern.search(text)) is found


def test_a_short_acronym_matches_only_in_capitals() -> None:
    assert name_pattern("IT").search("it is the IT corpus").group() == "IT"
    assert name_pattern("ALL").search("all datasets") is None
    assert name_pattern("SST-2").search("on sst-2") and name_pattern("Snli").search("SNLI")
    assert name_pattern("WN18").search("wn18") is None and name_pattern("SNLI2").search("snli2")


def test_name_pattern_footnote_digit_is_opt_in() -> None:
    assert name_pattern("LexiQA").search("the LexiQA2 set") is None
    assert name_pattern("LexiQA", footnote_digit=True).search("the LexiQA2 set") is not None
    assert name_pattern("  ") is None


@pytest.mark.parametrize(("options", "kept"), [
    ({}, ["aaaa", "bbbb"]),  # 4 + 1 + 4 = 9 fit in 10; the long line stops the rest
    ({"skip": True}, ["aaaa", "bbbb"]),  # "cc" would make 12
    ({"keep_first": True}, ["aaaa", "bbbb"]),
])
def test_within_budget_keeps_lines_in_order_that_fit(options, kept):
    assert within_budget(["aaaa", "bbbb", "cc", "d"], 10, **options) == kept


def test_within_budget_can_skip_a_long_line_or_keep_a_long_first_one():
    lines = ["a" * 20, "bb", "cc"]
    assert within_budget(lines, 10) == []
    assert within_budget(lines, 10, skip=True) == ["bb", "cc"]
    assert within_budget(lines, 10, keep_first=True) == ["a" * 20]
