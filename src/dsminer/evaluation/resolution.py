"""How well the catalogue's resolution groups mentions: pairwise precision and recall on labelled mentions.

A mention is (paper, name, aliases), labelled with the dataset it names; a pair is two mentions from different
papers, the same dataset or not. Three sources:

- SciREX documents (`scirex-text`): one mention per salient dataset of a paper, named by the paper's commonest
  spelling that says which dataset on its own, with as aliases the other spellings of its coreference cluster
  that the paper defines beside that name ("Stanford Natural Language Inference (SNLI)"), as a record's aliases
  are; the clusters also hold other names ("ImageNet" in a PASCAL VOC cluster, "SNLI model"). Labelled by the
  Papers-with-Code name reduced to the dataset: PwC names a leaderboard, a dataset with a setting ("CIFAR-10 (4000
  Labels)", "Set14 - 4x upscaling"), and two PwC names are one dataset when their words before the setting are
  equal. A pair whose PwC names only begin alike ("Cityscapes" and "Cityscapes Labels-to-Photo", "COCO" and "COCO
  Visual Question Answering") is not scored: PwC writes a setting and a dataset built on another alike. A name a
  paper gives two of its salient datasets ("Atari" for two games) is left out: no label can be given to it.
- a gold file whose datasets carry `pwc_id` (`scirex-pdf/gold.jsonl`): the same, from the names the paper writes
  (the gold's aliases, by their count in `material_mentions`; its `name` is the PwC name), with as aliases the
  others that share a word with that name or abbreviate it.
- a gold file without (`fields-dev`): each dataset once with its name and aliases, as the paper that defines
  them, and once per alias alone, as a paper that writes only that spelling; labelled by the gold name's key, so
  two papers' datasets of one name are one dataset.
"""

from __future__ import annotations

import itertools
import json
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from dsminer.catalog.resolution import resolve, spelling, variant_of, version_base
from dsminer.errors import ConfigError
from dsminer.evaluation.gold import ranged_label, ranged_path, take_lines
from dsminer.evaluation.scirex import detokenize, iter_documents
from dsminer.mentions.lexicon import PLAIN_WORDS


@dataclass(frozen=True)
class LabelledMention:
    """A paper's name (and aliases) for a dataset, with the dataset it names."""

    paper: str
    name: str
    aliases: tuple[str, ...]
    label: str


def pwc_dataset(pwc_name: str) -> tuple[str, ...]:
    """A PwC leaderboard name reduced to its dataset's words: the setting after "__" or "_-_" cut."""
    return tuple(re.split(r"__|_-_", pwc_name.lstrip("_"))[0].replace("-", "_").casefold().split("_"))


def same_dataset(one: str, other: str) -> bool | None:
    """Whether two labels name one dataset: equal, or PwC names whose dataset words are equal. None when they cannot
    say: one PwC name's dataset words begin the other's, and PwC writes a dataset's setting ("Cityscapes
    Labels-to-Photo") and a dataset built on another ("COCO Visual Question Answering") alike."""
    if one == other:
        return True
    if not (one.startswith("pwc:") and other.startswith("pwc:")):
        return False
    first, second = pwc_dataset(one[4:]), pwc_dataset(other[4:])
    if first == second:
        return True
    shorter = min(len(first), len(second))
    return None if first[:shorter] == second[:shorter] else False


def versions_of_one(one: str, other: str) -> bool:
    """Whether two different labels are two versions or subsets of one dataset ("SQuAD1.1" and "SQuAD2.0",
    "PASCAL VOC 2007" and "2012"): their dataset words (of a PwC name, see `pwc_dataset`) less the last words of
    version are the same."""
    return _versions(same_dataset(one, other), _label_base(one), _label_base(other))


def _versions(same: bool | None, first: tuple[str, ...], second: tuple[str, ...]) -> bool:
    """Labels that `same_dataset` says differ, with the same version base (see `_label_base`)."""
    return same is False and bool(first) and first == second


def _label_base(label: str) -> tuple[str, ...]:
    return version_base(spelling(" ".join(pwc_dataset(label[4:])) if label.startswith("pwc:") else label))


def related(form: str, name: str) -> bool:
    """Whether a spelling can be the paper's other name for `name`: a shared word that says which data (not
    "news", "test"), or an abbreviation of it."""
    one, other = spelling(form), spelling(name)
    if (set(one.tokens) & set(other.tokens)) - PLAIN_WORDS:
        return True
    return _abbreviates(form, name) or _abbreviates(name, form)


def _abbreviates(short: str, long: str) -> bool:
    letters = [char for char in short.casefold() if char.isalnum()]
    rest = iter(long.casefold())
    return len(letters) >= 2 and long[:1].casefold() == letters[0] and all(char in rest for char in letters)


def _mention_for(paper: str, forms: Counter, label: str, text: str | None = None) -> LabelledMention | None:
    """The mention of one dataset: its commonest distinctive spelling; as aliases, the other spellings the paper
    defines beside it ("Long Name (SHORT)", either way round) when its text is given, else those related to it."""
    names = [form for form, _ in forms.most_common() if spelling(form).distinctive and spelling(form).key]
    if not names:
        return None
    if text is None:
        aliases = tuple(form for form in names[1:] if related(form, names[0]))
    else:
        aliases = tuple(form for form in names[1:] if _defined(names[0], form, text) or _defined(form, names[0], text))
    return LabelledMention(paper, names[0], aliases, label)


