"""Which (paper, name) mentions name one dataset: entity resolution over the names papers write.

A mention is a record's name with its aliases (the other names that paper gives the dataset). Two mentions
are one dataset when, in this order:
1. their names fold to one key: case, punctuation, spacing, a leading "the", a trailing "dataset" or "DB", a split
   ("X test set", "X data"), a language before an abbreviation ("English PTB"), an "owner/X" id cut to X, a
   year written "'14" read as 2014;
2. one record gives both full names;
3. a known catalogue gives both names one id;
4. one is the other written after its maker's short name ("MS COCO" and "COCO"), where one maker is written so;
5. one is an abbreviation ending in two digits that the other writes as a year ("VOC07" and "VOC 2007");
6. their keys are one typing slip apart (rapidfuzz's Levenshtein distance, on long keys only), or one is the
   other's plural;
7. one record gives both an abbreviation and its expansion, or a shortening and the one longer name records give
   it (as some paper defines them).

Never merged, whatever joins them: names that share no number ("CIFAR-10", "CIFAR-100"), a name that is
another plus a version or subset ("X v2", "X-1k": a `variant_of` link instead), and names alike but for a short
last word ("IJB-A", "IJB-B"). An abbreviation or a shortening that records spell out as different datasets
("MSD" expanded two ways, "Yelp" beside two Yelp datasets) joins none of them; a plain lower-case name ("training
data") or one that only says the kind of data ("RGB images") joins mentions of its own paper only.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from rapidfuzz.distance import Levenshtein
from rapidfuzz.process import extract

from dsminer.mentions.lexicon import (
    DATA_KINDS,
    DATA_NOUN,
    FUNCTION_WORDS,
    GENERIC_MODIFIERS,
    GENERIC_NAMES,
    LANGUAGE_NAMES,
    LANGUAGE_PAIR,
    LANGUAGES,
    PLATFORMS,
    TASK_WORDS,
)
from dsminer.schema import normalize_name

_OWNER_ID = re.compile(r"^[\w.-]+/([\w.-]+)$")
_SHORT_YEAR = re.compile(r"(?<=[A-Za-z])\s?['\u2019]\s?(\d{2})\b")
_SPLIT_END = re.compile(r"(?:\s+(?:training|train|test|testing|dev|development|validation|val|evaluation))?"
                        r"\s+(?:data ?set|set|split|data|portion)s?$", re.I)
# A data noun ending the name, read before the task words it may follow ("X classification benchmarks", "X DB").
_DATA_END = re.compile(r"\s+(?:data ?sets?|corpus|corpora|benchmarks?|databases?|DB)$", re.I)
_DATA_START = re.compile(r"^(?:the\s+)?(?:data ?set|corpus|benchmark)\s+(?=\S)", re.I)
# Lower-case words before a capitalised name describe it, they do not name it ("challenging PASCAL VOC",
# "fine-grained CIFAR-100", "deterministic Atari 2600 games").
_DESCRIBED_START = re.compile(r"^(?:[a-z][a-z\-]*\s+)+(?=[A-Z])")
# A language before an abbreviation names the dataset's part in that language ("English PTB"), not another one.
_LANGUAGE = "|".join(LANGUAGES)
_LANGUAGE_BEFORE_ACRONYM = re.compile(rf"^(?:{_LANGUAGE})\s+(?=[A-Z][A-Z0-9-]+\b)")
# After a name, the task its part serves, the campaign it was made for or its language: the same data ("X 2003 NER
# shared task", "X 2003 English NER", "Y classification"); a task also after a hyphen that ends a capital or a digit
# ("XYZ-POS").
_TASKS = "|".join(sorted(TASK_WORDS, key=len, reverse=True))
_TASK_END = re.compile(rf"(?:\s+(?:shared\s+tasks?|challenge|competition|evaluation\s+campaign|{_LANGUAGE}|{_TASKS})"
                       rf"|(?-i:(?<=[A-Z0-9]))-(?:{_TASKS}))+$", re.I)
_NUMBER = re.compile(r"\d+(?:\.\d+)*")
_TOKEN = re.compile(r"\bv\d+(?:\.\d+)*\b|[a-z]+|\d+(?:\.\d+)*[a-z]*", re.I)
_VERSION_TOKEN = re.compile(r"^(?:v?\d+(?:\.\d+)*[km]?|version|i{1,3}|iv|vi{1,3}|ix)$", re.I)
_ACRONYM = re.compile(r"^(?=(?:\S*[A-Z]){2})[A-Za-z0-9&.\-]{2,10}$")
_CAPITAL_OR_DIGIT = re.compile(r"[A-Z0-9]")
_LETTER = re.compile(r"[^\W\d_]")
_NOT_WORD = re.compile(r"[^\w]+")
_LETTER_THEN_DIGIT = re.compile(r"(?<=[A-Za-z])(?<!\b[vV])(?=\d)")
_SPACED_POSSESSIVE = re.compile(r"\s+(['\u2019]s)\b")
# Words that say no particular dataset on their own, in a name ("English", "large", "of", "data").
_PLAIN_WORDS = LANGUAGE_NAMES | GENERIC_MODIFIERS | FUNCTION_WORDS | GENERIC_NAMES
# A maker's short capitalised name before an abbreviation-like name, maybe with a year or number ("MS COCO", "PASCAL
# VOC 2007").
_OWNER_BEFORE = re.compile(r"^([A-Z]{2,6})[\s\-]+((?=(?:\S*[A-Z]){2})[A-Za-z0-9&.\-]{2,10}(?:\s+\d+)?)$")
# An abbreviation that ends in two digits, which may be a year's ("VOC07", "WMT-14").
_SHORT_YEAR_END = re.compile(r"^([A-Z][A-Za-z]*[A-Z])[\s\-]?(\d{2})$")
_FUZZY_MIN_LENGTH = 8  # shorter keys one edit apart are often different names ("MSRA" and "MSRP")


@dataclass(frozen=True)
class Spelling:
    """One name as a paper writes it, with what resolution reads of it."""

    text: str
    key: str
    numbers: tuple[str, ...]
    tokens: tuple[str, ...]
    distinctive: bool
    acronym: bool

    @property
    def words(self) -> frozenset[str]:
        """Its tokens less function words, for comparing names word by word."""
        return _words_of(self.tokens)


@lru_cache(maxsize=1 << 16)
def spelling(name: str) -> Spelling:
    """Read one written name: its key, numbers, word tokens, and whether it may join papers (cached: a corpus
    writes the same names over and over)."""
    text = _SPACED_POSSESSIVE.sub(r"\1", name.strip())  # "AG 's News", as some text extraction writes it
    text = _DATA_START.sub("", _SPLIT_END.sub("", _OWNER_ID.sub(r"\1", text))) or name.strip()
    text = _DESCRIBED_START.sub("", text)
    text = _SHORT_YEAR.sub(lambda match: " " + ("20" if int(match[1]) < 50 else "19") + match[1], text)
    text = _LANGUAGE_BEFORE_ACRONYM.sub("", text)
    text = _TASK_END.sub("", _DATA_END.sub("", text) or text) or text
    key = normalize_name(text)
    return Spelling(name, key, tuple(_NUMBER.findall(text)), tuple(token.casefold() for token in _TOKEN.findall(
        _split_letter_digit(DATA_NOUN.sub(" ", text)))), _distinctive(name, key), bool(_ACRONYM.match(name.strip())))


def _split_letter_digit(text: str) -> str:
    return _LETTER_THEN_DIGIT.sub(" ", text)


def _distinctive(name: str, key: str) -> bool:
    """A name (with its key) that says which dataset on its own: a capital or a digit, a letter, and not only
    generic words, languages, kinds of data ("RGB images", "EEG data"), a language pair or a platform."""
    if not _CAPITAL_OR_DIGIT.search(name) or not _LETTER.search(name) or LANGUAGE_PAIR.match(name.strip()):
        return False
    folded = name.casefold().strip()
    if folded in GENERIC_NAMES or key in PLATFORMS:
        return False
    words = [word for word in _NOT_WORD.split(DATA_NOUN.sub(" ", folded)) if word]
    return bool(words) and not all(word in _PLAIN_WORDS or normalize_name(word) in DATA_KINDS for word in words)


def _years(numbers: tuple[str, ...]) -> set[str]:
    """A name's numbers, a two-digit one also as the years it may shorten ("07": "2007" and "1907")."""
    return {*numbers, *(century + number for number in numbers if len(number) == 2 for century in ("19", "20"))}


