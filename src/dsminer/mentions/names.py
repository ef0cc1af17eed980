"""Model-free cleaning of proposed dataset names against the paper's own text."""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence

from dsminer.document.text import collapse_whitespace, inline_pattern, is_table_row_text, name_pattern
from dsminer.mentions.lexicon import (
    DATA_KINDS,
    DATA_NOUN_END,
    DATA_NOUN_GROUP,
    DATA_WORD,
    DATA_WORD_WORDS,
    FUNCTION_WORDS,
    GENERIC_MODIFIERS,
    GENERIC_NAMES,
    IDENTIFIERS,
    LANGUAGE_NAMES,
    LANGUAGE_PAIR,
    LANGUAGES,
    METRICS,
    MODELS,
    NOT_DATASETS,
    ORGANISATION_HEADS,
    PLACES,
    PLATFORMS,
    STORAGE_WORDS,
    TASKS,
)
from dsminer.schema import normalize_name

logger = logging.getLogger(__name__)

MIN_NAME_CHARS = 2  # a single letter is a table column, not a dataset name
_EDGE_JUNK = "\"'`\u201c\u201d\u2018\u2019*\u2022\u00b7\u2013\u2014-:;,. \t\n"
_GLUED_DIGIT = re.compile(r"^(.*[A-Za-z0-9])[0-9]$")

_MODEL_VARIANT = re.compile(
    r"^(?:bert|roberta|gpt|resnet|vgg|densenet|efficientnet|vit|t5|bart|yolo|lstm|bilstm|cnn)"
    r"(?:[-_ ]?(?:\d+[a-z]?|base|large|small|tiny|xl|xxl|cased|uncased|v\d+))+$",
    re.I,
)
MAX_NAME_WORDS = 8
POSSESSIVE = re.compile(r"['\u2019]s$")  # "AG's": the start of a name ("AG's News"), not a name
_YEAR = r"(?:19|20)\d\d[a-z]?"
# "et al.", "(2019)", "Smith, 2019", or two surnames with a superscript reference number run in ("Huang & Cole21")
_CITATION = re.compile(rf"\bet\s+al\b|\(\s*{_YEAR}\s*\)|\b[A-Z][a-z]+,\s+{_YEAR}\b|"
                       rf"^[A-Z][a-z]+\s*(?:&|and)\s*[A-Z][a-z]+\d{{1,3}}$")
