import pymupdf
import pytest

from dsminer.document.pdf import parse_pdf
from dsminer.mentions.candidates import (
    candidate_names,
    data_support,
    find_candidates,
    is_name_shaped,
    is_table_row_text,
    lists_datasets,
    row_names,
)
from tests.helpers import ruled_table_pdf

PAPER = (
    "Learning Whale Songs\n\n"
    "1 Introduction\n\n"
    "Marine sound matters to us all. Our model is named Songbird.\n\n"
    "4 Datasets\n\n"
    "We fine-tune ResNet-50 on the OrcaSet-5 dataset and evaluate on the Atlantic Whale Corpus.\n\n"
    "We also report results on the DolphinTalk benchmark from the same lab.\n\n"
    "Table 2: Accuracy of each model on each test set.\n\n"
    "HumpBack 71.2 80.3 66.1 - 54.0 ReefSounds 60.2 - 55.5 70.1 49.9\n\n"
    "The HumpBack recordings are a new corpus."
)


@pytest.mark.parametrize("sentence, names", [
    ("This utilises a citation database and data from Unpaywall to estimate access.", ["Unpaywall"]),
    ("Counts were obtained from the Kelp Watch and ReefBase registries.", ["Kelp Watch", "ReefBase"]),
    ("The model was fitted on the German Breast Cancer Study Group dataset.", ["German Breast Cancer Study Group"]),
    ("We evaluate on SST-2, MR and TREC.", ["SST-2", "MR", "TREC"]),
    ("We report results on SQuAD 2.0 and CoNLL 2003.", ["SQuAD 2.0", "CoNLL 2003"]),
    ("Results on bAbI are shown.", ["bAbI"]),
    ("Results on the Penn Treebank are shown.", ["Penn Treebank"]),
    ("Stars were matched to the Kelp Input Catalog by position.", ["Kelp Input Catalog"]),
    ("Household incomes come from the Reef Household Survey.", ["Reef Household Survey"]),
    ("4 RESULTS ON THREE BENCHMARKS", []),
    ("10% of the KiteQA training set was held out.", ["KiteQA"]),
    ("We use the Wall Street Journal corpus for training.", ["Wall Street Journal"]),
    ("We use three datasets: Kite\u2019s News, Reef Polarity and OrcaSet.",
     ["Kite\u2019s News", "Reef Polarity", "OrcaSet"]),
    ("Results on benchmarks such as WhaleQA and the Atlantic Whale Corpus.", ["WhaleQA", "Atlantic Whale Corpus"]),
    ("We use two datasets: the Stanford Whale Song Inference (SWSI) corpus and more.",
     ["Stanford Whale Song Inference", "SWSI"]),
    ("The Whale Song Inference (WSI) corpus holds 5k pairs.", ["Whale Song Inference", "WSI"]),
    ("Song Inference (WSI) corpus (Finch et al., 2015).", ["WSI"]),
    ("We test on two test datasets OrcaSet5 and OrcaSet14.", ["OrcaSet5", "OrcaSet14"]),
    ("We compare on standard datasets (KiteKG-237, WhaleNet18) across tasks.", ["KiteKG-237", "WhaleNet18"]),
    ("We use three benchmarks, i.e., Kelpwood, Shoalnet and Reefbank.", ["Kelpwood", "Shoalnet", "Reefbank"]),
    ("On both datasets, OrcaNet beats WhaleGAN.", []),
    ("On both datasets, OrcaNet and WhaleGAN do well.", []),
    ("We use three song datasets, Kelpwood, Shoalnet and Reefbank.", ["Kelpwood", "Shoalnet", "Reefbank"]),
    ("We sample two datasets of natural sounds, namely OrcaSet and Reefline.", ["OrcaSet", "Reefline"]),
    ("KiteQA and ReefQA are paragraph datasets that hold pairs.", ["KiteQA", "ReefQA"]),
    ("Both datasets Firstly hold songs.", []),
    ("We evaluate on SQuAD and the WhaleQA stories.", ["SQuAD", "WhaleQA"]),
    ("Figure 3 shows the Reefline dataset.", ["Reefline"]),
    ("Reefline datasets are big.", []),
    ("Results on Kelpwood and Shoalnet are shown.", ["Kelpwood", "Shoalnet"]),
    ("Results on Kelpwood are shown.", []),
    ("We evaluate on the Reef Songs dataset.", ["Reef Songs"]),
    ("We report the best result on the Kelpqa tasks.", ["Kelpqa"]),
    ("The OrcaLL 2011 NER task consists of newswire.", ["OrcaLL 2011"]),
    ("We evaluate on the WhaleLL-2012 shared task data.", ["WhaleLL-2012"]),
    ("Accuracy for the NER and POS tasks improves.", []),
    ("We translate on English and German news.", []),
    ("We train BERT on our data.", []),
    ("On GPU we run the model.", []),
])
def test_candidate_names(sentence, names):
    assert candidate_names(sentence) == names


