import pytest

from dsminer.mentions.selection import (
    Proposal,
    base_key,
    is_abbreviation_of,
    merge_names,
    same_dataset,
    select_datasets,
    unversioned,
    written_as_data,
)
from dsminer.schema import normalize_name

TEXT = ("We evaluate on the Penn Treebank (PTB), on PTB again, on the CNN/DailyMail summarization dataset "
        "and on CNN/DailyMail. We release the OrcaSet corpus, also at acme/OrcaSet. The Stanford Sentiment Treebank is "
        "cited. We compare with BERT (Smith et al., 2015) on a large text dataset.")


@pytest.mark.parametrize("a, b, same", [
    ("CNN/DailyMail", "CNN/DailyMail summarization dataset", True),
    ("OrcaSet", "acme/OrcaSet", True),
    ("PTB", "Penn Treebank", True),
    ("SST", "Stanford Sentiment Treebank", True),
    ("the OrcaSet dataset", "OrcaSet", True),
    ("PTB", "CNN/DailyMail", False),
    ("CTB", "Penn Chinese Treebank", True),
    ("QTB", "Question Treebank", True),
    ("WSJ", "Penn Treebank", False),
    ("NE", "Named Entities Corpus", False),
    ("SST-2", "SST-5", False),
    ("AB", "AB\u2019s Reviews", True),  # a table's short form of a possessive name
    ("AB's Reviews", "AB", True),
    ("AB", "ABC's Reviews", False),
    ("OWL", "OWLpedia", True),  # a table header's cut of a one-word name
    ("OWLpedia", "OWL", True),
    ("OWL", "OWlpedia", True),
    ("OWL", "OWLS", False),
    ("OWL", "OWL2", False),
    ("OWL", "OWLpedia Full", False),
    ("OW", "OWlet", False),
    ("AHT", "Acme Harbor Treebank", True),
    ("AHT", "Acme Chinese Harbor Treebank", False),  # passes over a capitalised word: that name is CHT's
    ("CHT", "Acme Chinese Harbor Treebank", True),
    ("SNLX", "Stanford Natural Language Xcorpus", True),
    ("English OrcaSet", "OrcaSet", True),
    ("OrcaSet", "Chinese OrcaSet", True),
    ("English OrcaSet", "Chinese OrcaSet", False),
])
def test_same_dataset(a, b, same):
    assert same_dataset(a, b, TEXT) is same


def test_abbreviation_from_the_papers_own_parentheses():
    text = "We use the Whale Song Archive (WSX-v2) throughout."
    assert is_abbreviation_of("WSX-v2", "Whale Song Archive", text)
    assert not is_abbreviation_of("WSX-v2", "Whale Song Archive", "No such pairing here.")
    assert is_abbreviation_of("WSA-v2", "Whale Song Archive", "No such pairing here.")  # the initials


def test_an_abbreviation_in_mixed_case_or_before_a_word_is_read_from_the_papers_parentheses():
    text = "We release the Pelagic Larva Survey Atlas (PeLSA) Portal, which holds every tow."
    assert is_abbreviation_of("PeLSA", "Pelagic Larva Survey Atlas", text)
    assert is_abbreviation_of("PeLSA Portal", "Pelagic Larva Survey Atlas", text)
    assert not is_abbreviation_of("PeLSA Portal", "Pelagic Larva Survey Atlas", "The PeLSA Portal is new.")
    assert not is_abbreviation_of("PeLSA", "Pelagic Larva Survey Atlas", "We use PeLSA.")  # not its initials' case
    assert not is_abbreviation_of("PeLSA Browser", "Pelagic Larva Survey Atlas", text)  # another word after it
    merged = merge_names([("PeLSA Portal", "created"), ("Pelagic Larva Survey Atlas", "used")], text)
    assert [(d.name, set(d.aliases), d.role) for d in merged] == [
        ("Pelagic Larva Survey Atlas", {"PeLSA Portal"}, "created")]


def test_a_part_the_paper_says_is_of_a_dataset_is_that_dataset():
    text = ("We train on the Gull Street Journal (GSJ) part of the Harbor Treebank and on the Kite portion of "
            "the Harbor Treebank. The Owl Treebank is separate; GSJ and Owl Treebank sizes are in Table 1.")
    assert same_dataset("GSJ", "Harbor Treebank", text) and same_dataset("Harbor Treebank", "Kite", text)
    assert not same_dataset("GSJ", "Owl Treebank", text) and not same_dataset("Kite", "Owl Treebank", text)
    assert not same_dataset("Harbor Treebank", "GSJ", "We use GSJ and the Harbor Treebank.")