def _defined(long: str, short: str, text: str) -> bool:
    return re.search(rf"{re.escape(long)}\s*\(\s*{re.escape(short)}\s*[),;]", text) is not None


def _unambiguous(mentions: list[LabelledMention]) -> list[LabelledMention]:
    """A paper's mentions less those whose name it gives two datasets."""
    names = Counter(spelling(mention.name).key for mention in mentions)
    return [mention for mention in mentions if names[spelling(mention.name).key] == 1]


def scirex_mentions(path: Path) -> list[LabelledMention]:
    """Labelled mentions from SciREX documents (a folder of `*.json` or a `.jsonl` file)."""
    found: list[LabelledMention] = []
    for doc in iter_documents(path):
        words, paper = doc["words"], str(doc["doc_id"])
        text = detokenize(words)
        salient = dict.fromkeys(relation["Material"] for relation in doc.get("n_ary_relations", []))
        mentions = [_mention_for(paper, Counter(detokenize(words[a:b]) for a, b in doc["coref"].get(entity, [])),
                                 f"pwc:{entity}", text) for entity in salient]
        found += _unambiguous([mention for mention in mentions if mention is not None])
    return found


def gold_mentions(rows: Iterable[dict]) -> list[LabelledMention]:
    """Labelled mentions from gold rows: by PwC name where datasets carry `pwc_id`, else by dataset with one
    mention per alias from a paper of its own."""
    found: list[LabelledMention] = []
    for row in rows:
        paper, mentions = row["file"], []
        written = row.get("material_mentions") or {}
        for dataset in row["datasets"]:
            if dataset.get("pwc_id"):
                forms = Counter({alias: written.get(alias, 1) for alias in dataset.get("aliases", [])})
                forms = forms if any(spelling(form).distinctive for form in forms) else Counter([dataset["name"]])
                mentions.append(_mention_for(paper, forms, f"pwc:{dataset['pwc_id']}"))
                continue
            label = spelling(dataset["name"]).key
            mentions.append(LabelledMention(paper, dataset["name"], tuple(dataset.get("aliases", [])), label))
            found += [LabelledMention(f"{paper}#{number}", alias, (), label)
                      for number, alias in enumerate(dataset.get("aliases", []), 1)]
        found += _unambiguous([mention for mention in mentions if mention is not None])
    return found


def read_labelled(spec: str) -> tuple[str, list[LabelledMention]]:
    """A source named `PATH` or `FILE:FIRST-LAST` (1-based lines of a gold file): its label and its mentions."""
    path, span = ranged_path(spec)
    if not path.exists():
        raise ConfigError(f"{spec}: not found")
    lines = path.read_text(encoding="utf-8").splitlines() if path.is_file() else []
    if path.is_dir() or (lines and "coref" in json.loads(lines[0])):
        return path.name or path.stem, scirex_mentions(path)
    rows = take_lines([json.loads(line) for line in lines if line.strip()], span, spec)
    label = ranged_label(path, span)
    return label, gold_mentions(rows)


def pair_scores(mentions: Sequence[LabelledMention], with_aliases: bool = True,
                wrong: list[dict[str, str]] | None = None) -> dict[str, float]:
    """Resolve the mentions and score every pair from two papers whose labels say same or different: precision,
    recall, F1 and the counts; and the same without the pairs of a name and its version or subset ("X", "X v2"),
    which the catalogue links by `variant_of` and never joins, whatever their labels. Each wrongly joined or
    wrongly separated pair is appended to `wrong` when given."""
    groups = resolve([(m.name, m.aliases if with_aliases else (), m.paper) for m in mentions]).groups
    group_of = {index: number for number, group in enumerate(groups) for index in group}
    spelled = [spelling(mention.name) for mention in mentions]
    bases = [_label_base(mention.label) for mention in mentions]
    counts: Counter[str] = Counter()
    for one, other in itertools.combinations(range(len(mentions)), 2):
        first, second = mentions[one], mentions[other]
        if first.paper == second.paper:
            continue
        same = same_dataset(first.label, second.label)
        if same is None:
            counts["unscored"] += 1
            continue
        joined = group_of[one] == group_of[other]
        outcome = "tp" if same and joined else "fp" if joined else "fn" if same else "tn"
        counts[outcome] += 1
        if (variant_of(spelled[one], spelled[other]) or variant_of(spelled[other], spelled[one])
                or _versions(same, bases[one], bases[other])):
            counts[f"variant_{outcome}"] += 1
        if wrong is not None and outcome in ("fp", "fn"):
            wrong.append({"error": "wrongly joined" if joined else "wrongly apart", "first": first.name,
                          "first_label": first.label, "second": second.name, "second_label": second.label})
    scores = _pair_measures(*(counts[key] for key in ("tp", "fp", "fn")))
    without = _pair_measures(*(counts[key] - counts[f"variant_{key}"] for key in ("tp", "fp", "fn")))
    return {**scores, "without_variants.precision": without["precision"], "without_variants.recall": without["recall"],
            "mentions": float(len(mentions)), "same_pairs": float(counts["tp"] + counts["fn"]),
            "different_pairs": float(counts["fp"] + counts["tn"]), "wrongly_joined": float(counts["fp"]),
            "wrongly_apart": float(counts["fn"]), "unscored_pairs": float(counts["unscored"]),
            "variant_pairs": float(sum(counts[f"variant_{key}"] for key in ("tp", "fp", "fn", "tn")))}


def _pair_measures(tp: int, fp: int, fn: int) -> dict[str, float]:
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"precision": round(precision, 4), "recall": round(recall, 4), "f1": round(f1, 4)}
