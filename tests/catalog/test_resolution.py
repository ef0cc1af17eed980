"""Each merge rule and each non-merge of the resolution, on invented dataset names."""

from __future__ import annotations

import pytest

from dsminer.catalog.resolution import conflict, expansion, resolve, spelling


def together(*mentions: tuple[str, list[str], str], known: dict[str, str] | None = None) -> list[list[int]]:
    """The groups of mention indices, each sorted, in a stable order."""
    return sorted(sorted(group) for group in resolve(list(mentions), known).groups)


@pytest.mark.parametrize("one, other", [
    ("Quokka Reads", "quokka-reads"),              # case, punctuation
    ("Quokka Reads", "The QuokkaReads dataset"),   # spacing, a leading "the", a trailing data noun
    ("QuokkaReads", "zorbalab/QuokkaReads"),       # an "owner/X" id
    ("WXT'14", "WXT 2014"),                        # a year written '14
    ("Wombatography Archive", "Wombatograhpy Archive"),  # a typing slip in a long name
    ("Quokka Reads", "Quokka Reads test set"),     # a split of it
    ("Emu\u2019s Calls", "Emu 's Calls"),          # a possessive as text extraction may space it
    ("QRB", "English QRB"),                        # a language before an abbreviation
    ("Numbat 2003 NER shared task", "Numbat-2003"),  # the task and campaign it was made for
    ("Numbat 2003 English", "Numbat 2003"),        # a language after the name
    ("Quokka Reads classification", "QuokkaReads"),
    ("Quokka Reads classification challenge benchmarks", "Quokka Reads"),  # a data noun after the task words
    ("Wombat Faces DB", "Wombat Faces"),           # "DB" for database
    ("Wombat Face", "WombatFaces"),                # a long name and its plural
    ("WOMBAT07", "WOMBAT 2007"),                   # an abbreviation ending in a year's two digits
    ("ZQ BILBY", "BILBY"),                         # a maker's short name before the name
    ("ZORBA BILBY 2007", "BILBY 2007"),
    ("fine-grained Quokka-100", "Quokka-100"),     # lower-case words that describe it
    ("QRB-POS", "QRB"),                            # a task after a hyphen
])
def test_one_dataset_written_two_ways_is_one_entry(one, other):
    assert together((one, [], "a.pdf"), (other, [], "b.pdf")) == [[0, 1]]


def test_a_records_two_full_names_join_papers_that_write_either():
    mentions = [("Flumph Corpus of Tales", ["Flumph Tales"], "a.pdf"), ("Flumph Tales", [], "b.pdf"),
                ("Flumph Corpus of Tales", [], "c.pdf")]
    assert together(*mentions) == [[0, 1, 2]]


def test_an_abbreviation_a_paper_defines_joins_papers_that_write_only_it():
    mentions = [("Marsupial Sound Dataset", ["MSD"], "a.pdf"), ("MSD", [], "b.pdf"),
                ("Marsupial Sound Dataset", [], "c.pdf")]
    assert together(*mentions) == [[0, 1, 2]]


def test_an_abbreviation_expanded_into_two_datasets_joins_neither():
    mentions = [("Marsupial Sound Dataset", ["MSD"], "a.pdf"), ("Moth Species Database", ["MSD"], "b.pdf"),
                ("MSD", [], "c.pdf")]
    result = resolve(mentions)
    assert sorted(sorted(group) for group in result.groups) == [[0], [1], [2]]
    assert result.ambiguous == {"msd"}


def test_a_shortening_joins_the_one_dataset_records_give_it_but_not_two():
    one = [("Kiwi Review Polarity", ["Kiwi"], "a.pdf"), ("Kiwi", [], "b.pdf")]
    assert together(*one) == [[0, 1]]
    two = [*one, ("Kiwi Review Full", ["Kiwi"], "c.pdf")]
    result = resolve(two)
    assert sorted(sorted(group) for group in result.groups) == [[0], [1], [2]] and result.ambiguous == {"kiwi"}


def test_a_shortening_spelled_out_longer_or_shorter_is_one_reading():
    mentions = [("Kiwi", ["Kiwi , Emu Mail", "Kiwi and Emu Mail news data"], "a.pdf"),
                ("Kiwi", ["Kiwi and EmuMail websites"], "b.pdf"), ("Kiwi", [], "c.pdf")]
    result = resolve(mentions)
    assert sorted(sorted(group) for group in result.groups) == [[0, 1, 2]] and not result.ambiguous