def test_a_name_bridging_two_acronyms_does_not_merge_them():
    text = "We use the Acme Harbor Treebank (AHT), the Acme Chinese Harbor Treebank and CHT 5.1 from it."
    merged = merge_names([("AHT", "used"), ("Acme Harbor Treebank", "used"), ("Acme Chinese Harbor Treebank", "used"),
                          ("CHT 5.1", "used")], text)
    assert [set((d.name, *d.aliases)) for d in merged] == [
        {"AHT", "Acme Harbor Treebank"}, {"Acme Chinese Harbor Treebank", "CHT 5.1"}]


def test_base_key_drops_a_lower_case_tail_ending_in_a_data_noun():
    assert base_key("CNN/DailyMail summarization dataset") == base_key("CNN/DailyMail")
    assert base_key("Penn Treebank") != base_key("Penn")


@pytest.mark.parametrize("name", ["KLMN Study", "KLMN Cohort", "KLMN survey", "KLMN Data"])
def test_base_key_drops_the_data_noun_or_study_after_an_abbreviation(name):
    assert base_key(name) == base_key("KLMN")


@pytest.mark.parametrize("name", ["Harbor Study", "Owl Cohort", "KLMN Owl Study"])
def test_base_key_keeps_the_data_noun_after_words(name):
    assert base_key(name) == normalize_name(name)


@pytest.mark.parametrize(("name", "bare"), [
    ("KLMN Release 5.1", "KLMN"), ("KLMN release 4", "KLMN"), ("KLMN version 3", "KLMN"), ("KLMN v2", "KLMN"),
    ("KLMN 2.0", "KLMN"), ("KLMN-2003", "KLMN"), ("KLMNv2.1", "KLMN"), ("Rev5", None), ("KLM5", None),
    ("KLMN Release", None)])
def test_a_version_or_release_after_a_name(name, bare):
    assert unversioned(name) == bare


def test_a_name_with_its_abbreviation_inside_is_both_of_its_forms():
    text = "We release the Pelagic Larva Survey Atlas (PeLSA) Portal. The Owl Portal is separate."
    assert same_dataset("Pelagic Larva Survey Atlas (PeLSA) Portal", "PeLSA Portal", text)
    assert same_dataset("Pelagic Larva Survey Atlas Portal", "Pelagic Larva Survey Atlas (PeLSA) Portal", text)
    assert same_dataset("Pelagic Larva Survey Atlas (PeLSA)", "Pelagic Larva Survey Atlas", text)
    assert not same_dataset("Pelagic Larva Survey Atlas (PeLSA) Portal", "Owl Portal", text)
    assert not same_dataset("Owl counts (2019) data", "Owl counts", text)  # a year, not an abbreviation


def test_one_release_of_a_name_joins_it_and_its_study():
    merged = merge_names([("KLMN Study", "used"), ("KLMN", "used"), ("KLMN Release 5.1", "used")],
                         "The KLMN Study follows children. We use KLMN Release 5.1 of KLMN.")
    assert [set((d.name, *d.aliases)) for d in merged] == [{"KLMN Study", "KLMN", "KLMN Release 5.1"}]


def test_merged_names_keep_aliases_the_most_used_name_and_the_strongest_role():
    (merged,) = merge_names([("Penn Treebank", "mentioned"), ("PTB", "used")], TEXT)
    assert merged.name == "PTB" and merged.aliases == ("Penn Treebank",) and merged.role == "used"


def test_selection_filters_merges_ranks_and_caps():
    proposals = [
        Proposal("Stanford Sentiment Treebank", "dataset", "mentioned"),
        Proposal("PTB", "dataset", "used"), Proposal("Penn Treebank", "dataset", "used"),
        Proposal("BERT", "model", "used"), Proposal("BERT", "dataset", "used"),
        Proposal("Smith et al., 2015", "dataset", "used"), Proposal("large text dataset", "dataset", "used"),
        Proposal("ImaginaryNet", "dataset", "used"), Proposal("OrcaSet", "dataset", "created"),
    ]
    selection = select_datasets(proposals, TEXT, cap=2, sentences=TEXT.split(". "))
    assert [(d.name, d.role) for d in selection.chosen] == [("OrcaSet", "created"), ("PTB", "used")]
    assert [d.name for d in selection.capped] == ["Stanford Sentiment Treebank"]
    assert dict(selection.dropped) == {"BERT": "non_dataset", "Smith et al., 2015": "citation",
                                       "large text dataset": "generic",
                                       "ImaginaryNet": "not in the paper text or generic"}
    assert ("BERT", "kind model") in selection.dropped


