"""Cleaning proposed dataset names against the paper text, and spotting names that are not datasets."""

from __future__ import annotations

import pytest

from dsminer.mentions.names import (
    clean_dataset_names,
    looks_like_non_dataset,
    mentions_outside,
    name_problem,
    occurs_in,
)

TEXT = (
    "We evaluate on FooBench-13 (footnote) and report FooBench-1 results. The Bar corpus is large; "
    "fastText1 is our tool and fastText runs fast, as fastText always does. "
    "SST-2 and SST appear, and SST again. The Penn\nTreebank is used. CIFAR10 once. Images come from the "
    "Internet, the World Wide Web."
)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ([" 'Bar' ", "\u2022 Penn Treebank", '"SST-2"'], ["Bar", "Penn Treebank", "SST-2"]),
        (["data", "Datasets", "test set", "N/A", "none", "", "  ", "--"], []),
        (["Internet", "the Internet", "World Wide Web"], []),  # where data is found, not which
        (["FooBench-14"], ["FooBench-1"]),
        (["FooBench-13"], ["FooBench-13"]),
        (["Bar2"], ["Bar"]),
        (["fastText1"], ["fastText"]),
        (["CIFAR10"], ["CIFAR10"]),
        (["SST2"], ["SST2"]),
        (["Baz", "Imaginary Set"], []),
        (["Bar", "bar", "the Bar corpus", "BAR"], ["Bar"]),
        (["Bar dataset"], ["Bar"]),
        (["Penn Tree-bank"], ["Penn Tree-bank"]),
        (["1. Penn Treebank", "- SST"], ["Penn Treebank", "SST"]),
    ],
)
def test_clean_dataset_names(raw: list[str], expected: list[str]) -> None:
    assert clean_dataset_names(raw, TEXT) == expected


@pytest.mark.parametrize(
    ("name", "found"),
    [
        ("Penn Treebank", True),
        ("penn-treebank", True),
        ("SST", True),
        ("SS", False),
        ("Treebank Penn", False),
        ("", False),
    ],
)
def test_occurs_in(name: str, found: bool) -> None:
    assert occurs_in(name, TEXT) is found


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("accuracy", "metric"),
        ("F1", "metric"),
        ("BLEU", "metric"),
        ("ROUGE-L", "metric"),
        ("BERT", "model"),
        ("BERT-base", "model"),
        ("ResNet-50", "model"),
        ("LSTM", "model"),
        ("Transformer", "model"),
        ("CNN", "model"),
        ("our encoder model", "model"),
        ("classification", "task"),
        ("machine translation", "task"),
        ("parsing", "task"),
        ("ImageNet", None),
        ("Penn Treebank", None),
        ("SST-2", None),
        ("Yelp Binary classification", None),
        ("BERTScore corpus", None),
    ],
)
def test_looks_like_non_dataset(name: str, kind: str | None) -> None:
    reason = looks_like_non_dataset(name)
    if kind is None:
        assert reason is None
    else:
        assert reason is not None and kind in reason and name in reason


@pytest.mark.parametrize(("name", "code"), [
    ("University of Kelpford", "organisation"),
    ("Orca Reef Clinic", "organisation"),
    ("Quorra Tides GmbH", "organisation"),
    ("Institute for Reef Studies (IRS)", "organisation"),
    ("Kelp Reef Consortium", "organisation"),
    ("Orca Reef Clinic cohort", None),
    ("Kelpford University Reef Archive", None),
    ("AG", None),
    ("Europe", "place"),
    ("the United States", "place"),
    ("US Census", None),
])
def test_organisations_and_places_are_not_datasets(name, code):
    problem = name_problem(name)
    assert (problem[0] if problem else None) == code


def test_single_letters_are_not_dataset_names():
    from dsminer.mentions.names import clean_dataset_names

    assert clean_dataset_names(["P", "Y", "AB-1"], "Columns P and Y of AB-1.") == ["AB-1"]


@pytest.mark.parametrize(
    ("raw", "text", "expected"),
    [
        ("ABC2", "ABC is small. We use ABC2 and ABC. ABC again.", "ABC"),  # mark on one of many mentions
        ("ABC2", "We use ABC2 and ABC.", "ABC2"),  # too little evidence: keep as written
        ("XY-13", "XY-1 here, XY-1 there, XY-13 once, XY-1 again.", "XY-1"),
        ("CIFAR10", "CIFAR10 and CIFAR10 again, CIFAR1 once.", "CIFAR10"),
    ],
)
def test_footnote_digit_on_upper_case_names(raw, text, expected):
    from dsminer.mentions.names import clean_dataset_names

    assert clean_dataset_names([raw], text) == [expected]