@pytest.mark.parametrize("one, other", [
    ("WOMBAT07", "WOMBAT 2008"),   # the two digits are not that year's
    ("Wombat07", "Wombat 2007"),   # not an abbreviation: "07" may be a count
    ("ZQ EEG", "EEG"),             # a kind of data after a maker's name is no dataset's name
    ("ZQ BI", "BI"),               # too short to say which dataset
])
def test_a_maker_or_year_joins_only_what_it_can_name(one, other):
    assert together((one, [], "a.pdf"), (other, [], "b.pdf")) == [[0], [1]]


def test_a_name_written_after_two_makers_joins_neither():
    assert together(("ZQ BILBY", [], "a.pdf"), ("XW BILBY", [], "b.pdf"), ("BILBY", [], "c.pdf")) == [[0], [1], [2]]


def test_a_known_catalogue_id_joins_its_names():
    mentions = [("Quokka Reads", [], "a.pdf"), ("QRC-Text", [], "b.pdf")]
    assert together(*mentions) == [[0], [1]]
    assert together(*mentions, known={"quokkareads": "hf:qr", "qrctext": "hf:qr"}) == [[0, 1]]


@pytest.mark.parametrize("one, other", [
    ("Numbat", "Numbat-1k"),       # a subset
    ("Numbat", "Numbat v2"),       # a version
    ("Numbat", "Numbat 2.0"),
    ("Bilby-10", "Bilby-100"),     # numbers differ
    ("Kiwi-A", "Kiwi-B"),          # a short last word differs
])
def test_versions_subsets_and_siblings_stay_apart_even_when_a_record_joins_them(one, other):
    assert together((one, [other], "a.pdf"), (other, [], "b.pdf"), (one, [], "c.pdf")) == [[0, 2], [1]]


def test_a_version_or_subset_links_to_its_dataset():
    result = resolve([("Numbat", [], "a.pdf"), ("Numbat-1k", [], "b.pdf"), ("Numbat v2", [], "c.pdf")])
    group_of = {index: number for number, group in enumerate(result.groups) for index in group}
    assert result.variant_of == {group_of[1]: group_of[0], group_of[2]: group_of[0]}


def test_a_plain_lower_case_name_joins_only_its_own_paper():
    mentions = [("training data", [], "a.pdf"), ("training data", [], "b.pdf"), ("training data", ["TD"], "a.pdf")]
    assert together(*mentions) == [[0, 2], [1]]


@pytest.mark.parametrize("name", ["RGB images", "EEG data", "fMRI"])
def test_a_name_that_only_says_the_kind_of_data_joins_only_its_own_paper(name):
    mentions = [(name, [], "a.pdf"), (name, [], "b.pdf"), (name, ["Quokka Scans"], "a.pdf")]
    assert together(*mentions) == [[0, 2], [1]]


def test_a_lower_case_spelling_of_a_distinctive_name_joins_it():
    assert together(("Quokka Reads", [], "a.pdf"), ("quokka reads", [], "b.pdf")) == [[0, 1]]


def test_a_language_or_generic_alias_is_no_bridge():
    mentions = [("WXT 2014 Emu-Kiwi", ["English"], "a.pdf"), ("WXT 2014 Emu-Moa", ["English", "the dataset"], "b.pdf")]
    assert together(*mentions) == [[0], [1]]


def test_lower_case_words_before_a_number_or_a_language_pair_after_a_hyphen_stay():
    assert together(("wombat calls 2", [], "a.pdf"), ("2", [], "b.pdf")) == [[0], [1]]
    assert together(("WXT 2014 English-French", [], "a.pdf"), ("WXT 2014", [], "b.pdf")) == [[0], [1]]


def test_expansion_needs_one_word_per_letter():
    assert expansion("MSD", "Marsupial Sound Dataset") == "marsupialsound"
    assert expansion("MSD", "the Marsupial Sound Data") == "marsupialsounddata"  # function words do not count
    assert expansion("MSD", "Marsupial Data") is None
    assert expansion("SNLI", "Stanford NLI") is None


def test_conflict_reads_numbers_and_versions_but_not_spelling():
    assert conflict(spelling("Bilby-10"), spelling("Bilby-100"))
    assert conflict(spelling("Numbat"), spelling("Numbat-1k"))
    assert not conflict(spelling("Numbat"), spelling("NUMBAT"))
    assert not conflict(spelling("WXT'14"), spelling("WXT 2014"))
    assert not conflict(spelling("WXT14"), spelling("WXT 2014")) and conflict(spelling("WXT14"), spelling("WXT 2015"))
