"""The bounded paper context the name and detail steps read: dataset sentences with page tags, and URLs."""

from __future__ import annotations

from collections.abc import Sequence

from dsminer.tools.pdf import PaperLink, ParsedPaper, Sentence, select_dataset_sentences

MAX_URLS = 15
MAX_SENTENCE_CHARS = 400


def format_sentences(sentences: Sequence[Sentence]) -> str:
    return "\n".join(f"[p{s.page}] {s.text[:MAX_SENTENCE_CHARS]}" for s in sentences)


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


def build_paper_context(
    paper: ParsedPaper, max_sentences: int, extra_keywords: Sequence[str] = (), with_urls: bool = True
) -> str:
    """Dataset-related sentences in document order, then the paper's URLs."""
    text = format_sentences(select_dataset_sentences(paper, max_sentences, extra_keywords))
    urls = format_urls(paper) if with_urls else ""
    return f"{text}\n\nURLs in the paper:\n{urls}" if urls else text