# a co-author after "and": capitalised, then lower case ("Lee", not "COCO"), after a prefix ("McDonald", "DeNero")
_SURNAME = r"(?:Mc|Mac|De|Di|Du|La|Le|O['\u2019])?[A-Z][a-z'\u2019-]+"
_CITED_YEAR = rf"(?:\s*,\s*|\s*\(\s*){_YEAR}\s*[),;]"  # ", 2005)" or " (2005)"
_VERSION_ONLY = re.compile(r"(?:v|ver\.?\s*|version\s+|release\s+)?\d+(?:[.\-]\d+)*[a-z]?", re.I)  # "v132", "2.1"
# a sequencing assay by its suffix ("CITE-seq", "Drop-seq", "Smart-seq2"): a kind of data, as "RNA-seq" is
_ASSAY = re.compile(r"(?:[A-Za-z0-9]+-[Ss]eq|[A-Za-z0-9]*[A-Z]seq)\d*")
_TOOL_SUFFIX = re.compile(
    r"\b(?:library|libraries|toolkit|toolbox|framework|api|apis|platform|package|software|website|web ?site|"
    r"tools?|marketplace|simulator|parser|tagger|aligner|tokeni[sz]er|segmenter|annotator|pipeline)$",
    re.I,
)
# A table's label for a dataset's split ("CTB-train", "WSJ-dev"): its dataset is the name before the hyphen.
_SPLIT_LABEL = re.compile(r"\w[-_](?:train|training|test|testing|dev|valid|val)\b", re.I)
_CAMEL_TOOL_SUFFIX = re.compile(r"[a-z](?:Parser|Tagger|Toolkit|Toolbox|Library|Framework|API)$")
# The head of a common-noun phrase that a paper defines an acronym as when the acronym is not data: "a basic model
# (BM)", "document question answering (DQA)".
_NOT_DATA_HEAD = re.compile(
    r"(?:model|network|classifier|encoder|decoder|method|approach|module|mechanism|architecture|algorithm|"
    r"answering|comprehension|classification|recognition|detection|translation|parsing|tagging|inference|"
    r"entailment|generation|summari[sz]ation|segmentation|retrieval|extraction|reasoning|learning|modell?ing)s?$"
)
_SUFFIX = re.compile(
    r"\b(?:model|network|classifier|encoder|decoder|loss|score|metric|accuracy|architecture|algorithm)s?$"
    r"|\banaly[sz](?:is|es)$", re.I
)
# A word written right after a name that makes the name a model's or method's ("the GA Reader", "X network").
_MODEL_HEAD_AFTER = re.compile(
    r"[ \t\n]*(?:reader|model|module|network|net|architecture|encoder|decoder|classifier|layer|mechanism|algorithm|"
    r"method|approach|agent|variant)s?\b",
    re.I,
)
# A word written right after a name that makes the name data ("the X dataset", "the X training set").
_DATA_HEAD_AFTER = re.compile(
    rf"[ \t\n]*(?:{DATA_WORD_WORDS}|training|test|dev|validation)\b",
    re.I,
)
# A word that may be a piece of a longer name: capitalised ("Stanford", "Multi-Genre", "Children's") or a count with a
# capital ("1B"); after a name also a year or a version ("X 2003", "X 1.1").
_NAME_PIECE = re.compile(r"[A-Z][\w\-'\u2019]*|\d+[A-Z][\w\-]*")
_PIECE_BEFORE = re.compile(r"(?<![\w\-'\u2019])([\w\-'\u2019]+)[ \t\n]+$")
_PIECE_AFTER = re.compile(r"[ \t\n]+([A-Z][\w\-'\u2019]*[A-Za-z0-9]|(?:19|20)\d\d|\d+\.\d+)(?![\w\-])")
# Capitalised words that are not pieces of a name: sentence openers, parts of the paper, languages (a part of the
# data: "English X"), and after a name the words that make it data, a split, a task or a model ("X Dataset", "X Test").
_NOT_PIECES = frozenset(word.casefold() for word in (
    "As In On For With The Our Both All Each Using From And Or Of To A An This These That Those We It Its Their "
    "Here There Table Tables Figure Fig Section Appendix Eq Datasets Dataset Data Experiments Experiment Results "
    "Evaluation Following Unlike Like While When Since After Before Given Then Thus However Moreover Finally Also "
    "Compared Besides Although If Every Some Most Many Other Such Only Note Training Test Testing Dev Validation "
    "Train At By Is Are Was Were Has Have Can May Will Which Who Where How What Why Not No".split() + list(LANGUAGES)))
_CITATION_KEY = re.compile(r"[A-Z][a-z]+(?:19|20)\d\d[A-Za-z]*")  # a BibTeX key run into the text ("Smith2014Deep")
_NOT_AFTER = frozenset(
    "dataset datasets data corpus corpora benchmark benchmarks set sets split splits collection collections task "
    "tasks shared challenge reader model models module network net architecture encoder decoder classifier layer "
    "mechanism algorithm method approach agent variant version leaderboard".split()
) | _NOT_PIECES
# The head nouns that say what a method or a piece of software is, in any field ("X is an R package").
_TOOL_HEADS = (r"(?i:methods?|tools?|packages?|library|libraries|software|algorithms?|pipelines?|toolkits?|"
               r"frameworks?|classifiers?|models?|programs?|web servers?|workflows?)")
MODEL_HEAD_SHARE = 4  # a name is a model's when at least one in this many of its mentions has a model word after it


def occurs_in(name: str, text: str) -> bool:
    """Whether `name` occurs in `text` as whole words, tolerant to case, hyphens, spaces and line breaks."""
    pattern = name_pattern(name)
    return bool(pattern and pattern.search(text))


def count_mentions(name: str, text: str) -> int:
    """How often `name` occurs in `text` (same matching as `occurs_in`)."""
    pattern = name_pattern(name)
    return len(pattern.findall(text)) if pattern else 0


