"""Which name-shaped phrases the names step is offered: every phrase a paper writes in capitals, digits or inner
capitals, ranked by a logistic model fitted on papers whose datasets are known (`dsminer fit-candidates`), so that
no field's way of naming data is a hand-written pattern.

A phrase's features say how it is written (an acronym, a version, words in capitals, ending in a data noun, defined
beside its acronym, cited), how the paper writes about it (its mentions, the sentences that write it as data, the
hand-written cue patterns that find it, the sentence ranker's score of its sentences, where it first occurs) and the
lower-case words right around it ("from X", "X participants", "the X archive"). Names are never features: a word of a
training dataset's name is left out of the vocabulary unless it is data vocabulary."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from dsminer.document.pdf import ParsedPaper
from dsminer.document.text import is_table_row_text
from dsminer.errors import ConfigError
from dsminer.evidence.ranking import LinearScorer, ScorerSlot, active_ranker, paper_sentences
from dsminer.mentions.candidates import (
    MAX_CANDIDATES,
    Candidate,
    cue_sources,
    data_support,
    find_candidates,
    written_lower,
)
from dsminer.mentions.lexicon import (
    DATA_NOUN,
    DATA_NOUN_END,
    LANGUAGE_NAMES,
    LANGUAGE_PAIR,
    NAME_JOINERS,
    NOT_DATASETS,
    PLAIN_WORDS,
)
from dsminer.mentions.names import (
    checked_whole_name,
    count_mentions,
    looks_like_non_dataset,
    mentions_outside,
    problem_in_text,
)

CANDIDATE_RANKER_FILE = Path(__file__).with_name("candidate-ranker.json")
POSITION_BINS = 5
MAX_WORDS = 6  # a longer run of capitalised words is a title or heading, not a name
CONTEXT_WORDS = 3  # lower-case words read on each side of a mention
# The log-odds a phrase must pass to fill the offer. The ranker is fitted with balanced classes, and datasets are
# few among a paper's phrases, so an even score is not good enough. Chosen on the dev corpora's recorded names
# answers: at 1 both the scirex dev half and fields-dev keep their recall and gain precision; at 2 fields-dev loses
# recall.
FILL_LOG_ODDS = 1.0
# A word of a name: capitalised, with an inner capital ("bAbI", "ScPCA"), or letters with digits ("enwik8", "GTEx8");
# inner hyphens, dots and slashes join its parts ("PTB-XL", "GOME-2", "NDBC/CBIBS").
_NAME_WORD = r"(?:[A-Z][\w]*|[a-z]+[A-Z\d][\w]*)(?:[-./][\w]+)*"
# A version or year right after a name word ("CoNLL 2003", "GTEx v8", "SQuAD 2.0"), not a count ("ERA5 2 m").
_VERSION = r"(?:(?:19|20)\d\d|v\d+(?:\.\d+)*|\d+\.\d+)"
# Lower-case words inside a name ("Web of Science", "Centers for Disease Control"), not "and", "on" or "in": they join
# two names or a word of results to a name ("results on X").
_JOINER = r"(?:of|the|for|de|&)"
_RUN = re.compile(rf"(?<![\w\-./])({_NAME_WORD}(?:\s+(?:(?:{_JOINER}\s+)*{_NAME_WORD}|{_VERSION}(?![\w\-])))*)"
                  rf"(?![\w\-])")
_POSSESSIVE_END = re.compile(r"['\u2019]s$")
_LOWER_WORD = re.compile(r"(?<![\w\-])[a-z][a-z\-]+(?![\w\-])")
# A citation right after a name: "[12]", "(Finch et al., 2015)", or numbers as a superscript leaves them ("X 54,55").
_CITATION_AFTER = re.compile(r"\s*(?:\[\d|\(\s*[A-Z][a-z]+(?: et al\.| and | &|,)?[^()]{0,30}\d{4}"
                             r"|\d{1,3}(?:,\d{1,3})*(?=[\s.,;]))")
_OPENING_WORDS = frozenset("As In On For With The Our Both All Each Using From And Or Of To A An This These That Those "
                           "We It Its Their Here There If When While Since After Before However Although Then Thus "
                           "Table Fig Figure Section Appendix Eq Equation".split())

# Opening words that never end a name: a heading run into its section's first sentence ("Datasets We"). "A" and
# "Table" end a few ("IJB-A", "Part A", "NLM Table").
_NEVER_LAST = _OPENING_WORDS - {"A", "An", "Table"}


class CandidateRanker(LinearScorer):
    """Log-odds that a phrase is one of its paper's datasets; `about` says what it was fitted on and how much of each
    held-out corpus's used and created datasets its offer held."""

    kind = "candidate ranker"