@pytest.mark.parametrize("sentence, role, otherwise", [
    ("We release OrcaSet, a corpus of calls.", "created", "created"),
    ("In this paper we introduce the OrcaSet benchmark.", "created", "created"),
    ("Our new OrcaSet dataset has 5 classes.", "created", "created"),
    ("I constructed a data set of OrcaSet recordings.", "created", "created"),
    ("Here we describe the OrcaSet Database, a registry of whale sightings.", "created", "created"),
    ("To build the OrcaSet, all recordings were cut into clips.", "created", "created"),
    ("The reef survey and the shore survey were merged into the OrcaSet.", "created", "created"),
    ("For rarer calls, an OrcaSet was collected in 2020.", "created", "created"),
    # released, which a dataset of others may be: created only where the names step says so
    ("OrcaSet is made publicly available at https://example.org.", "created", None),
    ("The OrcaSet recordings can be downloaded at https://example.org.", "created", None),
    ("We evaluate on OrcaSet.", "used", None),
    ("We release our code; results on OrcaSet follow.", "used", None),
    ("Smith et al. introduced OrcaSet.", "used", None),
    ("An OrcaSet was collected by Smith et al.", "used", None),                   # made by others
    ("We collected calls from OrcaSet over two years.", "used", None),            # the source of what was made
    ("Given the limits of OrcaSet, we have collected data over a year.", "used", None),  # the name before the cue
    ("I construct an unemployment variable using the main OrcaSet.", "used", None),
    ("We present an approach to discover population models for OrcaSet events.", "used", None),  # too far
    ("We compile OrcaSet counts (Smith, 2016) into a harmonised data set.", "used", None),  # made into another
    ("To create a call dataset, all clips in OrcaSet were resampled.", "used", None),  # not the verb's object
    ("Our release is meant to build upon the success of OrcaSet.", "used", None),  # building on it uses it
])
def test_created_stands_only_where_the_paper_says_so(sentence, role, otherwise):
    """A clause that says the paper builds the dataset makes it created whatever the names step decided; one that
    says only that it is released keeps a decided "created"; without either, "created" becomes "used"."""
    from dsminer.mentions.selection import checked_role

    assert checked_role("OrcaSet", "created", [sentence]) == role
    assert checked_role("OrcaSet", "used", [sentence]) == (otherwise or "used")
    assert checked_role("OrcaSet", "mentioned", [sentence]) == (otherwise or "mentioned")


@pytest.mark.parametrize("sentences, role", [
    (["Given the recently released OrcaSet, it might be possible to apply our method to whales."], "mentioned"),
    (["OrcaSet could be adopted in future work.", "A larger OrcaSet would help."], "mentioned"),
    (["OrcaSet could be adopted in future work.", "We train on OrcaSet."], "used"),  # one sentence reports its use
    (["We train on OrcaSet."], "used"),
    (["OrcaSet 0.51 0.62 could 0.70"], "used"),  # table text says nothing either way
])
def test_a_dataset_the_paper_only_supposes_is_mentioned(sentences, role):
    from dsminer.mentions.selection import checked_role

    assert checked_role("OrcaSet", "used", sentences) == role


def test_a_name_the_model_calls_a_dataset_is_kept_and_the_papers_data_words_rank_it():
    sentences = ["We evaluate on the OrcaSet benchmark.", "Alpha 71.2 80.3 66.1 - 54.0 Beta 60.1 - 55.2 70.1 49.9",
                 "Alpha Alpha Alpha Alpha appear here.", "The benchmark of GammaNet results follows.",
                 "We train the DeltaNet model on OrcaSet data.", "OrcaSet and the WhaleBank corpus are both used."]
    proposals = [Proposal("Alpha"), Proposal("WhaleBank"), Proposal("OrcaSet"), Proposal("DeltaNet")]
    selection = select_datasets(proposals, " ".join(sentences), cap=3, sentences=sentences)
    # two data sentences before one, then the names no sentence writes as data, by mentions
    assert [d.name for d in selection.chosen] == ["OrcaSet", "WhaleBank", "Alpha"]
    assert [d.name for d in selection.capped] == ["DeltaNet"] and selection.dropped == []


