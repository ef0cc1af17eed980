"""Fitting the candidate ranker on papers whose datasets are known, and measuring what its offer holds.

A phrase is labelled by whether it is one of its paper's gold datasets (any role: the names step is offered what
the paper names, and decides). The strength of the regularisation is chosen by what matters: the share of each
corpus's used and created gold datasets that the finder offers when the ranker was fitted without that corpus
(with one corpus, without a fifth of its papers)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from dsminer.document.pdf import ParsedPaper
from dsminer.evaluation.gold import GoldPaper, name_keys, normalize_name
from dsminer.evidence.candidate_ranker import (
    CandidateRanker,
    Phrase,
    active_candidate_ranker,
    offer_candidates,
    paper_phrases,
    phrase_log_odds,
)
from dsminer.mentions.candidates import MAX_CANDIDATES, cue_sources
from dsminer.programs.module_eval import written_name
from dsminer.programs.ranker_fit import fit_logistic, held_out_parts

STRENGTHS = (0.01, 0.03, 0.1)  # inverse regularisation strengths tried
MIN_PAPERS = 3  # a context word is a feature when at least this many training papers write it
CONTEXT_PREFIXES = ("L=", "R=", "l=", "r=")
Corpus = Sequence[tuple[ParsedPaper, GoldPaper]]
Labelled = list[tuple[dict[str, float], bool]]


@dataclass(frozen=True)
class ReadPaper:
    """A gold paper with its cue sources and phrases, read once for every ranker fitted and scored on it."""

    paper: ParsedPaper
    gold: GoldPaper
    sources: Mapping[str, tuple[str, set[str]]]
    phrases: Sequence[Phrase]

    @classmethod
    def read(cls, paper: ParsedPaper, gold: GoldPaper) -> ReadPaper:
        sources = cue_sources(paper)
        return cls(paper, gold, sources, paper_phrases(paper, sources))

    def labelled(self) -> Labelled:
        """Each name-shaped phrase of the paper with whether it names one of the paper's gold datasets."""
        keys = set().union(*(dataset.keys() for dataset in self.gold.datasets)) if self.gold.datasets else set()
        return [(phrase.features, bool(name_keys(phrase.name) & keys)) for phrase in self.phrases]


def fit(papers: Sequence[tuple[Labelled, GoldPaper]], strength: float, min_papers: int = MIN_PAPERS) -> CandidateRanker:
    """A logistic ranker over the labelled phrases of `papers`, classes balanced."""
    weights, intercept, about = fit_logistic(papers, strength, CONTEXT_PREFIXES, min_papers, "phrases",
                                             "some naming a gold dataset and some not")
    return CandidateRanker(weights, intercept, about)


def offer_hits(papers: Sequence[ReadPaper], ranker: CandidateRanker | None,
               limit: int = MAX_CANDIDATES) -> tuple[int, int, int, int]:
    """How many of the papers' used and created gold datasets that the paper writes the finder offers, how many
    there are, how many names it offers and how many of those name a gold dataset of any role (`ranker` None: the
    finder as it runs)."""
    hits = total = offered = good = 0
    for read in papers:
        found = (read.sources, read.phrases)
        names = {normalize_name(candidate.name)
                 for candidate in offer_candidates(read.paper, limit=limit, ranker=ranker, found=found)}
        keys = [dataset.keys() for dataset in read.gold.datasets]
        offered += len(names)
        good += sum(1 for name in names if any(name in k for k in keys))
        for dataset in read.gold.datasets:
            if dataset.is_used and written_name(dataset, read.paper.text):
                total += 1
                hits += bool(dataset.keys() & names)
    return hits, total, offered, good


def best_strength(shares: Mapping[float, Mapping[str, tuple[int, int, int, int]]]) -> float:
    """The strength whose held-out offers (`offer_hits` per held-out part) hold the most used and created gold
    datasets; at equal counts, the one whose offered names most often name a gold dataset; then the smaller."""
    def merit(strength: float) -> tuple[int, float, float]:
        hits, _, offered, good = (sum(column) for column in zip(*shares[strength].values()))
        return hits, good / offered if offered else 0.0, -strength

    return max(shares, key=merit)


def fit_candidate_ranker(corpora: Mapping[str, Corpus], strengths: Sequence[float] = STRENGTHS,
                         min_papers: int = MIN_PAPERS) -> CandidateRanker:
    """The ranker fitted on every corpus, at the strength whose held-out rankers offer the most used and created gold
    datasets (at equal counts, whose offered names most often name a gold dataset); `about` gives each held-out
    part's share at that strength, and the finder's as it runs beside it."""
    parts, labelled = read_parts(corpora)
    shares: dict[float, dict[str, tuple[int, int, int, int]]] = {}
    for strength in strengths:
        shares[strength] = {}
        for held, papers in parts.items():
            training = [item for label, items in labelled.items() if label != held for item in items]
            shares[strength][held] = offer_hits(papers, fit(training, strength, min_papers))
    best = best_strength(shares)
    ranker = fit([item for items in labelled.values() for item in items], best, min_papers)
    before = {held: offer_hits(papers, active_candidate_ranker()) for held, papers in parts.items()}
    share = (lambda part, whole: round(part / whole, 4) if whole else 0.0)
    about = {**ranker.about, "limit": MAX_CANDIDATES,
             "corpora": {label: len(papers) for label, papers in corpora.items()},
             "held_out": {held: {"gold_written": total, "candidate_share": share(hits, total),
                                 "offered_gold_share": share(good, offered),
                                 "candidate_share_before": share(before[held][0], before[held][1]),
                                 "offered_gold_share_before": share(before[held][3], before[held][2])}
                          for held, (hits, total, offered, good) in shares[best].items()},
             "held_out_by_strength": {str(strength): share(*[sum(column) for column in zip(*by.values())][:2])
                                      for strength, by in shares.items()}}
    return CandidateRanker(ranker.weights, ranker.intercept, about)


def held_out_phrase_scores(corpora: Mapping[str, Corpus], strength: float,
                           min_papers: int = MIN_PAPERS) -> dict[str, dict[str, float]]:
    """Each paper's phrase log-odds (by case-folded phrase, as `phrase_log_odds` gives them) under a ranker fitted
    at `strength` without the paper's corpus (with one corpus, without its fifth of the papers), by paper file: what
    a model that weighs those log-odds is fitted on, so that it learns how far they hold on papers the ranker did
    not see, as on a run's papers."""
    parts, labelled = read_parts(corpora)
    scores: dict[str, dict[str, float]] = {}
    for held, papers in parts.items():
        ranker = fit([item for label, items in labelled.items() if label != held for item in items], strength,
                     min_papers)
        for read in papers:
            scores[read.gold.file] = phrase_log_odds(read.paper, ranker, read.phrases)
    return scores


def read_parts(corpora: Mapping[str, Corpus]) -> tuple[dict[str, list[ReadPaper]],
                                                        dict[str, list[tuple[Labelled, GoldPaper]]]]:
    """The parts held out in turn (`held_out_parts`), each paper read once, and each part's labelled phrases."""
    parts = {label: [ReadPaper.read(paper, gold) for paper, gold in papers]
             for label, papers in held_out_parts(corpora).items()}
    return parts, {label: [(read.labelled(), read.gold) for read in papers] for label, papers in parts.items()}