@dataclass
class Phrase:
    """A phrase as the paper writes it, with its features gathered over its occurrences."""

    name: str
    features: dict[str, float] = field(default_factory=dict)
    sentences: set[int] = field(default_factory=set)

    def flag(self, name: str) -> None:
        self.features[name] = 1.0


def phrase_runs(sentence: str) -> list[tuple[str, int, int]]:
    """The name-shaped phrases of one sentence as (phrase, start, end): runs of name words, versions and joiners
    ("Web of Science", "Gaia DR3", "GTEx v8"), without the words that open a sentence or clause ("The", "We"), a
    possessive ending ("CPS's"). A first word whose capital may only open the sentence is no phrase alone
    ("Hourly"), and a run it opens is read without it as well ("Hourly ERA5" gives "ERA5" too)."""
    runs = []
    for match in _RUN.finditer(sentence):
        words = match.group(1).split()
        start = match.start(1)
        while words and (words[0] in _OPENING_WORDS or words[0].casefold() in NAME_JOINERS):
            start = sentence.index(words[1], start + len(words[0])) if len(words) > 1 else match.end(1)
            words = words[1:]
        while words and (words[-1] in NAME_JOINERS or words[-1] in _NEVER_LAST):
            words = words[:-1]
        if not words or len(words) > MAX_WORDS:
            continue
        end = start + len(sentence[start:].split(words[-1], 1)[0]) + len(words[-1])
        opening = start == 0 and words[0][1:].islower()  # a capital the sentence's start may have made
        if not opening or len(words) > 1:
            runs.append((_POSSESSIVE_END.sub("", " ".join(words)), start, end))
        if opening:
            rest = words[1:]
            while rest and rest[0].casefold() in NAME_JOINERS:
                rest = rest[1:]
            if rest:
                runs.append((_POSSESSIVE_END.sub("", " ".join(rest)), sentence.index(rest[0], len(words[0])), end))
    return runs


def is_phrase_name(text: str) -> bool:
    """Whether a run can name a dataset at all: letters, not a known non-dataset (hardware, venue, metric, model,
    language, language pair), not a plain number."""
    key = re.sub(r"[^0-9a-z]+", "", text.casefold())
    if len(key) < 2 or not any(c.isalpha() for c in text) or key.isdigit():
        return False
    if text in NOT_DATASETS or text.split()[0] in NOT_DATASETS or key in LANGUAGE_NAMES:
        return False
    if LANGUAGE_PAIR.match(text) or re.fullmatch(r"[A-Z]{2,}s", text):
        return False
    return looks_like_non_dataset(text) is None


def _shape_features(phrase: Phrase) -> None:
    name = phrase.name
    words = name.split()
    phrase.flag(f"words={min(len(words), 3)}")
    if any(c.isdigit() for c in name):
        phrase.flag("shape=digit")
    if re.fullmatch(r"[A-Z0-9\-./]+", name.replace(" ", "")):
        phrase.flag("shape=capitals")
    elif any(re.search(r"[a-z][A-Z]|^[a-z]", word) for word in words):
        phrase.flag("shape=inner_capital")
    elif len(words) == 1:
        phrase.flag("shape=one_word")
    if DATA_NOUN_END.search(name):
        phrase.flag("ends_data_noun")
    if any(c in name for c in "-./"):
        phrase.flag("shape=joined")
    if len(words) > 1 and all(re.fullmatch(r"[A-Z]{3,}", word) for word in words if word not in NAME_JOINERS):
        phrase.flag("shape=capital_words")
    if re.fullmatch(r"[IVX]+", words[-1]):
        phrase.flag("shape=roman")