@pytest.mark.parametrize("token, shaped", [
    ("OrcaSet-5", True), ("WSJ", True), ("Penn Treebank", True), ("4 EXPERIMENTS", False), ("As WIDER FACE", False),
    ("ResNet-50", False), ("PP from S", False), ("Rater Agreement The SemEval", False), ("Yah. A", False),
    ("KiteNLI This", False),
    ("U.S. Census", True), ("Movie Review Data", True), ("Dataset of Calls", False), ("accuracy", False), ("GPU", False),
    ("2\U0001d451", False), ("x", False), ("LSTMs", False), ("KBs", False), ("APPENDIX I", False),
    ("VII-Results", False), ("V-ORCA", True),
])
def test_is_name_shaped(token, shaped):
    assert is_name_shaped(token) is shaped


def test_table_text_under_a_data_column_writes_its_rows_as_data():
    listed = "Dataset Classes Train Test Kite\u2019s News 4 120,000 7,600 Reef Polarity 2 560,000 38,000"
    scores = "Model Acc F1 Kite\u2019s News 91.2 88.4 Reef Polarity 95.1 94.0"
    assert lists_datasets(listed) and not lists_datasets(scores)
    assert not lists_datasets("Dataset sizes are given in Table 2 for each of the corpora we use.")
    assert row_names(listed) == ["Kite\u2019s News", "Reef Polarity"]
    assert data_support(["Reef Polarity"], [listed]) == 1
    assert data_support(["Reef Polarity"], [scores]) == 0


def test_data_support_needs_the_data_noun_near_the_name():
    assert data_support(["WhaleQA"], ["WhaleQA and OrcaSet are the two datasets of our study."]) == 1
    assert data_support(["OrcaSet"], ["We evaluate on the datasets: WhaleQA, Reef Polarity and OrcaSet."]) == 1
    assert data_support(["OrcaSet"], ["The OrcaSet test set is small."]) == 1
    far = "The DeltaNet encoder, trained with a schedule that we tune once for all runs, works on every dataset."
    assert data_support(["DeltaNet"], [far]) == 0


def test_a_suite_of_tasks_or_a_shared_task_is_data_unless_its_name_is_an_acronym():
    assert data_support(["Kelpqa"], ["The SDNC achieves the best result in the Kelpqa tasks."]) == 1
    assert data_support(["OrcaLL 2011"], ["The OrcaLL 2011 NER task consists of newswire."]) == 1
    assert data_support(["POS"], ["Accuracy for the POS tasks improves."]) == 0


def test_a_shared_task_named_with_its_year_and_acronym_is_data():
    sentence = "The OrcaLL 2011 NER task (Kelp and Whale, 2011) holds newswire."
    assert data_support(["OrcaLL 2011 NER"], [sentence]) == 1
    assert data_support(["OrcaLL 2011 NER"], ["We follow the OrcaLL 2011 NER shared task setting."]) == 1
    assert data_support(["NER"], ["The NER task is hard."]) == 0  # no year: a task
    assert data_support(["OrcaLL 2011 NER"], ["The OrcaLL 2011 NER tagger is fast."]) == 0


def test_a_capitalised_word_the_text_also_writes_in_lower_case_is_not_offered(make_pdf):
    text = ("Experiments\n\nWe report results on the Kelpwood dataset and on the Synthetic dataset.\n\n"
            "The synthetic images are rendered.")
    names = [c.name for c in find_candidates(parse_pdf(make_pdf("kelp.pdf", [text])))]
    assert "Kelpwood" in names and "Synthetic" not in names


