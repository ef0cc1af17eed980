import json

import pytest

from dsminer.errors import DsminerError
from dsminer.evaluation.scirex import detokenize, load_scirex, read_document
from dsminer.programs.steps import names_inputs
from tests.scirex_docs import reef_doc


def test_detokenize_joins_punctuation_and_hyphenated_words():
    words = "Full - Resolution networks ( FRRN ) reach 71.8 % , ImageNet 's best .".split()
    assert detokenize(words) == "Full-Resolution networks (FRRN) reach 71.8%, ImageNet's best."


def test_a_document_reads_as_a_paper_with_headings_gold_and_mention_kinds():
    paper = read_document(reef_doc())
    assert paper.paper.file_name == "doc-reef.txt"
    assert paper.gold.title == "Counting Fish with FishNet"
    text = paper.paper.text
    assert "\n\nExperiments\n\n" in text and "3, 000 images" in text
    (gold,) = paper.gold.datasets
    assert gold.name == "ReefCount" and gold.aliases == ("ReefCount dataset",)
    assert paper.gold.material_mentions == {"ReefCount dataset": 1, "ReefCount": 2, "ImageNet": 1}
    assert paper.kind_of("FishNet") == "method" and paper.kind_of("Accuracy") == "metric"
    assert paper.kind_of("ImageNet") == "dataset" and paper.kind_of("Tables") is None


def test_the_names_step_reads_a_document_as_it_reads_a_pdf():
    paper = read_document(reef_doc()).paper
    inputs = names_inputs(paper, 40)
    assert "[p1] We train and evaluate FishNet on the ReefCount dataset of reef images." in inputs["context"]
    assert "ReefCount" in inputs["candidates"]


def test_documents_load_from_a_folder_or_a_jsonl_file(tmp_path):
    folder = tmp_path / "train"
    folder.mkdir()
    for name in ("b", "a"):
        (folder / f"{name}.json").write_text(json.dumps(reef_doc(f"doc-{name}")))
    assert [p.gold.file for p in load_scirex(folder)] == ["doc-a.txt", "doc-b.txt"]
    lines = tmp_path / "dev.jsonl"
    lines.write_text("\n".join(json.dumps(reef_doc(f"doc-{i}")) for i in range(3)) + "\n")
    assert len(load_scirex(lines, limit=2)) == 2
    one = tmp_path / "doc-x.json"
    one.write_text(json.dumps(reef_doc("doc-x"), indent=1))  # one document, written over many lines
    assert [p.gold.file for p in load_scirex(one)] == ["doc-x.txt"]


@pytest.mark.parametrize("content, fragment", [("{not json", "not JSON"), ('{"doc_id": "x"}', "not a SciREX document")])
def test_a_bad_document_is_one_line(tmp_path, content, fragment):
    path = tmp_path / "dev.jsonl"
    path.write_text(content + "\n")
    with pytest.raises(DsminerError, match=fragment):
        load_scirex(path)


def test_a_missing_path_is_one_line(tmp_path):
    with pytest.raises(DsminerError, match="not found"):
        load_scirex(tmp_path / "nowhere")
