"""The candidate ranker: the phrases it reads, their features, its file, the bundled ranker, and fitting one."""

from __future__ import annotations

import pytest

from dsminer.document.pdf import parse_pdf
from dsminer.evaluation.gold import GoldDataset, GoldPaper
from dsminer.evidence.candidate_ranker import (
    FILL_LOG_ODDS,
    CandidateRanker,
    activate_candidate_ranker,
    active_candidate_ranker,
    is_phrase_name,
    named_as_data,
    offer_candidates,
    paper_phrases,
    phrase_runs,
)


@pytest.mark.parametrize("sentence, phrases", [
    ("Hourly sea temperature was taken from the ORCA5 reanalysis.", ["ORCA5"]),
    ("Hourly ORCA5 temperature was read.", ["Hourly ORCA5", "ORCA5"]),
    ("KTEx holds 49 tissues.", ["KTEx"]),
    ("We analysed 502,000 participants from the Kelp Biobank cohort.", ["Kelp Biobank"]),
    ("We searched Reef Academic, Web of Kelp and Shoalus for each university.",
     ["Reef Academic", "Web of Kelp", "Shoalus"]),
    ("Profiles were obtained from KTEx v8 for 49 tissues.", ["KTEx v8"]),
    ("Results on KoNLL 2003 and SQuID 2.0 are in the Directory of Open Reef Journals (DORJ).",
     ["KoNLL 2003", "SQuID 2.0", "Directory of Open Reef Journals", "DORJ"]),
    ("The OrcaPanel's waves were read.", ["OrcaPanel"]),
    ("Results of Kelpwood follow.", ["Results of Kelpwood", "Kelpwood"]),
    ("Reef Datasets We read the Kelp Survey Part A twice.", ["Reef Datasets", "Datasets", "Kelp Survey Part A"]),
    ("We use the Annual Reef Survey Of Kelp Coast Waters Data Set here.", []),  # a run of seven: a title
])
def test_phrases_are_runs_of_name_words_without_the_words_that_open_a_clause(sentence, phrases):
    assert [text for text, _, _ in phrase_runs(sentence)] == phrases


def test_a_phrase_runs_span_is_where_the_sentence_writes_it():
    sentence = "Levels came from the Reef Watch Tides at every site."
    (text, start, end), = phrase_runs(sentence)
    assert sentence[start:end] == text == "Reef Watch Tides"


@pytest.mark.parametrize("text, expected", [
    ("ORCA5", True), ("Web of Kelp", True), ("GPU", False), ("BLEU", False), ("English", False),
    ("En-De", False), ("CNNs", False), ("2003", False), ("ResNet-50", False),
])
def test_what_can_name_a_dataset_at_all(text, expected):
    assert is_phrase_name(text) is expected


def test_features_say_how_a_phrase_is_written_and_read_never_its_name(make_pdf):
    text = ("Methods\n\nTide levels follow ORCA5 closely at every station.\n\n"
            "We also report results on the Kelpwood dataset and the ORCA5 [12] logs.")
    phrases = {phrase.name: phrase.features for phrase in paper_phrases(parse_pdf(make_pdf("f.pdf", [text])))}
    orca = phrases["ORCA5"]
    assert orca["L=follow"] == orca["R=closely"] == orca["cited"] == orca["shape=digit"] == 1.0
    assert orca["sentences"] > phrases["Kelpwood"]["sentences"]
    assert phrases["Kelpwood"]["written_as_data"] == 1.0
    assert "Methods" not in phrases  # a heading's one word, capitalised as a sentence's first
    assert not any("orca5" in name.casefold() or "kelpwood" in name.casefold()
                   for features in phrases.values() for name in features)


def test_features_say_how_much_of_a_phrase_the_prose_writes_in_lower_case(make_pdf):
    text = ("SOME REEF TIDES\n\nWe list some reef tides and the test set here. Results of Kelpwood follow in "
            "the Test Set, with Orca Watch logs and Kelp Tides II in Table 2. The results of each test are shown.")
    phrases = {phrase.name: phrase.features for phrase in paper_phrases(parse_pdf(make_pdf("f.pdf", [text])))}
    assert phrases["SOME REEF TIDES"]["lower_words=all"] == phrases["SOME REEF TIDES"]["shape=capital_words"] == 1.0
    assert phrases["SOME REEF TIDES"]["phrase_lower"] == 1.0
    assert phrases["Results of Kelpwood"]["lower_words=first"] == phrases["Results of Kelpwood"]["lower_words=some"]
    assert "lower_words=all" not in phrases["Results of Kelpwood"]
    assert phrases["Test Set"]["phrase_lower"] == 1.0
    assert not any(key.startswith("lower_words") for key in phrases["Orca Watch"])
    assert phrases["Kelp Tides II"]["shape=roman"] == 1.0


def test_the_bundled_ranker_says_what_its_offer_held_on_each_corpus_it_was_not_fitted_on():
    activate_candidate_ranker(None)
    ranker = active_candidate_ranker()
    assert ranker is not None and ranker.weights
    assert all("candidate_share" in part for part in ranker.about["held_out"].values())