def mentions_outside(name: str, longer: Sequence[str], text: str) -> int:
    """How often `name` occurs in `text` other than inside one of the `longer` names that contain it: "FACE"
    written only in "WIDER FACE" is a fragment of that name, not a name of its own."""
    pattern = name_pattern(name)
    if pattern is None:
        return 0
    for other in longer:
        outer = name_pattern(other)
        if outer is not None and len(other) > len(name) and pattern.search(other):
            text = outer.sub(" ", text)
    return len(pattern.findall(text))


def _strip_name(raw: str) -> str:
    """`raw` without surrounding quotes, bullets, list numbers and inner runs of whitespace."""
    name = collapse_whitespace(raw).strip(_EDGE_JUNK)
    name = re.sub(r"^(?:\d+[.)]|[-*\u2022])\s+", "", name)
    return name.strip(_EDGE_JUNK)


def _without_footnote_digit(name: str, text: str) -> str:
    """Undo a footnote digit glued to a name ("Foo-13" -> "Foo-1", "Bar2" -> "Bar") when the text says so.

    The shorter form wins when the longer one is absent, or when the longer occurs once and the shorter
    is used more often (a footnote mark sits on one mention): twice after a lower-case letter
    ("fastText1"), three times otherwise ("ABC2", "ABC-13"), since digits often end real names.
    """
    match = _GLUED_DIGIT.match(name)
    if not match:
        return name
    shorter = match.group(1)
    longer_count, shorter_count = count_mentions(name, text), count_mentions(shorter, text)
    once = longer_count == 1 and shorter_count >= (2 if shorter[-1].islower() else 3)
    if shorter_count and (longer_count == 0 or once):
        logger.debug("name %r read as %r (footnote digit)", name, shorter)
        return shorter
    return name


def _written_form(name: str, text: str) -> str | None:
    """`name` as the paper writes it, trying it without "the" and a generic suffix; None if absent."""
    bare = DATA_NOUN_END.sub("", re.sub(r"^the\s+", "", name, flags=re.I))
    for form in (name, bare):
        if form and occurs_in(form, text):
            return form
    return None


def clean_name(raw: str, paper_text: str) -> str | None:
    """A proposed name as the paper writes it, or None when it is empty, generic or absent from the text."""
    name = _strip_name(raw)
    if not name or name.casefold() in GENERIC_NAMES or len(normalize_name(name)) < MIN_NAME_CHARS:
        return None
    written = _written_form(_without_footnote_digit(name, paper_text), paper_text)
    if written is None:
        logger.debug("dropped name %r: not in the paper text", raw)
    return written


def _piece_before(sentence: str, start: int) -> str | None:
    """The name-like word right before `start` ("Stanford" of "Stanford Natural", "1B" of "1B Word"), if any."""
    match = _PIECE_BEFORE.search(sentence, 0, start)
    if match is None or not _NAME_PIECE.fullmatch(match.group(1)) or match.group(1).casefold() in _NOT_PIECES:
        return None
    word = match.group(1)
    if not sentence[:match.start(1)].strip(" \t\n\"'(\u201c\u2018") and sum(c.isupper() for c in word) < 2 \
            and not any(c.isdigit() for c in word):
        return None  # the sentence's first word is capitalised whatever it is
    return word


def _piece_after(sentence: str, end: int) -> str | None:
    """The name-like word, year or version right after `end` ("Language" of "Stanford Natural Language"), if any."""
    match = _PIECE_AFTER.match(sentence, end)
    if match is None or match.group(1).casefold() in _NOT_AFTER or _CITATION_KEY.fullmatch(match.group(1)):
        return None
    return match.group(1)


