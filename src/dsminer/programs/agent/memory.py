"""The agent's experiences: short-term (the paper in hand) and long-term (across papers and runs, a JSONL file).

An experience records what happened in one step of one paper, with its provenance (paper, step, score,
outcome) and a lesson: generic advice for the same step on a later paper, never a dataset name.
Retrieval filters by step, keeps only proven lessons (a retry acting on them raised the score), drops stale
and low-quality entries, and ranks by tag similarity.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path

log = logging.getLogger(__name__)
MEMORY_VERSION = 1
# Search words that say nothing of a paper (older retries added them in turn): never kept as a lesson's keywords.
_GENERIC_KEYWORDS = frozenset({"table", "results", "experiments", "evaluation", "we use", "collected", "benchmark",
                               "training data", "appendix", "downloaded", "split", "annotated"})
LESSONS = {
    ("names", "empty"): "Names: an answer found no datasets although the paper reports experiments; datasets "
                        "are named in results-table captions and in 'we evaluate on' or 'we use' sentences.",
    ("names", "few_datasets"): "Names: an answer missed datasets named near evaluation cues; read the "
                               "results-table captions and experiment sentences for every dataset.",
    ("names", "non_dataset"): "Names: answers listed models, metrics or tasks; list only collections of data.",
    ("names", "not_in_text"): "Names: answers gave names the paper does not write; copy each name as written.",
    ("names", "citation"): "Names: answers gave citations as names; give the dataset's own name, not its reference.",
    ("names", "generic"): "Names: answers gave generic phrases; a dataset name is a proper name the paper writes.",
    ("names", "sentence"): "Names: answers gave whole phrases; give only the dataset's name.",
    ("names", "tool"): "Names: answers gave tools, libraries or platforms; these are not datasets.",
    ("names", "language"): "Names: answers gave languages; give the name of the dataset in that language.",
    ("names", "unread_data"): "Names: datasets were named where the first context did not reach (data sections, "
                              "tables, an appendix); judge every name in the new text.",
    ("details", "missing_fields"): "Details: fields were left empty; the sentences naming the dataset say what "
                                   "it contains, its kind of data and its subject area.",
    ("metadata", "missing_fields"): "Metadata: the title or authors were missing; they open the first page.",
}


def _now() -> datetime:
    return datetime.now(timezone.utc)


@dataclass
class Experience:
    """One step of one paper, as the agent remembers it."""

    step: str
    paper: str
    score: float
    outcome: str  # accepted | improved | stopped | unresolved
    lesson: str
    tags: list[str] = field(default_factory=list)
    first_score: float | None = None
    keywords: list[str] = field(default_factory=list)
    created: str = field(default_factory=lambda: _now().isoformat(timespec="seconds"))
    version: int = MEMORY_VERSION

    def provenance(self) -> dict[str, object]:
        return {"paper": self.paper, "step": self.step, "score": self.score, "outcome": self.outcome,
                "created": self.created}


def generic_keywords(keywords: Sequence[str]) -> list[str]:
    """The retry words any paper could use; names of a paper's datasets are left out."""
    return [word for word in keywords if word in _GENERIC_KEYWORDS]


def lesson_for(step: str, codes: Sequence[str], outcome: str, first_score: float | None, score: float,
               keywords: Sequence[str] = ()) -> str:
    """Generic advice from the issues a step met; empty when it met none worth remembering."""
    parts = [LESSONS[(step, code)] for code in dict.fromkeys(codes) if (step, code) in LESSONS]
    if not parts:
        return ""
    generic = generic_keywords(keywords)
    if outcome == "improved" and first_score is not None:
        searched = f"searching for {', '.join(generic)} " if generic else ""
        parts.append(f"A retry {searched}raised the score from {first_score:.2f} to {score:.2f}.")
    return " ".join(parts)


def similarity(left: Sequence[str], right: Sequence[str]) -> float:
    """Jaccard overlap of two tag lists."""
    a, b = set(left), set(right)
    return len(a & b) / len(a | b) if a | b else 0.0


def compose_memory_block(lessons: Sequence[str], feedback: str = "") -> str:
    """The `memory_block` a prompt receives: lessons from experience, then feedback on this step."""
    parts = []
    if lessons:
        parts.append("Lessons from earlier papers:\n" + "\n".join(f"- {lesson}" for lesson in lessons))
    if feedback:
        parts.append(f"Feedback: {feedback}")
    return "\n".join(parts)


