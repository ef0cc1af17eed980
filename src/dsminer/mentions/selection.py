"""From the names step's decisions to the paper's datasets: clean, filter, merge aliases, rank, cap.

The same code for every condition, so conditions differ only in their model calls, reflection,
retries and memory. Model-free.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from dsminer.document.sections import is_aside_section, section_titles
from dsminer.document.text import inline_pattern, is_table_row_text, name_pattern
from dsminer.mentions.candidates import LIST_OPENER, SPLIT_NOUN, data_support, lists_datasets
from dsminer.mentions.evidence_model import EvidenceModel, NameEvidence
from dsminer.mentions.lexicon import (
    DATA_NOUN_END,
    DATA_NOUN_GROUP,
    DATA_NOUN_WORDS,
    DATA_WORD,
    DATA_WORD_WORDS,
    FUNCTION_WORDS,
    LANGUAGES,
    NAME_END_NOUN,
)
from dsminer.mentions.names import (
    abbreviates,
    checked_whole_name,
    clean_name,
    count_mentions,
    mentions_outside,
    problem_in_text,
)
from dsminer.schema import normalize_name

ROLE_ORDER = {"created": 0, "used": 1, "mentioned": 2}
_TAIL_WORDS = re.compile(rf"^(.*?[A-Z0-9][^ ]*)((?:\s+[a-z][a-z\-]*)*\s+(?:{DATA_WORD_WORDS}))$")
# Words that say the paper itself makes or releases a dataset, each read where it says it of the name: "we introduce
# X", "I constructed a data set of X", "here we describe X", "to build X", "A and B were merged into X" (the name after
# the cue, no source word between), "our new X corpus" (the name beside), "a X was created" (an indefinite name made
# in the passive), "X is made publicly available", "X can be downloaded at" (the name before). All but the last two
# say that the paper builds it; those two say only that it is released, which a dataset of others may be too.
_CREATING = re.compile(
    r"\b(?:we|I|this paper|this work|this study)\s+(?:\w+\s+){0,2}(?:introduce|release|present|propose|construct|"
    r"collect|create|build|compile|curate|annotate|crawl|assemble|record|deposit|make available)\w*\b|"
    r"\bhere,?\s+we\s+describe\b|\bthis\s+(?:paper|article|data\s+descriptor)\s+describes\b",
    re.I,
)
# A cue whose object is the name itself: "to build the X", "A and B were merged into the X".
_MAKES_OBJECT = re.compile(r"\b(?:to\s+(?:create|build|construct|compile|assemble|produce|curate)|(?:combined|merged|"
                           r"concatenated|pooled|joined|aggregated)\s+(?:\w+\s+){0,2}into)\s+"
                           r"(?:(?:a|an|the|our|one|single|new)\s+){0,2}$", re.I)
_NEW_DATA = re.compile(rf"\b(?:our|a|the)\s+new(?:ly)?\s+(?:\S+\s+){{0,2}}(?:{DATA_NOUN_WORDS})", re.I)
_INDEFINITE = re.compile(r"\b(?:a|an)\s+(?:new\s+)?$", re.I)
_MADE_PASSIVE = re.compile(r"^\s*(?:was|were|has\s+been|have\s+been)\s+(?:\w+\s+)?(?:created|constructed|built|"
                           r"compiled|assembled|curated|collected|produced)\b(?!\s+by\b)", re.I)
# After the name, what it is made into: "we compile X statistics into a harmonised data set" makes X the source.
_MADE_INTO = re.compile(rf"^\W*(?:\S+\s+){{0,3}}?(?:to|into)\s+(?:a|an|one|our)\s+(?:[\w\-]+\s+){{0,3}}?"
                        rf"(?:{DATA_NOUN_WORDS})\b", re.I)
_RELEASED = re.compile(
    r"\b(?:make|makes|made)\s+(?:\w+\s+){0,2}(?:publicly\s+|freely\s+|openly\s+)?available|"
    r"\b(?:is|are)\s+(?:publicly\s+|freely\s+|openly\s+)?available\s+(?:in\s+open[- ]access\s+)?(?:at|on|via)\b|"
    r"\bcan\s+be\s+(?:downloaded|accessed)\s+(?:at|via)\b",
    re.I,
)
# Between "we collected" and a name, a word that makes the name the source or the tool, not what is made.
_SOURCE_WORDS = re.compile(r"\b(?:from|using|uses?|with|via|on|based|derived|drawn|for|by|through)\b", re.I)
_CUE_WORDS = 6  # at most this many words between a creation cue and the name it is said of


# A version or year after a name: "X 2.0", "X v2", "X version 3", "X Release 5.1", "X-2003" (not "Xv2": "Rev2").
_VERSION = re.compile(r"^(.*?[A-Za-z])[\s\-_]*(?:(?:(?<![A-Za-z])v|\bversion\s|\brelease\s)\s*\d+(?:\.\d+)*|"
                      r"(?:v\s*)?\d+(?:\.\d+)+|(?:19|20)\d\d)$", re.I)
# One word with two capitals or more: an abbreviation ("XYZ", "XyZ-2").
_ABBREVIATION = re.compile(r"(?=(?:[^A-Z\s]*[A-Z]){2})[A-Za-z0-9\-]+")
# A name with its abbreviation in parentheses inside or at its end: "Xyz Atlas (XyA) Portal", "Xyz Atlas (XyA)".
_INNER_ABBREVIATION = re.compile(r"(.+?\S)\s*\(\s*([A-Za-z0-9\-]*[A-Z][A-Za-z0-9\-]*[A-Z][A-Za-z0-9\-]*)\s*\)\s*(.*)")
_SUPPOSED = re.compile(r"\b(?:might|could|would|future\s+work|in\s+the\s+future)\b", re.I)
_SUPPOSED_WORDS = 10  # a supposition is said of a name within this many words of it
_PLAIN = re.compile(r"[a-z]+|\d[\d,.]*(?:\s+[a-z][a-z\-]*)+")  # a plain word, or a count of things ("100 products")
# A language before a dataset's name names that language's part of it ("English X" of "X").
_LANGUAGE_PART = re.compile(rf"(?:{'|'.join(LANGUAGES)})\s+(\S.*)$")


@dataclass(frozen=True)
class Proposal:
    """One name the names step proposed, with its decided kind and role."""

    name: str
    kind: str = "dataset"
    role: str = "used"


@dataclass(frozen=True)
class ChosenDataset:
    """A dataset of the paper: its display name, the other names the paper uses for it, its role."""

    name: str
    aliases: tuple[str, ...]
    role: str
    mentions: int


@dataclass
class Selection:
    """The datasets kept (ranked, within the cap), those cut by the cap, every dropped name with why, and the
    evidence of each dataset by its display name (with the evidence model's probability, when one was used)."""

    chosen: list[ChosenDataset] = field(default_factory=list)
    capped: list[ChosenDataset] = field(default_factory=list)
    dropped: list[tuple[str, str]] = field(default_factory=list)
    evidence: dict[str, NameEvidence] = field(default_factory=dict)
    trust: dict[str, float] = field(default_factory=dict)


def base_key(name: str) -> str:
    """The name without a lower-case tail that ends in a data noun ("X summarization dataset" -> "X"), or an
    abbreviation without the one data noun or "Study" after it ("XYZ Study", "XYZ Cohort" -> "XYZ"; not "Penn
    Treebank": "Penn" is not an abbreviation)."""
    match = _TAIL_WORDS.match(name.strip())
    if match:
        return normalize_name(match.group(1))
    bare = NAME_END_NOUN.sub("", name.strip())
    return normalize_name(bare if bare != name.strip() and _ABBREVIATION.fullmatch(bare) else name)


def is_abbreviation_of(short: str, long: str, text: str) -> bool:
    """Whether `short` abbreviates `long`: its capitals spell the long name (it opens with two capitals), or the
    text writes "long (short)", "long dataset (short)" (the name proposed without the data noun its abbreviation
    spells: "Stanford Question Answering" of "Stanford Question Answering Dataset (SQuAD)"), "short (long)", or,
    for a short name of two words, "long (first) second" ("the Xyz Cell Atlas (XyCA) Portal" defines "XyCA
    Portal")."""
    capitals = "".join(c for c in short if c.isupper())
    if not (2 <= len(capitals) <= 8 and len(long.split()) >= 2):
        return False
    if re.match(r"[A-Z]{2}", short) and (abbreviates(short, long) or abbreviates(short, DATA_NOUN_END.sub("", long))):
        return True  # the data noun is not spelled ("SNLI" of "Stanford Natural Language Inference Corpus")
    pairs = [rf"{re.escape(long)}(?:\s+{DATA_NOUN_GROUP})?\s*\(\s*{re.escape(short)}\s*\)",
             rf"{re.escape(short)}\s*\(\s*{re.escape(long)}\s*\)"]
    first, _, second = short.strip().partition(" ")
    if second and " " not in second:
        pairs.append(rf"{re.escape(long)}\s*\(\s*{re.escape(first)}\s*\)\s+{re.escape(second)}\b")
    return re.search("|".join(pairs), text, re.I) is not None


def part_of(part: str, whole: str, text: str) -> bool:
    """Whether the text writes `part` as a part of `whole`: "the WSJ portion of the Penn Treebank", "the Wall
    Street Journal (WSJ) part of the Penn Treebank", "the X subset of Y"; data drawn from a dataset is it."""
    left, right = name_pattern(part), name_pattern(whole)
    if left is None or right is None:
        return False
    between = r"\)?\s+(?i:part|portion|section|sections|subset|split|subcorpus)\s+of\s+(?i:the\s+)?"
    return re.search(f"{inline_pattern(left)}{between}{inline_pattern(right)}", text) is not None


def same_dataset(a: str, b: str, text: str) -> bool:
    """Whether two names are one dataset: same base, "owner/X" and "X", "X" and "X's Y" (a table's short form
    of a possessive name: "AG" of "AG's News"), a word cut short ("ABC" of "ABCpedia"), abbreviation and
    expansion, a language's part ("English X" and "X"), or a part the text says is of the other ("the WSJ part
    of the Penn Treebank")."""
    if base_key(a) == base_key(b):
        return True
    for left, right in ((a, b), (b, a)):
        if any(base_key(form) == base_key(right) for form in _defined_forms(left)):
            return True
        language = _LANGUAGE_PART.match(left.strip())
        if language and base_key(language.group(1)) == base_key(right):
            return True
        if "/" in left and normalize_name(left.rsplit("/", 1)[1]) == normalize_name(right):
            return True
        if re.match(rf"{re.escape(left.strip())}['\u2019]s\s", right.strip()) or truncates(left, right):
            return True
        if is_abbreviation_of(left, right, text):
            return True
    return part_of(a, b, text) or part_of(b, a, text)  # last: it searches the whole text


def _defined_forms(name: str) -> tuple[str, ...]:
    """The two names a name with its abbreviation inside stands for: "Xyz Atlas (XyA) Portal" is "Xyz Atlas Portal"
    and "XyA Portal"; none for a name without one."""
    match = _INNER_ABBREVIATION.fullmatch(name.strip())
    if match is None:
        return ()
    long, short, rest = match.groups()
    return f"{long} {rest}".strip(), f"{short} {rest}".strip()


def truncates(short: str, long: str) -> bool:
    """Whether `short` is a table's cut of the one-word name `long`: its capitals, then the rest of the word in
    lower case ("ABC" of "ABCpedia" or "ABcpedia"), as a column header too narrow for the name writes it."""
    short, long = short.strip(), long.strip()
    return (re.fullmatch(r"[A-Z]{3,}", short) is not None and long[:len(short)].casefold() == short.casefold()
            and re.fullmatch(r"[a-z]{2,}", long[len(short):]) is not None)


def unversioned(name: str) -> str | None:
    """The name without a trailing version or year ("SQuAD 2.0" -> "SQuAD", "CoNLL-2003" -> "CoNLL"); None
    when it has none."""
    match = _VERSION.match(name.strip())
    return match.group(1) if match else None


def is_fragment(short: str, long: str, text: str) -> bool:
    """Whether the text writes `short` only inside `long` ("FACE" only in "WIDER FACE")."""
    pattern = name_pattern(short)
    return (len(short) < len(long) and pattern is not None and pattern.search(long) is not None
            and mentions_outside(short, [long], text) == 0)


def merge_names(names: Sequence[tuple[str, str]], text: str) -> list[ChosenDataset]:
    """Group (name, role) pairs that name one dataset; the display name is the one the text writes most on its
    own (outside the other members), never a fragment that the text writes only inside another member ("FACE" of
    "WIDER FACE"). A bare name joins its versioned form when the proposals hold only one ("SQuAD" and "SQuAD
    2.0"), not when they hold several ("SQuAD 1.1" and "SQuAD 2.0": then "SQuAD" may mean either); likewise a
    word joins the one longer name it starts ("X" and "X Treebank", not "Y" of "Y Full" and "Y Polarity"), or of
    several the one that alone ends in a data noun ("Z" and "Z Database", not "Z Program"). A fragment joins the name
    it is written in."""
    versions: dict[str, set[str]] = {}
    for name, _ in names:
        bare = unversioned(name)
        if bare is not None:
            versions.setdefault(normalize_name(bare), set()).add(normalize_name(name))

    def one_version(a: str, b: str) -> bool:
        return any(len(versions.get(normalize_name(bare), ())) == 1 and normalize_name(other) == normalize_name(bare)
                   for bare, other in ((unversioned(a), b), (unversioned(b), a)) if bare is not None)

    # a one-word name that starts only one other name is that dataset's short form ("X" of "X Treebank"); of several,
    # the one that alone ends in a data noun ("X" of "X Database", not of "X Program")
    longer: dict[str, set[str]] = {}  # by first word, the longer names' keys
    longer_data: dict[str, set[str]] = {}  # the same, of those that end in a data noun
    for name, _ in names:
        first, _, rest = name.strip().partition(" ")
        if rest:
            key = re.sub(r"\W+", "", name.casefold())
            longer.setdefault(first.casefold(), set()).add(key)
            if DATA_NOUN_END.search(name.strip()):
                longer_data.setdefault(first.casefold(), set()).add(key)

    def one_longer(a: str, b: str) -> bool:
        return any(" " not in short.strip() and {re.sub(r"\W+", "", other.casefold())} in
                   (longer.get(short.strip().casefold()), longer_data.get(short.strip().casefold()))
                   for short, other in ((a, b), (b, a)))

    groups: list[list[tuple[str, str]]] = []
    for name, role in names:
        group = next((g for g in groups if any(same_dataset(name, other, text) or one_version(name, other)
                                               or one_longer(name, other)
                                               or is_fragment(name, other, text) or is_fragment(other, name, text)
                                               for other, _ in g)), None)
        if group is None:
            groups.append([(name, role)])
        elif all(normalize_name(name) != normalize_name(other) for other, _ in group):
            group.append((name, role))
        else:
            group.append(("", role))  # a repeated name still lends its role
    merged = []
    for group in groups:
        members = [name for name, _ in group if name]
        counts = {name: count_mentions(name, text) for name in members}
        own = {name: mentions_outside(name, members, text) for name in members}
        display = max(members, key=lambda n: (own[n], -len(n), -members.index(n)))
        role = min((role for _, role in group), key=lambda r: ROLE_ORDER.get(r, 3))
        aliases = tuple(name for name in members if name != display)
        merged.append(ChosenDataset(display, aliases, role, sum(counts.values())))
    return merged


def creation_cue(name: str, sentences: Sequence[str]) -> str | None:
    """What the paper's clauses say of making `name`: "built" where one says the paper builds it, else "released"
    where one says only that it is made available, else None. One pass over the clauses that write the name."""
    pattern = name_pattern(name)
    if pattern is None:
        return None
    said = None
    for clause in (clause for sentence in sentences for clause in re.split(r"[;:]", sentence)):
        for found in pattern.finditer(clause):
            cue = _creation_cue(clause, found.start(), found.end())
            if cue == "built":
                return cue
            said = said or cue
    return said


def _creation_cue(clause: str, start: int, end: int) -> str | None:
    """The creation cue in `clause` said of the name at [start, end): "built" for one that says the paper builds it,
    "released" for one that says only that it is made available, None for neither."""
    before, after = clause[:start], clause[end:]
    cue = next(iter(reversed(list(_CREATING.finditer(before)))), None)
    if cue is not None and not _MADE_INTO.match(after):
        between = before[cue.end():]
        if len(between.split()) <= _CUE_WORDS and not _SOURCE_WORDS.search(between):
            return "built"
    for new in _NEW_DATA.finditer(clause):
        gap = clause[new.end():start] if new.end() <= start else clause[end:new.start()] if new.start() >= end else ""
        if len(gap.split()) <= _CUE_WORDS and not _SOURCE_WORDS.search(gap):
            return "built"
    if _MAKES_OBJECT.search(before) or (_INDEFINITE.search(before) and _MADE_PASSIVE.match(after)):
        return "built"
    said = _RELEASED.search(after)
    return "released" if said is not None and len(after[:said.start()].split()) <= _CUE_WORDS + 2 else None


def checked_role(name: str, role: str, sentences: Sequence[str]) -> str:
    """The role the paper's own words give: "created" where a clause says the paper builds the dataset, whatever
    the decided role; a decided "created" kept where a clause says only that it is released, else "used"; and
    "mentioned" where every sentence that writes the name only supposes it ("X might be used in future work")."""
    cue = creation_cue(name, sentences)
    if cue == "built":
        return "created"
    if role == "created" and cue is None:
        role = "used"
    if role != "created" and only_supposed(name, sentences):
        return "mentioned"
    return role if role in ROLE_ORDER else "used"


def only_aside(names: Sequence[str], sentences: Sequence[str], titles: Sequence[str | None]) -> bool:
    """Whether every sentence that writes one of a dataset's `names`, or the acronym written in brackets after one
    ("Xyz Reef Survey (XRS)"), lies in a section that frames the work (introduction, related work, discussion,
    limitations, acknowledgements: see `is_aside_section`): a dataset named only there is discussed, not used. Where
    the headings were not all read (the framing sections would hold more than half the paper), nothing is."""
    if 2 * sum(is_aside_section(title) for title in titles) > len(titles):
        return False
    text = "\n".join(sentences)
    defined = (rf"{re.escape(name.strip())}\s*\(\s*([A-Z][\w\-]{{1,15}})\s*\)" for name in names if name.strip())
    forms = {*names, *(acronym for pattern in defined for acronym in re.findall(pattern, text))}
    patterns = [pattern for pattern in map(name_pattern, forms) if pattern is not None]
    places = [title for sentence, title in zip(sentences, titles) if any(p.search(sentence) for p in patterns)]
    return bool(places) and all(is_aside_section(title) for title in places)


def only_supposed(name: str, sentences: Sequence[str]) -> bool:
    """Whether every mention of `name` in prose supposes rather than reports, with "might", "could", "would" or
    "future work" within a few words of it: a dataset a paper names as a possibility, not one it uses."""
    pattern = name_pattern(name)
    if pattern is None:
        return False
    mentions = [(sentence, match) for sentence in sentences if not is_table_row_text(sentence)
                for match in pattern.finditer(sentence)]
    return bool(mentions) and all(_supposed_near(sentence, match.start(), match.end()) for sentence, match in mentions)


def _supposed_near(sentence: str, start: int, end: int) -> bool:
    before = " ".join(sentence[:start].split()[-_SUPPOSED_WORDS:])
    after = " ".join(sentence[end:].split()[:_SUPPOSED_WORDS])
    return bool(_SUPPOSED.search(before) or _SUPPOSED.search(after))


def written_as_data(name: str, sentences: Sequence[str]) -> bool:
    """Whether the paper itself calls `name` data: "X dataset", "X corpus", "the X benchmark", "dataset X",
    "the X training set", "the datasets: W, X and Y", or a row of a table under a data column.
    Such a name is a dataset whatever kind (other than a model) the names step gave it."""
    pattern = name_pattern(name)
    if pattern is None:
        return False
    name = f"(?:{pattern.pattern})"
    around = re.compile(rf"{name}\s+(?:{DATA_NOUN_GROUP}|(?i:{SPLIT_NOUN}))\b|\b{DATA_NOUN_GROUP}\s+(?i:called\s+|"
                        rf"named\s+)?{name}|\b{DATA_NOUN_GROUP}(?i:{LIST_OPENER})[^.;]*?{name}", pattern.flags)
    return any(around.search(sentence) if not is_table_row_text(sentence) else
               lists_datasets(sentence) and pattern.search(sentence) for sentence in sentences)


def data_sentences(dataset: ChosenDataset, sentences: Sequence[str]) -> int:
    """How many prose sentences (not table text) write the dataset, or an alias, as data: beside "dataset",
    "corpus", "benchmark", "treebank", "collection", or before a split ("X training set"). The paper's own
    words that the name is data."""
    return data_support((dataset.name, *dataset.aliases), sentences)


def is_table_header(dataset: ChosenDataset, sentences: Sequence[str]) -> bool:
    """Whether the dataset's names are a run of a table's column labels ("Name Teff Prot EW"): three words or more
    that no sentence but table text writes. (One row or column label may be a dataset: "X" in a table of results.)
    Labels are written alone, so a name with a data word or a function word in it ("X Main Database", "Y Collection
    5", "Z of the W") is a phrase, the name of a table's row, not a run of labels."""
    names = (dataset.name, *dataset.aliases)
    if min(len(name.split()) for name in names) < 3 or any(_phrase_words(name) for name in names):
        return False
    patterns = [pattern for pattern in map(name_pattern, names) if pattern is not None]
    return not any(not is_table_row_text(sentence) and any(p.search(sentence) for p in patterns)
                   for sentence in sentences)


def _phrase_words(name: str) -> bool:
    """Whether `name` holds a data word or a function word, which a run of column labels does not."""
    return bool(DATA_WORD.search(name)) or any(word.casefold() in FUNCTION_WORDS for word in name.split())


def is_dataset(proposal: Proposal, sentences: Sequence[str]) -> bool:
    """Whether a decided name counts as a dataset: decided so; or decided a task or "other" (what a small model
    says of a name it is unsure of) while a sentence writes it near a data noun (`data_support`); or decided
    a method or metric while the paper calls it data outright (`written_as_data`). A model stays a model."""
    if proposal.kind in ("dataset", "model"):
        return proposal.kind == "dataset"
    if proposal.kind in ("task", "other"):
        return data_support([proposal.name], sentences) > 0
    return written_as_data(proposal.name, sentences)


def select_datasets(proposals: Sequence[Proposal], paper_text: str, cap: int, sentences: Sequence[str],
                    evidence_model: EvidenceModel | None = None,
                    phrase_scores: Mapping[str, float] | None = None) -> Selection:
    """The paper's datasets from the proposals: the model decides, the paper's words ground and rank.

    - only datasets (see `is_dataset`), cleaned against the text, without what evidence says is something else:
      citations, generic phrases, tools and platforms, languages, models, metrics or tasks (a known one only while
      the paper never writes it as data), acronyms the text defines as one ("a basic model (BM)"), names it writes
      as a model's ("the GA Reader": see `written_as_model`), surnames it cites ("X et al.": see
      `written_as_author`), runs of a table's column labels, two proposed names run together;
    - merged with their aliases;
    - roles read in the paper's words: a used dataset named only where the paper frames its work (see `only_aside`)
      is mentioned, and a mentioned one that a sentence where the paper does its work writes as data, and does not
      only suppose, is used;
    - with an `evidence_model` (fitted for the model that answered), a dataset whose evidence gives it a probability
      under the model's threshold is dropped, and the rest are ranked by that probability (`phrase_scores`, the
      candidate ranker's log-odds of the paper's phrases by case-folded phrase, is one of its features); without
      one, what the paper only mentions comes after what it uses or creates, and within each they are ranked by
      whether a sentence writes them as data, then created before used (a "created" role stands only where a
      sentence naming the dataset says the paper makes it), then by how many sentences write them as data, then by
      mentions; cut to `cap`.
    """
    selection = Selection()
    keys = {normalize_name(proposal.name) for proposal in proposals}
    joined = {proposal.name for proposal in proposals if _two_names(proposal.name, keys)}
    selection.dropped += [(name, "two names run together") for name in sorted(joined)]
    proposals = [proposal for proposal in proposals if proposal.name not in joined]
    kept, pieces, said = _grounded_names(proposals, paper_text, sentences, selection)
    body = "\n".join(sentences)
    titles = section_titles(sentences)
    for dataset in merge_names(kept, paper_text):
        members = (dataset.name, *dataset.aliases)
        extra = [piece for member in members for piece in pieces.get(normalize_name(member), [])]
        if extra:
            dataset = replace(dataset, aliases=tuple(dict.fromkeys((*dataset.aliases, *extra))))
        support = data_sentences(dataset, sentences)
        names = (dataset.name, *dataset.aliases)
        if dataset.role == "used" and only_aside(names, sentences, titles):
            dataset = replace(dataset, role="mentioned")  # named only where the paper frames its work
        elif (dataset.role == "mentioned" and support and not only_aside(names, sentences, titles)
              and not only_supposed(dataset.name, sentences)):
            dataset = replace(dataset, role="used")  # written as data where the paper does its work
        if support == 0 and is_table_header(dataset, sentences):
            selection.dropped.append((dataset.name, "table header"))
            continue
        scores = [phrase_scores[m.casefold()] for m in members if m.casefold() in (phrase_scores or {})]
        evidence = NameEvidence(dataset.name, any(normalize_name(m) in said for m in members), support,
                                dataset.mentions, sum(count_mentions(m, body) for m in members), dataset.role,
                                max(scores) if scores else None)
        selection.evidence[dataset.name] = evidence
        if evidence_model is not None:
            trust = selection.trust[dataset.name] = round(evidence_model.probability(evidence), 4)
            if trust < evidence_model.threshold:
                selection.dropped.append((dataset.name, f"weak evidence ({trust:.2f})"))
                continue
        selection.chosen.append(dataset)
    if evidence_model is not None:
        ranked = sorted(selection.chosen, key=lambda d: -selection.trust[d.name])
    else:
        ranked = sorted(selection.chosen, key=lambda d: (
            d.role == "mentioned", selection.evidence[d.name].data_sentences == 0, ROLE_ORDER.get(d.role, 3),
            -selection.evidence[d.name].data_sentences, -d.mentions))
    selection.chosen, selection.capped = ranked[:cap], ranked[cap:]
    return selection


def _two_names(name: str, keys: set[str]) -> bool:
    """Whether `name` is two other names of `keys` (normalised names) written one after the other ("Xbank Text9" of
    "Xbank" and "Text9"): a table's header row or a list read as one name."""
    keys = keys - {normalize_name(name)}
    words = name.split()
    return any(normalize_name(" ".join(words[:n])) in keys and normalize_name(" ".join(words[n:])) in keys
               for n in range(1, len(words)))


def _grounded_names(proposals: Sequence[Proposal], paper_text: str, sentences: Sequence[str],
                    selection: Selection) -> tuple[list[tuple[str, str]], dict[str, list[str]], set[str]]:
    """The proposals that are datasets and pass the text's checks, as (name, checked role); the proposed pieces of
    each longer name, which stay its aliases; and the names the model itself called datasets (normalised). Every
    other proposal goes to `selection.dropped` with why."""
    kept: list[tuple[str, str]] = []
    pieces: dict[str, list[str]] = {}
    said: set[str] = set()
    for proposal in proposals:
        if not is_dataset(proposal, sentences):
            selection.dropped.append((proposal.name, f"kind {proposal.kind}"))
            continue
        problem = problem_in_text(proposal.name, paper_text)
        if problem is not None and problem[0] == "non_dataset" and data_support([proposal.name], sentences):
            problem = None  # a name of a known model or task that the paper writes as data ("the CNN dataset")
        name = clean_name(proposal.name, paper_text) if problem is None else None
        if name is not None and _PLAIN.fullmatch(name) and not data_support([name], sentences):
            name, problem = None, ("generic", "")  # a plain word ("students", "100 products") never written as data
        if name is None:
            selection.dropped.append((proposal.name, problem[0] if problem else "not in the paper text or generic"))
            continue
        whole = checked_whole_name(name, sentences, paper_text)
        if whole is None:
            selection.dropped.append((proposal.name, "a piece of other names"))
            continue
        if whole != name:
            pieces.setdefault(normalize_name(whole), []).append(name)
        if proposal.kind == "dataset":
            said.update({normalize_name(whole), normalize_name(name)})
        kept.append((whole, checked_role(whole, proposal.role, sentences)))
    return kept, pieces, said