@pytest.mark.parametrize("name, code", [
    ("Smith et al., 2015", "citation"), ("Zhang, 2015", "citation"), ("Jones (2019)", "citation"),
    ("Marlow2011LearningSongs", "citation"), ("KiteQA Finch2016", "citation"), ("SemEval2014", None),
    ("large text dataset", "generic"), ("instruction tuning", "generic"),
    ("We train our model on a large collection of news articles crawled", "sentence"),
    ("Watson API", "tool"), ("RLlib library", "tool"), ("BerkeleyParser", "tool"), ("Yah. A", "abbreviation"),
    ("CTX-train CTX-test Sequences", "split"), ("Owl-dev", "split"),
    ("AG\u2019s", "fragment"), ("LLMs", "non_dataset"), ("BERT", "non_dataset"),
    ("accuracy", "non_dataset"), ("Vietnamese", "language"), (" english ", "language"),
    ("Vietnamese Treebank", None), ("GitHub", "platform"), ("Hugging Face", "platform"),
    ("English-German", "language"), ("En-De", "language"), ("Penn Treebank", None), ("WMT 2014", None),
    ("SemEval-2017", None), ("CoNLL 2003", None), ("reddit", None),
    ("v132", "version"), ("2.1", "version"), ("Release 5", "version"), ("R8", None), ("Kelp v2", None),
    ("KELP 1, ..., KELP 9", "list"), ("README", "identifier"), ("DOI", "identifier"), ("TRUE", "identifier"),
    ("PDFs", "identifier"), ("Git LFS", "identifier"), ("GB RAM", "identifier"), ("CSV files", "identifier"),
    ("Git Large File Storage", "identifier"), ("raw CSV files", "identifier"), ("Kelp CSV", None), ("Zipf Reefs", None),
    ("Large Kelp Storage", None),
    ("Kelp Forced Aligner", "tool"), ("Reef Pipeline", "tool"), ("Bayesian Reef Analysis", "non_dataset"),
    ("Reef Analyses", "non_dataset"), ("Analysis of Reefs Corpus", None),
    ("Marlow & Finch21", "citation"), ("Marlow and Finch3", "citation"), ("Marlow & Finch", None),
])
def test_name_problem(name, code):
    from dsminer.mentions.names import name_problem

    found = name_problem(name)
    assert (found[0] if found else None) == code


@pytest.mark.parametrize("name, text, code", [
    ("WM", "It learns a weighting model (WM) with higher accuracy.", "defined"),
    ("MRC", "Machine reading comprehension (MRC) is a challenging task.", "defined"),
    ("RTE", "recognizing textual entailment (RTE, Dagan et al.)", "defined"),
    ("SNLI", "the Stanford Natural Language Inference (SNLI) corpus", None),
    ("AFW", "Annotated Faces in the Wild (AFW) contains 205 images.", None),
    ("BM", "BM is used, with no definition.", None),
])
def test_defined_as_non_dataset(name, text, code):
    from dsminer.mentions.names import defined_as_non_dataset

    found = defined_as_non_dataset(name, text)
    assert (found[0] if found else None) == code


@pytest.mark.parametrize("text, code", [
    ("Our model, the Gated-Attention (GA) Reader, is new. The GA reader wins. The GA module helps. GA is fast.",
     "model_head"),
    ("The GA Reader is new. GA wins on GA. GA helps. GA is fast. GA again. GA once more. GA at last.", None),
    ("The GA Reader is new. The GA reader wins. We release the GA dataset.", None),
    ("The GA Reader is new, and GA is fast.", None),
])
def test_written_as_model(text, code):
    from dsminer.mentions.names import written_as_model

    found = written_as_model("GA", text)
    assert (found[0] if found else None) == code


@pytest.mark.parametrize("name, text, code", [
    ("ECG", "We train on the Owl-XL ECG dataset of 21,000 recordings.", "data_kind"),
    ("scRNA-seq", "Samples were profiled with scRNA-seq.", "data_kind"),
    ("EEG", "We release our EEG dataset on OSF.", None),
    ("Owl-XL", "We train on the Owl-XL ECG dataset of 21,000 recordings.", None),
    ("Reef-seq", "Cells were tagged and profiled with Reef-seq.", "data_kind"),  # any sequencing assay
    ("KELPseq", "Cells were profiled with KELPseq.", "data_kind"),
    ("Reef-seq", "We release the Reef-seq dataset of 9k cells.", None),
    ("Kelpseq", "We train on Kelpseq.", None),  # "seq" after a lower-case word is not an assay's suffix
])
def test_a_kind_of_data_is_not_a_dataset_unless_it_is_the_only_name_of_one(name, text, code):
    from dsminer.mentions.names import problem_in_text

    found = problem_in_text(name, text)
    assert (found[0] if found else None) == code


