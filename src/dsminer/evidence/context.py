"""What the model reads: the names step's paper context (tables, dataset sentences, URLs) and one
dataset's own evidence for the detail step."""

from __future__ import annotations

import re
from collections.abc import Sequence

from dsminer.document.pdf import PaperLink, ParsedPaper, Sentence
from dsminer.document.sections import is_data_section, section_titles
from dsminer.document.tables import TableText
from dsminer.document.text import TABLE_CAPTION, name_pattern, within_budget
from dsminer.mentions.cues import score_sentence

MAX_URLS = 8
MAX_SENTENCE_CHARS = 400
CONTEXT_CHARS = 4000  # about 1,000 tokens: sentences and tables together
TABLE_CHARS = 1100
EVIDENCE_CHARS = 700
EVIDENCE_MENTIONS = 3
SENTENCES_CHARS = 6000  # about 1,500 tokens: sentences alone, when a caller gives no budget
SECTION_BONUS = 2.0  # a cued sentence in a data, experiment or evaluation section


def format_sentences(sentences: Sequence[Sentence]) -> str:
    return "\n".join(f"[p{s.page}] {s.text[:MAX_SENTENCE_CHARS]}" for s in sentences)


def format_tables(tables: Sequence[TableText], max_chars: int = TABLE_CHARS) -> str:
    """One line a table (caption, columns, rows), as many as fit in `max_chars`."""
    return "\n".join(within_budget((f"[p{table.page}] {table.describe()}" for table in tables), max_chars))


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
    """The sentences most likely to name datasets, at most `max_sentences` and about `max_chars`, in
    document order. Sentences in data, experiment and evaluation sections score higher."""
    table_pages = {page.number for page in paper.pages if TABLE_CAPTION.search(page.text)}
    indexed = paper.indexed_sentences()
    titles = section_titles([sentence.text for sentence, _ in indexed])
    scored: list[tuple[float, int, Sentence, re.Match[str] | None]] = []
    seen: set[str] = set()
    for index, ((sentence, in_refs), title) in enumerate(zip(indexed, titles)):
        key = sentence.text.casefold()
        if key in seen:
            continue
        seen.add(key)
        score, anchor = score_sentence(sentence.text, extra_keywords, sentence.page in table_pages)
        score -= 6.0 if in_refs else 0.0
        score += SECTION_BONUS if score > 0 and not in_refs and is_data_section(title) else 0.0
        if score >= 2.0:
            scored.append((score, index, sentence, anchor))
    best = sorted(scored, key=lambda item: (-item[0], item[1]))[:max_sentences]
    chosen = [(index, Sentence(s.page, _shorten(s.text, anchor))) for _, index, s, anchor in best]
    while len(chosen) > 1 and sum(len(s.text) for _, s in chosen) > max_chars:
        chosen.pop()
    return [sentence for _, sentence in sorted(chosen, key=lambda item: item[0])]


def build_paper_context(
    paper: ParsedPaper, max_sentences: int, extra_keywords: Sequence[str] = (), with_urls: bool = True,
    max_chars: int = CONTEXT_CHARS,
) -> str:
    """Table lines, then dataset-related sentences in document order, then the paper's URLs.

    Tables and sentences share `max_chars`; tables take at most a quarter of it."""
    tables = format_tables(paper.tables, min(TABLE_CHARS, max_chars // 4))
    sentences = select_dataset_sentences(paper, max_sentences, extra_keywords, max_chars - len(tables))
    parts = [f"Tables:\n{tables}" if tables else "", format_sentences(sentences)]
    urls = format_urls(paper) if with_urls else ""
    parts.append(f"URLs in the paper:\n{urls}" if urls else "")
    return "\n\n".join(part for part in parts if part)


def dataset_evidence(paper: ParsedPaper, names: Sequence[str], max_chars: int = EVIDENCE_CHARS) -> str:
    """What the paper says about one dataset: its first mentions outside the reference list, each with the
    sentence after it, then the table lines that name it; about `max_chars`."""
    patterns = [p for p in (name_pattern(name.strip()) for name in names if name.strip()) if p is not None]
    if not patterns:
        return ""
    indexed = paper.indexed_sentences()
    picked: list[int] = []
    for index, (sentence, in_refs) in enumerate(indexed):
        if not in_refs and any(p.search(sentence.text) for p in patterns):
            picked.extend(i for i in (index, index + 1) if i < len(indexed) and not indexed[i][1] and i not in picked)
            if len(picked) >= 2 * EVIDENCE_MENTIONS:
                break
    lines = [f"[p{indexed[i][0].page}] {indexed[i][0].text[:MAX_SENTENCE_CHARS]}" for i in picked]
    lines += [f"[p{t.page}] {t.describe(300)}" for t in paper.tables if any(p.search(t.describe()) for p in patterns)]
    return "\n".join(within_budget(lines, max_chars, keep_first=True))
