"""How much to trust a name the names step decided is a dataset, given how the paper writes it.

A logistic model over a few features of the paper's evidence and the model's decision, fitted on dev papers
with gold datasets (`fit_evidence_model`, which needs scikit-learn) and stored with the compiled program of the
model whose answers it was fitted on: a stronger model earns a different weight for its own decision. Applying
it is plain arithmetic, so the selection stays model-free and fast.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

FEATURES = ("said_dataset", "data_sentences", "mentions", "body_share", "acronym", "lower_case", "words", "digit",
            "role_created", "role_mentioned", "phrase_log_odds", "no_phrase")
LOG_ODDS_BOUND = 8.0  # a phrase's log-odds is read within +-this


@dataclass(frozen=True)
class NameEvidence:
    """What the paper and the names step say of one dataset (its display name and aliases, merged): `phrase_log_odds`
    is the candidate ranker's log-odds that the phrase is a dataset, read from how the paper writes it and the words
    around it (the best of its names; None when none is a phrase the ranker reads)."""

    name: str
    said_dataset: bool
    data_sentences: int
    mentions: int
    body_mentions: int
    role: str
    phrase_log_odds: float | None = None

    def features(self) -> dict[str, float]:
        words = self.name.split()
        return {
            "said_dataset": float(self.said_dataset),
            "data_sentences": math.log1p(self.data_sentences),
            "mentions": math.log1p(self.mentions),
            "body_share": self.body_mentions / self.mentions if self.mentions else 0.0,
            "acronym": float(len(words) == 1 and re.fullmatch(r"[A-Z][A-Z0-9\-]{1,9}", self.name) is not None),
            "lower_case": float(not re.search(r"[A-Z]", self.name)),
            "words": float(min(len(words), 6)),
            "digit": float(any(c.isdigit() for c in self.name)),
            "role_created": float(self.role == "created"),
            "role_mentioned": float(self.role == "mentioned"),
            "phrase_log_odds": (max(-LOG_ODDS_BOUND, min(LOG_ODDS_BOUND, self.phrase_log_odds))
                                if self.phrase_log_odds is not None else 0.0),
            "no_phrase": float(self.phrase_log_odds is None),
        }


@dataclass(frozen=True)
class EvidenceModel:
    """A fitted logistic model: standardised features, weights, and the probability under which a name is dropped.
    `fitted` says on what, with its cross-validated dev scores."""

    mean: tuple[float, ...]
    scale: tuple[float, ...]
    coef: tuple[float, ...]
    intercept: float
    threshold: float
    features: tuple[str, ...] = FEATURES
    fitted: Mapping[str, Any] = field(default_factory=dict)

    def probability(self, evidence: NameEvidence) -> float:
        """The probability that the name is a dataset the gold holds, given its evidence."""
        values = evidence.features()
        z = self.intercept + sum(w * (values[name] - m) / (s or 1.0)
                                 for name, m, s, w in zip(self.features, self.mean, self.scale, self.coef))
        return 1.0 / (1.0 + math.exp(-max(min(z, 50.0), -50.0)))

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "fitted": dict(self.fitted)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> EvidenceModel:
        """Read a stored model; ValueError when its fields are missing or do not fit the features."""
        features = tuple(data.get("features") or ())
        if features != FEATURES:
            raise ValueError(f"the evidence model's features {list(features)} are not this version's {list(FEATURES)}")
        vectors = [tuple(float(v) for v in data[key]) for key in ("mean", "scale", "coef")]
        if any(len(vector) != len(FEATURES) for vector in vectors):
            raise ValueError("the evidence model's vectors do not have one value per feature")
        return cls(*vectors, float(data["intercept"]), float(data["threshold"]), features,
                   dict(data.get("fitted") or {}))


def fit_evidence_model(examples: Sequence[tuple[NameEvidence, bool]], folds: int = 5, seed: int = 0,
                       about: Mapping[str, Any] | None = None) -> EvidenceModel:
    """Fit the logistic model on (evidence, is a gold dataset) pairs. The threshold is the one that maximises F1 on
    cross-validated probabilities (each example scored by a model fitted without its fold); those dev scores are
    kept in `fitted`. Needs scikit-learn."""
    import numpy as np
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedKFold, cross_val_predict
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    x = np.array([[evidence.features()[name] for name in FEATURES] for evidence, _ in examples])
    y = np.array([bool(label) for _, label in examples])
    if len(set(y)) < 2 or min(y.sum(), (~y).sum()) < folds:
        raise ValueError(f"too few examples of each class to fit ({int(y.sum())} datasets, {int((~y).sum())} others)")
    pipeline = make_pipeline(StandardScaler(), LogisticRegression(C=1.0, max_iter=1000))
    cv = StratifiedKFold(folds, shuffle=True, random_state=seed)
    held_out = cross_val_predict(pipeline, x, y, cv=cv, method="predict_proba")[:, 1]
    threshold, scores = best_threshold(held_out, y)
    pipeline.fit(x, y)
    scaler, logistic = pipeline[0], pipeline[1]
    fitted = {**(about or {}), "examples": len(y), "datasets": int(y.sum()), **scores,
              "brier_cv": round(float(np.mean((held_out - y) ** 2)), 4)}
    return EvidenceModel(tuple(map(float, scaler.mean_)), tuple(map(float, scaler.scale_)),
                         tuple(map(float, logistic.coef_[0])), float(logistic.intercept_[0]), threshold,
                         fitted=fitted)


def best_threshold(probabilities: Sequence[float], labels: Sequence[bool]) -> tuple[float, dict[str, float]]:
    """The probability threshold that maximises F1 of keeping the names at or above it, with its precision, recall
    and F1, and the same figures when every name is kept."""
    pairs = sorted(zip(probabilities, labels), key=lambda pair: -pair[0])
    positives = sum(label for _, label in pairs)
    best = (0.0, 0.0, 0.0, 0.0)  # f1, threshold, precision, recall
    kept = correct = 0
    for probability, label in pairs:
        kept, correct = kept + 1, correct + bool(label)
        precision, recall = correct / kept, correct / positives if positives else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        if f1 > best[0]:
            best = (f1, float(probability), precision, recall)
    everything = positives / len(pairs) if pairs else 0.0
    return best[1], {"f1_cv": round(best[0], 4), "precision_cv": round(best[2], 4), "recall_cv": round(best[3], 4),
                     "precision_all": round(everything, 4)}
