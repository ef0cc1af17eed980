"""What the model reads: the names step's paper context (tables, dataset sentences, URLs) and one
dataset's own evidence for the detail step."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from dsminer.document.pdf import PaperLink, ParsedPaper, Sentence
from dsminer.document.sections import is_data_section, section_titles
from dsminer.document.tables import TableText
from dsminer.document.text import name_pattern, within_budget
from dsminer.evidence.ranking import SentenceRanker, active_ranker, paper_sentences
from dsminer.mentions.cues import cue_anchor, keyword_matches, score_sentence
from dsminer.mentions.lexicon import DATA_WORD, FUNCTION_WORDS, GENERIC_MODIFIERS, GENERIC_NAMES

MAX_URLS = 8
MAX_SENTENCE_CHARS = 400
CONTEXT_CHARS = 4000  # about 1,000 tokens: sentences and tables together
TABLE_CHARS = 1100
EVIDENCE_CHARS = 700
EVIDENCE_MENTIONS = 3
NAME_SENTENCE_CHARS = 240  # about 55 tokens: the one sentence the check step reads
SENTENCES_CHARS = 6000  # about 1,500 tokens: sentences alone, when a caller gives no budget
KEYWORD_WEIGHT = 3.0  # log-odds a caller's extra keyword adds to a sentence: an agent's retry reads them first
SECTION_BONUS = 2.0  # a cued sentence in a data, experiment or evaluation section
_NO_DATA_SECTION = re.compile(r"acknowledg|funding|contributions|competing|conflicts? of interest|biograph", re.I)
PROSE_WORDS = 6
NAMED_SCORE = 0.6  # the sentence score of two name-like tokens without a cue: a retry may read such sentences


def format_sentences(sentences: Sequence[Sentence]) -> str:
    return "\n".join(f"[p{s.page}] {s.text[:MAX_SENTENCE_CHARS]}" for s in sentences)


def format_tables(tables: Sequence[TableText], max_chars: int = TABLE_CHARS) -> str:
    """One line a table (caption, columns, rows), as many as fit in `max_chars`."""
    return "\n".join(within_budget(map(table_line, tables), max_chars))


def table_line(table: TableText, max_chars: int = 400) -> str:
    """A table as one line with its page tag."""
    return f"[p{table.page}] {table.describe(max_chars)}"


def _compact(text: str) -> str:
    return "".join(text.split()).casefold()


def is_reference_only(paper: ParsedPaper, link: PaperLink) -> bool:
    """True when the link (its URL, or an annotation's anchor text) occurs only in the reference list."""
    needle = _compact(link.anchor if link.source == "annotation" and link.anchor else link.url)
    if len(needle) < 4:
        return False
    hits = [in_refs for sentence, in_refs in paper.indexed_sentences() if needle in _compact(sentence.text)]
    return bool(hits) and all(hits)


def format_urls(paper: ParsedPaper, limit: int = MAX_URLS) -> str:
    """The paper's own links outside its reference list, annotation anchors included, one per line."""
    lines, seen = [], set()
    for link in paper.links:
        if link.url in seen or is_reference_only(paper, link):
            continue
        seen.add(link.url)
        anchor = f' (anchor "{link.anchor}")' if link.anchor else ""
        lines.append(f"- {link.url}{anchor}, p{link.page}")
        if len(lines) >= limit:
            break
    return "\n".join(lines)


def _shorten(text: str, keep: re.Match[str] | None) -> str:
    """Cut a long sentence to a window of about 400 characters around `keep`."""
    if len(text) <= MAX_SENTENCE_CHARS:
        return text
    centre = keep.start() if keep else 0
    lo = max(0, min(centre - MAX_SENTENCE_CHARS // 3, len(text) - MAX_SENTENCE_CHARS))
    window = text[lo : lo + MAX_SENTENCE_CHARS].rsplit(" ", 1)[0]
    return ("... " if lo else "") + window + " ..."


def select_dataset_sentences(
    paper: ParsedPaper, max_sentences: int = 40, extra_keywords: Sequence[str] = (),
    max_chars: int = SENTENCES_CHARS,
) -> list[Sentence]:
    """The sentences most likely to name datasets by the active sentence ranker (`dsminer.evidence.ranking`), at
    most `max_sentences` and about `max_chars`, in document order; never the reference list."""
    return [sentence for _, sentence in _chosen_sentences(paper, max_sentences, extra_keywords, max_chars)]


def _chosen_sentences(paper: ParsedPaper, max_sentences: int, extra_keywords: Sequence[str], max_chars: int,
                      ranker: SentenceRanker | None = None) -> list[tuple[int, Sentence]]:
    """`select_dataset_sentences` with each sentence's index in `paper.indexed_sentences()`: ranked by the sentence
    ranker (`ranker`, else the active one), a caller's extra keywords first."""
    ranker = ranker or active_ranker()
    scored: list[tuple[float, int, Sentence, re.Match[str] | None]] = []
    for index, sentence, features in paper_sentences(paper):
        matches = keyword_matches(sentence.text, extra_keywords)
        anchor = matches[0] if matches else cue_anchor(sentence.text)
        scored.append((ranker.score(features) + KEYWORD_WEIGHT * len(matches), index, sentence, anchor))
    best = sorted(scored, key=lambda item: (-item[0], item[1]))[:max_sentences]
    chosen = [(index, Sentence(s.page, _shorten(s.text, anchor))) for _, index, s, anchor in best]
    while len(chosen) > 1 and sum(len(s.text) for _, s in chosen) > max_chars:
        chosen.pop()
    return sorted(chosen, key=lambda item: item[0])


def build_paper_context(
    paper: ParsedPaper, max_sentences: int, extra_keywords: Sequence[str] = (), with_urls: bool = True,
    max_chars: int = CONTEXT_CHARS,
) -> str:
    """Table lines, then dataset-related sentences in document order, then the paper's URLs.

    Tables and sentences share `max_chars`; tables take at most a quarter of it."""
    return paper_context(paper, max_sentences, extra_keywords, with_urls, max_chars).text


@dataclass(frozen=True)
class PaperContext:
    """A names step's context and what of the paper it shows: sentence indices (in `indexed_sentences()`) and
    table indices (in `paper.tables`)."""

    text: str
    sentences: frozenset[int] = frozenset()
    tables: frozenset[int] = frozenset()
    kinds: tuple[tuple[str, int], ...] = ()  # what a context of new evidence adds, by kind (`unread_context`)


def paper_context(
    paper: ParsedPaper, max_sentences: int, extra_keywords: Sequence[str] = (), with_urls: bool = True,
    max_chars: int = CONTEXT_CHARS, ranker: SentenceRanker | None = None,
) -> PaperContext:
    """`build_paper_context` with the sentences and tables it shows (ranked by `ranker`, else the active one)."""
    table_lines = format_tables(paper.tables, min(TABLE_CHARS, max_chars // 4))
    shown_tables = frozenset(range(len(table_lines.splitlines()) if table_lines else 0))
    chosen = _chosen_sentences(paper, max_sentences, extra_keywords, max_chars - len(table_lines), ranker)
    parts = [f"Tables:\n{table_lines}" if table_lines else "", format_sentences([s for _, s in chosen])]
    urls = format_urls(paper) if with_urls else ""
    parts.append(f"URLs in the paper:\n{urls}" if urls else "")
    text = "\n\n".join(part for part in parts if part)
    return PaperContext(text, frozenset(index for index, _ in chosen), shown_tables)


def unread_context(paper: ParsedPaper, read_sentences: Collection[int], read_tables: Collection[int],
                   spellings: Sequence[str] = (), max_chars: int = CONTEXT_CHARS) -> PaperContext | None:
    """New evidence for a names retry: what the attempts so far did not show of where a paper describes its data.

    The tables not shown; then, sharing the rest of `max_chars`, the sentences not shown that lie in a data,
    experiment or evaluation section, in an appendix after the reference list, that carry a dataset cue (the first
    context had no room for them) or write names (in other fields data is often named without the words a cue
    reads: "longitudinal data from the National Consortium on ..."), and those writing a word of `spellings`
    (names the model gave that the paper does not write as given: their other spellings). Ranked by the same
    sentence score, data sections and the appendix first, in document order. A sentence without a cue is read only
    when it is running text (`_is_prose`): running headers, figure labels and titles in capitals hold names that are
    not data. None when nothing is left unread."""
    tables = [index for index in range(len(paper.tables)) if index not in read_tables]
    table_lines = within_budget((table_line(paper.tables[i]) for i in tables), min(TABLE_CHARS, max_chars // 4))
    indexed = paper.indexed_sentences()
    titles = section_titles([sentence.text for sentence, _ in indexed])
    reference_list = [index for index, (_, in_refs) in enumerate(indexed) if in_refs]
    words = _spelling_words(spellings)
    scored: list[tuple[float, int, str, Sentence, re.Match[str] | None]] = []
    seen: set[str] = set()
    for index, ((sentence, in_refs), title) in enumerate(zip(indexed, titles)):
        key = sentence.text.casefold()
        if in_refs or index in read_sentences or key in seen or len(sentence.text) < 20:
            continue
        seen.add(key)
        score, anchor = score_sentence(sentence.text)
        appendix = bool(reference_list) and index > reference_list[-1]
        spelled = words is not None and words.search(sentence.text)
        readable = score >= 2.0 or _is_prose(sentence.text)  # cued, or running text (not a header or labels)
        kind = ("spellings" if spelled else "" if not readable else "appendix" if appendix
                else "data_section" if is_data_section(title) else "cued" if score >= 2.0
                else "named" if score >= NAMED_SCORE and _may_name_data(title) else "")
        if kind and (score > 0 or spelled):
            bonus = SECTION_BONUS if kind not in ("cued", "named") else 0.0
            scored.append((score + bonus, index, kind, sentence, spelled or anchor))
    best = sorted(scored, key=lambda item: (-item[0], item[1]))
    room = max_chars - sum(len(line) + 1 for line in table_lines)
    chosen: list[tuple[int, str, Sentence]] = []
    for _, index, kind, sentence, anchor in best:
        text = _shorten(sentence.text, anchor)
        if len(text) + 8 > room:
            continue
        room -= len(text) + 8
        chosen.append((index, kind, Sentence(sentence.page, text)))
    chosen.sort(key=lambda item: item[0])
    if not chosen and not table_lines:
        return None
    kinds = Counter(kind for _, kind, _ in chosen)
    kinds.update({"tables": len(table_lines)} if table_lines else {})
    parts = [f"Tables:\n{chr(10).join(table_lines)}" if table_lines else "",
             format_sentences([sentence for _, _, sentence in chosen])]
    return PaperContext("\n\n".join(part for part in parts if part), frozenset(index for index, _, _ in chosen),
                        frozenset(tables[:len(table_lines)]), tuple(sorted(kinds.items())))


def with_known_mentions(paper: ParsedPaper, context: PaperContext | None, names: Sequence[str],
                        ) -> PaperContext | None:
    """`context` with, first, the first mention of each of `names` (datasets of earlier papers the paper writes)
    that it does not hold already, read before or not; `context` itself when there are none."""
    base = context or PaperContext("")
    lines = list(dict.fromkeys(line for name in names for line in dataset_lines(paper, [name], 1)[:1]
                               if line.split("] ", 1)[-1][:80] not in base.text))
    if not lines:
        return context
    kinds = Counter(dict(base.kinds))
    kinds["known"] += len(lines)
    text = "\n".join(part for part in ("\n".join(lines), base.text) if part)
    return PaperContext(text, base.sentences, base.tables, tuple(sorted(kinds.items())))


def _is_prose(text: str) -> bool:
    """A sentence of running text, not a running header, a figure's labels or a title in capitals: at least
    `PROSE_WORDS` words, most of them in lower case."""
    words = text.split()
    return len(words) >= PROSE_WORDS and sum(word[:1].islower() for word in words) * 2 >= len(words)


def _may_name_data(title: str | None) -> bool:
    """Whether a section of this title may name data: any but the front matter (before the first heading: title,
    authors, affiliations) and the sections that name funders and people."""
    return title is not None and not _NO_DATA_SECTION.search(title)


def _spelling_words(names: Sequence[str]) -> re.Pattern[str] | None:
    """A pattern for the words of `names` that can say which data on their own (four letters or more)."""
    words = {word for name in names for word in re.findall(r"[A-Za-z][A-Za-z0-9]{3,}", name)
             if word.casefold() not in FUNCTION_WORDS | GENERIC_NAMES | GENERIC_MODIFIERS}
    if not words:
        return None
    return re.compile(r"\b(?:" + "|".join(sorted(map(re.escape, words))) + r")", re.I)


def dataset_evidence(paper: ParsedPaper, names: Sequence[str], max_chars: int = EVIDENCE_CHARS) -> str:
    """What the paper says about one dataset: its first mentions outside the reference list, each with the
    sentence after it, then the table lines that name it; about `max_chars`."""
    return "\n".join(within_budget(dataset_lines(paper, names, EVIDENCE_MENTIONS), max_chars, keep_first=True))


def name_sentence(paper: ParsedPaper, names: Sequence[str], max_chars: int = NAME_SENTENCE_CHARS) -> str:
    """The sentence that best shows what a name is: the first body sentence writing it beside a data word, else
    the first writing it; cut to about `max_chars` around the name. Empty when no body sentence writes it."""
    written = [(sentence, name) for sentence in paper.body_sentences() for name in names if name and name in sentence]
    if not written:
        return ""
    sentence, name = next(((s, n) for s, n in written if DATA_WORD.search(s)), written[0])
    if len(sentence) <= max_chars:
        return sentence
    start = max(0, min(sentence.index(name) - max_chars // 3, len(sentence) - max_chars))
    return sentence[start:start + max_chars].strip()


def dataset_lines(paper: ParsedPaper, names: Sequence[str], mentions: int | None = None) -> list[str]:
    """The lines that speak of one dataset: its mentions outside the reference list (the first `mentions`, or
    all), each with the sentence after it, then the table lines that name it."""
    patterns = [p for p in (name_pattern(name.strip()) for name in names if name.strip()) if p is not None]
    if not patterns:
        return []
    indexed = paper.indexed_sentences()
    picked: list[int] = []
    for index, (sentence, in_refs) in enumerate(indexed):
        if not in_refs and any(p.search(sentence.text) for p in patterns):
            picked.extend(i for i in (index, index + 1) if i < len(indexed) and not indexed[i][1] and i not in picked)
            if mentions is not None and len(picked) >= 2 * mentions:
                break
    lines = [f"[p{indexed[i][0].page}] {indexed[i][0].text[:MAX_SENTENCE_CHARS]}" for i in picked]
    return lines + [table_line(t, 300) for t in paper.tables if any(p.search(t.describe()) for p in patterns)]


def unread_dataset_evidence(paper: ParsedPaper, names: Sequence[str], shown: str,
                            max_chars: int = EVIDENCE_CHARS) -> PaperContext | None:
    """New evidence for a detail retry: the dataset's other mentions and table lines that `shown` (what the
    attempts so far read) does not hold, about `max_chars`; None when there are none."""
    lines = within_budget((line for line in dataset_lines(paper, names) if line not in shown), max_chars,
                          keep_first=True, skip=True)
    if not lines:
        return None
    tables = len(set(lines) & {table_line(t, 300) for t in paper.tables})
    kinds = Counter({"mentions": len(lines) - tables, "tables": tables})
    return PaperContext("\n".join(lines), kinds=tuple(sorted((+kinds).items())))
