"""The TensorFlow Datasets importer, on a hand-written wheel of invented builders."""

from __future__ import annotations

import json
import subprocess
import zipfile
from pathlib import Path

import pytest

from dsminer.catalog import tfds
from dsminer.catalog.known import load_known
from dsminer.errors import ConfigError
from dsminer.mentions.catalog import catalog_url, load_catalog_names, load_catalog_urls
from tests.helpers import assert_one_line_error, invoke

FOLDER_BUILDER = '''
import tensorflow_datasets.public_api as tfds

class Builder(tfds.core.GeneratorBasedBuilder):
  def _info(self):
    return self.dataset_info_from_configs(
        features=None,
        homepage=(
            "https://quokka.example.org/sounds"
        ),
    )
'''
MODULE_BUILDERS = '''
import textwrap
import tensorflow_datasets.public_api as tfds

_HOMEPAGE = "https://numbat.example.org/"
_DESCRIPTION = textwrap.dedent("""\\
    Numbat-9 consists of 9,000 numbat photographs.
    """)

class Numbat9(tfds.core.GeneratorBasedBuilder):
  def _info(self):
    return tfds.core.DatasetInfo(builder=self, description=_DESCRIPTION, homepage=_HOMEPAGE)

class WombatCounts(tfds.core.GeneratorBasedBuilder):
  def _info(self):
    return tfds.core.DatasetInfo(builder=self, description="This dataset counts wombats.",
                                 homepage="https://arxiv.org/abs/0000.00001")

class PossumTranslate(tfds.core.GeneratorBasedBuilder):
  BUILDER_CONFIGS = [Config(name="a-b", url="https://possum.example.org/"),
                     Config(name="b-c", url="https://possum.example.org/")]
  def _info(self):
    return tfds.core.DatasetInfo(builder=self, homepage=self.builder_config.url)

class Marsupials(tfds.core.GeneratorBasedBuilder):
  BUILDER_CONFIGS = [Config(name="quoll", url="https://quoll.example.org/"),
                     Config(name="bilby", url="https://bilby.example.org/")]
  def _info(self):
    return tfds.core.DatasetInfo(builder=self, homepage=self.builder_config.url)

class NoPage(tfds.core.GeneratorBasedBuilder):
  def _info(self):
    return tfds.core.DatasetInfo(builder=self, homepage=compute_page())
'''


def fake_wheel(folder: Path) -> Path:
    wheel = folder / "tensorflow_datasets-9.9.9-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        root = "tensorflow_datasets/"
        archive.writestr(root + "datasets/quokka_calls/quokka_calls_dataset_builder.py", FOLDER_BUILDER)
        archive.writestr(root + "datasets/quokka_calls/README.md",
                         "The Quokka Call Corpus (QCC) is a collection of 2,000 quokka calls.\n")
        archive.writestr(root + "datasets/quokka_calls/quokka_calls_dataset_builder_test.py", "homepage='x'")
        archive.writestr(root + "audio/quokka_calls.py", FOLDER_BUILDER.replace("Builder(", "QuokkaCalls("))
        archive.writestr(root + "image/numbat.py", MODULE_BUILDERS)
        archive.writestr(root + "core/dataset_info.py", FOLDER_BUILDER)
    return wheel


def test_rows_from_folder_and_module_builders(tmp_path):
    rows = {row["tfds_id"]: row for row in tfds.builder_rows(tfds.read_package(fake_wheel(tmp_path)))}
    assert sorted(rows) == ["numbat9", "possum_translate", "quokka_calls", "wombat_counts"]
    quokka = rows["quokka_calls"]  # the folder builder, with its README, wins over the module of the same id
    assert (quokka["pretty_name"], quokka["aliases"]) == ("Quokka Call", ["QCC"])
    assert quokka["homepage"] == "https://quokka.example.org/sounds"
    assert quokka["tfds_url"] == "https://www.tensorflow.org/datasets/catalog/quokka_calls"
    assert rows["numbat9"]["pretty_name"] == "Numbat-9" and rows["numbat9"]["homepage"] == "https://numbat.example.org/"
    assert rows["wombat_counts"]["pretty_name"] is None  # "This dataset ..." names nothing
    assert rows["possum_translate"]["homepage"] == "https://possum.example.org/"  # one page for every config