def test_two_names_run_together_are_no_name_of_their_own():
    sentences = ["We train on the Kelp Treebank and on Text9.", "Kelp Treebank Text9 Average",
                 "The Reef Survey 2003 holds 40 sites."]
    proposals = [Proposal("Text9"), Proposal("Kelp Treebank"), Proposal("Kelp Treebank Text9"),
                 Proposal("Reef Survey 2003"), Proposal("Reef Survey")]
    selection = select_datasets(proposals, " ".join(sentences), cap=5, sentences=sentences)
    assert ("Kelp Treebank Text9", "two names run together") in selection.dropped
    # a name and its year stay one name
    assert sorted((d.name, d.aliases) for d in selection.chosen) == [
        ("Kelp Treebank", ()), ("Reef Survey 2003", ("Reef Survey",)), ("Text9", ())]


def test_under_the_cap_what_the_paper_uses_comes_before_what_it_only_mentions():
    sentences = ["1 Introduction", "Other aggregators such as the KelpHub database exist.",
                 "The ShoalBank database is one more.", "2 Methods",
                 "We queried Reefus for every university and counted its records.", "Reefus covers all journals."]
    proposals = [Proposal("KelpHub", role="mentioned"), Proposal("ShoalBank", role="mentioned"), Proposal("Reefus")]
    selection = select_datasets(proposals, " ".join(sentences), cap=2, sentences=sentences)
    # the used dataset no sentence writes beside a data noun, then the mentioned ones the paper calls databases
    assert [d.name for d in selection.chosen] == ["Reefus", "KelpHub"]
    assert [d.name for d in selection.capped] == ["ShoalBank"]


@pytest.mark.parametrize("sentence, name", [
    ("We analysed 502,000 participants from the UK Biobank cohort.", "UK Biobank"),
    ("Our cohort was drawn from NHANES 2011-2014 survey cycles.", "NHANES 2011-2014"),
    ("We extracted ICU stays from MIMIC-III for all adult patients.", "MIMIC-III"),
    ("Hourly 2 m temperature was taken from the ERA5 reanalysis.", "ERA5"),
    ("Expression profiles were obtained from GTEx v8 for 49 tissues.", "GTEx v8"),
    ("We downloaded tumour samples from the TCGA database.", "TCGA"),
    ("We train the language model on enwik8 and report bits per character.", "enwik8"),
    ("The analysis uses waves I-IV of Add Health.", "Add Health"),
    ("We use 12 models from the CMIP6 archive for the projections.", "CMIP6"),
    ("Stellar parameters come from Gaia DR3.", "Gaia DR3"),
    ("Crystal structures were retrieved from the Materials Project.", "Materials Project"),
    ("We train on ImageNet.", "ImageNet"),
])
def test_a_dataset_the_model_names_in_a_plain_sentence_of_any_field_is_kept(sentence, name):
    selection = select_datasets([Proposal(name, "dataset", "used")], sentence, cap=5, sentences=[sentence])
    assert [(d.name, d.role) for d in selection.chosen] == [(name, "used")]


@pytest.mark.parametrize("sentence, name, kept", [
    ("We fit the model to the insurance claims data of 2019.", "insurance claims data", True),
    ("Patients of the free light chain dataset were followed for ten years.", "free light chain dataset", True),
    ("We also release synthetic data for testing.", "synthetic data", False),
    ("Results on the full dataset follow.", "the full dataset", False),
    ("Our method beats the baselines on English-German.", "English-German", False),
    ("Our students liked the course.", "students", False),  # a plain word the paper never writes as data
    ("Sales of 100 different products were summed.", "100 different products", False),  # a count of things
    ("The 20 newsgroups dataset has 18k posts.", "20 newsgroups", True),
    ("We collected posts from the reddit dataset.", "reddit", True),
])
def test_a_lower_case_name_is_kept_when_its_words_say_which_data_it_is(sentence, name, kept):
    selection = select_datasets([Proposal(name)], sentence, cap=5, sentences=[sentence])
    assert bool(selection.chosen) is kept


