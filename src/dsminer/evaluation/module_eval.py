"""Score one step on its own: the dataset-name signature on sentence-level gold, with dspy.Evaluate; the
model-free candidate finder and names context on SciREX documents."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING

import dspy

from dsminer.evaluation.errors import mentions_any, name_tokens
from dsminer.evaluation.gold import judge_keys, name_keys
from dsminer.evaluation.sentence_gold import SentenceExample, micro_scores, score_names
from dsminer.programs.steps import STEP_TOKENS, names_inputs, proposals_of
from dsminer.signatures import ClassifyDatasetNames
from dsminer.tools.candidates import sentence_candidates

if TYPE_CHECKING:
    from dsminer.corpus.scirex import ScirexPaper


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


def score_candidates(docs: Sequence[ScirexPaper], context_sentences: int) -> dict[str, float]:
    """What the names step is given on each document, against its salient datasets that the text names:
    `candidate_coverage` (the share among the candidates), `context_coverage` (the share in the context),
    candidates per document and the share of candidates that are salient (`candidate_precision_strict`) or
    any Material mention (`candidate_precision_lenient`). Model-free."""
    counts: Counter[str] = Counter()
    for doc in docs:
        inputs = names_inputs(doc.paper, context_sentences)
        text, context = name_tokens(doc.paper.text), name_tokens(inputs["context"])
        candidates = name_tokens("\n".join(inputs["candidates"]))
        for dataset in doc.gold.datasets:
            names = (dataset.name, *dataset.aliases)
            if mentions_any(names, text):
                counts["in_text"] += 1
                counts["candidate"] += mentions_any(names, candidates)
                counts["context"] += mentions_any(names, context)
        for name in inputs["candidates"]:
            counts[judge_keys(name_keys(name, ()), doc.gold)[0]] += 1
        counts["candidates"] += len(inputs["candidates"])
    shown = max(counts["candidates"], 1)
    return {"documents": len(docs), "gold_in_text": counts["in_text"],
            "candidate_coverage": round(counts["candidate"] / max(counts["in_text"], 1), 4),
            "context_coverage": round(counts["context"] / max(counts["in_text"], 1), 4),
            "candidates_per_document": round(counts["candidates"] / max(len(docs), 1), 2),
            "candidate_precision_strict": round(counts["correct"] / shown, 4),
            "candidate_precision_lenient": round((counts["correct"] + counts["supported"]) / shown, 4)}