@pytest.mark.parametrize("name, text, code", [
    ("Marlow", "We use the polarity dataset from Marlow and Finch (2005).", "author"),
    ("Marlow", "the subjectivity dataset (Marlow and Finch, 2004)", "author"),
    ("Marlow", "Marlow et al. collected the reviews.", "author"),
    ("Finch", "the benchmark datasets of (Marlow, Okoye, and Finch 2015)", "author"),
    ("Reefset", "accuracy on both Reefset and ORCA 2014 datasets", None),
    ("Finch", "We use the polarity dataset from Marlow and Finch (2005).", "author"),
    ("Reefset", "the shared tasks (Kelp 2014; Reefset 2015)", None),
    ("Reefset", "trained on Kelp and Reefset (2015 release)", None),
    ("Reefset", "We evaluate on the Reefset 2015 dataset and the Kelp corpus.", None),
    ("Marlow Finch", "Marlow Finch et al. wrote it.", None),
    ("Okoye", "the chronogram store (Marlow, Okoye, & Finch, 2006) holds 4k studies", "author"),
    ("Okoye", "the benchmarks (Marlow, Okoye, Kelp, and Finch 2019)", "author"),
    ("Reefset", "trained on (Kelp, Reefset, and Coral 2015 releases)", None),
    ("Marlow", "the reef treebank (Marlow and McKinnon, 2012)", "author"),
    ("DeVries", "the coral corpus (Okoye & DeVries, 2016)", "author"),
    ("Marlow & Finch", "the dialog dataset (Marlow & Finch, 2016) has 5 tasks", "author"),
    ("Marlow and Finch", "as in Marlow and Finch (2005), we count", "author"),
    ("KELP & ORCA", "results on KELP & ORCA (2016 release)", None),
    ("Marlow & Finch", "the Marlow & Finch reef survey holds 4k dives", None),
    # a sole author: a reference entry opens with the name, and every other mention cites it with a year
    ("Okafor", "a mixture model (Okafor, 2021). As in\nOkafor (2022), we fit.\n\nOkafor, V. Reef models.", "author"),
    ("Okafor 1999", "sentences of spoken English (Okafor 1999).\nOkafor, Alan. 1999. A reef corpus.", "author"),
    ("Okafor", "a mixture model (Okafor, 2021). We train on Okafor.\nOkafor, V. Reef models.", None),
    ("Reefset", "the shared tasks (Kelp 2014; Reefset 2015)\nReefset, Kelp and Coral are used.", None),
    ("Okafor", "a mixture model (Okafor, 2021) as before.", None),
])
def test_written_as_author(name, text, code):
    from dsminer.mentions.names import written_as_author

    found = written_as_author(name, text)
    assert (found[0] if found else None) == code


def test_mentions_outside_longer_names():
    text = "We use the WIDER FACE dataset. WIDER FACE has easy, medium and hard sets. FACE alone is rare."
    assert mentions_outside("FACE", ["WIDER FACE", "FACE"], text) == 1
    assert mentions_outside("FACE", ["WIDER FACE"], text.replace("FACE alone", "It")) == 0
    assert mentions_outside("WIDER FACE", ["FACE"], text) == 2


@pytest.mark.parametrize(("name", "sentences", "whole"), [
    # written only inside a longer name: that name
    ("Quokka Natural", ["We train on the Quokka Natural Speech Inference (QNSI) corpus.",
                        "The Quokka Natural Speech Inference corpus has 9k pairs."], "Quokka Natural Speech Inference"),
    ("Word Bench", ["We pretrain on the 3B Word Bench (Smith et al., 2014)."], "3B Word Bench"),
    ("Task 2019", ["We use the Otter Shared Task 2019 treebanks."], "Otter Shared Task 2019"),
    ("Pelican", ["Results on Pelican 2004 follow.", "Pelican 2004 is larger."], "Pelican 2004"),
    # written on its own at least once: itself
    ("Quokka Natural", ["The Quokka Natural Speech corpus.", "Quokka Natural has 9k pairs."], "Quokka Natural"),
    ("OrcaSet", ["Using OrcaSet we train.", "The English OrcaSet part.", "The OrcaSet Dataset is large.",
                 "We use the OrcaSet Test split.", "OrcaSet Smith2014Deep is cited."], "OrcaSet"),
    ("Whale", ["Whale Whale Corpus is a layout artefact."], "Whale"),
    # the sentence's first word is capitalised whatever it is; table text does not count
    ("OrcaSet", ["Finally OrcaSet is used.", "Alpha OrcaSet 71.2 80.3 66.1 54.0 12.1"], "OrcaSet"),
    # a piece of several names names none of them
    ("Pelican", ["Results on Pelican 2001 and Pelican 2004 follow."], None),
    ("Otter", ["The Otter Depth and Otter Pose corpora."], None),
])
def test_whole_name(name, sentences, whole):
    from dsminer.mentions.names import whole_name

    assert whole_name(name, sentences) == whole