def test_a_row_of_dataset_statistics_writes_its_label_as_data():
    stats = "Reef Polarity 2 91 3,600,000 400,000 Sentiment Kite Full 5 93 560k 65k Analysis"
    assert data_support(["Reef Polarity"], [stats]) == 1 and data_support(["Kite Full"], [stats]) == 1
    results = "Baseline 86.94 35k DeltaNet-10 86.83 20k DeltaNet-15 94.46 40k"
    assert data_support(["DeltaNet-10"], [results]) == 0


@pytest.mark.parametrize("sentence, names", [
    ("We report results4 in the English OrcaTB and Chinese ReefTB-5.", ["English OrcaTB", "Chinese ReefTB-5"]),
    ("We trained our model on KiteQA.", ["KiteQA"]),
    ("The number of training iterations used in DeltaNet schedules is halved.", []),
    ("All results presented in Sec. 4 use DeltaNet.", []),
])
def test_names_after_words_of_experiments_are_data(sentence, names):
    assert [name for name in candidate_names(sentence) if data_support([name], [sentence])] == names


def test_names_listed_after_a_data_noun_and_a_comma_are_data():
    sentence = "We sample three song corpora, Kelpwood, Shoalnet and Reefbank."
    names = ["Kelpwood", "Shoalnet", "Reefbank"]
    assert [name for name in candidate_names(sentence) if data_support([name], [sentence])] == names


@pytest.mark.parametrize("sentence, names", [
    ("The model achieves 33.97dB, 29.96dB and 27.42dB on Kelp5, Kelp14 and Reef100, respectively.",
     ["Kelp5", "Kelp14", "Reef100"]),
    ("We lower the error from 1.13 to 1.08 on OrcaText-8 and reach rates of 8.6% on KiteQA.", ["OrcaText-8", "KiteQA"]),
    ("On ReefBirds, we obtain improvements of 4.60% over the baseline.", ["ReefBirds"]),
    ("On KiteQA and OrcaTB our parser is the fastest.", ["KiteQA", "OrcaTB"]),
    ("We trained for 10 epochs on 4 GPUs on DeltaNet hardware.", []),
    ("Results are listed in Table 2 on DeltaNet.", []),
    ("On DeltaNet the loss is smaller.", []),
])
def test_names_a_score_is_reported_on_are_data(sentence, names):
    assert [name for name in candidate_names(sentence) if data_support([name], [sentence])] == names


def test_row_labels_of_table_text():
    row = "HumpBack 71.2 80.3 66.1 - 54.0 ReefSounds 60.2 - 55.5 70.1 49.9"
    assert is_table_row_text(row)
    assert not is_table_row_text("We report 71.2 on HumpBack, a new set of recordings.")
    assert row_names(row) == ["HumpBack", "ReefSounds"]


def test_candidates_near_cues_and_in_table_text(make_pdf):
    names = [c.name for c in find_candidates(parse_pdf(make_pdf("whale.pdf", [PAPER])))]
    for expected in ("OrcaSet-5", "Atlantic Whale Corpus", "DolphinTalk", "HumpBack"):
        assert expected in names
    assert "ResNet-50" not in names and "Songbird" not in names
    assert "ReefSounds" not in names  # only in the table: no sentence writes it as data


def test_candidates_from_table_cells_and_catalog(tmp_path):
    with pymupdf.open(ruled_table_pdf(tmp_path / "t.pdf")) as doc:
        doc[0].insert_text((72, 300), "We plot OrcaSet-5 and WhaleCalls, our two datasets, in Figure 2.", fontsize=10)
        doc.save(tmp_path / "t2.pdf")
    paper = parse_pdf(tmp_path / "t2.pdf")
    found = {c.name: c.sources for c in find_candidates(paper, catalog={"WhaleCalls"})}
    assert found["OrcaSet-5"] == ("table",)
    assert found["WhaleCalls"] == ("catalog", "table")


def test_candidates_are_capped_and_ranked(make_pdf):
    found = find_candidates(parse_pdf(make_pdf("whale.pdf", [PAPER])), limit=2)
    assert len(found) == 2
    assert found[0].score >= found[1].score