def _lower_features(phrase: Phrase, lower_words: set[str], text: str) -> None:
    """How much of a phrase of several words the text also writes in lower case, as words of its prose ("Results of",
    "SOME BENCHMARKS", "Test set") rather than of a name."""
    words = [word for word in phrase.name.split() if word.casefold() not in NAME_JOINERS]
    if len(words) < 2:
        return
    lower = [word.isalpha() and word.lower() in lower_words for word in words]
    if all(lower):
        phrase.flag("lower_words=all")
    elif any(lower):
        phrase.flag("lower_words=some")
    if lower[0]:
        phrase.flag("lower_words=first")
    if all(lower) and re.search(rf"(?<![\w\-]){re.escape(phrase.name.lower())}(?![\w\-])", text):
        phrase.flag("phrase_lower")


def _occurrence_features(phrase: Phrase, sentence: str, start: int, end: int) -> None:
    before = _LOWER_WORD.findall(sentence[max(0, start - 60):start])[-CONTEXT_WORDS:]
    after = _LOWER_WORD.findall(sentence[end:end + 60])[:CONTEXT_WORDS]
    tail = sentence[end:end + 40]
    if before and re.search(rf"\b{re.escape(before[-1])}\s+(?:the\s+)?$", sentence[:start]):
        phrase.flag(f"L={before[-1]}")
    if after and re.match(rf"\s+{re.escape(after[0])}\b", tail):
        phrase.flag(f"R={after[0]}")
    for word in before:
        phrase.flag(f"l={word}")
    for word in after:
        phrase.flag(f"r={word}")
    if re.match(r"\s*\(", tail):
        phrase.flag("before_parenthesis")
    if sentence[:start].endswith("(") and re.match(r"\s*[),;]", tail):
        phrase.flag("in_parenthesis")
    if _CITATION_AFTER.match(tail):
        phrase.flag("cited")
    if start == 0:
        phrase.flag("sentence_start")
    if is_table_row_text(sentence):
        phrase.flag("table_text")


def paper_phrases(paper: ParsedPaper, found: Mapping[str, tuple[str, Iterable[str]]] = {}) -> list[Phrase]:
    """Every name-shaped phrase the paper's body writes (outside the reference list), with its features. `found`
    maps a phrase (case-blind) to its name and the sources that found it by the cue patterns ("cue", "table",
    "catalog"): each source is a feature, and a phrase found only so is a phrase too."""
    items = paper_sentences(paper)
    ranker = active_ranker()
    body = [item.sentence.text for item in items]
    text = "\n".join(body)
    phrases: dict[str, Phrase] = {}
    scores: dict[str, float] = {}
    for number, item in enumerate(items):
        sentence = item.sentence.text
        score = ranker.score(item.features)
        for name, start, end in phrase_runs(sentence):
            if not is_phrase_name(name):
                continue
            key = name.casefold()
            phrase = phrases.get(key)
            if phrase is None:
                phrase = phrases[key] = Phrase(name)
                bin_ = min(int(number / max(len(items), 1) * POSITION_BINS), POSITION_BINS - 1)
                phrase.flag(f"position={bin_}")
            if number not in phrase.sentences:
                phrase.sentences.add(number)
                _occurrence_features(phrase, sentence, start, end)
            scores[key] = max(scores.get(key, -math.inf), score)
    for key, (name, sources) in found.items():
        if key not in phrases:
            if not is_phrase_name(name):
                continue
            phrases[key] = Phrase(name)
        for source in sources:
            phrases[key].flag(f"source={source}")
    lower_words = set(_LOWER_WORD.findall(text))
    for key, phrase in phrases.items():
        _shape_features(phrase)
        phrase.features["mentions"] = math.log1p(count_mentions(phrase.name, text))
        phrase.features["sentences"] = math.log1p(len(phrase.sentences))
        support = data_support([phrase.name], body)
        phrase.features["data_support"] = math.log1p(support)
        if support:
            phrase.flag("written_as_data")
        if key in scores:
            phrase.features["sentence_score"] = max(-5.0, min(5.0, scores[key]))
        if len(phrase.name.split()) == 1 and re.search(rf"\b{re.escape(phrase.name.lower())}\b", text):
            phrase.flag("written_lower")
        _lower_features(phrase, lower_words, text)
    return list(phrases.values())


