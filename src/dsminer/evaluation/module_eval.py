"""Score one DSPy step on its own: the dataset-name signature on sentence-level gold, with dspy.Evaluate."""

from __future__ import annotations

from collections.abc import Sequence

import dspy

from dsminer.evaluation.sentence_gold import SentenceExample, micro_scores, score_names
from dsminer.programs.steps import STEP_TOKENS, proposals_of
from dsminer.signatures import ClassifyDatasetNames
from dsminer.tools.candidates import sentence_candidates


def _dataset_names(prediction: dspy.Prediction | None) -> list[str]:
    """The names the step decided are datasets."""
    return [p.name for p in proposals_of(prediction) if p.kind == "dataset"]


def sentence_f1(example: dspy.Example, prediction: dspy.Prediction, trace: object = None) -> float:
    """Per-sentence F1 of predicted against gold names (1.0 when both are empty)."""
    tp, fp, fn = score_names(_dataset_names(prediction), example.gold_names)
    if tp + fp + fn == 0:
        return 1.0
    return 2 * tp / (2 * tp + fp + fn)


def evaluate_name_step(examples: Sequence[SentenceExample], display_progress: bool = True) -> dict[str, float]:
    """Run the names step on each sentence as it runs on a paper (the sentence as context, the candidates
    code finds in it) and return micro P/R/F1 of the names it decided are datasets."""
    devset = [dspy.Example(context=f"[p1] {ex.text}", candidates=sentence_candidates(ex.text), gold_names=list(ex.names))
              .with_inputs("context", "candidates") for ex in examples]
    predictor = dspy.Predict(ClassifyDatasetNames, max_tokens=STEP_TOKENS["names"])
    evaluator = dspy.Evaluate(devset=devset, metric=sentence_f1, num_threads=1,
                              display_progress=display_progress, provide_traceback=False)
    result = evaluator(predictor)
    counts = [score_names(_dataset_names(pred), ex.gold_names) for ex, pred, _ in result.results]
    return {**micro_scores(counts), "mean_sentence_f1": round(float(result.score) / 100, 4)}
