"""Pairwise resolution scores on labelled mentions built from invented SciREX documents and gold rows."""

from __future__ import annotations

import json

import pytest

from dsminer.errors import ConfigError
from dsminer.evaluation.resolution import (
    LabelledMention,
    gold_mentions,
    pair_scores,
    read_labelled,
    same_dataset,
    scirex_mentions,
    versions_of_one,
)


def scirex_doc(doc_id: str, text: str, clusters: dict[str, list[str]]) -> dict:
    """A SciREX-shaped document: its words, and for each salient dataset the spans of its spellings."""
    words = text.split()
    coref = {}
    for entity, forms in clusters.items():
        spans = []
        for form in forms:
            size = len(form.split())
            start = next(i for i in range(len(words)) if words[i:i + size] == form.split() and [i, i + size] not in spans)
            spans.append([start, start + size])
        coref[entity] = spans
    return {"doc_id": doc_id, "words": words, "coref": coref,
            "n_ary_relations": [{"Material": entity} for entity in clusters]}


def test_pwc_settings_are_one_dataset_and_other_names_are_not():
    assert same_dataset("pwc:Numbat__4000_Labels", "pwc:Numbat")
    assert same_dataset("pwc:Numbat_-_4x_upscaling", "pwc:Numbat")
    assert not same_dataset("pwc:Numbat-100", "pwc:Numbat-10")
    assert not same_dataset("quokkareads", "pwc:Quokka_Reads")
    assert same_dataset("pwc:_Numbat-2011", "pwc:Numbat-2011__Zero-Shot")  # a leading "_" is not a word


def test_pwc_names_that_only_begin_alike_are_not_labelled():
    assert same_dataset("pwc:Numbat", "pwc:Numbat_Question_Answering__NQA_") is None
    mentions = [LabelledMention("a", "Numbat", (), "pwc:Numbat"),
                LabelledMention("b", "NQA", (), "pwc:Numbat_Question_Answering__NQA_"),
                LabelledMention("c", "Numbat", (), "pwc:Numbat")]
    scores = pair_scores(mentions)
    assert (scores["unscored_pairs"], scores["same_pairs"], scores["different_pairs"]) == (2, 1, 0)


def test_pairs_of_a_name_and_its_version_are_also_scored_apart():
    mentions = [LabelledMention("a", "Numbat", (), "numbat"), LabelledMention("b", "Numbat v2", (), "numbat"),
                LabelledMention("c", "Numbat", (), "numbat"), LabelledMention("d", "Bilby", (), "bilby")]
    scores = pair_scores(mentions)
    assert scores["recall"] == round(1 / 3, 4) and scores["without_variants.recall"] == 1.0
    assert scores["variant_pairs"] == 2 and scores["precision"] == scores["without_variants.precision"] == 1.0


def test_one_name_labelled_with_two_versions_of_a_dataset_is_left_out_without_variants():
    assert versions_of_one("pwc:Numbat1_1", "pwc:Numbat2_0") and versions_of_one("pwc:Numbat_20M", "pwc:Numbat_100K")
    assert not versions_of_one("pwc:Numbat-5_Fine-grained", "pwc:Numbat-2_Binary")  # settings, not versions
    assert versions_of_one("numbat 1", "numbat 2") and not versions_of_one("pwc:Numbat", "pwc:Bilby")
    mentions = [LabelledMention("a", "Numbat", (), "pwc:Numbat1_1"),
                LabelledMention("b", "Numbat", (), "pwc:Numbat2_0"), LabelledMention("c", "Numbat", (), "pwc:Numbat2_0")]
    scores = pair_scores(mentions)
    assert scores["precision"] == round(1 / 3, 4) and scores["wrongly_joined"] == 2
    assert scores["without_variants.precision"] == 1.0 and scores["variant_pairs"] == 2


def test_a_scirex_mention_is_the_commonest_written_name_with_the_names_the_paper_defines_beside_it(tmp_path):
    text = ("We use the Marsupial Sound Dataset ( MSD ) here . MSD is large . MSD again . "
            "Numbat Numbat wombat results .")
    doc = scirex_doc("p1", text, {"Marsupial_Sound_Dataset": ["Marsupial Sound Dataset", "MSD", "MSD", "MSD"],
                                  "Numbat": ["Numbat", "Numbat", "wombat"]})
    path = tmp_path / "docs.jsonl"
    path.write_text(json.dumps(doc) + "\n", encoding="utf-8")
    mentions = {m.label: m for m in scirex_mentions(path)}
    assert mentions["pwc:Marsupial_Sound_Dataset"] == LabelledMention(
        "p1", "MSD", ("Marsupial Sound Dataset",), "pwc:Marsupial_Sound_Dataset")
    assert mentions["pwc:Numbat"].aliases == ()  # "wombat" is written in its cluster, never defined beside it