def variant_of(name: Spelling, base: Spelling) -> bool:
    """`name` is `base` plus version or subset words ("ImageNet-1k" of "ImageNet", "SQuAD 2.0" of "SQuAD")."""
    extra = name.tokens[len(base.tokens):]
    return (len(base.tokens) > 0 and name.tokens[:len(base.tokens)] == base.tokens and bool(extra)
            and all(_VERSION_TOKEN.match(token) for token in extra))


def version_base(name: Spelling) -> tuple[str, ...]:
    """The name's tokens before its last words of version or subset ("squad" of "SQuAD 1.1", "movielens" of
    "MovieLens 20M")."""
    tokens = list(name.tokens)
    while tokens and _VERSION_TOKEN.match(tokens[-1]):
        tokens.pop()
    return tuple(tokens)


def conflict(one: Spelling, other: Spelling) -> bool:
    """Two names that are never one dataset: no number of one is the other's, one is a version or subset of the
    other, or they differ in a short last word."""
    if one.key == other.key:
        return False
    if one.numbers and other.numbers and not _years(one.numbers) & _years(other.numbers):
        return True
    return variant_of(one, other) or variant_of(other, one) or sibling(one, other)


def sibling(one: Spelling, other: Spelling) -> bool:
    """Names alike but for a short last word ("IJB-A" and "IJB-B", "ImageNet-A" and "ImageNet-R")."""
    return (len(one.tokens) == len(other.tokens) > 1 and one.tokens[:-1] == other.tokens[:-1]
            and one.tokens[-1] != other.tokens[-1] and max(len(one.tokens[-1]), len(other.tokens[-1])) <= 2)


