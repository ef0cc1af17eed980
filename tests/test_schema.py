import pytest
from pydantic import ValidationError

from dsminer.schema import DatasetRecord, Evidence, make_dataset_id, normalize_name


@pytest.mark.parametrize(
    ("left", "right"),
    [
        ("Penguin Sound Corpus", "penguin-sound corpus"),
        ("The Foo Dataset", "foo"),
        ("ABC-10", "abc 10"),
        ("Ｆｕｌｌ width", "full width"),
        ("XY's Reviews", "XY Reviews"),  # a possessive names the same data
        ("XY\u2019s Reviews", "XY Reviews"),
    ],
)
def test_normalize_name_folds_spelling(left, right):
    assert normalize_name(left) == normalize_name(right)


def test_normalize_name_keeps_distinct_names_apart():
    assert normalize_name("ABC-10") != normalize_name("ABC-100")
    assert normalize_name("XYs Reviews") != normalize_name("XY Reviews")


def test_dataset_id_is_stable_and_paper_scoped():
    assert make_dataset_id("a.pdf", "Foo Corpus") == make_dataset_id("a.pdf", "foo")
    assert make_dataset_id("a.pdf", "Foo") != make_dataset_id("b.pdf", "Foo")
    assert make_dataset_id("a.pdf", "Foo").startswith("ds-")


def test_record_has_exactly_the_schema_fields():
    record = DatasetRecord(dataset_id="ds-1", name="Foo", evidence=Evidence(source="a.pdf"))
    assert set(record.model_dump()) == {
        "dataset_id", "name", "aliases", "role", "dataset_describe", "paper_refs", "dataset_link", "platform", "evidence",
        "borrowed_link"}
    assert record.borrowed_link is None
    assert set(record.dataset_describe.model_dump()) == {"content", "type", "domain", "fields"}
    assert set(record.paper_refs.model_dump()) == {
        "title", "authors", "institutions", "venue", "year", "url", "is_fellow"}
    assert record.paper_refs.is_fellow is None
    assert record.platform == "unspecified"


@pytest.mark.parametrize("bad", [{"platform": "Dropbox"}, {"extra": 1}])
def test_record_rejects_unknown_values(bad):
    with pytest.raises(ValidationError):
        DatasetRecord(dataset_id="ds-1", name="Foo", evidence=Evidence(source="a.pdf"), **bad)
