import json
import re

import pytest

from dsminer.errors import ConfigError
from dsminer.mentions.catalog import (
    catalog_names_in,
    catalog_url,
    distinctive_name,
    load_catalog_names,
    load_catalog_urls,
)
from tests.helpers import assert_one_line_error, invoke


@pytest.mark.parametrize(
    ("raw", "name"),
    [
        ("ZAPNet", "ZAPNet"),
        ("QRS-12", "QRS-12"),
        ("Quux Treebank", "Quux Treebank"),
        ("Widget Reviews Dataset", "Widget Reviews"),
        ("WidgetSum: summaries of widget manuals", "WidgetSum"),
        ("Amazon", None),
        ("news articles", None),
        ("More Information Needed", None),
        ("AB", None),
    ],
)
def test_distinctive_name(raw, name):
    assert distinctive_name(raw) == name


def test_load_keeps_dataset_entries_and_skips_bad_lines(tmp_path):
    rows = [{"display": "ZAPNet", "scirex_type": "Material"}, {"display": "Zap Score", "scirex_type": "Metric"},
            {"pretty_name": "Quux Treebank", "hf_id": "quux"}]
    (tmp_path / "a.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\nnot json\n")
    assert load_catalog_names(tmp_path) == {"ZAPNet", "Quux Treebank"}


def test_no_catalogue_is_an_empty_one():
    assert load_catalog_names(None) == frozenset()


@pytest.mark.parametrize(("files", "message"), [
    (None, "is not a folder"),
    ({}, "holds no *.jsonl file"),
    ({"a.jsonl": "not json\n[1, 2]\n"}, "a.jsonl is not a catalogue: no line is a JSON object"),
])
def test_a_catalogue_that_does_not_fit_is_refused_in_one_line(tmp_path, files, message):
    folder = tmp_path / "catalogs"
    if files is not None:
        folder.mkdir()
        for name, text in files.items():
            (folder / name).write_text(text)
    with pytest.raises(ConfigError, match=re.escape(message)):
        load_catalog_names(folder)


def test_run_says_in_one_line_that_a_catalogue_does_not_fit(tmp_path, corpus, monkeypatch):
    monkeypatch.setenv("DSMINER_CATALOG_DIR", str(tmp_path / "nowhere"))
    result = invoke("run", str(corpus), "--api-base", "http://127.0.0.1:9/v1", "--out", str(tmp_path / "out"),
                    "--no-progress")
    assert_one_line_error(result, "is not a folder")


def test_names_in_text_in_order_of_mention():
    text = "We use QRS-12 here. Quux Treebank follows; zapnet in lower case does not count."
    assert catalog_names_in(text, {"ZAPNet", "Quux Treebank", "QRS-12"}) == ["QRS-12", "Quux Treebank"]


@pytest.mark.parametrize(("row", "url"), [
    ({"homepage": "https://quux.example.org/data", "hf_url": "https://hub.example.org/quux"},
     "https://quux.example.org/data"),
    ({"homepage": "[More Information Needed]", "hf_url": "https://hub.example.org/quux"}, "https://hub.example.org/quux"),
    ({"homepage": "[]()", "hf_url": "https://hub.example.org/quux"}, "https://hub.example.org/quux"),
    ({"homepage": "ttp://quux.example.org/"}, None),
    ({"homepage": "N/A"}, None),
    ({}, None),
])
def test_a_catalogue_link_is_a_web_address(row, url):
    assert catalog_url(row) == url


def test_catalogue_links_leave_out_names_given_two_links_and_names_a_plus_folds_away(tmp_path):
    rows = [{"pretty_name": "Quux Treebank", "hf_id": "quux", "homepage": "https://quux.example.org"},
            {"pretty_name": "Zorba Set", "hf_id": "zorba_a", "hf_url": "https://hub.example.org/zorba_a"},
            {"pretty_name": "Zorba Set", "hf_id": "zorba_b", "hf_url": "https://hub.example.org/zorba_b"},
            {"pretty_name": "Quux++", "hf_id": "quuxpp", "homepage": "https://quuxpp.example.org"}]
    (tmp_path / "a.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    urls = load_catalog_urls(tmp_path)
    assert urls["quuxtreebank"] == urls["quux"] == "https://quux.example.org"
    assert "zorbaset" not in urls and urls["zorbaa"] == "https://hub.example.org/zorba_a"
    assert urls["quuxpp"] == "https://quuxpp.example.org"  # by its id; its name would have made "quux" ambiguous
