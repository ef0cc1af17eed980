"""Cues that mark a sentence as likely to name a dataset, and the score built from them."""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from dsminer.document.text import TABLE_CAPTION, name_pattern
from dsminer.mentions.lexicon import DATA_NOUN_WORDS, RESULT_WORDS, SOURCE_VERBS, UNIT_NOUNS

_STRONG = re.compile(rf"\b(?:{DATA_NOUN_WORDS}|data[ -]sets?|tree-banks?|challenges?|shared tasks?|suites?)\b", re.I)
_MEDIUM = re.compile(
    r"\b(?:(?:evaluat\w*|train\w*|test\w*|experiment\w*|results?|fine-?tun\w*|pre-?train\w*|validat\w*|"
    r"perform\w*|report\w*) (?:\w+ ){0,2}(?:on|using|from)|(?:test|training|dev|development|validation|"
    r"held-out)[ -]sets?|splits?|collected|crawled|annotated|labell?ed|we (?:release|introduce|construct|"
    r"create|build|present|propose) (?:a|an|the|our)|available (?:at|from|online)|publicly available|"
    rf"download\w*|released|consists? of|contains?|comprises?|(?:{SOURCE_VERBS}) from|subsets?)\b",
    re.I,
)
_SIZE = re.compile(rf"\b\d[\d,.]*\s*(?:[kKM]\b|million|thousand)?\s*(?:{UNIT_NOUNS})\b", re.I)
_NAME_LIKE = re.compile(
    r"(?<![\w-])(?:[A-Z][A-Za-z]*[A-Z0-9][A-Za-z0-9]*|[A-Z][a-z]+[-\u2013]?[0-9]+[A-Za-z]*)"
    r"(?:[-\u2013][A-Za-z0-9]+)*(?![\w-])"
)
_CAPITALISED = re.compile(r"(?<=[a-z,;] )[A-Z][a-z]{2,}(?: [A-Z][a-z]+)*")
_CAPITALISED_WORDS = re.compile(r"(?<=[a-z,;] )[A-Z][a-z]{2,}(?: [A-Z][a-z]+)*(?![\w-])")
_NOT_NAMES = frozenset(
    "Table Tables Figure Figures Fig Section Sec Eq Equation Appendix We Our In The This These For "
    "However Moreover Finally First Second Third Note".split()
)
_URL = re.compile(r"https?://|www\.", re.I)
_LETTER = re.compile(r"[A-Za-z]")
_NUMBER_WORD = re.compile(r"[-+(]?[\d.,%±]+[)%]?")
_ACRONYM_PAREN = re.compile(r"\([A-Z][A-Za-z0-9-]+\)")
_CITATION = re.compile(r"\[\d+|et al\.|\([A-Z][a-z]+(?: et al\.)?,? \d{4}")
_YEAR = re.compile(r"\b(?:19|20)\d\d\b")


def _name_like_count(text: str) -> int:
    """How many acronym, CamelCase, digit-bearing or mid-sentence capitalised tokens `text` holds (a capitalised
    start of a CamelCase token counts as well, as the sentence score was fitted with)."""
    return len(_name_like(text, _CAPITALISED))


def name_like_tokens(text: str) -> set[str]:
    """The acronym, CamelCase, digit-bearing or mid-sentence capitalised words `text` writes, each whole."""
    return _name_like(text, _CAPITALISED_WORDS)


def _name_like(text: str, capitalised: re.Pattern[str]) -> set[str]:
    tokens = {m.group(0) for m in _NAME_LIKE.finditer(text)} | {m.group(0) for m in capitalised.finditer(text)}
    return {t for t in tokens if t.split()[0] not in _NOT_NAMES}


def _is_header_row(text: str) -> bool:
    """Whether `text` looks like a table header: a short run of mostly capitalised tokens."""
    words = [w for w in text.split() if _LETTER.search(w)]
    capitalised = [w for w in words if w[0].isupper() or w[0].isdigit()]
    if not (3 <= len(capitalised) and len(words) <= 30 and len(capitalised) >= 0.7 * len(words)):
        return False
    return _name_like_count(text) >= 2