def test_a_run_of_a_tables_column_labels_is_not_a_dataset_but_one_label_may_be():
    sentences = ["Table 2. Ages of the stars.", "KIC Teff Prot Age 1001 5600 12.1 2.3 1002 5400 15.0 3.1",
                 "Kelp 1h 3h 24m Reef 2h 5h 27m Orca 1h 2h 3m 4m", "We compare against prior ages."]
    proposals = [Proposal("KIC Teff Prot Age"), Proposal("Reef")]
    selection = select_datasets(proposals, " ".join(sentences), cap=5, sentences=sentences)
    assert [d.name for d in selection.chosen] == ["Reef"]
    assert dict(selection.dropped) == {"KIC Teff Prot Age": "table header"}


@pytest.mark.parametrize("name", ["QUARZO Main Database", "VELUM Collection 7 global snow cover",
                                  "Rivers of the Andes Basin"])
def test_a_name_written_only_in_a_table_is_kept_when_it_is_a_phrase_not_a_run_of_labels(name):
    sentences = ["Table 1. Data products used in this study.", f"{name} 1001 5600 12.1 2.3 1002 5400 15.0 3.1",
                 "We compare the products against each other."]
    selection = select_datasets([Proposal(name)], " ".join(sentences), cap=5, sentences=sentences)
    assert [d.name for d in selection.chosen] == [name]
    assert not selection.dropped


def test_a_name_the_paper_calls_a_dataset_is_kept_whatever_non_model_kind_it_was_given():
    sentences = ["We use the Amazon Review Polarity dataset.", "The dataset KanShan-Cup is large.",
                 "BERT corpus statistics follow."]
    text = " ".join(sentences)
    proposals = [Proposal("Amazon Review Polarity", "metric"), Proposal("KanShan-Cup", "other"),
                 Proposal("BERT", "model"), Proposal("Accuracy", "metric")]
    selection = select_datasets(proposals, text, cap=5, sentences=sentences)
    assert sorted(d.name for d in selection.chosen) == ["Amazon Review Polarity", "KanShan-Cup"]
    assert dict(selection.dropped) == {"BERT": "kind model", "Accuracy": "kind metric"}


def test_a_name_listed_after_a_data_noun_or_under_a_data_column_is_data():
    sentences = ["Table 2 gives the details of the datasets: Kite News, Reef Polarity and Reef Full.",
                 "Dataset Classes Train Test OrcaSet 4 120,000 7,600 WhaleBank 2 560,000 38,000",
                 "Model Acc F1 DeltaNet 91.2 88.0 GammaNet 90.1 87.3",
                 "Table 3 compares the datasets; DeltaNet is our model."]
    kinds = {"Reef Polarity": "task", "Reef Full": "task", "WhaleBank": "other", "DeltaNet": "task"}
    assert [name for name in kinds if written_as_data(name, sentences)] == ["Reef Polarity", "Reef Full", "WhaleBank"]
    proposals = [Proposal(name, kind) for name, kind in kinds.items()]
    selection = select_datasets(proposals, " ".join(sentences), cap=5, sentences=sentences)
    assert sorted(d.name for d in selection.chosen) == ["Reef Full", "Reef Polarity", "WhaleBank"]
    assert dict(selection.dropped) == {"DeltaNet": "kind task"}


def test_an_acronym_the_paper_defines_as_a_model_or_task_is_not_a_dataset():
    sentences = ["We train a basic model (BM) on the OrcaSet dataset.",
                 "Document question answering (DQA) on the KiteQA dataset is hard; BM and DQA use the dataset.",
                 "The Whale Song Benchmark (WSB) dataset is new."]
    proposals = [Proposal("BM"), Proposal("DQA"), Proposal("WSB"), Proposal("KiteQA")]
    selection = select_datasets(proposals, " ".join(sentences), cap=5, sentences=sentences)
    assert sorted(d.name for d in selection.chosen) == ["KiteQA", "WSB"]
    assert dict(selection.dropped) == {"BM": "defined", "DQA": "defined"}


def test_a_name_the_paper_writes_as_a_model_is_not_a_dataset():
    sentences = ["The KiteNet Reader is trained on the OrcaSet dataset.",
                 "The KiteNet model beats BERT on OrcaSet data.", "KiteNet results on the OrcaSet benchmark are best."]
    proposals = [Proposal("KiteNet", role="created"), Proposal("OrcaSet")]
    selection = select_datasets(proposals, " ".join(sentences), cap=5, sentences=sentences)
    assert [d.name for d in selection.chosen] == ["OrcaSet"]
    assert dict(selection.dropped) == {"KiteNet": "model_head"}


