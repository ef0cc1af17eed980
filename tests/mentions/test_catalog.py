import json

import pytest

from dsminer.mentions.catalog import catalog_names_in, distinctive_name, load_catalog_names


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


@pytest.mark.parametrize("directory", [None, "missing"])
def test_no_catalogue_is_an_empty_one(tmp_path, directory):
    assert load_catalog_names(None if directory is None else tmp_path / directory) == frozenset()


def test_names_in_text_in_order_of_mention():
    text = "We use QRS-12 here. Quux Treebank follows; zapnet in lower case does not count."
    assert catalog_names_in(text, {"ZAPNet", "Quux Treebank", "QRS-12"}) == ["QRS-12", "Quux Treebank"]