def _length_penalty(text: str) -> float:
    """Penalty for fragments, run-on text and number-heavy table rows."""
    words = text.split()
    numeric = sum(1 for w in words if _NUMBER_WORD.fullmatch(w))
    penalty = 0.0
    if len(words) < 4:
        penalty += 2.0
    if len(words) > 80:
        penalty += 1.5
    if words and numeric / len(words) > 0.35:
        penalty += 2.0
    return penalty


def score_sentence(
    text: str, extra_keywords: Sequence[str] = (), table_page: bool = False
) -> tuple[float, re.Match[str] | None]:
    """A deterministic score for how likely `text` names a dataset, and the strongest cue's match.

    On a page with a table caption (`table_page`), a row of capitalised names scores as a table header.
    Remembered for recent sentences: an agent's retry scores the same paper again.
    """
    return _score_sentence(text, tuple(extra_keywords), table_page)


@lru_cache(maxsize=8192)
def _score_sentence(text: str, extra_keywords: tuple[str, ...],
                    table_page: bool) -> tuple[float, re.Match[str] | None]:
    strong = list(_STRONG.finditer(text))
    medium = list(_MEDIUM.finditer(text))
    extra = keyword_matches(text, extra_keywords)
    cue = 0.0
    if strong:
        cue += 3.0 + min(len({m.group(0).lower() for m in strong}) - 1, 1)
    cue += min(2.0 * len(medium), 4.0)
    cue += 2.0 if _SIZE.search(text) else 0.0
    if TABLE_CAPTION.match(text):
        cue += 1.0 + (1.5 if RESULT_WORDS.search(text) else 0.0)
    cue += 1.0 if _URL.search(text) else 0.0
    names = min(_name_like_count(text), 4)
    score = cue + 3.0 * len(extra) + (names * 0.75 if cue else names * 0.3)
    if table_page and _is_header_row(text):
        score += 2.0
    anchor = (extra or strong or medium or [None])[0]
    return score - _length_penalty(text), anchor


def cue_features(text: str, table_page: bool = False) -> dict[str, float]:
    """How `text` is written, as the sentence ranker reads it: the cues of `score_sentence` counted one by one
    (data nouns, experiment phrases, a size in units, a table caption, a URL, name-like tokens, a header row) and
    its shape (length, share of numbers, mostly capitalised words, a parenthesised acronym, a citation, a year).
    No weights: the ranker learns them (`dsminer.evidence.ranking`)."""
    words = text.split()
    numeric = sum(1 for word in words if _NUMBER_WORD.fullmatch(word))
    lettered = [word for word in words if _LETTER.search(word)]
    capitalised = sum(1 for word in lettered if word[0].isupper())
    caption = bool(TABLE_CAPTION.match(text))
    features = {
        "strong": min(len({m.group(0).lower() for m in _STRONG.finditer(text)}), 2),
        "medium": min(sum(1 for _ in _MEDIUM.finditer(text)), 2),
        "size": bool(_SIZE.search(text)),
        "caption": caption,
        "caption_result": caption and bool(RESULT_WORDS.search(text)),
        "url": bool(_URL.search(text)),
        f"names={min(_name_like_count(text), 4)}": True,
        "header_row": table_page and _is_header_row(text),
        "short": len(words) < 6,
        "long": len(words) > 80,
        "numeric": bool(words) and numeric / len(words) > 0.35,
        "capitalised": bool(lettered) and capitalised >= 0.7 * len(lettered),  # a byline, a header, a title
        "acronym_paren": bool(_ACRONYM_PAREN.search(text)),
        "citation": bool(_CITATION.search(text)),
        "year": bool(_YEAR.search(text)),
    }
    return {name: float(value) for name, value in features.items() if value}


def keyword_matches(text: str, keywords: Sequence[str]) -> list[re.Match[str]]:
    """Where each of a caller's extra keywords occurs in `text`, name-tolerantly (those it does not write left out)."""
    return [match for match in (_keyword_match(keyword, text) for keyword in keywords) if match is not None]


def cue_anchor(text: str) -> re.Match[str] | None:
    """The strongest dataset cue in `text`: where a long sentence is cut around."""
    return next(_STRONG.finditer(text), None) or next(_MEDIUM.finditer(text), None)


def _keyword_match(keyword: str, text: str) -> re.Match[str] | None:
    """Where a caller's extra keyword occurs in `text`, name-tolerantly."""
    pattern = name_pattern(keyword.strip()) if keyword.strip() else None
    return pattern.search(text) if pattern else None
