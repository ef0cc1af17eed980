"""Fitting the sentence ranker on papers whose datasets are known, and measuring what it puts in the names context.

A sentence is labelled by whether it writes a name (or alias) of one of its paper's gold datasets. The strength of
the regularisation is chosen by what matters: the share of each corpus's used and created gold datasets that the
names context holds when the ranker was fitted without that corpus (with one corpus, without a fifth of its
papers)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence

from dsminer.document.pdf import ParsedPaper
from dsminer.errors import ConfigError
from dsminer.evaluation.errors import mentions_any, name_tokens
from dsminer.evaluation.gold import GoldPaper
from dsminer.evidence.context import CONTEXT_CHARS, paper_context
from dsminer.evidence.ranking import SentenceRanker, paper_sentences
from dsminer.mentions.lexicon import DATA_NOUN, PLAIN_WORDS
from dsminer.programs.module_eval import written_name

STRENGTHS = (0.03, 0.1, 0.3, 1.0)  # inverse regularisation strengths tried
MIN_PAPERS = 3  # a word is a feature when at least this many training papers write it
FOLDS = 5  # held-out parts of a single corpus
Corpus = Sequence[tuple[ParsedPaper, GoldPaper]]


def labelled_sentences(paper: ParsedPaper, gold: GoldPaper) -> list[tuple[dict[str, float], bool]]:
    """Each sentence the names step may read, with whether it writes one of the paper's gold datasets."""
    names = [(dataset.name, *dataset.aliases) for dataset in gold.datasets]
    return [(item.features, any(mentions_any(forms, name_tokens(item.sentence.text)) for forms in names))
            for item in paper_sentences(paper)]


def name_words(golds: Sequence[GoldPaper]) -> set[str]:
    """The words of the gold datasets' names that are not data vocabulary ("cohort", "corpus", "the"): never
    features, so the ranker learns how data is written about, not which data."""
    words = {word.casefold() for gold in golds for dataset in gold.datasets
             for name in (dataset.name, *dataset.aliases) for word in re.findall(r"[A-Za-z][A-Za-z-]+", name)}
    return {word for word in words if word not in PLAIN_WORDS and not DATA_NOUN.fullmatch(word)}


def fit(papers: Sequence[tuple[list[tuple[dict[str, float], bool]], GoldPaper]], strength: float,
        min_papers: int = MIN_PAPERS) -> SentenceRanker:
    """A logistic ranker over the labelled sentences of `papers`, classes balanced."""
    weights, intercept, about = fit_logistic(papers, strength, ("w=",), min_papers, "sentences",
                                             "some writing a gold dataset's name and some not")
    return SentenceRanker(weights, intercept, about)


def fit_logistic(papers: Sequence[tuple[list[tuple[dict[str, float], bool]], GoldPaper]], strength: float,
                 word_prefixes: tuple[str, ...], min_papers: int, rows_name: str,
                 both: str) -> tuple[dict[str, float], float, dict]:
    """Weights and intercept of a logistic model over the labelled feature rows of `papers`, classes balanced, and
    what it was fitted on (the rows counted under `rows_name`). A word feature (a name starting with one of
    `word_prefixes`) is kept when at least `min_papers` papers have it and it is no word of a gold dataset's name.
    ValueError, saying the rows need `both` labels, when they lack one."""
    from sklearn.feature_extraction import DictVectorizer
    from sklearn.linear_model import LogisticRegression

    banned = name_words([gold for _, gold in papers])
    writers = Counter(name for rows, _ in papers for name in {n for f, _ in rows for n in f
                                                               if n.startswith(word_prefixes)})
    kept = {name for name, count in writers.items() if count >= min_papers and name[2:] not in banned}
    rows = [({name: value for name, value in features.items() if not name.startswith(word_prefixes) or name in kept},
             label) for items, _ in papers for features, label in items]
    labels = [label for _, label in rows]
    if len(set(labels)) < 2:
        raise ValueError(f"the {rows_name} need both labels: {both}")
    vectorizer = DictVectorizer()
    matrix = vectorizer.fit_transform([features for features, _ in rows])
    model = LogisticRegression(C=strength, class_weight="balanced", max_iter=5000).fit(matrix, labels)
    weights = {name: round(float(weight), 5) for name, weight in zip(vectorizer.get_feature_names_out(),
                                                                      model.coef_[0]) if abs(weight) >= 1e-5}
    return weights, round(float(model.intercept_[0]), 5), {rows_name: len(rows), "positives": sum(labels),
                                                          "strength": strength, "vocabulary": len(kept),
                                                          "min_papers": min_papers}