class MemoryStore:
    """Short-term experiences of the current paper and long-term ones persisted at `path` (JSONL).

    Safe to share between papers processed in parallel threads: each thread has its own short-term memory
    (its current paper's), and long-term reads and writes hold a lock."""

    def __init__(self, path: Path | None, max_age_days: float = 90.0, min_score: float = 0.5, limit: int = 3) -> None:
        self.path = Path(path) if path is not None else None
        self.max_age = timedelta(days=max_age_days)
        self.min_score = min_score
        self.limit = limit
        self._lock = threading.Lock()
        self._thread = threading.local()
        self.long: list[Experience] = self._load()

    @property
    def short(self) -> list[Experience]:
        """This thread's current paper's experiences."""
        if not hasattr(self._thread, "short"):
            self._thread.short = []
        return self._thread.short

    def __deepcopy__(self, memo: dict) -> MemoryStore:
        return self  # one store, shared by the copies of a program that parallel papers use

    def _load(self) -> list[Experience]:
        """The persisted experiences; a retirement line (`retired`: a lesson) goes to `self.retired`."""
        self.retired: list[str] = []
        if self.path is None or not self.path.is_file():
            return []
        loaded = []
        for number, line in enumerate(self.path.read_text(encoding="utf-8").split("\n"), start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
                if row.get("version") == MEMORY_VERSION and "retired" in row:
                    self.retired.append(str(row["retired"]))
                elif row.get("version") == MEMORY_VERSION:
                    experience = Experience(**row)
                    datetime.fromisoformat(experience.created)
                    loaded.append(experience)
            except (ValueError, TypeError, AttributeError):
                log.warning("%s line %d: not an experience, skipped", self.path.name, number)
        return loaded

    def retire(self, lesson: str, paper: str, step: str) -> None:
        """Retire a lesson (as sent: a compressed lesson is the start of its experience's) that made a retry worse
        in `paper`: it is never sent again, and the retirement is persisted with its provenance."""
        with self._lock:
            if lesson in self.retired:
                return
            self.retired.append(lesson)
            if self.path is not None:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                row = {"retired": lesson, "paper": paper, "step": step,
                       "created": _now().isoformat(timespec="seconds"), "version": MEMORY_VERSION}
                with self.path.open("a", encoding="utf-8") as handle:
                    handle.write(json.dumps(row, ensure_ascii=False) + "\n")

    def start_paper(self) -> None:
        """Forget the previous paper's short-term experiences (this thread's)."""
        self._thread.short = []

    def remember(self, experience: Experience) -> bool:
        """Keep `experience` for this paper; persist it when it carries a lesson. True if persisted."""
        self.short.append(experience)
        if not experience.lesson:
            return False
        with self._lock:
            self.long.append(experience)
            if self.path is not None:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                with self.path.open("a", encoding="utf-8") as handle:
                    handle.write(json.dumps(asdict(experience), ensure_ascii=False) + "\n")
        return True

    def usable(self, experience: Experience, now: datetime | None = None) -> bool:
        """Fresh, good enough, carrying a lesson, proven (a retry that acted on the lesson's issue raised the score)
        and not retired (a retry it was sent to scored lower than the attempt before). An unproven lesson is not
        injected: a retry is sent only lessons that helped a retry before."""
        created = datetime.fromisoformat(experience.created)
        fresh = (now or _now()) - created <= self.max_age
        proven = experience.outcome == "improved"
        retired = any(experience.lesson.startswith(lesson) for lesson in self.retired)
        return fresh and proven and not retired and experience.score >= self.min_score and bool(experience.lesson)

    def retrieve(self, step: str, tags: Sequence[str], now: datetime | None = None) -> list[Experience]:
        """The best experiences for `step`: most similar tags, then this paper's, then higher score, newer."""
        short_ids = {id(e) for e in self.short}
        with self._lock:
            long = list(self.long)
        pool = [e for e in [*self.short, *long] if e.step == step and self.usable(e, now)]
        ranked = sorted(pool, key=lambda e: (similarity(tags, e.tags), id(e) in short_ids, e.score, e.created),
                        reverse=True)
        chosen: dict[str, Experience] = {}
        for experience in ranked:
            chosen.setdefault(experience.lesson, experience)
        return list(chosen.values())[: self.limit]