def whole_name(name: str, sentences: Sequence[str]) -> str | None:
    """`name`, or the longer name it is a piece of when the paper never writes it on its own.

    A proposed "Stanford Natural" that every prose sentence writes inside "Stanford Natural Language Inference"
    is that name; "Word Benchmark" written only as "1B Word Benchmark" is "1B Word Benchmark". A piece of several
    names ("X" written only as "X 2000" and "X 2003") names none of them: None. Table text, sentence openers, a
    language before the name ("English X", a part of X) and a data noun after it ("X Dataset") do not count.
    """
    pattern = name_pattern(name)
    if pattern is None:
        return name
    forms: dict[str, str] = {}
    for sentence in sentences:
        matches = list(pattern.finditer(sentence))
        if not matches or is_table_row_text(sentence):
            continue
        for match in matches:
            start, end = match.start(), match.end()
            while (piece := _piece_before(sentence, start)) is not None:
                start = sentence.rindex(piece, 0, start)
            while (piece := _piece_after(sentence, end)) is not None:
                end = sentence.index(piece, end) + len(piece)
            whole = collapse_whitespace(sentence[start:end])
            if (start, end) == (match.start(), match.end()) or len(pattern.findall(whole)) > 1:
                return name  # written on its own (a name run into itself is a layout artefact: "X X Corpus")
            forms.setdefault(whole.casefold(), whole)
    if len(forms) != 1:
        return name if not forms else None
    whole = next(iter(forms.values()))
    return whole if name_problem(whole) is None else None  # a name by its shape (not a sentence, tool, task ...)


def checked_whole_name(name: str, sentences: Sequence[str], paper_text: str) -> str | None:
    """`whole_name`, or None when the longer name is one the paper text rules out (see `problem_in_text`)."""
    whole = whole_name(name, sentences)
    if whole is None or (whole != name and problem_in_text(whole, paper_text)):
        return None
    return whole


def clean_dataset_names(raw: Sequence[str], paper_text: str) -> list[str]:
    """Proposed names cleaned, checked against the paper text and deduplicated, in order.

    Drops empty and generic names and names the paper never writes; keeps the first spelling of
    names that normalise alike.
    """
    kept: dict[str, str] = {}
    for item in raw:
        name = clean_name(item, paper_text)
        if name is not None:
            kept.setdefault(normalize_name(name), name)
    return list(kept.values())


def name_problem(name: str) -> tuple[str, str] | None:
    """Why `name` is not a dataset name, as (code, message): a citation, a generic phrase, a sentence, a tool, a
    platform, a language, an organisation, a place, or a model, method, metric or task. None when it looks like a
    name."""
    text = collapse_whitespace(name)
    if _CITATION.search(text) or any(_CITATION_KEY.fullmatch(word) for word in text.split()):
        return "citation", f"{name!r} is a citation, not a dataset"
    if len(text.split()) > MAX_NAME_WORDS:
        return "sentence", f"{name!r} is a phrase or sentence, not a name"
    if len(text.split()) > 1 and not re.search(r"[A-Z0-9]", text) and not described_data(text):
        return "generic", f"{name!r} is a generic phrase, not a name"
    if POSSESSIVE.search(text):
        return "fragment", f"{name!r} is the start of a name (a possessive), not a name"
    if text.casefold() in IDENTIFIERS:
        return "identifier", f"{name!r} is an identifier, a file or a value, not a dataset"
    words = re.split(r"[\s/-]+", text.casefold())
    storage = [word in STORAGE_WORDS or word.removesuffix("s") in STORAGE_WORDS for word in words]
    if any(storage) and all(kept or word in GENERIC_MODIFIERS for kept, word in zip(storage, words)):
        return "identifier", f"{name!r} is a file format, storage or computing unit, not a dataset"
    if _VERSION_ONLY.fullmatch(text):
        return "version", f"{name!r} is a version or number without the name it belongs to"
    if "..." in text or "\u2026" in text:
        return "list", f"{name!r} is a shortened list of names, not a name"
    if re.search(r"[a-z]\.\s+[A-Z]\.?$", text):
        return "abbreviation", f"{name!r} is a table abbreviation, not the dataset's name"
    if _SPLIT_LABEL.search(text):
        return "split", f"{name!r} labels a split in a table (\"X-train\"), not a dataset"
    if _TOOL_SUFFIX.search(text) or _CAMEL_TOOL_SUFFIX.search(text):
        return "tool", f"{name!r} is a tool, library or platform, not a dataset"
    if re.sub(r"[^0-9a-z]+", "", text.casefold()) in PLATFORMS:
        return "platform", f"{name!r} is a platform that hosts data, not a dataset"
    if text in NOT_DATASETS:
        return "non_dataset", f"{name!r} names a field, venue, device or part of the paper"
    if text.casefold() in LANGUAGE_NAMES or LANGUAGE_PAIR.match(text):
        return "language", f"{name!r} names the language of the data or a translation direction, not a dataset"
    if organisation_head(text):
        return "organisation", f"{name!r} names an organisation, not its data"
    if re.sub(r"^the\s+", "", text, flags=re.I) in PLACES:
        return "place", f"{name!r} names a place, not the data gathered there"
    why = looks_like_non_dataset(text)
    return ("non_dataset", why) if why else None