def offer_candidates(paper: ParsedPaper, catalog: Iterable[str] = (), limit: int = MAX_CANDIDATES,
                     ranker: CandidateRanker | None = None,
                     found: tuple[Mapping[str, tuple[str, set[str]]], Sequence[Phrase]] | None = None,
                     ) -> list[Candidate]:
    """The names the names step is offered, best first: the names the cue patterns find and a sentence writes as
    data (see `find_candidates`), then the name-shaped phrases that the candidate ranker (`ranker`, else the active
    one) scores above `FILL_LOG_ODDS`, best first, up to `limit`; not a capitalised word the text also writes
    in lower case, nor a plain word ("Data", "Study").
    Never a name the selection drops whatever the names step says of it (a citation, a tool, an acronym defined as
    a model, a model's name, a cited surname: see `problem_in_text`): offering it would only spend the step's
    output. A name written only inside a longer candidate ("FACE" of "WIDER FACE") is left out, and a piece the
    prose writes only inside one longer name is offered as that name (see `whole_name`), as the selection reads
    it. `found`: the paper's cue sources and phrases (`cue_sources`, `paper_phrases`) when already read."""
    ranker = ranker or active_candidate_ranker()
    sources, phrases = found if found is not None else (cue_sources(paper, catalog), None)
    offered = find_candidates(paper, limit=limit, sources=sources)
    if ranker is None or len(offered) >= limit:
        return offered
    body = paper.body_sentences()
    text = "\n".join(body)
    phrases = phrases if phrases is not None else paper_phrases(paper, sources)
    scored = [(ranker.score(phrase.features), phrase) for phrase in phrases]
    names = [phrase.name for _, phrase in scored]
    wholes = {candidate.name.casefold(): candidate for candidate in offered}
    for log_odds, phrase in sorted(scored, key=lambda item: -item[0]):
        if len(wholes) == limit or log_odds <= FILL_LOG_ODDS:
            break
        if (problem_in_text(phrase.name, paper.text) is not None or not mentions_outside(phrase.name, names, text)
                or (written_lower(phrase.name, text) and not named_as_data(phrase))
                or phrase.name.casefold() in PLAIN_WORDS):
            continue
        whole = checked_whole_name(phrase.name, body, paper.text)
        if whole is not None and whole.casefold() not in wholes:
            kinds = tuple(sorted(sources.get(phrase.name.casefold(), ("", set()))[1]))
            wholes[whole.casefold()] = Candidate(whole, count_mentions(whole, text), kinds, round(log_odds, 3))
    return list(wholes.values())


def named_as_data(phrase: Phrase) -> bool:
    """Whether a sentence writes the phrase inside the sentence, capitalised, right before a data noun ("the Prostate
    dataset"): the paper's own name for a dataset, whatever the word means elsewhere in lower case ("prostate
    cancer"). (A phrase that opens a sentence is not read alone: see `phrase_runs`.)"""
    return any(key.startswith("R=") and DATA_NOUN.fullmatch(key[2:]) for key in phrase.features)


def phrase_log_odds(paper: ParsedPaper, ranker: CandidateRanker | None = None,
                    phrases: Sequence[Phrase] | None = None) -> dict[str, float]:
    """The ranker's (`ranker`, else the active one) log-odds of each name-shaped phrase of the paper, by case-folded
    phrase: how likely the paper's writing makes it a dataset. Empty with no ranker."""
    ranker = ranker or active_candidate_ranker()
    if ranker is None:
        return {}
    phrases = phrases if phrases is not None else paper_phrases(paper, cue_sources(paper))
    return {phrase.name.casefold(): ranker.score(phrase.features) for phrase in phrases}


# The ranker the candidate finder reads.
_CANDIDATE_RANKER = ScorerSlot(CandidateRanker, CANDIDATE_RANKER_FILE)
use_candidate_ranker = _CANDIDATE_RANKER.use
activate_candidate_ranker = _CANDIDATE_RANKER.activate


def active_candidate_ranker() -> CandidateRanker | None:
    """The candidate ranker the finder reads: the last `use_candidate_ranker`, else the bundled one, else None when
    no ranker is bundled (the finder then ranks by its cue patterns alone)."""
    try:
        return _CANDIDATE_RANKER.active()
    except ConfigError:
        return None
