"""Rule reflection: a quality score in [0, 1], issues and suggestions for one step's result, by code only.

Each issue carries the penalty it takes off the score and whether a retry with a changed input can
address it (diagnosable). `plan_retry` and `feedback_text` turn a reflection into the next attempt's
input, as a pure function of (previous input, reflection).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from dsminer.document.text import name_pattern
from dsminer.evidence.records import DatasetDetails, clean_list, clean_text
from dsminer.mentions.benchmarks import BenchmarkCues
from dsminer.mentions.names import clean_dataset_names, name_problem
from dsminer.schema import PaperRefs

UNREAD_PENALTY = 0.45  # names of the paper no attempt judged (see `_unjudged`)
DETAIL_WEIGHTS = {"content": 0.35, "data_type": 0.2, "domain": 0.2, "fields": 0.1}
MAX_KEYWORDS = 10


@dataclass(frozen=True)
class Issue:
    """One problem in a step's result: a code, a message, its penalty, and whether a retry can fix it."""

    code: str
    message: str
    penalty: float
    diagnosable: bool = True


@dataclass
class Reflection:
    """A judgement of one step's result."""

    score: float
    issues: list[Issue] = field(default_factory=list)
    suggestions: list[str] = field(default_factory=list)
    keywords: list[str] = field(default_factory=list)
    source: str = "rule"
    model_score: float | None = None

    @property
    def diagnosable(self) -> bool:
        return any(issue.diagnosable for issue in self.issues)

    def codes(self) -> list[str]:
        return list(dict.fromkeys(issue.code for issue in self.issues))


@dataclass(frozen=True)
class RetryPlan:
    """What the next attempt is told and may read more of: more first-page characters (metadata), the names and
    search words to look for in the text not yet read (names), the feedback."""

    max_chars: int
    keywords: tuple[str, ...]
    feedback: str


def judge(issues: Sequence[Issue], suggestions: Sequence[str] = (), keywords: Sequence[str] = ()) -> Reflection:
    """A reflection whose score is 1 minus the issues' penalties, clamped to [0, 1]."""
    score = max(0.0, min(1.0, 1.0 - sum(issue.penalty for issue in issues)))
    return Reflection(round(score, 3), list(issues), list(dict.fromkeys(suggestions)), list(dict.fromkeys(keywords)))


def covered(candidate: str, names: Sequence[str]) -> bool:
    """Whether one of `names` is `candidate` or contains it as whole words, or the other way round."""
    mine = name_pattern(candidate)
    for name in names:
        theirs = name_pattern(name)
        if (mine and mine.search(name)) or (theirs and theirs.search(candidate)):
            return True
    return False


def _count_issues(kept: Sequence[str], cues: BenchmarkCues) -> tuple[list[Issue], list[str], list[str]]:
    """Empty or too few names for the text's benchmark cues, with the candidates still missing."""
    expected = cues.expected_datasets()
    missing = [c for c in cues.candidates if not covered(c, kept)]
    if not kept and not expected:
        return [Issue("empty", "no dataset names, and the text shows no benchmark cues", 0.4, False)], [], []
    if len(kept) >= expected:
        return [], [], []
    search = ("Search the experiments and results: datasets are named in table captions and in "
              "'we evaluate on' or 'we use' sentences.")
    hint = [f"The text names {', '.join(missing[:6])} near evaluation cues; list those the paper uses as data."]
    if not kept:
        issue = Issue("empty", f"no dataset names although the text has {cues.describe()}", 1.0)
    else:
        gap = (expected - len(kept)) / expected
        issue = Issue("few_datasets", f"{len(kept)} dataset names, {expected} expected from {cues.describe()}",
                      round(0.25 + 0.4 * gap, 3))
    return [issue], [search, *(hint if missing else [])], missing[:6]


# Penalty per name and at most per kind of problem: an answer of citations, phrases or sentences instead of
# names is a failed answer; a model among good names is a small flaw that cleaning removes.
_PROBLEM_PENALTY = {"non_dataset": (0.15, 0.3), "tool": (0.15, 0.3), "language": (0.15, 0.3),
                    "organisation": (0.15, 0.3), "place": (0.15, 0.3)}
