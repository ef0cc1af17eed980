"""The agents' corpus memory: what committed papers found, offered as a snapshot to the papers that start later."""

from __future__ import annotations

from dsminer.catalog.build import update_catalog
from dsminer.catalog.memory import CorpusMemory, CorpusView, current_corpus, offering
from tests.catalog.test_entries import record


def test_records_join_the_dataset_one_of_their_names_names_with_papers_roles_and_links():
    memory = CorpusMemory()
    memory.add([record("a.pdf", "Quokka Reads", aliases=["QR-Logs"], role="created",
                       link="https://quokka.example.org")])
    memory.add([record("b.pdf", "QR-Logs", role="used"), record("b.pdf", "Wombat Walks")])
    view = memory.view()
    quokka = view.lookup("qr logs")
    assert quokka is view.lookup("Quokka Reads") and quokka.name == "Quokka Reads"
    assert quokka.papers == (("a.pdf", "created"), ("b.pdf", "used"))
    assert quokka.links == (("https://quokka.example.org", "a.pdf"),)
    assert len(memory) == 2 and set(view.links().values()) == {"https://quokka.example.org"}
    assert view.lookup("Wombat Walks").links == ()


def test_a_link_of_one_earlier_paper_is_lent_only_when_it_spells_the_datasets_name():
    from dsminer.evidence.records import url_spells

    memory = CorpusMemory()
    memory.add([record("a.pdf", "Quokka Reads", aliases=["QR"], link="https://lab.example.edu/quokka-reads/"),
                record("a.pdf", "Wombat Walks", link="https://lab.example.edu/data/glove.zip"),
                record("a.pdf", "Kelp Scenes", link="https://lab.example.edu/downloads/x.zip"),
                record("b.pdf", "Kelp Scenes", link="https://lab.example.edu/downloads/x.zip")])
    view = memory.view()
    lent = view.links(url_spells)
    assert lent["quokkareads"] == lent["qr"] == "https://lab.example.edu/quokka-reads/"
    assert "wombatwalks" not in lent  # one paper's link that spells none of its names: maybe another dataset's
    assert lent["kelpscenes"] == "https://lab.example.edu/downloads/x.zip"  # two papers give it
    assert view.links()["wombatwalks"] == "https://lab.example.edu/data/glove.zip"  # unchecked without `spells`


def test_a_view_is_a_snapshot_and_finds_the_names_a_text_writes_in_order():
    memory = CorpusMemory()
    memory.add([record("a.pdf", "Quokka Reads"), record("a.pdf", "training data")])
    view = memory.view()
    memory.add([record("b.pdf", "Wombat Walks")])
    assert view.lookup("Wombat Walks") is None and memory.view().lookup("Wombat Walks") is not None
    assert "training data" not in view.names  # a plain phrase would be found in any paper
    found = memory.view().written_in("We use Wombat Walks and then Quokka Reads; the training data is small.")
    assert [(written, dataset.name) for written, dataset in found] == [("Wombat Walks", "Wombat Walks"),
                                                                       ("Quokka Reads", "Quokka Reads")]


def test_a_memory_starts_from_a_catalogue_folder_with_its_links_marked(tmp_path):
    update_catalog(tmp_path / "cat", [("s0", [record("a.pdf", "Quokka Reads", aliases=["QR-Logs"],
                                                     link="https://q.example.org")])])
    memory = CorpusMemory()
    memory.seed(tmp_path / "cat")
    known = memory.view().lookup("QR-Logs")
    assert known is not None and known.links == (("https://q.example.org", "catalogue cat"),)


def test_offering_sets_the_snapshot_a_paper_reads_and_restores_it():
    assert current_corpus().known == {}
    memory = CorpusMemory()
    memory.add([record("a.pdf", "Quokka Reads")])
    with offering(memory.view()):
        assert current_corpus().lookup("Quokka Reads") is not None
        with offering(None):
            assert current_corpus() == CorpusView()
    assert current_corpus().known == {}