def _labelled_papers(make_pdf, count):
    """Invented papers: each writes its dataset after "follow" and a place's name after "in"."""
    papers = []
    for number in range(count):
        name = f"Quorra{number}"
        filler = " ".join(f"The pump {i} ran at a steady pace in Lisbon{i} for the whole day." for i in range(6))
        page = f"{filler} Tide levels follow {name} closely. The levels follow {name} at every site. {filler}"
        paper = parse_pdf(make_pdf(f"p{number}.pdf", [page]))
        papers.append((paper, GoldPaper(f"p{number}.pdf", None, [GoldDataset(name, role="used")])))
    return papers


def test_fitting_learns_the_words_around_a_dataset_and_leaves_names_out(make_pdf):
    from dsminer.programs.candidate_fit import fit_candidate_ranker

    papers = _labelled_papers(make_pdf, 6)
    ranker = fit_candidate_ranker({"invented": papers}, strengths=(1.0,), min_papers=2)
    assert ranker.weights["L=follow"] > 0 and ranker.weights.get("L=in", 0.0) < ranker.weights["L=follow"]
    assert not any("quorra" in name for name in ranker.weights)
    held_out = ranker.about["held_out"]
    assert len(held_out) == 5 and all(part["candidate_share"] == 1.0 for part in held_out.values())
    paper, gold = papers[0]
    assert [c.name for c in offer_candidates(paper, ranker=ranker)] == ["Quorra0"]


def test_the_strength_offers_the_most_gold_and_at_equal_gold_the_fewest_other_names():
    from dsminer.programs.candidate_fit import best_strength

    # per held-out part: (gold offered, gold written, names offered, names offered that are gold)
    shares = {0.01: {"a": (8, 10, 40, 8), "b": (5, 6, 30, 6)},
              0.03: {"a": (9, 10, 40, 9), "b": (4, 6, 20, 4)},
              0.1: {"a": (7, 10, 30, 7), "b": (5, 6, 20, 5)}}
    assert best_strength(shares) == 0.03  # 13 gold offered each for 0.01 and 0.03: 13 of 60 names beat 14 of 70
    shares[0.1]["a"] = (8, 10, 30, 8)
    assert best_strength(shares) == 0.1  # now 13 of 50


def test_fitting_needs_phrases_of_both_kinds(make_pdf):
    from dsminer.programs.candidate_fit import fit_candidate_ranker

    paper = parse_pdf(make_pdf("n.pdf", ["The pump ran at a steady pace in Lisbon for the whole day."]))
    golds = [(paper, GoldPaper("n.pdf", None, [GoldDataset("Absent", role="used")]))] * 2
    with pytest.raises(ValueError, match="both labels"):
        fit_candidate_ranker({"none": golds}, strengths=(1.0,))


def test_the_ranker_fills_the_offer_after_the_cue_names_with_phrases_it_scores_above_the_threshold(make_pdf):
    text = ("Methods\n\nWe report results on the Kelpwood dataset.\n\n"
            "Tide levels follow ORCA5 closely at every station.\n\n"
            "Dr Marlow Finch read every log by hand in Lisbon.")
    paper = parse_pdf(make_pdf("fill.pdf", [text]))
    ranker = CandidateRanker({"L=follow": 2.0, "words=1": -0.5}, FILL_LOG_ODDS - 1.0)
    found = offer_candidates(paper, ranker=ranker)
    assert [c.name for c in found] == ["Kelpwood", "ORCA5"]  # the cue name, then the ranker's
    assert found[0].log_odds is None and found[1].log_odds == FILL_LOG_ODDS + 0.5
    assert [c.name for c in offer_candidates(paper, ranker=ranker, limit=1)] == ["Kelpwood"]
    # what the ranker scores at or under the threshold is never offered, even when likelier a dataset than not
    quiet = CandidateRanker({"L=follow": FILL_LOG_ODDS}, 0.0)
    assert [c.name for c in offer_candidates(paper, ranker=quiet)] == ["Kelpwood"]


def test_a_word_also_written_in_lower_case_is_offered_only_where_the_paper_names_data_with_it(make_pdf):
    text = ("Methods\n\nThe third case study examines kelp survival in reef waters.\n\n"
            "We fit every model to the Kelp dataset, which an R package holds.\n\n"
            "Survival follows Results closely, and results follow survival.")
    paper = parse_pdf(make_pdf("kelp.pdf", [text]))
    ranker = CandidateRanker({"words=1": 2.0}, FILL_LOG_ODDS)
    phrases = {phrase.name: phrase for phrase in paper_phrases(paper)}
    assert named_as_data(phrases["Kelp"]) and not named_as_data(phrases["Results"])
    names = [c.name for c in offer_candidates(paper, ranker=ranker)]
    assert "Kelp" in names and "Results" not in names  # both written in lower case too; only one names data
