"""Name-shaped phrases a paper writes near dataset cues and in its tables: candidates for the names step.

Model-free. A candidate is not a decision: models, metrics and tasks are shaped like dataset names
too, and the names step decides what each one is. A catalogue of known names is optional.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from itertools import accumulate

from dsminer.document.pdf import ParsedPaper
from dsminer.document.text import is_table_row_text, name_pattern
from dsminer.mentions.catalog import catalog_names_in
from dsminer.mentions.lexicon import (
    DATA_NOUN,
    DATA_NOUN_GROUP,
    DATA_NOUN_WORDS,
    DATA_WORD_WORDS,
    LANGUAGES,
    LIST_NOUN_WORDS,
    NAME_JOINERS,
    NOT_DATASETS,
    NOT_KIND_WORDS,
    SOURCE_VERBS,
)
from dsminer.mentions.names import (
    POSSESSIVE,
    checked_whole_name,
    count_mentions,
    looks_like_non_dataset,
    mentions_outside,
    problem_in_text,
)

MAX_CANDIDATES = 12
# A name token: capitalised, or lower-case with an inner capital ("bAbI"); with an optional year or version
# after a space ("CoNLL 2003", "SQuAD 2.0").
_TOKEN = (r"(?:[A-Z][A-Za-z0-9]*|[a-z]+[A-Z][A-Za-z0-9]*)(?:[-.][A-Za-z0-9]+)*(?:['\u2019]s)?"
          r"(?:\s(?:19|20)\d\d\b|\s\d{1,2}\.\d\b)?")
# Between two listed names: ", ", ", and ", " and ", " or ", each with an optional "the".
_LIST_SEPARATOR = r"(?:\s*,\s*(?:and\s+)?|\s+and\s+|\s+or\s+)(?:the\s+)?"
_LIST_AFTER = re.compile(rf"\b(?:on|using|from)\s+(?:the\s+)?({_TOKEN}(?:{_LIST_SEPARATOR}{_TOKEN})*)")
# What opens a list of names after a data noun: "the datasets: A, B and C", "benchmarks such as X".
LIST_OPENER = r"\s*(?::|,?\s+(?:such as|including|namely))"
# A data noun that can list names after it.
_LIST_NOUN = rf"\b(?:{LIST_NOUN_WORDS})"
# The data noun may say what the data holds first: "two datasets of natural images, namely X and Y".
_LISTING_NOUN = rf"{_LIST_NOUN}(?:\s+(?:of|with|for|from)(?:\s+[a-z][a-z\-]*){{1,3}})?{LIST_OPENER}"
_NOUN_LIST_NAME = rf"{_TOKEN}(?:\s{_TOKEN}){{0,3}}"
_LIST_AFTER_NOUN = re.compile(
    rf"{_LISTING_NOUN}\s+(?:the\s+)?"
    rf"({_NOUN_LIST_NAME}(?:{_LIST_SEPARATOR}{_NOUN_LIST_NAME})*)"
)
# Names right after a data noun without "such as" or a colon, in prose: "two test datasets X and Y", "datasets (X, Y,
# Z)", "benchmarks, i.e., X and Y" (not after a comma alone: "on both datasets, X beats Y").
_NAMES_AFTER_NOUN = re.compile(
    rf"{_LIST_NOUN}(?:\s*\(|,?\s+(?:i\.e\.|e\.g\.|namely)\s*[,:]?)?\s*(?:the\s+)?"
    rf"({_NOUN_LIST_NAME}(?:{_LIST_SEPARATOR}{_NOUN_LIST_NAME})*)"
)
# Three names or more listed after a data noun and a comma: "three text classification datasets, X, Y and Z" (two
# could be a clause: "on both datasets, X beats Y").
_LIST_AFTER_COMMA = re.compile(rf"{_LIST_NOUN},\s+(?:the\s+)?"
                               rf"({_NOUN_LIST_NAME}(?:\s*,\s*{_NOUN_LIST_NAME})+,?\s+and\s+{_NOUN_LIST_NAME})")
# Names a sentence says are data: "X and Y are paragraph datasets", "X is a corpus of ...".
_NAMES_ARE_DATA = re.compile(
    rf"({_NOUN_LIST_NAME}(?:{_LIST_SEPARATOR}{_NOUN_LIST_NAME})*)\s+(?:is|are)\s+"
    r"(?:(?:a|an|the|two|three|four|both)\s+)?(?:[a-z][a-z\-]*\s+){0,3}"
    rf"(?:{DATA_NOUN_WORDS})\b")
# A split of a dataset written after its name: "the bAbI training set", "the WSJ test data".
SPLIT_NOUN = r"(?:training|train|test|testing|dev|development|validation|held-out)\s+(?:sets?|splits?|data)"
_SPLIT_AFTER = re.compile(rf"\s+(?i:{SPLIT_NOUN})\b")
# A data noun at most this many characters (about six words) from a name says the sentence calls it data.
NEAR_CHARS = 40
_LISTED_BEFORE = re.compile(rf"{_LISTING_NOUN}[^.;]*$", re.I)
# Words that say the paper runs on data, then "on" (a word or two may come between) or "in" (directly): "results
# on X", "we report results in the English PTB and Chinese CTB-5", "trained our model on X" (a footnote digit may
# follow the word: "results4"); not "training iterations used in X".
_USE_WORDS = r"(?:results?|experiments?|evaluat\w*|train\w*|test\w*|fine-?tun\w*|pre-?train\w*)\d*"
_USED = rf"\b{_USE_WORDS}\s+(?:(?:[a-z]+\s+){{0,2}}?on|in)\s+(?:the\s+)?"
_USED_ON = re.compile(rf"{_USED}({_NOUN_LIST_NAME}(?:{_LIST_SEPARATOR}{_NOUN_LIST_NAME})*)")
# A score reported on data: "from 1.13 to 1.08 on X", "rates of 8.6% on X and 31.6% on Y", "27.42dB on X, Y and Z"
# (a decimal or a percentage, so not "Table 2 on", "4 GPUs on").
_SCORED = r"(?<![\w.])(?:\d+\.\d+\s*(?:%|dB)?|\d+\s*(?:%|dB))\s+on\s+(?:the\s+)?"
# The end of a clause that lists names after words of experiments or a score, up to a name.
_USED_BEFORE = re.compile(rf"(?:{_USED}|{_SCORED})(?:{_NOUN_LIST_NAME}{_LIST_SEPARATOR})*$")
# Data taken from named sources: "drawn from the X and Y", "data from X" (the names' list up to a name).
# The verbs are read case-blind, the names not: a case-blind name pattern reads every word as a name, and the
# search backtracks through the whole clause.
_SOURCED_BEFORE = re.compile(
    rf"\b(?i:{SOURCE_VERBS}|data)\s+from\s+(?:the\s+)?(?:{_NOUN_LIST_NAME}{_LIST_SEPARATOR})*$")
# Names data is taken from: "data from X and Y", "obtained from the X".
_SOURCED_FROM = re.compile(rf"\b(?:{SOURCE_VERBS}|data)\s+from\s+(?:the\s+)?"
                           rf"({_NOUN_LIST_NAME}(?:{_LIST_SEPARATOR}{_NOUN_LIST_NAME})*)")
# A name written as data by a word or two after it: "the X data", "the X case data" (not "X-based data").
_DATA_AFTER = re.compile(r"\s+(?:[a-z]+\s+)?data\b")
# Names a sentence opens with "On" before what the paper did on them: "On X, we obtain ...", "On X and Y our model ...".
_ON_FIRST = re.compile(
    rf"^On\s+(?:the\s+)?({_NOUN_LIST_NAME}(?:{_LIST_SEPARATOR}{_NOUN_LIST_NAME})*)(?=\s*,|\s+(?:we|our)\b)")
# A row of a table of dataset statistics: the label, a few small whole numbers, then a count of examples
# ("AG's News 4 120,000 7,600", "X 2 91 3,600,000", "X 560k"); result rows hold scores ("X 86.94 35k").
_COUNT_AFTER = re.compile(r"(?:\s+\d+){0,3}\s+(?:\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?[kK])(?=\s|$)")
_BEFORE_NOUN = re.compile(
    rf"({_TOKEN})\s+(?:{DATA_NOUN_WORDS}|{SPLIT_NOUN})\b"
)
# A name, then a lower-case word or two saying what the data holds, then "dataset" or "corpus": "the X reviews dataset"
# (not a unit: "a 40 GB text dataset").
# The words between are content words: not "X on the dataset", "X trained on ... corpus".
_BEFORE_KIND_NOUN = re.compile(
    rf"(?<!\d\s)({_TOKEN})\s+(?:(?!(?:{NOT_KIND_WORDS})\s)[a-z]+(?<!ed)\s+){{1,2}}(?:data ?sets?|corpus|corpora)\b")
_CAP_WORD = r"[A-Z][A-Za-z0-9\-'\u2019]*"
# Capitalised words before a data noun ("Wall Street Journal corpus") or ending in one ("Penn Treebank").
_PHRASE_BEFORE_NOUN = re.compile(
    rf"\b((?:{_CAP_WORD}\s+){{1,4}}{_CAP_WORD})\s+(?:{DATA_NOUN_WORDS})\b")
# A name spelled out with its acronym before a data noun: "the Xyz Question Answering (XQA) corpus" gives both.
_DEFINED_BEFORE_NOUN = re.compile(
    rf"\b(?:(?:The|A|An|Our|This)\s+)?((?:{_CAP_WORD}\s+){{1,5}}{_CAP_WORD})\s+\(({_TOKEN})\)\s+"
    rf"(?:{DATA_NOUN_WORDS})\b"
)
# A name that ends in a capitalised data noun: "Penn Treebank", "Kepler Input Catalog", "Current Population Survey".
_PHRASE_WITH_NOUN = re.compile(
    rf"\b((?:{_CAP_WORD}\s+){{1,3}}(?:(?=[A-Z][a-z]){DATA_NOUN_GROUP}|TreeBank|DataSet|Bank|Challenge))\b"
)
# A suite of tasks or a shared task or challenge written after its name ("the X tasks", "the X 2003 NER task", "the X
# shared task", "the X challenge"): the data it is run on.
_SUITE_AFTER = r"\s+(?:(?:[A-Z]{2,5}|[a-z]+)\s+)?(?:shared\s+tasks?|challenges?|tasks)\b|\s+[A-Z]{2,5}\s+task\b"
_BEFORE_SUITE = re.compile(rf"({_TOKEN})(?={_SUITE_AFTER})")
_SUITE_FOLLOWS = re.compile(_SUITE_AFTER)
# The same shared task named with its task's acronym ("X 2003 NER" of "the X 2003 NER task"): a year, then the acronym.
_YEAR_ACRONYM_END = re.compile(r"(?:19|20)\d\d\s+[A-Z]{2,5}$")
_TASK_FOLLOWS = re.compile(r"\s+(?:shared\s+)?task\b")
_SPLIT = re.compile(rf"{_LIST_SEPARATOR}|^(?:[Tt]he\s+)?")
# Patterns whose names a data noun lists or describes: one capitalised word among them is a name (see `is_word_name`).
_LISTING_PATTERNS = (_LIST_AFTER_NOUN, _NAMES_AFTER_NOUN, _LIST_AFTER_COMMA, _NAMES_ARE_DATA, _SOURCED_FROM)
DATA_CUE = re.compile(
    rf"\b(?:{DATA_NOUN_WORDS}|evaluat\w*|experiments?|train\w*|test\w*|fine-?tun\w*|collected|released?|"
    rf"annotated|results?|report\w*|benchmark\w*|(?:{SOURCE_VERBS})\s+from)\b|(?-i:^On\s)|" + _SCORED,
    re.I,
)
_SOURCE_WEIGHT = {"catalog": 3.0, "cue": 3.0, "table": 2.0}
# Words that open a sentence or phrase, not a name; inside a span they mean it runs across a boundary ("MultiNLI This")
_LEADING_WORDS = frozenset("As In On For With The Our Both All Each Using From And Or Of To A An This These That Those "
                           "We It Its Their Here There".split())
_ODD_CHARS = re.compile(r"[^A-Za-z0-9 .'\u2019\-+/&]")
_SECTION_WORDS = re.compile(r"^(?:EXPERIMENTS?|DATASETS?|RESULTS?|EVALUATION|DISCUSSION|INTRODUCTION|METHODS?|"
                            r"APPENDI(?:X|CES)|(?-i:(?:II|III|IV|VI|VII|VIII|IX|XI|XII)-[A-Z][a-z]+))$", re.I)
# A plural acronym ("CNNs", "KBs") names a kind of thing, not one dataset.
_PLURAL_ACRONYM = re.compile(r"[A-Z]{2,}s")
_DATA_HEADER = re.compile(rf"(?:{DATA_WORD_WORDS})\s", re.I)
_HEADER_WORDS = re.compile(r"^(?:(?:Train|Training|Test|Testing|Dev|Valid|Validation|Size|Classes|Samples|Examples|"
                           r"Epochs?|Avg|Average|Total|Type|Tasks?|Domain|Labels|Vocab|Length|Sentences|Documents)\s+)+")
_ROW_NAME = re.compile(r"(?:^|(?<=\s))([A-Z][A-Za-z0-9\-.'\u2019]*(?:\s[A-Z][A-Za-z0-9\-.'\u2019]*){0,2})(?=\s+[-\d])")


@dataclass(frozen=True)
class Candidate:
    """A name-shaped phrase, how often the body writes it, and where it was found (cue, table, catalog)."""

    name: str
    mentions: int
    sources: tuple[str, ...]
    log_odds: float | None = None  # the candidate ranker's score, when it offered the name

    @property
    def score(self) -> float:
        if self.log_odds is not None:
            return self.log_odds
        return min(self.mentions, 10) + sum(_SOURCE_WEIGHT.get(source, 0.0) for source in self.sources)


def is_name_shaped(token: str) -> bool:
    """An acronym, CamelCase or digit-bearing token, or capitalised words, that is not a known non-dataset."""
    token = token.strip(" .-")
    words = token.split()
    if not token or len(words) > 5 or token in NOT_DATASETS or words[0] in NOT_DATASETS:
        return False
    if words[0] in _LEADING_WORDS or words[0][0].isdigit() or _ODD_CHARS.search(token):
        return False
    if any(_SECTION_WORDS.match(word) for word in words) or _PLURAL_ACRONYM.fullmatch(token):
        return False
    if any(word[0].islower() and word not in NAME_JOINERS for word in words[1:]):
        return False  # "PP from S", "Results per class": a phrase, not a name
    if POSSESSIVE.search(token):
        return False  # "AG's" of "AG's News": the start of a name
    if any(word in _LEADING_WORDS for word in words[1:]) or re.search(r"[a-z]\.\s", token):
        return False  # "Agreement The SemEval" runs across a boundary; "Yah. A" is a table abbreviation
    shaped = sum(c.isupper() for c in token) >= 2 or any(c.isdigit() for c in token)
    return len(token) >= 2 and shaped and any(c.isalpha() for c in token) and looks_like_non_dataset(token) is None


def is_word_name(token: str) -> bool:
    """One capitalised word of four letters or more ("Cityscapes", "Omniglot") that is not a known non-dataset:
    a name only where a sentence writes it as data (see `candidate_names`)."""
    token = token.strip(" .")
    return (re.fullmatch(r"[A-Z][a-z]{3,}[A-Za-z0-9\-]*", token) is not None and token not in NOT_DATASETS
            and not re.fullmatch(r"[A-Z][a-z]+ly", token)
            and token not in LANGUAGES and token not in _LEADING_WORDS and not _SECTION_WORDS.match(token)
            and looks_like_non_dataset(token) is None)


def names_a_suite(name: str) -> bool:
    """Whether a name before "tasks", "shared task" or "challenge" names data: it has a digit or a lower-case
    letter ("the X 2003 NER task", "the Xyz tasks"); an acronym in capitals there is a task ("the NER and POS
    tasks")."""
    return any(c.isdigit() or c.islower() for c in name)


def candidate_names(sentence: str) -> list[str]:
    """Name-shaped tokens listed after "on/using/from", after a data noun ("datasets: A, B and C", "datasets of
    images, namely A and B", "three datasets, A, B and C") or after words of experiments ("results in the X and Y"),
    said to be data ("A and B are paragraph datasets"), written before or ending in a data noun, or before "tasks",
    "shared task" or "challenge" (see `names_a_suite`), or before a word or two of what the data holds and
    "dataset" or "corpus" ("the X reviews dataset"). One capitalised word ("Cora") counts where it is written
    right before a data noun (not first in the sentence), listed after one, before a suite of tasks, or listed
    with another name."""
    found: list[str] = []
    words: list[str] = []
    patterns = [_LIST_AFTER, _LIST_AFTER_NOUN, _USED_ON, _ON_FIRST, _SOURCED_FROM]
    if not is_table_row_text(sentence):
        # in table text, "Datasets" heads a column of labels and numbers
        patterns += [_NAMES_AFTER_NOUN, _LIST_AFTER_COMMA, _NAMES_ARE_DATA]
    for pattern in patterns:
        for match in pattern.finditer(sentence):
            parts = [part for part in _SPLIT.split(match.group(1)) if part]
            found.extend(parts)
            if pattern in _LISTING_PATTERNS or len(parts) > 1:
                words.extend(parts)
    for match in _DEFINED_BEFORE_NOUN.finditer(sentence):
        spelled, acronym = match.groups()
        # the spelled-out name starts where the acronym does: not the tail of a name cut at a line break
        found.extend((spelled, acronym) if spelled[0].casefold() == acronym[0].casefold() else (acronym,))
    for match in (*_BEFORE_NOUN.finditer(sentence), *_BEFORE_KIND_NOUN.finditer(sentence)):
        found.append(match.group(1))
        if match.start() > 0:
            words.append(match.group(1))
    for pattern in (_PHRASE_BEFORE_NOUN, _PHRASE_WITH_NOUN):
        found.extend(match.group(1) for match in pattern.finditer(sentence))
    suites = [match.group(1) for match in _BEFORE_SUITE.finditer(sentence) if names_a_suite(match.group(1))]
    found.extend(suites)
    words.extend(suites)
    words = [token for token in words if is_word_name(token) and _written_alone(token.strip(" ."), sentence)]
    return list(dict.fromkeys(token.strip(" .") for token in found + words if is_name_shaped(token) or token in words))


def _written_alone(word: str, sentence: str) -> bool:
    """Whether the sentence writes `word` at least once with no capitalised word or possessive right before or
    after it: "Stanford" of "Stanford Treebank" or "News" of "AG's News" is a piece of a longer name."""
    for match in re.finditer(rf"\b{re.escape(word)}\b", sentence):
        before, after = sentence[:match.start()], sentence[match.end():]
        if not re.search(r"(?:[A-Z][\w\-]*|['\u2019]s)\s+$", before) and not re.match(r"\s+[A-Z]", after):
            return True
    return False


def _table_cells(paper: ParsedPaper) -> list[str]:
    return [cell for table in paper.tables for cell in table.cells() if len(cell.split()) <= 4 and is_name_shaped(cell)]


def lists_datasets(sentence: str) -> bool:
    """Whether a sentence is table text under a data column ("Dataset Classes Train Samples AG's News 4 ..."):
    its row labels are datasets."""
    return bool(_DATA_HEADER.match(sentence)) and is_table_row_text(sentence)


def row_names(sentence: str) -> list[str]:
    """Name-shaped row labels in table text: capitalised words followed by a number or a dash, without the
    column headers run into the first one ("Size AG's News 4" gives "AG's News")."""
    labels = (_HEADER_WORDS.sub("", m.group(1)) for m in _ROW_NAME.finditer(sentence))
    return [name for name in labels if is_name_shaped(name)]


def sentence_candidates(sentence: str) -> list[str]:
    """The candidates one sentence offers on its own: names near data cues, or row labels of table text."""
    found = candidate_names(sentence) if DATA_CUE.search(sentence) else []
    found += row_names(sentence) if is_table_row_text(sentence) else []
    return list(dict.fromkeys(found))


def data_support(names: Sequence[str], sentences: Sequence[str]) -> int:
    """How many sentences write one of `names` as data: prose with a data noun ("dataset", "corpus",
    "benchmark", "treebank", "collection") within a few words of the name, the name directly before a split
    ("X training set"), listed after a data noun ("the datasets: W, X and Y") or after words of experiments
    ("results on X", "trained on X and Y"), after a score ("from 1.13 to 1.08 on X", "27.42dB on X and Y"), first
    in a sentence that says what the paper did on it ("On X, we obtain ..."), table text under a data column (see
    `lists_datasets`), or a row of a table of dataset statistics (the name followed by a count of examples: "X 4
    120,000 7,600"). Other table text does not count, nor a sentence whose data noun is far from the name or across
    a semicolon (it is about another name)."""
    patterns = [p for p in map(name_pattern, names) if p is not None]

    def as_data(sentence: str, mention: re.Match[str]) -> bool:
        before = sentence[max(0, mention.start() - NEAR_CHARS):mention.start()].rsplit(";", 1)[-1]
        after = sentence[mention.end():mention.end() + NEAR_CHARS].split(";", 1)[0]
        opening = _ON_FIRST.match(sentence)  # the names "On X and Y, we ..." opens with
        return bool(DATA_NOUN.search(f"{before}{mention.group()}{after}") or _SPLIT_AFTER.match(sentence, mention.end())
                    or _SUITE_FOLLOWS.match(sentence, mention.end()) and names_a_suite(mention.group())
                    or _TASK_FOLLOWS.match(sentence, mention.end()) and _YEAR_ACRONYM_END.search(mention.group())
                    or _LISTED_BEFORE.search(sentence, 0, mention.start())
                    or _USED_BEFORE.search(sentence[max(0, mention.start() - 3 * NEAR_CHARS):mention.start()])
                    or _SOURCED_BEFORE.search(sentence[max(0, mention.start() - 3 * NEAR_CHARS):mention.start()])
                    or _DATA_AFTER.match(sentence, mention.end())
                    or opening is not None and opening.start(1) <= mention.start() < opening.end(1))

    def supports(sentence: str) -> bool:
        mentions = [m for p in patterns for m in p.finditer(sentence)]
        if not mentions:
            return False
        if is_table_row_text(sentence):
            return bool(_DATA_HEADER.match(sentence)) or any(_COUNT_AFTER.match(sentence, m.end()) for m in mentions)
        return any(as_data(sentence, mention) for mention in mentions)

    # Look for the name first, in one pass over all the sentences (a NUL between two: no name spans it), and at
    # the shape of only the sentences it occurs in.
    starts = list(accumulate((len(sentence) + 1 for sentence in sentences[:-1]), initial=0))
    joined = "\0".join(sentences)
    holding = {bisect_right(starts, m.start()) - 1 for p in patterns for m in p.finditer(joined)}
    return sum(1 for index in holding if supports(sentences[index]))


def written_lower(name: str, text: str) -> bool:
    """Whether a one-word name with one capital is an English word the text also writes in lower case ("Synthetic"
    of "Synthetic dataset" when the paper writes "synthetic data"), or a section's heading word the text writes so
    ("Results", "RESULTS")."""
    heading = _SECTION_WORDS.match(name.strip(" .")) is not None
    if not (is_word_name(name) or heading) or is_name_shaped(name):
        return False
    return re.search(rf"\b{re.escape(name.lower())}\b", text) is not None


def cue_sources(paper: ParsedPaper, catalog: Iterable[str] = ()) -> dict[str, tuple[str, set[str]]]:
    """The names the cue patterns find (see `candidate_names`, `row_names`), the table cells and the catalogue's
    names the text writes, by their case-blind key: each with how it is written and where it was found."""
    body = paper.body_sentences()
    sources: dict[str, tuple[str, set[str]]] = {}

    def add(names: Sequence[str], source: str) -> None:
        for name in names:
            sources.setdefault(name.casefold(), (name, set()))[1].add(source)

    for sentence in body:
        if DATA_CUE.search(sentence):
            add(candidate_names(sentence), "cue")
        if is_table_row_text(sentence):
            add(row_names(sentence), "table")
    add(_table_cells(paper), "table")
    add(catalog_names_in("\n".join(body), catalog), "catalog")
    return sources


def find_candidates(paper: ParsedPaper, catalog: Iterable[str] = (), limit: int = MAX_CANDIDATES,
                    sources: Mapping[str, tuple[str, set[str]]] | None = None) -> list[Candidate]:
    """The paper's likeliest dataset names by the cue patterns, best first: found near data cues, in tables, or in
    the catalogue (`sources`: see `cue_sources`, found afresh when None), and written as data by at least one prose
    sentence (see `data_support`), but not a capitalised word the text also writes in lower case, nor a name the
    selection drops whatever the names step says of it (a citation, a tool, an acronym defined as a model, a model's
    name, a cited surname: see `problem_in_text`). The selection keeps only such names, so offering the others
    would only spend the step's output on them. A name written only inside a longer candidate ("FACE" of "WIDER
    FACE") is left out, and a piece the prose writes only inside one longer name is offered as that name (see
    `whole_name`), as the selection reads it. `dsminer.evidence.candidate_ranker.offer_candidates` adds the
    phrases a learned ranker finds likely datasets."""
    if sources is None:
        sources = cue_sources(paper, catalog)
    body = paper.body_sentences()
    text = "\n".join(body)
    # a name some sentence writes as data is in the text: its mentions are counted only then
    found = [Candidate(name, count_mentions(name, text), tuple(sorted(kinds))) for name, kinds in sources.values()
             if data_support([name], body) and not written_lower(name, text)
             and problem_in_text(name, paper.text) is None]
    names = [candidate.name for candidate in found]
    found = [candidate for candidate in found if mentions_outside(candidate.name, names, text)]
    wholes: dict[str, Candidate] = {}
    for candidate in sorted(found, key=lambda c: -c.score):
        if len(wholes) == limit:
            break
        whole = checked_whole_name(candidate.name, body, paper.text)
        if whole is not None:
            wholes.setdefault(whole.casefold(), replace(candidate, name=whole))
    return list(wholes.values())
