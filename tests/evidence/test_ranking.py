"""The sentence ranker: its features, its file, the bundled ranker's order, and fitting one on labelled papers."""

from __future__ import annotations

import json

import pytest

from dsminer.document.pdf import parse_pdf
from dsminer.errors import ConfigError
from dsminer.evaluation.gold import GoldDataset, GoldPaper
from dsminer.evidence.context import paper_context
from dsminer.evidence.ranking import SentenceRanker, activate, sentence_features, use_ranker
from dsminer.evidence.candidate_ranker import CandidateRanker, use_candidate_ranker

# The plain sentences of the generalisation issue: each names data used, in a field where no data noun is written.
PLAIN_DATA = [
    "We analysed 502,000 participants from the UK Biobank cohort.",
    "Our cohort was drawn from NHANES 2011-2014 survey cycles.",
    "We extracted ICU stays from MIMIC-III for all adult patients.",
    "Hourly 2 m temperature was taken from the ERA5 reanalysis.",
    "Expression profiles were obtained from GTEx v8 for 49 tissues.",
    "We downloaded tumour samples from the TCGA database.",
    "The analysis uses waves I-IV of Add Health.",
    "Stellar parameters come from Gaia DR3.",
    "Crystal structures were retrieved from the Materials Project.",
]
BYLINE = ["Ada K. Lovelace1, Alan M. Turing2, Grace B. Hopper1",
          "1 Department of Engines, University of Nowhere, Springfield MA"]
NOT_DATA = [
    "We thank the anonymous reviewers for their helpful comments.",
    "The remainder of this paper is organised as follows.",
    "The loss decreases as the learning rate grows.",
    "This work was supported by a grant from the national science foundation.",
]


def _score(text: str, ranker: SentenceRanker, front_matter: bool = False) -> float:
    return ranker.score(sentence_features(text, data_section=False, table_page=False,
                                          position=0.0 if front_matter else 0.5, front_matter=front_matter))


def test_features_read_how_a_sentence_is_written_never_its_names():
    features = sentence_features("Ages were taken from the TimeTree resource (TTR) for 5,000 species.",
                                 data_section=True, table_page=False, position=0.42)
    assert features["data_section"] == 1.0 and features["position=2"] == 1.0 and features["acronym_paren"] == 1.0
    assert {"w=were", "w=taken", "w=resource", "w=species"} <= set(features) and "w=ages" not in features
    assert not any(name.casefold() in {"w=timetree", "w=ttr"} for name in features)
    byline = sentence_features("Ada K. Lovelace1, Alan M. Turing2", data_section=False, table_page=False,
                               position=0.0, front_matter=True)
    assert {"capitalised", "front_matter", "position=0"} <= set(byline) and "capitalised" not in features


def test_the_bundled_ranker_puts_data_sentences_of_any_field_above_the_rest():
    ranker = use_ranker(None)
    data = sorted(_score(text, ranker) for text in PLAIN_DATA)
    assert all(_score(text, ranker) < data[0] for text in NOT_DATA)
    assert all(_score(text, ranker, front_matter=True) < data[len(data) // 2] for text in BYLINE)
    assert ranker.about["held_out"]  # it says what it put in the context of each corpus it was not fitted on


@pytest.mark.parametrize("kind, use", [(SentenceRanker, use_ranker), (CandidateRanker, use_candidate_ranker)])
def test_a_ranker_file_round_trips_and_a_bad_one_is_a_config_error(tmp_path, kind, use):
    ranker = kind({"w=cohort": 1.5, "strong": 0.5}, -2.0, {"strength": 0.1})
    path = tmp_path / "ranker.json"
    ranker.save(path)
    assert kind.load(path) == ranker
    path.write_text(json.dumps({"weights": {"w=cohort": "high"}}), encoding="utf-8")
    with pytest.raises(ConfigError, match=f"not a {kind.kind}"):
        kind.load(path)
    with pytest.raises(ConfigError):
        use(tmp_path / "missing.json")


def test_the_active_ranker_chooses_what_the_names_context_reads(make_pdf):
    lines = [f"Sample {i} was weighed on the scale in the morning." for i in range(30)]
    paper = parse_pdf(make_pdf("r.pdf", [" ".join([*lines, "The weather came from the Glimmer archive."])]))
    previous = activate(SentenceRanker({"w=weather": 5.0}, 0.0))
    try:
        assert "Glimmer" in paper_context(paper, max_sentences=3).text
        activate(SentenceRanker({"w=weighed": 5.0}, 0.0))
        assert "Glimmer" not in paper_context(paper, max_sentences=3).text
    finally:
        activate(previous)


def _labelled_papers(make_pdf, count):
    """Invented papers: each writes its dataset beside "registry", and filler that writes none."""
    papers = []
    for number in range(count):
        name = f"Quorra{number}"
        filler = " ".join(f"The pump {i} ran at a steady pace for the whole day." for i in range(12))
        paper = parse_pdf(make_pdf(f"p{number}.pdf", [f"{filler} Records came from the {name} registry. {filler}"]))
        papers.append((paper, GoldPaper(f"p{number}.pdf", None, [GoldDataset(name, role="used")])))
    return papers


def test_fitting_learns_the_words_data_is_written_with_and_leaves_names_out(make_pdf):
    from dsminer.programs.ranker_fit import fit_ranker, name_words

    papers = _labelled_papers(make_pdf, 6)
    assert name_words([gold for _, gold in papers]) == {"quorra"}
    ranker = fit_ranker({"invented": papers}, strengths=(1.0,), min_papers=2)
    assert ranker.weights["w=registry"] > 0 > ranker.weights.get("w=pump", 0.0) - 1e-9
    assert not any("quorra" in name for name in ranker.weights)
    held_out = ranker.about["held_out"]
    assert len(held_out) == 5 and all(part["context_share"] == 1.0 for part in held_out.values())


def test_fitting_needs_sentences_of_both_kinds(make_pdf):
    from dsminer.programs.ranker_fit import fit_ranker

    paper = parse_pdf(make_pdf("n.pdf", ["The pump ran at a steady pace for the whole day."]))
    golds = [(paper, GoldPaper("n.pdf", None, [GoldDataset("Absent", role="used")]))] * 2
    with pytest.raises(ValueError, match="both labels"):
        fit_ranker({"none": golds}, strengths=(1.0,))