def described_data(phrase: str) -> bool:
    """Whether a lower-case phrase names particular data by what it holds: a data noun (or "data") after a word
    that says which data ("insurance claims data", "the free light chain dataset"); not "synthetic data" or "the
    full dataset", whose words say nothing of which."""
    words = re.sub(r"^(?:the|a|an|our)\s+", "", phrase.casefold()).split()
    head = " ".join(words[-2:]) if len(words) > 2 and words[-2] == "data" else words[-1] if words else ""
    if not (head == "data" or DATA_NOUN_END.search(f" {head}")):
        return False
    return any(word not in GENERIC_MODIFIERS and word != "data" for word in words[:-1])


def abbreviates(short: str, long: str) -> bool:
    """Whether the capitals of `short` spell `long` in order (Schwartz and Hearst): the first at the start
    of a word, the others anywhere after it, covering at least two and at least half of `long`'s words and
    passing over no capitalised word ("SQuAD" does not abbreviate "SQuAD 1.1": it is its first word; "PTB" does
    not abbreviate "Penn Chinese Treebank")."""
    capitals = [c.lower() for c in short if c.isupper()]
    # each word with the whitespace-separated token it belongs to ("Multi-Genre" is one token of two words)
    tokens = long.split()
    parts = [(word, token) for token, chunk in enumerate(tokens)
             for word in re.split(r"[\-/]+", chunk) if word and word.casefold() not in FUNCTION_WORDS]
    words = [word for word, _ in parts]
    if not capitals or len(words) < 2:
        return False
    for start in range(len(words)):
        text = " ".join(words[start:]).lower()
        if not text.startswith(capitals[0]):
            continue
        position, used = 1, {0}
        for letter in capitals[1:]:
            found = text.find(letter, position)
            if found < 0:
                break
            used.add(text.count(" ", 0, found))
            position = found + 1
        else:
            last = parts[start + max(used)][1]
            if (len(used) >= 2 and len(used) * 2 >= len(words) and len(words) - start <= len(capitals)
                    and _spells_capitalised_words(capitals, tokens[parts[start][1]:last + 1])):
                return True
    return False


def _spells_capitalised_words(capitals: Sequence[str], tokens: Sequence[str]) -> bool:
    """Whether the initials of the capitalised words an abbreviation spans come, in order, among its capitals: no
    capitalised word is passed over ("PTB" passes over "Chinese" in "Penn Chinese Treebank", which is CTB)."""
    letters = iter(capitals)
    return all(token[0].lower() in letters for token in tokens if token[:1].isupper())


def defined_as(name: str, text: str) -> list[str]:
    """The phrases `text` defines the acronym `name` as: the words before "(name)" or "(name,", one for each
    of its capitals ("a basic model (BM)" gives "basic model")."""
    capitals = sum(c.isupper() for c in name)
    if not 2 <= capitals <= 8 or " " in name.strip():
        return []
    words = re.compile(rf"(?<![\w\-])((?:[A-Za-z][\w\-]*\s+){{{capitals}}})$")
    phrases = []
    for use in re.finditer(rf"\(\s*{re.escape(name.strip())}\s*[,;)]", text):
        # the words right before "(", looked for in the few lines before it, not from every word of the text
        match = words.search(text, max(0, use.start() - 40 * capitals), use.start())
        if match:
            phrases.append(match.group(1).strip())
    return phrases


