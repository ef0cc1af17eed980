"""S2's hard constraints: which tools the document state allows next (the first allowed in `TOOL_ORDER` is the
deterministic planner's choice)."""

from __future__ import annotations

from dsminer.tools.workspace import Workspace

# The fallback order: the first allowed tool in this order is the deterministic planner's choice.
TOOL_ORDER = ("parse_pdf", "extract_metadata", "extract_tables", "retrieve_section", "extract_references",
              "search_keywords", "read_page", "extract_dataset_names", "search_links", "extract_details",
              "verify_evidence", "normalise_records")
# Recovery tools for a stuck dataset, best first for what it lacks: a link is most often in its cited reference
# or a sentence naming it; a description in its data section, a table or the page that mentions it.
RECOVERY_TOOLS = {"link": ("extract_references", "search_keywords", "read_page", "retrieve_section"),
                  "details": ("retrieve_section", "extract_tables", "search_keywords", "read_page")}
MAX_RECOVERY_TOOLS = 2  # recovery tools tried per stuck dataset before its retry

def allowed_tools(ws: Workspace) -> list[str]:
    """The tools the hard constraints allow now, the deterministic choice first.

    Parse first; the reading tools and the names step before any dataset; then for each dataset in rank
    order its link search, its details, (if stuck) recovery tools best for what it lacks and a retry, and
    its verification; the normalisation last. Verification and normalisation only after detail extraction.
    When the steps left are only enough to finish, the optional tools are left out."""
    if not ws.parsed:
        return ["parse_pdf"]
    if ws.records is not None or ws.steps_left <= 0:
        return []
    if ws.steps_left == 1:
        return ["normalise_records"]
    spare = ws.steps_left - ws.mandatory_steps() - (ws.names is None)
    allowed = ["extract_metadata"] if ws.refs is None else []
    if ws.names is None:
        if spare > 0:
            allowed += [tool for tool, open_ in (
                ("extract_tables", not ws.tables_read and bool(ws.paper.tables)),
                ("retrieve_section", ws.sections is None),
                ("extract_references", ws.references is None and ws.has_reference_list())) if open_]
        return [*allowed, "extract_dataset_names"]
    work = ws.current()
    if work is None:
        return allowed or ["normalise_records"]
    if work.details is None:
        return [*allowed, "search_links" if work.links is None and spare > 0 else "extract_details"]
    retries = [tool for kind, tool in (("details", "extract_details"), ("link", "search_links"))
               if kind in work.open_issues and tool not in work.retried]
    if retries and spare > 1:
        if len(work.recovery) < MAX_RECOVERY_TOOLS:
            usable = {"extract_references": ws.has_reference_list(), "extract_tables": bool(ws.paper.tables)}
            allowed += [tool for kind in work.open_issues for tool in RECOVERY_TOOLS[kind]
                        if tool not in work.recovery and usable.get(tool, True)]
        if work.recovery:
            allowed += retries
    return list(dict.fromkeys([*allowed, "verify_evidence"]))