def expansion(acronym: str, long_form: str) -> str | None:
    """The key of `long_form` when its words, function words aside, begin with the letters of `acronym` in order
    and one each ("MSD": "Million Song Dataset"); None otherwise ("SNLI": "Stanford NLI")."""
    letters = [char for char in acronym.casefold() if char.isalpha()]
    words = [word for word in _NOT_WORD.split(long_form.casefold()) if word and word not in FUNCTION_WORDS]
    if len(letters) < 2 or [word[0] for word in words] != letters:
        return None
    return normalize_name(long_form) or None


@dataclass
class Resolution:
    """The mentions grouped: `groups` lists mention indices per dataset; `variant_of` maps a group to the group
    it is a version or subset of; `ambiguous` holds the abbreviations left unmerged."""

    groups: list[list[int]]
    variant_of: dict[int, int] = field(default_factory=dict)
    ambiguous: set[str] = field(default_factory=set)


class _Groups:
    """Union-find over name keys that refuses a union of two conflicting names: the two joined, or two names
    that mentions carry as their own (an alias alone does not block: records' aliases are the looser evidence)."""

    def __init__(self) -> None:
        self.parent: dict[str, str] = {}
        self.members: dict[str, list[Spelling]] = {}
        self.names: dict[str, list[Spelling]] = {}
        self.spelled: dict[str, Spelling] = {}

    def add(self, node: str, written: Spelling, name: bool) -> None:
        if node not in self.parent:
            self.parent[node] = node
            self.members[node], self.names[node] = [], []
            self.spelled[node] = written
        root = self.find(node)
        for kept in (self.members[root], *([self.names[root]] if name else [])):
            if all(known.text != written.text for known in kept):
                kept.append(written)

    def find(self, node: str) -> str:
        while self.parent[node] != node:
            self.parent[node] = self.parent[self.parent[node]]
            node = self.parent[node]
        return node

    def union(self, one: str, other: str) -> bool:
        first, second = self.find(one), self.find(other)
        if first == second:
            return True
        if conflict(self.spelled[one], self.spelled[other]) or any(
                conflict(a, b) for a in self.names[first] for b in self.names[second]):
            return False
        if len(self.members[first]) < len(self.members[second]):
            first, second = second, first
        self.parent[second] = first
        self.members[first].extend(self.members.pop(second))
        self.names[first].extend(self.names.pop(second))
        return True


def resolve(mentions: Sequence[tuple[str, Sequence[str], str]], known_ids: Mapping[str, str] | None = None,
            ) -> Resolution:
    """Group mentions, each given as (name, aliases, paper), into datasets by the rules of this module.

    `known_ids` maps a name key to a known catalogue's id for that dataset (rule 3). Mentions written alike are
    resolved once (a corpus writes the same names over and over); the paper counts only for a plain name."""
    combos: dict[tuple[str, tuple[str, ...], str], int] = {}
    combo_of = [combos.setdefault((name, tuple(aliases), "" if spelling(name).distinctive else paper), len(combos))
                for name, aliases, paper in mentions]
    resolution = _resolve(list(combos), known_ids)
    members: list[list[int]] = [[] for _ in combos]
    for index, combo in enumerate(combo_of):
        members[combo].append(index)
    groups = [sorted(index for combo in group for index in members[combo]) for group in resolution.groups]
    return Resolution(groups, resolution.variant_of, resolution.ambiguous)


