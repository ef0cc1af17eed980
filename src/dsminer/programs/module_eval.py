"""Score one step on its own: the dataset-name signature on sentence-level gold, with dspy.Evaluate; the
model-free candidate finder and names context on SciREX documents; the model-free selection given the gold
datasets as the names step's answer."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import dspy

from dsminer.document.pdf import ParsedPaper
from dsminer.evaluation.errors import mentions_any, name_tokens
from dsminer.evaluation.gold import GoldDataset, GoldPaper, judge_keys, name_keys, role_verdict
from dsminer.evaluation.sentence_gold import SentenceExample, micro_scores, score_names
from dsminer.mentions.candidates import sentence_candidates
from dsminer.mentions.evidence_model import EvidenceModel, NameEvidence
from dsminer.mentions.names import count_mentions
from dsminer.mentions.selection import Proposal, select_datasets
from dsminer.programs.steps import STEP_TOKENS, evidence_phrase_scores, first_checked, names_inputs, proposals_of
from dsminer.schema import normalize_name
from dsminer.signatures import ClassifyDatasetNames

if TYPE_CHECKING:
    from dsminer.evaluation.scirex import ScirexPaper


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


@dataclass
class SelectionScore:
    """What the selection keeps of one corpus's used and created gold datasets that the paper writes, when the
    names step answers exactly those (kind `dataset`, the gold role, the name as the paper writes it)."""

    papers: int = 0
    written: int = 0
    kept: int = 0
    within_cap: int = 0
    offered: int = 0
    in_context: int = 0
    role_kept: int = 0
    reasons: Counter[str] = field(default_factory=Counter)
    drops: list[dict[str, str]] = field(default_factory=list)

    def metrics(self) -> dict[str, float]:
        share = (lambda part: round(part / self.written, 4) if self.written else 0.0)
        return {"papers": self.papers, "gold_written": self.written, "kept_share": share(self.kept),
                "within_cap_share": share(self.within_cap), "candidate_share": share(self.offered),
                "context_share": share(self.in_context),
                "role_kept_share": round(self.role_kept / self.kept, 4) if self.kept else 0.0,
                **{f"dropped.{reason.replace(' ', '_')}": count for reason, count in sorted(self.reasons.items())}}


def written_name(dataset: GoldDataset, text: str) -> str | None:
    """The gold dataset's name as the paper writes it: its name or the alias the text writes most; None when the
    text writes none of them (a descriptive gold name)."""
    counts = {name: count_mentions(name, text) for name in (dataset.name, *dataset.aliases)}
    best = max(counts, key=lambda name: counts[name], default=None)
    return best if best is not None and counts[best] else None


def score_selection(papers: Sequence[tuple[ParsedPaper, GoldPaper]], cap: int, context_sentences: int = 40,
                    evidence_model: EvidenceModel | None = None) -> SelectionScore:
    """`select_datasets` given each paper's used and created gold datasets that it writes as the names step's
    answer: how many it keeps, how many within `cap`, why it drops the others, and how many of them the
    candidate finder offers and the names step's context holds. Model-free; with an `evidence_model`, the
    selection weighs the answer with it, as a run with its program does."""
    score = SelectionScore()
    for parsed, gold in papers:
        score.papers += 1
        written = [(dataset, name) for dataset in gold.datasets if dataset.is_used
                   for name in [written_name(dataset, parsed.text)] if name]
        proposals = [Proposal(name, "dataset", dataset.role or "used") for dataset, name in written]
        selection = select_datasets(proposals, parsed.text, len(proposals) or 1, parsed.body_sentences(),
                                    evidence_model, evidence_phrase_scores(parsed, evidence_model))
        ranked = [(name_keys(d.name, d.aliases), d.role) for d in selection.chosen]
        reasons = {normalize_name(name): reason for name, reason in selection.dropped}
        inputs = names_inputs(parsed, context_sentences)
        offered = {normalize_name(name) for name in inputs["candidates"]}
        context = name_tokens(inputs["context"])
        for dataset, name in written:
            score.written += 1
            score.offered += bool(dataset.keys() & offered)
            score.in_context += mentions_any((dataset.name, *dataset.aliases), context)
            rank = next((i for i, (keys, _) in enumerate(ranked) if keys & dataset.keys()), None)
            if rank is None:
                reason = reasons.get(normalize_name(name), "merged with another name")
                score.reasons[reason] += 1
                score.drops.append({"file": gold.file, "name": name, "reason": reason})
                continue
            score.kept += 1
            score.within_cap += rank < cap
            score.role_kept += ranked[rank][1] == (dataset.role or "used")
    return score


def recorded_answers(events: Sequence[dict]) -> dict[str, list[Proposal]]:
    """Each paper's last names answer in a run's event log, as proposals."""
    answers: dict[str, list[Proposal]] = {}
    for event in events:
        if event.get("kind") == "result" and event.get("step") == "names" and isinstance(event.get("raw"), list):
            answers[str(event.get("paper"))] = [Proposal(str(item.get("name") or ""), str(item.get("kind") or "other"),
                                                         str(item.get("role") or "used"))
                                                for item in event["raw"] if isinstance(item, dict) and item.get("name")]
    return answers


def recorded_checks(events: Sequence[dict]) -> dict[str, dict[str, str | None]]:
    """What each paper's check step read each dataset name as in a run's event log (its last answer), by paper and
    name: a kind, or None where the check gave no answer."""
    checks: dict[str, dict[str, str | None]] = {}
    for event in events:
        if event.get("kind") == "result" and event.get("step") == "check" and event.get("dataset"):
            read_as = event.get("read_as")
            checks.setdefault(str(event.get("paper")), {})[str(event["dataset"])] = \
                None if read_as is None else str(read_as)
    return checks


def score_answers(papers: Sequence[tuple[ParsedPaper, GoldPaper]], answers: dict[str, list[Proposal]],
                  cap: int, evidence_model: EvidenceModel | None = None,
                  checks: Mapping[str, Mapping[str, str | None]] | None = None) -> dict[str, float]:
    """What the selection makes of the names answers a run recorded, against the gold: the records it would write
    (within `cap`), their precision against the gold (any role) and lenient precision (a material mention the gold
    supports counts too), the recall of the used and created gold datasets and the names step's role accuracy.
    Model-free: it re-reads a run's answers under the current selection, weighed by `evidence_model` if given.
    With `checks` (see `recorded_checks`), a name whose recorded check answer does not keep it (see `check_keeps`)
    is left out and gives its place to the next, as in the run; a name the run never checked stays."""
    counts: Counter[str] = Counter()
    for parsed, gold in papers:
        if gold.file not in answers:
            continue
        counts["papers"] += 1
        selection = select_datasets(answers[gold.file], parsed.text, cap, parsed.body_sentences(), evidence_model,
                                    evidence_phrase_scores(parsed, evidence_model))
        if checks is None:
            chosen = selection.chosen
        else:
            read = checks.get(gold.file, {})
            chosen = first_checked(selection, cap, lambda dataset: read.get(dataset.name), parsed.text)
        found: set[str] = set()
        for dataset in chosen:
            mark, hits = judge_keys(name_keys(dataset.name, dataset.aliases), gold)
            counts["records"] += 1
            counts["correct"] += mark == "correct"
            counts["lenient"] += mark in ("correct", "supported")
            found.update(hit.name for hit in hits)
            checked, right = role_verdict(dataset.role, hits)
            counts["role_checked"] += checked
            counts["role_correct"] += right
        used_gold, used_recalled = gold.used_recalled(found)
        counts["used_gold"] += used_gold
        counts["used_recalled"] += used_recalled
    share = (lambda part, whole: round(counts[part] / counts[whole], 4) if counts[whole] else 0.0)
    return {"papers": counts["papers"], "records": counts["records"], "precision": share("correct", "records"),
            "precision_lenient": share("lenient", "records"), "recall_used": share("used_recalled", "used_gold"),
            "role_accuracy": share("role_correct", "role_checked")}


def evidence_examples(papers: Sequence[tuple[ParsedPaper, GoldPaper]], answers: dict[str, list[Proposal]],
                      phrase_scores: Mapping[str, Mapping[str, float]] | None = None,
                      ) -> list[tuple[NameEvidence, bool]]:
    """Every dataset the selection keeps (with no cap and no evidence model) from a run's recorded names answers,
    with its evidence and whether the gold holds it (a gold dataset, or a material mention the gold supports).
    `phrase_scores`: each paper's phrase log-odds by file (see `held_out_phrase_scores`)."""
    examples = []
    for parsed, gold in papers:
        if gold.file not in answers:
            continue
        selection = select_datasets(answers[gold.file], parsed.text, 1000, parsed.body_sentences(),
                                    phrase_scores=(phrase_scores or {}).get(gold.file))
        for dataset in selection.chosen:
            mark, _ = judge_keys(name_keys(dataset.name, dataset.aliases), gold)
            examples.append((selection.evidence[dataset.name], mark in ("correct", "supported")))
    return examples
