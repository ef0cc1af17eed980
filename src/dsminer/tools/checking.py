"""The grounding tools: a dataset's link search, its check against the paper, the records' normalisation."""

from __future__ import annotations

from dsminer.document.links import platform_for_url
from dsminer.events import current_events
from dsminer.evidence.grounding import normalise_records, search_links, verify_evidence
from dsminer.evidence.records import DatasetDetails, build_record, resolve_link
from dsminer.schema import BorrowedLink, PaperRefs
from dsminer.tools.workspace import Tool, add_links


class SearchLinks(Tool):
    """Find candidate URLs for one dataset: link annotations, text URLs, footnotes, cited references, the catalog."""

    name = "search_links"

    def __call__(self, dataset: str) -> str:
        ws, work = self.ws, self.work(dataset)
        others = [name for name in ws.datasets if name != dataset]
        found = search_links(ws.paper, work.names, others, ws.references or (), work.chosen.role == "created",
                             ws.catalog_urls)
        if work.links is not None:
            work.retried.add(self.name)
        add_links(work, found, self.name)
        return f"{len(work.paper_links)} links for {dataset}: " + ", ".join(c.url for c in work.paper_links[:3]) \
            if work.paper_links else f"nothing: no link for {dataset} in the paper"


class VerifyEvidence(Tool):
    """Check one dataset against the paper: its name (exact or fuzzy) with page and quote, its link's support."""

    name = "verify_evidence"

    def __call__(self, dataset: str) -> str:
        ws, work, events = self.ws, self.work(dataset), current_events()
        others = [name for name in ws.datasets if name != dataset]
        link = resolve_link(ws.paper, work.names, None, events, others)
        if link is None:  # the candidates the link search and the recovery found, checked below
            link = next((c.url for c in work.paper_links), None)
        verification = verify_evidence(ws.paper, work.names, link, ws.references or (),
                                       created=work.chosen.role == "created")
        work.verification = verification
        if verification.link_supported is False:
            events.emit("link_rejected", paper=ws.paper.file_name, step="verify_evidence", dataset=dataset, url=link,
                        reason="not supported by the paper")
            link = None
        elif link is not None and "link" in work.stuck:
            work.resolved.add("link")
        borrowed = None if link is not None else next(
            (BorrowedLink(url=c.url, source=ws.link_sources.get(c.url, "catalogue"))
             for c in work.links or [] if c.source == "catalog"), None)
        if borrowed is not None:
            events.emit("link_borrowed", paper=ws.paper.file_name, step="verify_evidence", dataset=dataset,
                        url=borrowed.url, source=borrowed.source)
            if "link" in work.stuck:
                work.resolved.add("link")
        record = build_record(ws.paper, ws.refs or ws.supplied or PaperRefs(), dataset,
                              work.details or DatasetDetails(), work.chosen.aliases, events,
                              other_names=list(ws.datasets), role=work.chosen.role)
        work.record = record.model_copy(update={"dataset_link": link, "platform": platform_for_url(link),
                                                "borrowed_link": borrowed})
        via = f"borrowed {borrowed.url} from {borrowed.source}" if borrowed is not None else "none"
        return (f"{dataset}: {'named' if verification.exact else 'fuzzy match' if verification.found else 'not found'}"
                f" (p{verification.page}); link {link or via}")


class NormaliseRecords(Tool):
    """Normalise the records: one dataset's names merged, non-datasets and names the paper lacks dropped."""

    name = "normalise_records"

    def __call__(self) -> str:
        ws = self.ws
        if ws.refs is None:
            ws.refs = ws.supplied or PaperRefs()
        records = [d.record for d in ws.datasets.values()
                   if d.record is not None and d.verification is not None and d.verification.found]
        missing = [d.chosen.name for d in ws.datasets.values()
                   if d.verification is not None and not d.verification.found]
        kept, dropped = normalise_records(records, ws.paper.text)
        dropped += [(name, "not in the paper") for name in missing]
        unfinished = [d.chosen.name for d in ws.datasets.values() if d.record is None]
        ws.records = [r.model_copy(update={"paper_refs": ws.refs}) for r in kept]
        current_events().emit("result", paper=ws.paper.file_name, step="normalise", kept=[r.name for r in ws.records],
                              dropped=[{"name": n, "reason": why} for n, why in dropped], unfinished=unfinished)
        return f"{len(ws.records)} records; dropped {len(dropped)}; unfinished {len(unfinished)}"
