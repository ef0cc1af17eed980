"""Scoring sentences by how likely they are to name a dataset."""

from __future__ import annotations

import pytest

from dsminer.mentions.cues import score_sentence

CUED = "We evaluate our model on the ABC-10 dataset, which contains 10,000 images."


@pytest.mark.parametrize(
    ("better", "worse"),
    [
        (CUED, "We thank the anonymous reviewers for their helpful comments."),
        ("The XYZ2014 corpus consists of news articles.", "The model consists of two layers."),
        ("Table 2: Results on the QRS benchmark.", "Table 2: Hyper-parameters of the model."),
        ("Data are available at https://example.org/qrs.", "Data are shown in the figure below."),
        (CUED, "12.1 13.4 15.6 17.2 18.0 dataset 19.9 20.3 21.7 22.8"),
        ("We train on the ABC-10 training set.", "We train."),
        ("We flagged the stars in the XYZ eclipsing binary catalog.", "We flagged the stars in the XYZ binary plot."),
    ],
)
def test_cues_rank_dataset_sentences_higher(better: str, worse: str) -> None:
    assert score_sentence(better)[0] > score_sentence(worse)[0]


def test_extra_keywords_raise_the_score() -> None:
    plain, _ = score_sentence("The pilot used Quux for calibration.")
    widened, anchor = score_sentence("The pilot used Quux for calibration.", ["calibration"])
    assert widened >= plain + 3
    assert anchor is not None and anchor.group(0) == "calibration"


def test_header_rows_count_only_on_table_pages() -> None:
    row = "Model AG Sogou DBP Yelp P. Yelp F."
    assert score_sentence(row, table_page=True)[0] > score_sentence(row)[0]
    assert score_sentence("Appendix A Further Details", table_page=True)[0] == score_sentence(
        "Appendix A Further Details"
    )[0]


def test_the_anchor_is_the_strongest_cue() -> None:
    _, anchor = score_sentence(CUED)
    assert anchor is not None and anchor.group(0) == "dataset"
    assert score_sentence("Nothing to see.")[1] is None