@pytest.mark.parametrize("name, text, code", [
    ("Kelpify", "Kelpify is a reference-based annotation method that scores cells.", "defined_tool"),
    ("Kelpify", "Kelpify is an R package for reef counts.", "defined_tool"),
    ("Kelpify", "Kelpify is a large database of reef images. Kelpify is a tool too.", None),  # the first says data
    ("Kelpify", "Kelpify is a method-agnostic dataset of reefs.", None),
    ("Kelpify", "Kelpify is the benchmark most methods use.", None),
    ("Kelpify", "We use Kelpify. Kelpify was released in 2019.", None),
])
def test_a_name_the_paper_says_is_a_method_or_tool(name, text, code):
    from dsminer.mentions.names import defined_as_tool

    found = defined_as_tool(name, text)
    assert (found[0] if found else None) == code


@pytest.mark.parametrize("name, text, code", [
    ("KRT", "Cells were labelled with kelp-reactive tags (KRT) and counted.", "defined_kind"),
    ("KRT", "Cells carry kelp-reactive tags (KRT). KRT data were normalised.", "defined_kind"),  # data of a kind
    ("RTUs", "Counts were binned into reef taxonomic units (RTUs) per sample.", "defined_kind"),
    ("RTU", "Counts were binned into reef taxonomic units (RTUs) per sample.", "defined_kind"),  # its plural
    ("OWC", "We measured the owl wing chord (OWC) of each bird.", "defined_kind"),
    # a heading that capitalises the phrase once does not make it a name
    ("KRS", "3.2. Kelp Reef Sampling (KRS) Unit\nWe devise a kelp reef sampling (KRS) step. The kelp reef sampling "
            "(KRS) unit runs once.", "defined_kind"),
    # written as a body of data, the phrase or the acronym names one
    ("KLC", "We evaluate on the kelp light chain (KLC) case study. The kelp light chain dataset has 700 rows.", None),
    ("KLC", "We evaluate on the kelp light chain (KLC) case study and on both KLC datasets.", None),
    ("ORBS", "Our cohort is the owl reef behaviour (ORBS) study; ORBS study data are public.", None),
    # a data noun right after the defining brackets is the phrase's data ("a kelp care unit database"), not a name
    ("KCU", "Dives come from a multi-site kelp care unit (KCU) database.", "defined_kind"),
    ("KCU", "Dives come from a multi-site kelp care unit (KCU) database. The KCU database is public.", None),
    # a proper name, or a phrase ending in a data noun
    ("KRC", "We use the Kelp Reef Corpus (KRC) for training.", None),
    ("KRS", "We use the Kelp Reef Set (KRS). Its kelp reef set (KRS) rows are counts.", None),
    ("KEB", "We match stars to the Kelp eclipsing binary catalog (KEB).", None),
    ("ORB", "The adolescent owl reef behaviour (ORB) data came from a survey. The Owl Reef Behaviour (ORB).", None),
    # letters the phrase does not spell are not its acronym
    ("KRT", "Results of the model test ppl (KRT) are shown.", None),
])
def test_an_acronym_spelled_out_as_a_kind_of_thing_is_not_a_dataset(name, text, code):
    from dsminer.mentions.names import defined_as_kind, problem_in_text

    found = defined_as_kind(name, text)
    assert (found[0] if found else None) == code
    if code:
        assert problem_in_text(name, text)[0] == code


@pytest.mark.parametrize("name, text, code", [
    ("Open Reefs", "# Open Reefs\nWe track open reefs. Most open reefs grow; open reefs recover.", "common_phrase"),
    # written as data, or as often capitalised, or ending in a data noun, the name stands
    ("Open Reefs", "# Open Reefs\nWe use Open Reefs data. Most open reefs grow; open reefs recover.", None),
    ("Open Reefs", "# Open Reefs\nWe track Open Reefs. Most open reefs grow.", None),
    ("Reef Database", "# Reef Database\nThe reef database holds reefs; the reef database is public.", None),
    ("KELP", "KELP. kelp grows; kelp recovers.", None),  # one word
])
def test_a_phrase_mostly_written_in_lower_case_is_not_a_name(name, text, code):
    from dsminer.mentions.names import written_as_common_phrase

    found = written_as_common_phrase(name, text)
    assert (found[0] if found else None) == code