def _resolve(mentions: Sequence[tuple[str, Sequence[str], str]], known_ids: Mapping[str, str] | None,
             ) -> Resolution:
    written = [[s for s in (spelling(mention[0]),) if s.key]
               + [s for s in map(spelling, mention[1]) if s.distinctive and s.key] for mention in mentions]
    shared = {s.key for spellings in written for s in spellings if s.distinctive and s.key}
    nodes = [[_node(s, mention[2], shared) for s in spellings] for spellings, mention in zip(written, mentions)]
    groups = _Groups()
    for mention, (spellings, mention_nodes) in enumerate(zip(written, nodes)):
        for position, (s, node) in enumerate(zip(spellings, mention_nodes)):
            groups.add(node, s, position == 0 and s.text == mentions[mention][0])
    _join_records(groups, written, nodes)
    _join_known(groups, known_ids or {})
    _join_owners(groups)
    _join_short_years(groups)
    _join_typing_slips(groups)
    ambiguous = _join_abbreviations(groups, written, nodes)
    return _grouped(groups, written, nodes, ambiguous)


def _node(written: Spelling, paper: str, shared: set[str]) -> str:
    return written.key if written.key in shared else f"{paper}\x00{written.key}"


def _shortening(written: Spelling, spellings: Sequence[Spelling]) -> bool:
    """A name whose words are some of another name of the same record ("Yelp" beside "Yelp Review Polarity")."""
    words = written.words
    return any(words < other.words for other in spellings)


@lru_cache(maxsize=1 << 16)
def _words_of(tokens: tuple[str, ...]) -> frozenset[str]:
    return frozenset(tokens) - FUNCTION_WORDS


def _short(written: Spelling, spellings: Sequence[Spelling]) -> bool:
    return written.acronym or _shortening(written, spellings)


def _spelled_out(short: Spelling, full: Spelling) -> str | None:
    """What `full` says beyond `short`: the key of an abbreviation's expansion, or, where a name adds words to a
    shortening of it that say which data (not "test", "training", "the"), the capitalised ones run together in the
    name's order ("Yelp Review Full": "reviewfull"; "CNN and Daily Mail websites": "dailymail"); None when it says
    nothing more."""
    if short.acronym and not full.acronym:
        return expansion(short.text, full.text)
    extra = full.words - short.words - GENERIC_MODIFIERS
    if not (short.words < full.words and extra):
        return None
    added = full.words - short.words
    return "".join(token.casefold() for token in _TOKEN.findall(_split_letter_digit(full.text))
                   if token.casefold() in added and _CAPITAL_OR_DIGIT.match(token))


def _readings(spelled: set[str]) -> bool:
    """Whether spelled-out forms say two different things: two of them neither of which holds the other ("Million
    Song" and "Medical Segmentation Decathlon", "Review Full" and "Review Polarity"), not one written longer or
    shorter ("Daily Mail" and "DailyMail Corpus")."""
    return any(one not in other and other not in one for one in spelled for other in spelled)


def _join_records(groups: _Groups, written: list[list[Spelling]], nodes: list[list[str]]) -> None:
    """Rule 2 for full names: a record's names that are neither abbreviations nor shortenings are one dataset."""
    for spellings, mention_nodes in zip(written, nodes):
        if len(spellings) < 2:
            continue
        full = [node for s, node in zip(spellings, mention_nodes) if not _short(s, spellings)]
        for node in full[1:]:
            groups.union(full[0], node)


def _join_abbreviations(groups: _Groups, written: list[list[Spelling]], nodes: list[list[str]]) -> set[str]:
    """Rule 7: an abbreviation or shortening joins the names records give beside it, unless records spell it out
    as different datasets ("MSD": "Million Song Dataset" and "Medical Segmentation Decathlon"; "Yelp": "Yelp
    Review Polarity" and "Yelp Review Full")."""
    partners: dict[str, list[tuple[str, str | None]]] = defaultdict(list)
    for spellings, mention_nodes in zip(written, nodes):
        for short, short_node in zip(spellings, mention_nodes):
            if len(spellings) > 1 and _short(short, spellings):
                partners[short_node] += [(node, _spelled_out(short, s)) for s, node in zip(spellings, mention_nodes)
                                         if node != short_node]
    ambiguous: set[str] = set()
    for short_node, joined in partners.items():
        spelled = {(words, groups.find(node)) for node, words in joined if words is not None}
        if _readings({words for words, _ in spelled}) and len({group for _, group in spelled}) > 1:
            ambiguous.add(short_node)
            continue
        for node, _ in joined:
            groups.union(short_node, node)
    return ambiguous