def test_a_surname_the_paper_cites_is_not_a_dataset():
    sentences = ["We use the polarity dataset from Marlow and Finch (2005).", "The Kelpie dataset is larger."]
    selection = select_datasets([Proposal("Marlow"), Proposal("Kelpie")], " ".join(sentences), cap=5,
                                sentences=sentences)
    assert [d.name for d in selection.chosen] == ["Kelpie"]
    assert dict(selection.dropped) == {"Marlow": "author"}


def test_a_name_written_before_a_split_is_data():
    sentences = ["10% of the KiteQA training set was held out for validation.", "KiteQA has short stories.",
                 "The Songbird test accuracy is 90% on the test set.", "It test data ran slowly."]
    proposals = [Proposal("KiteQA", "task"), Proposal("Songbird"), Proposal("IT")]
    selection = select_datasets(proposals, " ".join(sentences), cap=5, sentences=sentences)
    assert [d.name for d in selection.chosen] == ["KiteQA", "Songbird"]  # a split after the name ranks it first
    assert dict(selection.dropped) == {"IT": "not in the paper text or generic"}


def test_a_fragment_of_a_longer_name_is_never_the_display_name():
    text = "We use the WIDER FACE dataset. The WIDER FACE validation set has three parts. WIDER FACE is large."
    (dataset,) = merge_names([("FACE", "used"), ("WIDER FACE", "used")], text)
    assert dataset.name == "WIDER FACE" and dataset.aliases == ("FACE",)


def test_a_bare_name_joins_its_only_versioned_form():
    text = "We use SQuAD 2.0 and SQuAD 1.1. SQuAD has questions. CoNLL-2003 is used; CoNLL data is old."
    assert [d.name for d in merge_names([("SQuAD", "used"), ("SQuAD 2.0", "used"), ("SQuAD 1.1", "used")], text)] \
        == ["SQuAD", "SQuAD 2.0", "SQuAD 1.1"]
    (conll,) = merge_names([("CoNLL", "used"), ("CoNLL-2003", "used")], text)
    assert set((conll.name, *conll.aliases)) == {"CoNLL", "CoNLL-2003"}
    assert not is_abbreviation_of("SQuAD", "SQuAD 1.1", text)


def test_a_word_that_starts_only_one_other_name_is_its_short_form():
    text = ("We use the Kelp Tree Bank and the Reef Full and Reef Polarity sets. Results on Kelp are in Table 2; the "
            "Kelp Tree Bank has 40k sentences and the Kelp Tree Bank test set 2k. Reef data are reviews.")
    merged = merge_names([("Kelp", "used"), ("Kelp Tree Bank", "used"), ("Reef", "used"), ("Reef Full", "used"),
                          ("Reef Polarity", "used")], text)
    assert [(d.name, d.aliases) for d in merged] == [("Kelp Tree Bank", ("Kelp",)), ("Reef", ()), ("Reef Full", ()),
                                                     ("Reef Polarity", ())]


def test_a_word_that_starts_several_names_is_the_short_form_of_the_one_that_alone_ends_in_a_data_noun():
    text = ("The Tarn Lakes Database holds 2,000 lake surveys made for the Tarn Outreach Program. Tarn is open. The "
            "Fjell Full and Fjell Polar corpora differ; Fjell has 9k reviews. The Moor Archive and Moor Catalogue agree.")
    merged = merge_names([("Tarn", "used"), ("Tarn Lakes Database", "used"), ("Tarn Outreach Program", "used"),
                          ("Fjell", "used"), ("Fjell Full", "used"), ("Fjell Polar", "used"), ("Moor", "used"),
                          ("Moor Archive", "used"), ("Moor Catalogue", "used")], text)
    # two names that end in a data noun leave the word on its own, as two that end in none do
    assert [{d.name, *d.aliases} for d in merged] == [
        {"Tarn", "Tarn Lakes Database"}, {"Tarn Outreach Program"}, {"Fjell"}, {"Fjell Full"}, {"Fjell Polar"},
        {"Moor"}, {"Moor Archive"}, {"Moor Catalogue"}]