def test_a_name_a_paper_gives_two_datasets_is_left_out(tmp_path):
    doc = scirex_doc("p1", "Emu Games one Emu Games two", {"Emu_Pong": ["Emu Games"], "Emu_Tennis": ["Emu Games"]})
    path = tmp_path / "docs.jsonl"
    path.write_text(json.dumps(doc) + "\n", encoding="utf-8")
    assert scirex_mentions(path) == []


def test_gold_without_pwc_ids_gives_each_alias_a_paper_of_its_own():
    rows = [{"file": "a.pdf", "datasets": [{"name": "Quokka Reads", "aliases": ["QR"]}]},
            {"file": "b.pdf", "datasets": [{"name": "Quokka Reads", "aliases": []}, {"name": "Numbat", "aliases": []}]}]
    mentions = gold_mentions(rows)
    assert [(m.paper, m.name, m.label) for m in mentions] == [
        ("a.pdf#1", "QR", "quokkareads"), ("a.pdf", "Quokka Reads", "quokkareads"),
        ("b.pdf", "Quokka Reads", "quokkareads"), ("b.pdf", "Numbat", "numbat")]


def test_pair_scores_count_pairs_across_papers_only_and_list_the_wrong_ones():
    mentions = [LabelledMention("a", "Marsupial Sound Dataset", ("MSD",), "msd"),
                LabelledMention("b", "MSD", (), "msd"),
                LabelledMention("c", "Bilby-10", (), "bilby10"),
                LabelledMention("d", "Bilby-100", (), "bilby10"),   # the gold says one dataset: a miss
                LabelledMention("d", "Numbat", (), "numbat")]
    wrong: list[dict] = []
    scores = pair_scores(mentions, True, wrong)
    assert (scores["same_pairs"], scores["wrongly_apart"], scores["wrongly_joined"]) == (2, 1, 0)
    assert scores["precision"] == 1.0 and scores["recall"] == 0.5
    assert wrong == [{"error": "wrongly apart", "first": "Bilby-10", "first_label": "bilby10", "second": "Bilby-100",
                      "second_label": "bilby10"}]
    assert pair_scores(mentions, False)["recall"] == 0.0  # without the record's alias, MSD stays apart


def test_read_labelled_takes_a_range_of_a_gold_file_and_says_what_is_wrong(tmp_path):
    gold = tmp_path / "corpus" / "gold.jsonl"
    gold.parent.mkdir()
    gold.write_text("".join(json.dumps({"file": f"{n}.pdf", "datasets": [{"name": "Numbat"}]}) + "\n" for n in range(3)),
                    encoding="utf-8")
    label, mentions = read_labelled(f"{gold}:2-3")
    assert label == "corpus:2-3" and [m.paper for m in mentions] == ["1.pdf", "2.pdf"]
    with pytest.raises(ConfigError, match="lines 2-9 are not within the file's 3 papers"):
        read_labelled(f"{gold}:2-9")
    with pytest.raises(ConfigError, match="not found"):
        read_labelled(str(tmp_path / "missing.jsonl"))


def test_eval_module_resolution_scores_each_source_and_all_pooled_and_logs_to_mlflow(tmp_path):
    from mlflow.tracking import MlflowClient
    from typer.testing import CliRunner

    from dsminer.cli import app

    first, second = tmp_path / "one" / "gold.jsonl", tmp_path / "two" / "gold.jsonl"
    for path, papers in ((first, ["a", "b"]), (second, ["c"])):
        path.parent.mkdir()
        path.write_text("".join(json.dumps({"file": f"{p}.pdf", "datasets": [{"name": "Quokka Reads"}]}) + "\n"
                                for p in papers), encoding="utf-8")
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    out = tmp_path / "resolution.json"
    result = CliRunner().invoke(app, ["eval-module", "resolution", "--gold", str(first), "--gold", str(second),
                                      "--tracking-uri", uri, "--out", str(out)])
    assert result.exit_code == 0, result.output
    metrics = json.loads(out.read_text(encoding="utf-8"))["metrics"]
    assert (metrics["one.same_pairs"], metrics["two.same_pairs"], metrics["all.same_pairs"]) == (1, 0, 3)
    assert metrics["all.recall"] == 1.0
    client = MlflowClient(uri)
    logged = client.search_runs([e.experiment_id for e in client.search_experiments()])[0]
    assert logged.data.params["module"] == "resolution" and logged.data.metrics["all.precision"] == 1.0
