"""What the names step names when its context is steered to the gold datasets: the model's share of the recall.

For each paper of a gold corpus the names context is built as a run builds it, once as it is and once with the
paper's used and created gold names (and aliases) as extra keywords, so the sentences that write them rank first.
The model (the run's backend and compiled program) answers the names step on each; the answers are scored against
the gold before the selection (what the model names) and after it (the records, cap as in a run, scored as
`eval-module selection --run` scores a run's recorded answers). If the model
names little more of the gold when the context shows more of it, the model, not what it reads, holds recall back.
Run from the repository root after `make install install-model`, one model job at a time:

    .venv/bin/python benchmarks/names_ceiling.py ../shared/eval/fields-dev/gold.jsonl --out names-ceiling.jsonl

It prints, per context, the gold shown, named and kept, and logs them to MLflow (experiment dsminer-benchmarks).
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

import dspy
from dspy.utils.exceptions import AdapterParseError

from dsminer.backend.adapter import build_adapter
from dsminer.backend.lm import open_backend
from dsminer.cli.eval_module import read_corpus
from dsminer.config import load_settings
from dsminer.evaluation.gold import GoldPaper, judge_keys, name_keys
from dsminer.evidence.context import paper_context
from dsminer.mentions.selection import Proposal
from dsminer.programs.module_eval import score_answers, written_name
from dsminer.programs.registry import build_program
from dsminer.programs.steps import candidate_names_of, proposals_of


def named_gold(proposals: list[Proposal], gold: GoldPaper) -> set[str]:
    """The gold datasets the names step's answer names, before the selection."""
    return {hit.name for proposal in proposals for hit in judge_keys(name_keys(proposal.name), gold)[1]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("gold", help="a gold JSONL file with its PDFs in pdfs/ beside it (FILE or FILE:FIRST-LAST)")
    parser.add_argument("--out", type=Path, help="JSONL of each paper's answers")
    parser.add_argument("--config", type=Path, help="settings file (backend, program, cap)")
    parser.add_argument("--candidates", choices=("finder", "none"), default="finder",
                        help="offer the candidate finder's names, as a run does, or none (the context alone)")
    parser.add_argument("--contexts", default="as run,steered", help="which contexts, comma-separated")
    parser.add_argument("--tracking-uri", default="sqlite:///mlruns/mlflow.db")
    args = parser.parse_args()
    settings = load_settings(args.config)
    label, papers = read_corpus(args.gold)
    program = build_program(settings)
    counts: dict[str, Counter[str]] = {kind: Counter() for kind in args.contexts.split(",")}
    answers: dict[str, dict[str, list[Proposal]]] = {kind: {} for kind in counts}
    out = args.out.open("w", encoding="utf-8") if args.out else None
    written_total = gold_total = 0
    with open_backend(settings.backend) as backend, dspy.context(lm=backend.lm, adapter=build_adapter(settings)):
        for parsed, gold in papers:
            wanted = [d for d in gold.datasets if d.is_used]
            written = [d for d in wanted if written_name(d, parsed.text)]
            steer = [name for d in wanted for name in (d.name, *d.aliases)]
            for context_kind, keywords in (("as run", []), ("steered", steer)):
                if context_kind not in counts:
                    continue
                count = counts[context_kind]
                context = paper_context(parsed, settings.context_sentences, keywords).text
                folded = context.casefold()
                shown = [d for d in written if any(n.casefold() in folded for n in (d.name, *d.aliases))]
                offered = list(candidate_names_of(parsed)) if args.candidates == "finder" else []
                try:
                    proposals = proposals_of(program.names(context=context, candidates=offered))
                except AdapterParseError:  # a malformed answer: no names, as a run's failed step gives
                    proposals = []
                    count["malformed"] += 1
                answers[context_kind][gold.file] = proposals
                count.update(shown=len(shown), named=gold.used_recalled(named_gold(proposals, gold))[1])
                if out is not None:  # written as it goes: a run stopped midway keeps its answers
                    out.write(json.dumps({"file": gold.file, "context": context_kind, "shown": len(shown),
                                          "raw": [{"name": p.name, "kind": p.kind, "role": p.role}
                                                  for p in proposals]}) + "\n")
                    out.flush()
                print(gold.file, context_kind, [p.name for p in proposals], flush=True)
            gold_total, written_total = gold_total + len(wanted), written_total + len(written)
    metrics = {"gold": gold_total, "written": written_total}
    for context_kind, count in counts.items():
        key = context_kind.replace(" ", "_")
        selected = score_answers(papers, answers[context_kind], settings.max_records_per_paper)
        metrics |= {f"{key}.shown": count["shown"], f"{key}.malformed": count["malformed"],
                    f"{key}.named_recall": round(count["named"] / max(1, gold_total), 4),
                    **{f"{key}.{measure}": selected[measure]
                       for measure in ("records", "recall_used", "precision", "role_accuracy")}}
        print(f"{label} {context_kind}: {count['shown']} of {written_total} written used and created gold shown; "
              f"named {metrics[f'{key}.named_recall']}, after the selection recall {selected['recall_used']}, "
              f"precision {selected['precision']}, role accuracy {selected['role_accuracy']} ({selected['records']} "
              f"records) of {gold_total} gold; {count['malformed']} malformed answers")
    if out is not None:
        out.close()
    import mlflow

    mlflow.set_tracking_uri(args.tracking_uri)
    mlflow.set_experiment("dsminer-benchmarks")
    with mlflow.start_run(run_name=f"names-ceiling-{label}"):
        mlflow.log_params({"gold": args.gold, "model": settings.backend.model, "cap": settings.max_records_per_paper,
                           "candidates": args.candidates, "contexts": args.contexts})
        mlflow.log_metrics({k.replace(" ", "_"): float(v) for k, v in metrics.items()})


if __name__ == "__main__":
    main()