def test_a_proposed_piece_of_a_longer_name_is_selected_as_that_name_with_the_piece_as_alias():
    sentences = ["We evaluate on the Quokka Natural Speech Inference corpus.",
                 "Results on Pelican 2001 and Pelican 2004 follow.", "The Pelican 2004 dataset is used."]
    proposals = [Proposal("Quokka Natural"), Proposal("Pelican")]
    selection = select_datasets(proposals, " ".join(sentences), cap=5, sentences=sentences)
    assert [(d.name, d.aliases) for d in selection.chosen] == [("Quokka Natural Speech Inference", ("Quokka Natural",))]
    assert dict(selection.dropped) == {"Pelican": "a piece of other names"}


def test_an_abbreviation_does_not_spell_the_data_noun_of_its_expansion():
    assert is_abbreviation_of("QNSI", "Quokka Natural Speech Inference Corpus", "No such pairing here.")
    assert is_abbreviation_of("QNSI", "Quokka Natural Speech Inference dataset", "No such pairing here.")
    assert not is_abbreviation_of("QNSI", "Quokka Natural Speech Corpus", "No such pairing here.")


def test_an_expansion_proposed_without_the_data_noun_its_abbreviation_spells():
    text = "Results on the Kestrel Question Answering Dataset(KQuAD) and on KQuAD again."
    assert is_abbreviation_of("KQuAD", "Kestrel Question Answering", text)
    assert is_abbreviation_of("KQuAD", "Kestrel Question Answering", text.replace("Dataset(", "Corpus ("))
    assert not is_abbreviation_of("KQuAD", "Kestrel Question Answering", "Results on KQuAD and on Kestrel.")
    sentences = [text, "The KQuAD dataset has 100k questions.", "The Kestrel Question Answering Dataset is big."]
    proposals = [Proposal("KQuAD"), Proposal("Kestrel Question Answering")]
    chosen = select_datasets(proposals, " ".join(sentences), cap=5, sentences=sentences).chosen
    assert [(d.name, d.aliases) for d in chosen] == [("KQuAD", ("Kestrel Question Answering",))]


_FRAMED = ["1 Introduction", "Earlier work released OrcaSet and the Whale Call Survey (WCS).", "2 Methods",
           "We train on PodNet recordings.", "WCS calls were resampled.", "We tune on PodNet.", "We test on PodNet.",
           "5 Discussion", "OrcaSet may also suit our method."]


@pytest.mark.parametrize("names, aside", [
    (["OrcaSet"], True),  # named in the introduction and the discussion only
    (["PodNet"], False),
    (["Whale Call Survey"], False),  # its acronym, defined beside it, is written in the methods
    (["Missing"], False),  # not written: nothing to say
])
def test_a_dataset_named_only_where_the_paper_frames_its_work_is_aside(names, aside):
    from dsminer.document.sections import section_titles
    from dsminer.mentions.selection import only_aside

    assert only_aside(names, _FRAMED, section_titles(_FRAMED)) is aside


def test_no_dataset_is_aside_where_the_framing_sections_would_hold_most_of_the_paper():
    from dsminer.document.sections import section_titles
    from dsminer.mentions.selection import only_aside

    sentences = ["1 Introduction", *[f"We train on OrcaSet, run {n}." for n in range(5)], "2 Methods", "We tune."]
    assert not only_aside(["OrcaSet"], sentences, section_titles(sentences))  # the headings after it were not read


def test_the_selection_calls_a_used_dataset_named_only_in_framing_sections_mentioned():
    proposals = [Proposal("OrcaSet", "dataset", "used"), Proposal("PodNet", "dataset", "used")]
    text = "\n".join(_FRAMED)
    roles = {d.name: d.role for d in select_datasets(proposals, text, 5, _FRAMED).chosen}
    assert roles == {"OrcaSet": "mentioned", "PodNet": "used"}


def test_the_selection_calls_a_mentioned_dataset_the_paper_works_with_used():
    proposals = [Proposal("OrcaSet", "dataset", "mentioned"), Proposal("PodNet", "dataset", "mentioned")]
    text = "\n".join(_FRAMED)
    roles = {d.name: d.role for d in select_datasets(proposals, text, 5, _FRAMED).chosen}
    assert roles == {"OrcaSet": "mentioned", "PodNet": "used"}  # PodNet is trained, tuned and tested on