_PROBLEM_ADVICE = {
    "non_dataset": "they look like models, metrics or tasks, not data",
    "citation": "they are citations; give the name of the dataset the citation stands for",
    "generic": "they are generic phrases; give the dataset's own name",
    "sentence": "they are phrases or sentences; give only the name",
    "tool": "they are tools, libraries or platforms, not data",
    "language": "they name languages; give the name of the dataset in that language",
    "abbreviation": "they are abbreviations from a table; give the name the text writes",
    "split": "they label a dataset's split in a table; give the dataset's name",
    "fragment": "they are the start of a name; give the whole name",
    "platform": "they are platforms that host data; give the name of the dataset hosted there",
    "organisation": "they are organisations; give the name of the dataset they made or hold",
    "place": "they are places; give the name of the dataset gathered there",
    "identifier": "they are identifiers, files or values; give the name of the dataset they point to",
    "version": "they are versions or numbers; give the dataset's name with them",
    "list": "they are shortened lists; give each dataset's own name",
}


def _wrong_kind(raw: Sequence[str]) -> tuple[list[Issue], list[str]]:
    """Names given as datasets that are models, methods, metrics, tasks, tools, citations, generic phrases
    or sentences: one issue per kind of problem."""
    problems: dict[str, list[tuple[str, str]]] = {}
    for name in raw:
        found = name_problem(name)
        if found:
            problems.setdefault(found[0], []).append((name, found[1]))
    issues, hints = [], []
    for code, items in problems.items():
        message = "; ".join(why for _, why in items[:4])
        each, most = _PROBLEM_PENALTY.get(code, (0.25, 0.5))
        issues.append(Issue(code, message, min(most, each * len(items))))
        advice = _PROBLEM_ADVICE.get(code, "they are not datasets")
        hints.append(f"Leave out {', '.join(name for name, _ in items[:4])}: {advice}.")
    return issues, hints


def _absent(raw: Sequence[str], paper_text: str) -> tuple[list[Issue], list[str]]:
    """Names the paper does not write (or only generic words), which cleaning dropped."""
    absent = [n for n in raw if n.strip() and not name_problem(n) and not clean_dataset_names([n], paper_text)]
    if not absent:
        return [], []
    names = ", ".join(absent[:4])
    return [Issue("not_in_text", f"not written in the paper, or generic: {names}", min(0.3, 0.1 * len(absent)))], [
        f"Give dataset names exactly as the paper writes them; {names} do not occur in the text."]


def _unjudged(code: str, problem: str, advice: str, names: Sequence[str]) -> tuple[list[Issue], list[str]]:
    """Names of the paper no attempt has judged (`problem` and `advice` hold `{names}`): one issue that takes the
    score under the default threshold, since a retry that reads them is the one change of input that can add a
    dataset."""
    if not names:
        return [], []
    listed = "; ".join(names[:6])
    return [Issue(code, problem.format(names=listed), UNREAD_PENALTY)], [advice.format(names=listed)]


def reflect_on_names(raw: Sequence[str], kept: Sequence[str], paper_text: str, cues: BenchmarkCues,
                     unread: Sequence[str] = (), known: Sequence[str] = ()) -> Reflection:
    """Judge a names step: `raw` is the latest answer, `kept` the cleaned names found so far, `unread` the
    candidate names of the text no attempt has read and `known` the datasets of earlier papers the paper writes
    that no attempt judged, each described with its papers (both given only while the cap leaves room)."""
    count, count_hints, missing = _count_issues(kept, cues)
    kind, kind_hints = _wrong_kind(raw)
    absent, absent_hints = _absent(raw, paper_text)
    unread_issues, unread_hints = _unjudged(
        "unread_data", "names no attempt read, in the paper's data sections, tables or appendix: {names}",
        "Judge the names in the new text: {names}.", unread)
    known_issues, known_hints = _unjudged(
        "known_datasets", "datasets of earlier papers that this paper writes, not judged: {names}",
        "Earlier papers of this corpus used {names}: say whether this paper does.", known[:4])
    return judge([*count, *kind, *absent, *unread_issues, *known_issues],
                 [*count_hints, *kind_hints, *absent_hints, *unread_hints, *known_hints], missing)