def test_only_names_a_sentence_writes_as_data_are_offered(make_pdf):
    rows = "HumpBack 71.2 80.3 66.1 - 54.0 ReefSounds 60.2 - 55.5 70.1 49.9"
    text = ("Results\n\nWe compare HumpBack and ReefSounds in every table.\n\n"
            + "\n\n".join([rows] * 6) + "\n\nWe held out the FinBank test set for tuning.")
    assert [c.name for c in find_candidates(parse_pdf(make_pdf("fins.pdf", [text])))] == ["FinBank"]


def test_a_cited_surname_is_not_offered(make_pdf):
    text = ("Datasets\n\nWe use the polarity dataset from Marlow and Finch (2005) and the Kelpie dataset.\n\n"
            "Marlow et al. collected the Kelpie reviews.")
    assert [c.name for c in find_candidates(parse_pdf(make_pdf("cite.pdf", [text])))] == ["Kelpie"]


def test_a_name_the_selection_always_drops_is_not_offered(make_pdf):
    text = ("Datasets\n\nWe train a basic model (BM) on the Kelpie dataset with the KelpParser toolkit.\n\n"
            "Results on the BM dataset split and the KelpParser data are in Table 2.")
    assert [c.name for c in find_candidates(parse_pdf(make_pdf("tool.pdf", [text])))] == ["Kelpie"]


@pytest.mark.parametrize("sentence, names", [
    ("We evaluate on SST-2 and TREC.", ["SST-2", "TREC"]),
    ("HumpBack 71.2 80.3 66.1 - 54.0 ReefSounds 60.2 - 55.5 70.1 49.9", ["HumpBack", "ReefSounds"]),
    ("Our model named Songbird sings.", []),
    ("We also use the Kelpie reviews dataset.", ["Kelpie"]),
    ("The KiteNet model is trained on the movie review dataset.", []),
    ("We pretrain KiteNet on a 40 GB text corpus.", []),
])
def test_sentence_candidates(sentence, names):
    from dsminer.mentions.candidates import sentence_candidates

    assert sentence_candidates(sentence) == names


def test_a_piece_of_one_longer_name_is_offered_as_that_name(make_pdf):
    text = ("Datasets\n\nAccuracy for the Kelp Reef 2011 dataset is in Table 2.\n\n"
            "Kelp Reef 2011 holds 5,000 dives.\n\n"
            "We also train on the OrcaSet corpus and the OrcaSet Plus corpus.")
    names = [c.name for c in find_candidates(parse_pdf(make_pdf("whole.pdf", [text])))]
    assert "Kelp Reef 2011" in names and "Reef 2011" not in names
    assert "OrcaSet" in names  # written on its own too: stays itself


def test_a_name_spelled_out_before_its_acronym_offers_both(make_pdf):
    text = "Datasets\n\nThe Whale Song Inference (WSI) corpus holds 5,000 pairs.\n\nWe train on WSI."
    names = [c.name for c in find_candidates(parse_pdf(make_pdf("acro.pdf", [text])))]
    assert {"Whale Song Inference", "WSI"} <= set(names)


def test_a_source_verb_is_read_case_blind_and_a_name_is_not():
    assert data_support(["Beta"], ["Counts were Obtained from the ReefBase and Beta registries."]) == 1
    assert data_support(["Beta"], ["Values obtained from plain words and Beta follow."]) == 0


@pytest.mark.parametrize("name, text, common", [
    ("Synthetic", "We add synthetic data to the Synthetic dataset.", True),
    ("Results", "Results. The results of Table 2 improve.", True),
    ("RESULTS", "4 RESULTS\nThe results of Table 2 improve.", True),
    ("Results", "Results. Table 2 holds them.", False),  # never written in lower case: left to the other checks
    ("Reefset", "The Reefset corpus and the reefset loader.", True),
    ("ReefBank", "The ReefBank corpus and the reefbank loader.", False),  # CamelCase is a name's shape
])
def test_written_lower_is_a_word_or_heading_the_text_also_writes_in_lower_case(name, text, common):
    from dsminer.mentions.candidates import written_lower

    assert written_lower(name, text) is common