def defined_as_non_dataset(name: str, text: str) -> tuple[str, str] | None:
    """Why the acronym `name` is not a dataset when the text defines it as a common-noun phrase (lower-case after
    its first word) ending in a model, method or task word: "basic model (BM)", "machine reading comprehension
    (MRC)". A dataset's expansion is a proper name ("Stanford Natural Language Inference (SNLI)")."""
    for phrase in defined_as(name, text):
        words = phrase.split()
        if all(word.islower() for word in words[1:]) and _NOT_DATA_HEAD.search(words[-1].casefold()):
            return "defined", f"{name!r} is defined as {phrase!r}, not a dataset"
    return None


def written_as_model(name: str, text: str) -> tuple[str, str] | None:
    """Why `name` is a model or method: the text writes a model word right after it at least twice, in at least a
    quarter of its mentions, and never a data word ("the GA Reader", "the GA reader", "the GA module")."""
    pattern = name_pattern(name)
    if pattern is None:
        return None
    ends = [match.end() for match in pattern.finditer(text)]
    as_model = sum(bool(_MODEL_HEAD_AFTER.match(text, end)) for end in ends)
    if as_model >= 2 and as_model * MODEL_HEAD_SHARE >= len(ends) and not any(
            _DATA_HEAD_AFTER.match(text, end) for end in ends):
        return "model_head", f"{name!r} is written as a model ({as_model} of {len(ends)} mentions), not a dataset"
    return None


def written_as_author(name: str, text: str) -> tuple[str, str] | None:
    """Why the one-word `name` is an author's surname: the text cites it ("X et al.", "X and Y (2005)", "Y and X,
    2005", "(A, B, and X 2015)", "(A, X, & B, 2006)"). A dataset's name is not followed by "et al." nor by a
    co-author and a year. Likewise two surnames joined, cited with a year ("X & Y" of "(X & Y, 2016)"), and a sole
    author, with or without the year ("X", "X 1999": see `_cited_alone`)."""
    word = name.strip()
    if _cited_alone(re.sub(rf"\s+{_YEAR}$", "", word), text):
        return "author", f"{name!r} is cited as an author, not a dataset"
    pair = re.fullmatch(rf"{_SURNAME}\s+(?:and|&)\s+{_SURNAME}", word)
    if pair and re.search(rf"\b{re.escape(word)}{_CITED_YEAR}", text):
        return "author", f"{name!r} is cited as two authors, not a dataset"
    if " " in word or not word:
        return None
    w = re.escape(word)
    cited = [rf"\b{w}\s+et\s+al\b", rf"\b{w}\s+(?:and|&)\s+{_SURNAME}{_CITED_YEAR}",
             rf"(?:,|\band|&)\s+{w},?\s+{_YEAR}\s*[;)]"]
    if re.fullmatch(_SURNAME, word):
        cited.append(rf"\b{_SURNAME}\s+(?:and|&)\s+{w}{_CITED_YEAR}")  # the second of two authors
        # one of three or more, not the last: "(Hedges, X, & Kumar, 2006)", "(Lee, X, Kim, and Park 2019)"
        cited.append(rf"[(;]\s*(?:{_SURNAME},\s+)+{w},\s+(?:{_SURNAME},\s+)*(?:(?:and|&)\s+)?{_SURNAME},?\s+"
                     rf"{_YEAR}\s*[;)]")
    if re.search("|".join(cited), text):
        return "author", f"{name!r} is cited as an author, not a dataset"
    return None


def _cited_alone(word: str, text: str) -> bool:
    """Whether the surname-shaped `word` is a sole author: a line of the text opens with it as a reference entry
    does ("X, A." or "X, Alan."), and every other mention cites it with a year ("(X, 2021)", "(X 1999)", "X
    (2021)", "X et al."). A dataset written with a year ("(Kelp 2014; X 2015)") is never a reference entry's
    first word."""
    if not re.fullmatch(_SURNAME, word):
        return False
    w = re.escape(word)
    entries = len(re.findall(rf"(?m)^[ \t]*{w},\s+[A-Z][a-z]*\.", text))
    cited = len(re.findall(rf"\b{w}(?:{_CITED_YEAR}|\s+{_YEAR}\s*[),;]|\s+et\s+al\b)", text))
    return entries > 0 and entries + cited == len(re.findall(rf"\b{w}\b", text))


