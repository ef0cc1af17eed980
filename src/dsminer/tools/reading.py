"""The reading tools: a page, sections by heading, the tables, a keyword search, the reference list. Before the
names step they add candidate names; for a stuck dataset they add evidence lines and link candidates."""

from __future__ import annotations

from dsminer.document.references import extract_references, references_for
from dsminer.document.text import find_urls
from dsminer.evidence.grounding import LinkCandidate, search_keywords, select_sections
from dsminer.evidence.records import url_names
from dsminer.mentions.candidates import is_name_shaped, sentence_candidates
from dsminer.tools.workspace import Tool, add_candidates, add_evidence, add_links, any_name


class ReadPage(Tool):
    """Read one page: its sentences naming the current dataset, and URLs spelling its name, become its evidence."""

    name = "read_page"

    def __call__(self, page: int) -> str:
        paper, work = self.ws.paper, self.ws.current()
        text = next((p.text for p in paper.pages if p.number == page), "")
        work.recovery.append(self.name)
        pattern = any_name(work.names)
        lines = [s.text for s, _ in paper.indexed_sentences() if s.page == page and pattern and pattern.search(s.text)]
        urls = [link.url for link in paper.links if link.page == page and url_names(link.url, work.names)]
        added = add_evidence(work, [f"[p{page}] {line}" for line in lines])
        new = add_links(work, [LinkCandidate(url, "text", page, "a URL on the page spelling its name")
                                for url in urls], self.name)
        return f"page {page}: {len(text)} characters, {added} lines about {work.chosen.name}, {new} new URLs" \
            if added or new else f"nothing new about {work.chosen.name} on page {page}"


class RetrieveSection(Tool):
    """Retrieve sections by heading (e.g. Datasets, Experiments, Evaluation; "data" for all data sections)."""

    name = "retrieve_section"

    def __call__(self, heading: str) -> str:
        ws, work = self.ws, self.ws.current() if self.ws.names is not None else None
        sections = select_sections(ws.all_sections, heading)
        if work is None:
            ws.sections = sections
            added = add_candidates(ws, [name for s in sections for sentence in s.sentences
                                        for name in sentence_candidates(sentence.text)], self.name)
            titles = ", ".join(s.title for s in sections)
            return f"{len(sections)} sections ({titles}); {added} new candidate names" if sections else \
                f"nothing: no section heading matches {heading}"
        work.recovery.append(self.name)
        pattern = any_name(work.names)
        lines = [f"[p{s.page}] {t.text}" for s in sections for t in s.sentences if pattern and pattern.search(t.text)]
        urls = [LinkCandidate(url, "text", s.page, t.text) for s in sections for t in s.sentences
                if pattern and pattern.search(t.text) for url in find_urls(t.text)]
        added, new = add_evidence(work, lines), add_links(work, urls, self.name)
        return f"{added} section lines and {new} URLs about {work.chosen.name}" if added or new else \
            f"nothing about {work.chosen.name} in the {heading} sections"


class ExtractTables(Tool):
    """Read the tables: captions, header rows and first columns; their row names join the candidate names."""

    name = "extract_tables"

    def __call__(self) -> str:
        tables = self.ws.paper.tables
        self.ws.tables_read = True
        work = self.ws.current() if self.ws.names is not None else None
        if work is not None:
            work.recovery.append(self.name)
            pattern = any_name(work.names)
            added = add_evidence(work, [f"[p{t.page}] {t.describe(300)}" for t in tables
                                         if pattern and pattern.search(t.describe())])
            return f"{added} table lines about {work.chosen.name}" if added else \
                f"nothing: no table names {work.chosen.name}"
        names = [cell for table in tables for cell in table.first_column if is_name_shaped(cell)]
        added = add_candidates(self.ws, names, self.name)
        captions = "; ".join((t.caption or "Table")[:60] for t in tables[:4])
        return f"{len(tables)} tables ({captions}); {added} new candidate names" if tables else "nothing: no tables"


class SearchKeywords(Tool):
    """Search the paper's sentences for a keyword or a dataset's name: hits with page and snippet."""

    name = "search_keywords"

    def __call__(self, keyword: str) -> str:
        hits = search_keywords(self.ws.paper, keyword)
        work = self.ws.current() if self.ws.names is not None else None
        if work is not None:
            work.recovery.append(self.name)
            add_evidence(work, [f"[p{h.page}] {h.snippet}" for h in hits])
            add_links(work, [LinkCandidate(url, "text", h.page, h.snippet) for h in hits
                              for url in find_urls(h.snippet)], self.name)
        return f"{len(hits)} hits for {keyword}: " + " | ".join(f"p{h.page}" for h in hits) if hits else \
            f"nothing: no sentence writes {keyword}"


class ExtractReferences(Tool):
    """Read the reference list: entries with their URLs and DOIs, in-text citation markers mapped to them."""

    name = "extract_references"

    def __call__(self) -> str:
        ws = self.ws
        if ws.references is None:
            ws.references = extract_references(ws.paper)
        work = ws.current() if ws.names is not None else None
        if work is None:
            with_urls = sum(bool(r.urls) for r in ws.references)
            return (f"{len(ws.references)} entries, {with_urls} with URLs" if ws.references
                    else "nothing: no reference list")
        work.recovery.append(self.name)
        cited = references_for(ws.paper, work.names, ws.references)
        add_evidence(work, [f"cited: {entry.text[:200]}" for entry in cited])
        new = add_links(work, [LinkCandidate(url, "reference", entry.page, entry.text) for entry in cited
                                for url in entry.urls], self.name)
        return f"{len(cited)} entries cited beside {work.chosen.name}, {new} new URLs" if cited else \
            f"nothing: no entry cited beside {work.chosen.name}"
