"""Catalogue entries from records: ids that stay, links with their source, counts, and the tables on disk."""

from __future__ import annotations

import json

import duckdb
import pytest

from dsminer.catalog.build import update_catalog
from dsminer.catalog.entries import build_catalog, mention_rows
from dsminer.catalog.known import KnownDataset, index_known
from dsminer.catalog.tables import TABLES, read_catalog
from dsminer.errors import CatalogError
from dsminer.schema import DatasetRecord, make_dataset_id


def record(paper: str, name: str, *, aliases=(), role="used", link=None, year=None, content=None,
           platform="unspecified") -> DatasetRecord:
    return DatasetRecord.model_validate({
        "dataset_id": make_dataset_id(paper, name), "name": name, "aliases": list(aliases), "role": role,
        "dataset_describe": {"content": content}, "paper_refs": {"title": f"Paper {paper}", "year": year},
        "dataset_link": link, "platform": platform,
        "evidence": {"source": paper, "page": 3, "quote": f"We use {name}."},
    })


def entry(catalog, name):
    rows = catalog.entries[catalog.entries["name"] == name]
    assert len(rows) == 1, f"{name}: {len(rows)} entries"
    return rows.iloc[0]


def test_an_entry_counts_papers_by_role_and_year_and_keeps_every_spelling():
    catalog = build_catalog(mention_rows([
        record("a.pdf", "Quokka Reads", role="created", year=2023, content="Reading logs of quokkas."),
        record("b.pdf", "QuokkaReads", role="used", year=2024),
        record("c.pdf", "Quokka Reads", aliases=["QR-Logs"], role="mentioned", year=2024),
    ], "s0"))
    row = entry(catalog, "Quokka Reads")
    assert (row["papers"], row["created"], row["used"], row["mentioned"]) == (3, 1, 1, 1)
    assert json.loads(row["years"]) == {"2023": 1, "2024": 2}
    assert row["content"] == "Reading logs of quokkas."
    aliases = dict(zip(catalog.aliases["alias"], catalog.aliases["count"]))
    assert aliases == {"Quokka Reads": 2, "QuokkaReads": 1, "QR-Logs": 1}


def test_a_link_one_paper_gives_is_the_entrys_with_that_paper_as_source_and_not_the_other_records():
    catalog = build_catalog(mention_rows([
        record("a.pdf", "Quokka Reads", link="https://example.org/qr"),
        record("b.pdf", "Quokka Reads"),
    ], "s0"))
    row = entry(catalog, "Quokka Reads")
    assert (row["link"], row["link_source"]) == ("https://example.org/qr", "paper: a.pdf")
    links = dict(zip(catalog.mentions["paper"], catalog.mentions["dataset_link"]))
    assert links == {"a.pdf": "https://example.org/qr", "b.pdf": None}


def test_a_known_catalogue_gives_an_id_and_a_link_marked_as_borrowed():
    known = index_known([{"hf_id": "zorba/quokka_reads", "pretty_name": "Quokka Reads",
                          "hf_url": "https://huggingface.co/datasets/zorba/quokka_reads"}])
    catalog = build_catalog(mention_rows([record("a.pdf", "quokka_reads")], "s0"), known)
    row = entry(catalog, "quokka_reads")
    assert row["known_id"] == "hf:zorba/quokka_reads"
    assert row["link_source"] == "catalogue: hf:zorba/quokka_reads"


def test_a_name_two_catalogue_entries_share_is_no_known_id():
    known = index_known([{"hf_id": "a/MothsA", "pretty_name": "Moth Set"}, {"hf_id": "b/MothsB", "pretty_name": "Moth Set"}])
    assert "mothset" not in known
    assert known["mothsa"] == KnownDataset("hf:a/MothsA", "Moth Set", None)


def test_a_paper_with_two_records_of_one_entry_counts_once_with_its_strongest_role():
    catalog = build_catalog(mention_rows([record("a.pdf", "Marsupial Sound Dataset", aliases=["MSD"], role="mentioned"),
                                          record("a.pdf", "MSD", role="created")], "s0"))
    row = entry(catalog, "Marsupial Sound Dataset")
    assert (row["papers"], row["mentions"], row["created"], row["mentioned"]) == (1, 2, 1, 0)


def test_a_record_in_two_runs_counts_once():
    records = [record("a.pdf", "Quokka Reads")]
    catalog = build_catalog(mention_rows(records, "s0") + mention_rows(records, "s1a"))
    assert len(catalog.mentions) == 1 and entry(catalog, "Quokka Reads")["papers"] == 1


def test_adding_a_run_keeps_the_ids_and_an_absorbed_entry_is_recorded(tmp_path):
    first = update_catalog(tmp_path, [("s0", [record("a.pdf", "Marsupial Sound Dataset"), record("b.pdf", "MSD"),
                                              record("b.pdf", "Numbat")])])
    ids = dict(zip(first.entries["name"], first.entries["entry_id"]))
    assert ids["Marsupial Sound Dataset"] != ids["MSD"]
    second = update_catalog(tmp_path, [("s1a", [record("c.pdf", "Marsupial Sound Dataset", aliases=["MSD"]),
                                               record("d.pdf", "Numbat v2")])])
    after = second.entries.set_index("entry_id")
    kept = ids["Marsupial Sound Dataset"] if ids["Marsupial Sound Dataset"] in after.index else ids["MSD"]
    absorbed = ({ids["Marsupial Sound Dataset"], ids["MSD"]} - {kept}).pop()
    assert after.loc[kept, "papers"] == 3 and after.loc[kept, "merged_ids"] == [absorbed]
    assert ids["Numbat"] in after.index and after.loc[ids["Numbat"], "papers"] == 1
    variant = second.entries[second.entries["name"] == "Numbat v2"].iloc[0]
    assert variant["variant_of"] == ids["Numbat"]
    assert read_catalog(tmp_path).entries.set_index("entry_id").loc[kept, "merged_ids"] == [absorbed]


def test_the_tables_are_parquet_and_duckdb_and_no_partial_file_is_left(tmp_path):
    update_catalog(tmp_path, [("s0", [record("a.pdf", "Quokka Reads"), record("b.pdf", "Quokka Reads")])])
    assert sorted(path.name for path in tmp_path.iterdir()) == sorted(
        [f"{table}.parquet" for table in TABLES] + ["catalog.duckdb"])
    with duckdb.connect(str(tmp_path / "catalog.duckdb"), read_only=True) as connection:
        assert connection.execute("SELECT name, papers FROM entries").fetchall() == [("Quokka Reads", 2)]
        assert connection.execute("SELECT count(*) FROM mentions JOIN entries USING (entry_id)").fetchone() == (2,)


def test_a_folder_without_a_catalogue_says_so(tmp_path):
    with pytest.raises(CatalogError, match="holds no catalogue"):
        read_catalog(tmp_path)
