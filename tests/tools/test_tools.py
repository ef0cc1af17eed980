"""The model-free tools on a workspace alone, with no episode or model."""

from dsminer.document.pdf import parse_pdf
from dsminer.events import EventLog, recording
from dsminer.evidence.grounding import LinkCandidate, paper_sections
from dsminer.evidence.records import DatasetDetails
from dsminer.mentions.benchmarks import BenchmarkCues
from dsminer.mentions.candidates import MAX_CANDIDATES
from dsminer.mentions.selection import ChosenDataset, Selection
from dsminer.tools.checking import NormaliseRecords, VerifyEvidence
from dsminer.tools.reading import RetrieveSection, SearchKeywords
from dsminer.tools.workspace import READ_CANDIDATES, DatasetWork, PaperView, Workspace, add_candidates, add_links


def workspace(paper_pdf, **state) -> Workspace:
    paper = parse_pdf(paper_pdf)
    return Workspace(paper, None, 40, parsed=True, all_sections=paper_sections(paper), **state)


def test_before_the_names_step_a_data_section_adds_its_names_to_the_candidates(paper_pdf):
    ws = workspace(paper_pdf)
    ws.view = PaperView(ws.paper, [], BenchmarkCues(), ("Bar Corpus",))
    observation = RetrieveSection(ws)(heading="data")
    assert "FooBench-10" in ws.view.candidates and ws.view.candidates[0] == "Bar Corpus"
    assert "new candidate names" in observation and ws.sections


def test_candidates_stop_at_the_cap_and_are_counted_once():
    room = MAX_CANDIDATES + READ_CANDIDATES
    ws = Workspace(paper=None, supplied=None, budget=1,
                   view=PaperView(None, [], BenchmarkCues(), tuple(f"Set{i}" for i in range(room - 1))))
    assert add_candidates(ws, ["set0", "NewSet", "OtherSet"], "extract_tables") == 1
    assert len(ws.view.candidates) == room == 16 and ws.view.candidates[-1] == "NewSet"
    assert ws.candidate_tools == {"newset": "extract_tables"}


def test_a_keyword_search_for_a_stuck_dataset_becomes_its_evidence(paper_pdf):
    work = DatasetWork(ChosenDataset("FooBench-10", (), "used", 2))
    ws = workspace(paper_pdf, names=Selection(), datasets={"FooBench-10": work})
    observation = SearchKeywords(ws)(keyword="FooBench-10")
    assert "hits for FooBench-10" in observation
    assert work.recovery == ["search_keywords"] and any("4,000 images" in line for line in work.evidence)


def test_the_evidence_check_takes_the_link_the_paper_gives_and_the_normalisation_logs_to_the_run(paper_pdf):
    work = DatasetWork(ChosenDataset("FooBench-10", (), "used", 2), details=DatasetDetails(content="widget images"))
    ws = workspace(paper_pdf, names=Selection(), datasets={"FooBench-10": work})
    add_links(work, [LinkCandidate("https://github.com/acme/bar-corpus", "text", 1, "here")], "read_page")
    assert work.link_tools == {"https://github.com/acme/bar-corpus": "read_page"}
    events = EventLog()
    with recording(events):
        observation = VerifyEvidence(ws)(dataset="FooBench-10")
        NormaliseRecords(ws)()
    assert observation.startswith("FooBench-10: named (p1)")
    assert work.verification.link_supported and work.record.dataset_link == "https://example.org/widgets/foobench-10.zip"
    assert [r.name for r in ws.records] == ["FooBench-10"]
    assert [(e["kind"], e["step"], e["paper"], e["kept"]) for e in events.events] == \
        [("result", "normalise", "paper.pdf", ["FooBench-10"])]