def context_hits(papers: Corpus, ranker: SentenceRanker | None, context_sentences: int = 40,
                 max_chars: int = CONTEXT_CHARS) -> tuple[int, int]:
    """How many of the papers' used and created gold datasets that the paper writes the names context holds, and
    how many there are (`ranker` None: the active ranker)."""
    hits = total = 0
    for paper, gold in papers:
        context = name_tokens(paper_context(paper, context_sentences, max_chars=max_chars, ranker=ranker).text)
        for dataset in gold.datasets:
            if dataset.is_used and written_name(dataset, paper.text):
                total += 1
                hits += mentions_any((dataset.name, *dataset.aliases), context)
    return hits, total


def fit_ranker(corpora: Mapping[str, Corpus], strengths: Sequence[float] = STRENGTHS, min_papers: int = MIN_PAPERS,
               context_sentences: int = 40) -> SentenceRanker:
    """The ranker fitted on every corpus, at the strength whose held-out rankers put the most gold datasets in the
    names context; `about` gives each held-out part's share at that strength, and the active ranker's beside it."""
    parts = held_out_parts(corpora)
    labelled = {label: [(labelled_sentences(paper, gold), gold) for paper, gold in papers]
                for label, papers in parts.items()}
    shares: dict[float, dict[str, tuple[int, int]]] = {}
    for strength in strengths:
        shares[strength] = {}
        for held, papers in parts.items():
            training = [item for label, items in labelled.items() if label != held for item in items]
            shares[strength][held] = context_hits(papers, fit(training, strength, min_papers), context_sentences)
    best = max(strengths, key=lambda strength: (sum(hits for hits, _ in shares[strength].values()), -strength))
    ranker = fit([item for items in labelled.values() for item in items], best, min_papers)
    before = {held: _active_hits(papers, context_sentences) for held, papers in parts.items()}
    share = (lambda hits, total: round(hits / total, 4) if total else 0.0)
    about = {**ranker.about, "corpora": {label: len(papers) for label, papers in corpora.items()},
             "held_out": {held: {"gold_written": total, "context_share": share(hits, total),
                                 "context_share_before": share(*before[held]) if before[held] else None}
                          for held, (hits, total) in shares[best].items()},
             "held_out_by_strength": {str(strength): share(*map(sum, zip(*by.values())))
                                      for strength, by in shares.items()}}
    return SentenceRanker(ranker.weights, ranker.intercept, about)


def _active_hits(papers: Corpus, context_sentences: int) -> tuple[int, int] | None:
    """`context_hits` under the ranker in use, None when there is none to load."""
    try:
        return context_hits(papers, None, context_sentences)
    except ConfigError:
        return None


def held_out_parts(corpora: Mapping[str, Corpus]) -> dict[str, Corpus]:
    """The parts held out in turn: the corpora, or with one corpus a fifth of its papers each."""
    if len(corpora) > 1:
        return dict(corpora)
    (label, papers), = corpora.items()
    folds = min(FOLDS, len(papers))
    if folds < 2:
        raise ValueError(f"{label}: at least two papers are needed to fit a ranker")
    return {f"{label}#{fold + 1}": papers[fold::folds] for fold in range(folds)}
