import pytest

from dsminer.mentions.benchmarks import BenchmarkCues, find_benchmark_cues
from dsminer.mentions.candidates import candidate_names


@pytest.mark.parametrize(
    ("sentence", "names"),
    [
        ("We evaluate on the FooBench-10 dataset and on the KelpScenes corpus.", ["FooBench-10", "KelpScenes"]),
        ("Results on ABC, XY-5 and QRS are in Table 2.", ["ABC", "XY-5", "QRS"]),
        ("We train on GPUs using Adam and BERT.", []),
        ("The WidgetNet benchmark has 10 classes.", ["WidgetNet"]),
        ("We evaluate on the test set of our own data.", []),
        ("Experiments use a model trained on Wikipedia.", []),
    ],
)
def test_candidate_names(sentence, names):
    assert candidate_names(sentence) == names


def test_cues_of_an_evaluated_paper():
    sentences = ["We evaluate on FooBench-10 and BarSet.", "Table 2: Accuracy of all models.",
                 "Table 3: Ablations.", "The BarSet corpus is small."]
    cues = find_benchmark_cues(sentences)
    assert (cues.result_tables, cues.evaluation_phrases) == (1, 1)
    assert cues.candidates == ("FooBench-10", "BarSet")
    assert cues.expected_datasets() == 2
    assert "result_tables" in cues.tags() and "named_candidates" in cues.tags()


def test_catalogue_names_join_the_candidates_only_when_written_with_their_case():
    sentences = ["We also show samples from Quux Images.", "Our method generalises to quux images as well."]
    assert find_benchmark_cues(sentences, {"Quux Images", "Zed Set"}).candidates == ("Quux Images",)
    assert find_benchmark_cues(sentences[1:], {"Quux Images"}).candidates == ()


@pytest.mark.parametrize(
    ("cues", "expected"),
    [
        (BenchmarkCues(), 0),
        (BenchmarkCues(result_tables=1), 1),
        (BenchmarkCues(evaluation_phrases=3, candidates=("A1", "B2")), 2),
        (BenchmarkCues(candidates=("A1", "B2", "C3", "D4")), 3),
    ],
)
def test_expected_datasets(cues, expected):
    assert cues.expected_datasets() == expected


def test_a_paper_without_cues_is_tagged_so():
    assert BenchmarkCues().tags() == ["no_benchmark_cues"]