def missing_detail_fields(details: DatasetDetails) -> list[str]:
    """Which described fields are empty or placeholders ("N/A", "not provided")."""
    values = {"content": clean_text(details.content), "data_type": clean_text(details.data_type),
              "domain": clean_text(details.domain), "fields": clean_list(details.fields)}
    return [name for name in DETAIL_WEIGHTS if not values[name]]


def reflect_on_details(name: str, details: DatasetDetails) -> Reflection:
    """Judge a detail step: required fields missing lower the score."""
    missing = missing_detail_fields(details)
    if not missing:
        return judge([])
    penalty = sum(DETAIL_WEIGHTS[m] for m in missing)
    diagnosable = any(m != "fields" for m in missing)
    issue = Issue("missing_fields", f"{name}: missing {', '.join(missing)}", round(penalty, 3), diagnosable)
    hint = f"Read the sentences that mention {name}: what it contains, its kind of data and its subject area."
    return judge([issue], [hint], [name, "contains", "consists of", "collected"])


def reflect_on_metadata(refs: PaperRefs) -> Reflection:
    """Judge the metadata step: a missing title or author list lowers the score."""
    issues = []
    if not refs.title:
        issues.append(Issue("missing_fields", "no title", 0.5))
    if not refs.authors:
        issues.append(Issue("missing_fields", "no authors", 0.3))
    hint = ["Read further into the first pages: the title opens the paper and the authors follow it."]
    return judge(issues, hint if issues else [])


def feedback_text(reflection: Reflection) -> str:
    """What the next attempt is told about the previous one."""
    if not reflection.issues:
        return ""
    problems = "; ".join(issue.message for issue in reflection.issues)
    advice = " ".join(reflection.suggestions)
    return f"A previous attempt scored {reflection.score:.2f}. Problems: {problems}. {advice}".strip()


def plan_retry(reflection: Reflection, attempt: int, max_chars: int) -> RetryPlan:
    """The plan of retry number `attempt` (1 = first retry): more first-page text, the reflection's names and search
    words, the feedback. The evidence the retry reads is the step's to find (`fresh_evidence`)."""
    keywords = tuple(dict.fromkeys(k for k in reflection.keywords if k.strip()))[:MAX_KEYWORDS]
    feedback = f"Retry {attempt}. {feedback_text(reflection)}".strip()
    return RetryPlan(max_chars + 1500, keywords, feedback)


def search_terms(values: object, limit: int = 6) -> list[str]:
    """Model-proposed search words kept short and plain: at most three words of letters, digits, hyphens."""
    items = clean_list(values)
    return [t for t in (re.sub(r"[^\w\- ]+", " ", item).strip() for item in items) if t and len(t.split()) <= 3][:limit]


def parse_score(value: object) -> float | None:
    """A model's score as a float in [0, 1]; a score out of 10 or 100 is scaled; None without a number."""
    match = re.search(r"\d+(?:\.\d+)?", str(value if value is not None else ""))
    if match is None:
        return None
    score = float(match.group(0))
    score = score / 10 if 1 < score <= 10 else score / 100 if score > 10 else score
    return round(min(score, 1.0), 3)


def with_model_view(rule: Reflection, score: float | None, risks: object, suggestions: object,
                    terms: object) -> Reflection:
    """The rule reflection extended by a model's judgement. The rule score still decides whether a step is
    retried (a small model's score disagrees with what the code can check, e.g. "no title" beside a
    title); the model's risks, advice and search terms shape the retry's feedback and context, and its
    score is kept beside the rule's."""
    proposed = search_terms(terms)
    advice = clean_list(suggestions)
    risk_issues = [Issue("model_risk", risk, 0.0, False) for risk in clean_list(risks)[:4]]
    judged = score is not None or bool(risk_issues or advice or proposed)
    return Reflection(rule.score, [*rule.issues, *risk_issues], list(dict.fromkeys([*rule.suggestions, *advice[:3]])),
                      list(dict.fromkeys([*rule.keywords, *proposed])), "llm" if judged else "rule", score)
