"""The evidence model: features of how a paper writes a name, a logistic fit with a cross-validated threshold,
and its use in the selection."""

from __future__ import annotations

import random

import pytest

from dsminer.mentions.evidence_model import FEATURES, EvidenceModel, NameEvidence, best_threshold, fit_evidence_model
from dsminer.mentions.selection import Proposal, select_datasets


def evidence(support: int, said: bool = True, name: str = "ReefSet", role: str = "used") -> NameEvidence:
    return NameEvidence(name, said, support, mentions=support + 2, body_mentions=support + 1, role=role)


def test_features_say_how_the_paper_writes_the_name():
    features = evidence(3, name="ECG").features()
    assert set(features) == set(FEATURES)
    assert features["acronym"] == 1.0 and features["lower_case"] == 0.0 and features["said_dataset"] == 1.0
    assert evidence(0, name="students", role="mentioned").features()["lower_case"] == 1.0
    assert evidence(0, role="created").features()["role_created"] == 1.0


def test_the_fit_learns_that_data_sentences_make_a_dataset_and_keeps_its_cross_validated_scores():
    rng = random.Random(0)
    examples = [(evidence(rng.randint(1, 6)), True) for _ in range(40)]
    examples += [(evidence(rng.randint(0, 1), said=rng.random() < 0.5, name="students"), False) for _ in range(40)]
    model = fit_evidence_model(examples, about={"runs": ["r1"]})
    assert model.probability(evidence(5)) > model.threshold > model.probability(evidence(0, said=False, name="x y"))
    assert model.fitted["examples"] == 80 and model.fitted["datasets"] == 40 and model.fitted["runs"] == ["r1"]
    assert model.fitted["precision_cv"] > model.fitted["precision_all"] == 0.5
    assert EvidenceModel.from_json(model.to_json()) == model


def test_too_few_examples_of_a_class_cannot_be_fitted():
    with pytest.raises(ValueError, match="too few examples"):
        fit_evidence_model([(evidence(3), True)] * 10 + [(evidence(0), False)] * 2)


def test_a_stored_model_for_other_features_is_refused():
    stored = EvidenceModel((0.0,) * len(FEATURES), (1.0,) * len(FEATURES), (0.0,) * len(FEATURES), 0.0, 0.5).to_json()
    with pytest.raises(ValueError, match="features"):
        EvidenceModel.from_json({**stored, "features": ["mentions"]})


@pytest.mark.parametrize("probabilities, labels, threshold, f1", [
    ([0.9, 0.8, 0.3, 0.2], [True, True, False, False], 0.8, 1.0),
    ([0.9, 0.8, 0.3, 0.2], [True, False, True, False], 0.3, 0.8),
])
def test_the_threshold_maximises_f1(probabilities, labels, threshold, f1):
    found, scores = best_threshold(probabilities, labels)
    assert found == threshold and scores["f1_cv"] == f1


def test_the_selection_drops_a_name_with_weak_evidence_and_ranks_the_rest_by_its_probability():
    sentences = ["We evaluate on the OrcaSet benchmark.", "The OrcaSet test set is small.",
                 "The WhaleBank corpus is used.", "Our Widgetron liked it."]
    weights = [0.0] * len(FEATURES)
    weights[FEATURES.index("data_sentences")] = 3.0
    model = EvidenceModel((0.0,) * len(FEATURES), (1.0,) * len(FEATURES), tuple(weights), -1.0, 0.5)
    proposals = [Proposal("Widgetron"), Proposal("WhaleBank"), Proposal("OrcaSet")]
    selection = select_datasets(proposals, " ".join(sentences), 5, sentences, model)
    assert [d.name for d in selection.chosen] == ["OrcaSet", "WhaleBank"]
    assert selection.dropped == [("Widgetron", "weak evidence (0.27)")]
    assert selection.trust["OrcaSet"] > selection.trust["WhaleBank"] > selection.trust["Widgetron"]


def test_the_candidate_rankers_log_odds_of_a_name_are_a_feature_bounded_and_missing_when_no_phrase_is_read():
    assert evidence(1).features()["no_phrase"] == 1.0 and evidence(1).features()["phrase_log_odds"] == 0.0
    read = NameEvidence("ReefSet", True, 1, 3, 2, "used", phrase_log_odds=-2.5).features()
    assert read["no_phrase"] == 0.0 and read["phrase_log_odds"] == -2.5
    assert NameEvidence("ReefSet", True, 1, 3, 2, "used", phrase_log_odds=40.0).features()["phrase_log_odds"] == 8.0


def test_the_selection_reads_the_best_log_odds_among_a_datasets_names():
    sentences = ["We evaluate on the Orca Sound Set (OSS) benchmark.", "The OSS test set is small.",
                 "Our Widgetron liked it."]
    weights = [0.0] * len(FEATURES)
    weights[FEATURES.index("phrase_log_odds")] = 2.0
    model = EvidenceModel((0.0,) * len(FEATURES), (1.0,) * len(FEATURES), tuple(weights), 0.0, 0.5)
    proposals = [Proposal("Orca Sound Set"), Proposal("OSS"), Proposal("Widgetron")]
    scores = {"orca sound set": -1.0, "oss": 1.5, "widgetron": -3.0}
    selection = select_datasets(proposals, " ".join(sentences), 5, sentences, model, scores)
    (kept,) = selection.chosen
    assert selection.evidence[kept.name].phrase_log_odds == 1.5  # the acronym's, the better of the two
    assert selection.dropped[-1][0] == "Widgetron" and selection.dropped[-1][1].startswith("weak evidence")