def test_a_paper_page_gives_way_to_the_catalogue_page(tmp_path):
    row = next(r for r in tfds.builder_rows(tfds.read_package(fake_wheel(tmp_path))) if r["tfds_id"] == "wombat_counts")
    assert catalog_url(row) == "https://www.tensorflow.org/datasets/catalog/wombat_counts"


def test_an_unpacked_package_reads_like_the_wheel(tmp_path):
    wheel = fake_wheel(tmp_path)
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(tmp_path / "unpacked")
    assert tfds.builder_rows(tfds.read_package(tmp_path / "unpacked")) == tfds.builder_rows(tfds.read_package(wheel))


def test_the_catalogue_feeds_names_links_and_known_ids(tmp_path):
    path, rows = tfds.import_tfds(tmp_path / "known", fake_wheel(tmp_path))
    assert path.name == "tfds.jsonl" and rows[0]["source"] == "tensorflow-datasets 9.9.9"
    assert {"Quokka Call", "QCC", "Numbat-9"} <= load_catalog_names(tmp_path / "known")
    urls = load_catalog_urls(tmp_path / "known")
    assert urls["qcc"] == urls["quokkacall"] == "https://quokka.example.org/sounds"
    assert urls["numbat9"] == "https://numbat.example.org/"
    known = load_known(tmp_path / "known")
    assert known["qcc"].known_id == "tfds:quokka_calls" and known["qcc"].url == "https://quokka.example.org/sounds"


def test_the_first_catalogue_with_one_link_for_a_name_wins(tmp_path):
    (tmp_path / "a_hf.jsonl").write_text(json.dumps({"hf_id": "quokka", "pretty_name": "Quokka Call",
                                                     "homepage": "https://hub.example.org/quokka"}) + "\n")
    tfds.import_tfds(tmp_path, fake_wheel(tmp_path))
    urls = load_catalog_urls(tmp_path)
    assert urls["quokkacall"] == "https://hub.example.org/quokka" and urls["qcc"] == "https://quokka.example.org/sounds"


def test_cli_writes_the_catalogue_and_refuses_what_is_not_a_wheel(tmp_path):
    result = invoke("catalog", "import-tfds", "--out", str(tmp_path / "known"), "--wheel", str(fake_wheel(tmp_path)))
    assert result.exit_code == 0, result.output
    assert "wrote 4 datasets (2 with a name besides the builder id)" in result.output
    assert len((tmp_path / "known" / "tfds.jsonl").read_text().splitlines()) == 4
    (tmp_path / "not.whl").write_text("text")
    assert_one_line_error(invoke("catalog", "import-tfds", "--wheel", str(tmp_path / "not.whl")), "is not a wheel")
    assert_one_line_error(invoke("catalog", "import-tfds", "--wheel", str(tmp_path / "none.whl")), "not found")
    empty = tmp_path / "empty"
    empty.mkdir()
    assert_one_line_error(invoke("catalog", "import-tfds", "--out", str(tmp_path / "o"), "--wheel", str(empty)),
                          "holds no tensorflow-datasets builder")


def test_a_failed_download_is_one_line(tmp_path, monkeypatch):
    def fail(*args, **kwargs):
        return subprocess.CompletedProcess(args, 1, "", "ERROR: No matching distribution found for x\n")

    monkeypatch.setattr(tfds.subprocess, "run", fail)
    with pytest.raises(ConfigError, match="could not download tensorflow-datasets==0.0: ERROR: No matching"):
        tfds.download_wheel(tmp_path, "0.0")