def defined_as_kind(name: str, text: str) -> tuple[str, str] | None:
    """Why the acronym `name` names a kind of thing, not a dataset: the text spells it out mostly as a common-noun
    phrase ("antibody-derived tags (ADT)", "operational taxonomic units (OTUs)", "equivalent width (EW)"; a heading
    that capitalises it once does not make it a name), and writes neither it nor that phrase as a body of data ("the
    free light chain dataset", "the FLC datasets"; a data noun right after the defining brackets, as in "an intensive
    care unit (ICU) database", is the phrase's data, not a name). A dataset's expansion is a proper name ("Penn
    Treebank (PTB)") or ends in a data noun ("X eclipsing binary catalog")."""
    acronym = name.strip()
    capitals = sum(c.isupper() for c in acronym)
    if not 2 <= capitals <= 8 or " " in acronym:
        return None
    phrases = spelled_out(acronym, text)
    if not phrases or any(_ends_in_data(phrase) for phrase in phrases):
        return None
    if 2 * sum(_proper(phrase) for phrase in phrases) >= len(phrases):
        return None  # a proper name at least as often as a common phrase, which a heading may capitalise
    forms = "|".join(re.escape(form) for form in {acronym, *phrases})
    if re.search(rf"(?<![\w\-])(?:{forms})s?\s+(?:{DATA_NOUN_GROUP}|(?i:stud(?:y|ies)))\b", text, re.I):
        return None
    return "defined_kind", f"{name!r} is spelled out as {phrases[0]!r}, a kind of thing, not a dataset"


def spelled_out(acronym: str, text: str) -> list[str]:
    """The phrases `text` writes right before "(acronym)" or "(acronyms)" whose capitals the acronym spells (the
    fewest words that do: "antibody-derived tags" of "with antibody-derived tags (ADT)")."""
    phrases = []
    for use in re.finditer(rf"\(\s*{re.escape(acronym)}s?\s*[,;)]", text):
        words = re.sub(r"\s+", " ", text[max(0, use.start() - 120):use.start()]).split()[-8:]
        for start in range(len(words) - 1, -1, -1):
            phrase = " ".join(words[start:])
            if words[start][:1].casefold() == acronym[0].casefold() and abbreviates(acronym, phrase):
                phrases.append(phrase)
                break
    return phrases


def _ends_in_data(phrase: str) -> bool:
    """Whether a spelled-out phrase ends in a data noun or "data"."""
    return bool(DATA_WORD.fullmatch(phrase.split()[-1].strip(".,;:")))


def _proper(phrase: str) -> bool:
    """Whether a spelled-out phrase is written as a proper name: a word past the first, other than a joining word, is
    capitalised."""
    return any(word[:1].isupper() for word in phrase.split()[1:] if word.casefold() not in FUNCTION_WORDS)


def written_as_common_phrase(name: str, text: str) -> tuple[str, str] | None:
    """Why a capitalised name of several words is a common phrase capitalised in titles and headings: the text
    writes it in lower case more often than capitalised ("open access" 153 times, "Open Access" 8), and never as
    data ("X data", "the X dataset"). A name ending in a data noun names its data ("Chronogram Database")."""
    words = collapse_whitespace(name).split()
    if len(words) < 2 or name.islower() or name.isupper() or DATA_NOUN_END.search(name):
        return None
    def written(forms: Sequence[str], flags: int = 0) -> re.Pattern[str]:
        return re.compile(r"(?<![\w\-])" + r"\s+".join(map(re.escape, forms)) + r"(?![\w\-])", flags)
    lower = len(written([word.lower() for word in words]).findall(text))
    if lower <= len(written(words).findall(text)):
        return None
    if re.search(written(words, re.I).pattern + rf"\s+(?:{DATA_WORD_WORDS})\b", text, re.I):
        return None
    return "common_phrase", f"{name!r} is mostly written in lower case, a common phrase, not a dataset's name"


