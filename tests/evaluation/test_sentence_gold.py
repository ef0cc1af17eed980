import gzip
import json

import dspy
import pytest
from dspy.utils import DummyLM

from dsminer.errors import GoldFileError
from dsminer.evaluation.sentence_gold import (
    SentenceExample,
    load_sentence_gold,
    micro_scores,
    names_match,
    sample_examples,
    score_names,
)
from dsminer.programs.module_eval import evaluate_name_step


@pytest.mark.parametrize(
    ("predicted", "gold", "expected"),
    [
        ("MPIIGaze", "MPIIGaze dataset", True),
        ("the Foo corpus", "Foo", True),
        ("Penn treebank", "Penn treebank ATIS corpus", True),
        ("AB", "ABC-10", False),
        ("CIFAR-10", "CIFAR-100", True),  # containment: boundaries differ between annotators
        ("Yelp", "IMDB", False),
    ],
)
def test_names_match(predicted, gold, expected):
    assert names_match(predicted, gold) is expected


@pytest.mark.parametrize(
    ("predicted", "gold", "counts"),
    [
        (["Foo", "Bar"], ["Foo dataset"], (1, 1, 0)),
        ([], ["Foo"], (0, 0, 1)),
        (["Foo", "Foo"], ["Foo", "Foo"], (1, 0, 0)),
        (["Foo"], [], (0, 1, 0)),
    ],
)
def test_score_names(predicted, gold, counts):
    assert score_names(predicted, gold) == counts


def test_micro_scores():
    scores = micro_scores([(1, 1, 0), (1, 0, 2)])
    assert scores["precision"] == pytest.approx(2 / 3, abs=1e-4)
    assert scores["recall"] == pytest.approx(0.5)
    assert scores["sentences"] == 2


def write_gold(path, documents):
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        json.dump({"lang": "en", "level": "sentence", "documents": documents}, handle)
    return path


def sentence(text, *spans):
    return {"body_text": [{"text": text, "annotation_spans": [
        {"start": text.index(s), "end": text.index(s) + len(s), "text": s, "type": "dataset_name"} for s in spans]}]}


def test_load_and_sample(tmp_path):
    path = write_gold(tmp_path / "gold.json.gz", [sentence("We use the Foo corpus.", "Foo corpus"),
                                                  sentence("No data here.")])
    examples = load_sentence_gold(path)
    assert examples == [SentenceExample("We use the Foo corpus.", ("Foo corpus",)), SentenceExample("No data here.", ())]
    assert len(sample_examples(examples, 10)) == 2
    many = [SentenceExample(f"Sentence {i}.", ()) for i in range(50)]
    samples = {seed: sample_examples(many, 10, seed=seed) for seed in range(5)}
    assert all(sample_examples(many, 10, seed=seed) == drawn for seed, drawn in samples.items())  # reproducible
    assert len({tuple(drawn) for drawn in samples.values()}) == 5  # the seed decides the sample
    assert {example for drawn in samples.values() for example in drawn} <= set(many)


@pytest.mark.parametrize("content", [b"not json", b'{"documents": []}'])
def test_bad_gold_file(tmp_path, content):
    path = tmp_path / "gold.json"
    path.write_bytes(content)
    with pytest.raises(GoldFileError):
        load_sentence_gold(path)


def test_name_step_scored_with_dspy_evaluate():
    examples = [SentenceExample("We use the Foo corpus.", ("Foo corpus",)),
                SentenceExample("Results on Bar and Baz.", ("Bar", "Baz"))]
    lm = DummyLM([{"names": [{"name": "Foo", "kind": "dataset", "role": "used"}]},
                  {"names": [{"name": "Bar", "kind": "dataset", "role": "used"},
                             {"name": "Qux", "kind": "dataset", "role": "used"},
                             {"name": "BERT", "kind": "model", "role": "used"}]}])
    with dspy.context(lm=lm):
        scores = evaluate_name_step(examples, display_progress=False)
    assert (scores["tp"], scores["fp"], scores["fn"]) == (2, 1, 1)
    assert scores["precision"] == pytest.approx(2 / 3, abs=1e-4) and scores["recall"] == pytest.approx(2 / 3, abs=1e-4)
    assert len(lm.history) == 2