def _join_known(groups: _Groups, known_ids: Mapping[str, str]) -> None:
    """Rule 3: names a known catalogue gives one id."""
    first: dict[str, str] = {}
    for node in list(groups.parent):
        known = known_ids.get(node)
        if known is not None:
            groups.union(first.setdefault(known, node), node)


def _join_owners(groups: _Groups) -> None:
    """Rule 4: a name written after its maker's short capitalised name ("MS COCO", "PASCAL VOC 2007") joins the name
    written without it ("COCO", "VOC 2007"), unless two makers' names are written before it ("SUN X", "NYU X")."""
    makers: dict[str, set[str]] = defaultdict(set)
    written: list[tuple[str, str]] = []
    for node in groups.parent:
        match = _OWNER_BEFORE.match(groups.spelled[node].text) if "\x00" not in node else None
        bare = spelling(match[2]) if match else None
        if (bare and bare.distinctive and len(bare.key) >= 3 and bare.key in groups.parent
                and bare.key not in DATA_KINDS):
            makers[bare.key].add(match[1].casefold())
            written.append((bare.key, node))
    for bare_key, node in written:
        if len(makers[bare_key]) == 1:
            groups.union(bare_key, node)


def _join_short_years(groups: _Groups) -> None:
    """Rule 5: an abbreviation ending in two digits joins the name that writes them as a year ("VOC07", "VOC 2007")."""
    for node in groups.parent:
        match = _SHORT_YEAR_END.match(groups.spelled[node].text) if "\x00" not in node else None
        for century in ("19", "20") if match else ():
            year = spelling(f"{match[1]} {century}{match[2]}").key
            if year in groups.parent:
                groups.union(year, node)


def _join_typing_slips(groups: _Groups) -> None:
    """Rule 6: long shared keys one edit apart (two for keys of 16 characters or more) that begin and end alike
    (an edit at either end makes another name: "ImageNet-A", "ImageNet-R"), or one the other's plural ("Wombat
    Face", "WombatFaces")."""
    by_start: dict[str, list[str]] = defaultdict(list)
    for node in groups.parent:
        if "\x00" not in node and len(node) >= _FUZZY_MIN_LENGTH:
            by_start[node[:2] + node[-2:]].append(node)
            if node + "s" in groups.parent:
                groups.union(node, node + "s")
    for keys in by_start.values():
        for index, key in enumerate(keys):
            limit = 2 if len(key) >= 16 else 1
            for other, _, _ in extract(key, keys[index + 1:], scorer=Levenshtein.distance, score_cutoff=limit,
                                       limit=None):
                groups.union(key, other)


def _home(groups: _Groups, mention_nodes: list[str], ambiguous: set[str]) -> str:
    """A mention's group: its name's, or where the name is ambiguous, the one group its other names are in."""
    if mention_nodes[0] not in ambiguous:
        return groups.find(mention_nodes[0])
    others = {groups.find(node) for node in mention_nodes[1:] if node not in ambiguous}
    return others.pop() if len(others) == 1 else groups.find(mention_nodes[0])


def _grouped(groups: _Groups, written: list[list[Spelling]], nodes: list[list[str]], ambiguous: set[str],
             ) -> Resolution:
    """Mention indices per group (see `_home`), and each group's `variant_of`."""
    index_of: dict[str, int] = {}
    mention_groups: list[list[int]] = []
    for mention, (spellings, mention_nodes) in enumerate(zip(written, nodes)):
        root = _home(groups, mention_nodes, ambiguous) if mention_nodes else f"\x00{mention}"
        if root not in index_of:
            index_of[root] = len(mention_groups)
            mention_groups.append([])
        mention_groups[index_of[root]].append(mention)
    variants: dict[int, int] = {}
    by_tokens = {s.tokens: root for root, members in groups.members.items() for s in members if root in index_of}
    for root, members in groups.members.items():
        if root not in index_of:
            continue
        for s in members:
            base = next((by_tokens[s.tokens[:cut]] for cut in range(len(s.tokens) - 1, 0, -1)
                         if s.tokens[:cut] in by_tokens and by_tokens[s.tokens[:cut]] != root
                         and all(_VERSION_TOKEN.match(token) for token in s.tokens[cut:])), None)
            if base is not None:
                variants[index_of[root]] = index_of[base]
                break
    return Resolution(mention_groups, variants, {node.split("\x00")[-1] for node in ambiguous})