def defined_as_tool(name: str, text: str) -> tuple[str, str] | None:
    """Why `name` is a method or a piece of software: the first sentence that says what it is ("X is a ...",
    "X was an ...") gives a method's or a tool's head noun within four words ("X is a reference-based annotation
    method", "X is an R package"), where a dataset's would give a data noun ("X is a database of ...")."""
    pattern = name_pattern(name.strip())
    if pattern is None:
        return None
    first = re.search(rf"{inline_pattern(pattern)}\s+(?:is|was)\s+(?:a|an|the)\s+(?:\S+\s+){{0,3}}?"
                      rf"(?:({_TOOL_HEADS})|{DATA_WORD_WORDS})(?![\w\-])", text)
    if first is None or first.group(1) is None:
        return None
    return "defined_tool", f"{name!r} is said to be a {first.group(1)}, not a dataset"


def written_as_data_kind(name: str, text: str) -> tuple[str, str] | None:
    """Why `name` is a kind of data ("RNA-seq", "ECG", "fMRI", any "X-seq" assay), not a dataset: it is one, and the
    text never makes it the only name of a dataset ("the EEG dataset", "our ECG database"; "the X ECG dataset" names
    X)."""
    if re.sub(r"[^0-9a-z]+", "", name.casefold()) not in DATA_KINDS and not _ASSAY.fullmatch(name.strip()):
        return None
    pattern = name_pattern(name.strip())
    alone = pattern and rf"\b(?:the|our|this|their|a|an|new)\s+(?:{pattern.pattern})\s+{DATA_NOUN_GROUP}"
    if alone and re.search(alone, text, re.I):
        return None
    return "data_kind", f"{name!r} is a kind of data or measurement, not a dataset"


def names_its_data(names: Sequence[str], text: str) -> bool:
    """Whether `text` writes one of `names` before data it names: a data word right after it or two words on ("X
    data", "the X database", "X claims data", "X salinity data")."""
    for name in names:
        pattern = name_pattern(name.strip())
        if pattern is None:
            continue
        if re.search(rf"{inline_pattern(pattern)}(?:\s+[\w\-]+){{0,2}}?\s+(?i:{DATA_WORD_WORDS})\b", text):
            return True
    return False


def problem_in_text(name: str, text: str) -> tuple[str, str] | None:
    """Why `name` is not a dataset, by its shape (`name_problem`) or by how `text` writes it: an acronym defined as
    a model, method or task, a model's name, a cited surname, a kind of data, a name said to be a method or tool, an
    acronym spelled out only as a common-noun phrase, a phrase mostly written in lower case.
    None when nothing speaks against it."""
    return (name_problem(name) or defined_as_non_dataset(name, text) or written_as_model(name, text)
            or written_as_author(name, text) or written_as_data_kind(name, text) or defined_as_tool(name, text)
            or defined_as_kind(name, text) or written_as_common_phrase(name, text))


def looks_like_non_dataset(name: str) -> str | None:
    """Why `name` looks like a metric, model, method or task rather than a dataset; None if it does not."""
    key = re.sub(r"[^0-9a-z]+", "", name.casefold())
    if key in METRICS:
        return f"{name!r} looks like an evaluation metric"
    if key in MODELS or _MODEL_VARIANT.match(name.strip()):
        return f"{name!r} looks like a model or method"
    if key in TASKS:
        return f"{name!r} looks like a task"
    if _SUFFIX.search(name.strip()):
        return f"{name!r} names a model, method or measure"
    return None


def organisation_head(name: str) -> bool:
    """Whether a name's head noun is an organisation's ("University of Sussex", "Mayo Clinic", "Blue Yonder GmbH"):
    the word before its first "of", "for" or "de", else its last word."""
    words = re.sub(r"\([^()]*\)", " ", name).split()
    for number, word in enumerate(words[1:], 1):
        if word.casefold() in ("of", "for", "de"):
            return words[number - 1].strip(".,").casefold() in ORGANISATION_HEADS
    return bool(words) and words[-1].strip(".,").casefold() in ORGANISATION_HEADS
