import json
from datetime import datetime, timedelta, timezone

import pytest

from dsminer.programs.agent.memory import (
    MEMORY_VERSION,
    Experience,
    MemoryStore,
    compose_memory_block,
    lesson_for,
    similarity,
)

NOW = datetime(2026, 3, 1, tzinfo=timezone.utc)


def experience(step="names", score=0.9, lesson="Names: a lesson.", tags=("few_datasets",), days_old=1, paper="a.pdf",
               outcome="improved"):
    created = (NOW - timedelta(days=days_old)).isoformat(timespec="seconds")
    return Experience(step, paper, score, outcome, lesson, list(tags), first_score=0.4, created=created)


@pytest.mark.parametrize(
    ("step", "codes", "outcome", "fragments", "absent"),
    [
        ("names", ["few_datasets"], "improved", ["missed datasets", "0.40 to 0.90", "table"], ["ReefSet"]),
        ("names", ["non_dataset"], "accepted", ["models, metrics or tasks"], ["raised"]),
        ("details", ["missing_fields"], "stopped", ["left empty"], ["raised"]),
        ("names", [], "accepted", [], []),
        ("details", ["model_risk"], "improved", [], []),
    ],
)
def test_lessons_are_generic(step, codes, outcome, fragments, absent):
    lesson = lesson_for(step, codes, outcome, 0.4, 0.9, ["ReefSet", "table"])
    assert bool(lesson) is bool(fragments)
    assert all(fragment in lesson for fragment in fragments)
    assert not any(word in lesson for word in absent)


@pytest.mark.parametrize(
    ("left", "right", "expected"),
    [(["a", "b"], ["a", "b"], 1.0), (["a"], ["b"], 0.0), (["a", "b"], ["b", "c"], 1 / 3), ([], [], 0.0)],
)
def test_similarity(left, right, expected):
    assert similarity(left, right) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("lessons", "feedback", "expected"),
    [
        ([], "", ""),
        (["L1"], "", "Lessons from earlier papers:\n- L1"),
        ([], "Retry.", "Feedback: Retry."),
        (["L1", "L2"], "Retry.", "Lessons from earlier papers:\n- L1\n- L2\nFeedback: Retry."),
    ],
)
def test_memory_block(lessons, feedback, expected):
    assert compose_memory_block(lessons, feedback) == expected


def test_lessons_persist_across_stores(tmp_path):
    path = tmp_path / "memory.jsonl"
    store = MemoryStore(path)
    assert store.remember(experience()) is True
    assert store.remember(experience(lesson="")) is False
    assert len(path.read_text().splitlines()) == 1
    again = MemoryStore(path)
    assert [e.lesson for e in again.retrieve("names", ["few_datasets"], NOW)] == ["Names: a lesson."]


def test_short_term_memory_is_per_paper(tmp_path):
    store = MemoryStore(None)
    store.remember(experience(lesson=""))
    store.remember(experience(step="details", lesson="Details: a lesson."))
    assert len(store.short) == 2
    store.start_paper()
    assert store.short == []
    assert [e.step for e in store.retrieve("details", [], NOW)] == ["details"]


@pytest.mark.parametrize(
    ("entry", "kept"),
    [
        (experience(), True),
        (experience(step="details"), False),
        (experience(score=0.3), False),
        (experience(days_old=400), False),
        (experience(lesson=""), False),
        (experience(outcome="accepted"), False),  # met an issue, but nothing shows that acting on it helped
        (experience(outcome="stopped"), False),
    ],
)
def test_retrieval_filters_by_step_quality_and_age(entry, kept):
    store = MemoryStore(None)
    store.long.append(entry)
    assert bool(store.retrieve("names", ["few_datasets"], NOW)) is kept


def test_retrieval_ranks_by_similarity_dedups_and_limits():
    store = MemoryStore(None, limit=2)
    store.long += [experience(lesson="far", tags=["non_dataset"], score=1.0),
                   experience(lesson="near", tags=["few_datasets", "result_tables"], score=0.6),
                   experience(lesson="near", tags=["few_datasets", "result_tables"], score=0.7, paper="b.pdf"),
                   experience(lesson="middle", tags=["few_datasets"], score=0.8)]
    found = store.retrieve("names", ["few_datasets", "result_tables"], NOW)
    assert [e.lesson for e in found] == ["near", "middle"]
    assert found[0].paper == "b.pdf"


def test_bad_and_old_format_lines_are_skipped(tmp_path):
    path = tmp_path / "memory.jsonl"
    good = json.dumps({**experience().__dict__})
    old = json.dumps({**experience().__dict__, "version": MEMORY_VERSION + 1})
    path.write_text("\n".join([good, "not json", old, json.dumps({"version": MEMORY_VERSION, "step": "x"})]) + "\n")
    assert len(MemoryStore(path).long) == 1


def test_a_retired_lesson_is_never_sent_again_and_its_retirement_persists(tmp_path):
    path = tmp_path / "memory.jsonl"
    store = MemoryStore(path)
    store.remember(experience(lesson="Names: read the tables. Then the captions."))
    store.remember(experience(lesson="Names: another lesson."))
    store.retire("Names: read the tables.", "b.pdf", "names")  # as sent: compressed to its first sentence
    assert [e.lesson for e in store.retrieve("names", ["few_datasets"], NOW)] == ["Names: another lesson."]
    row = json.loads(path.read_text().splitlines()[-1])
    assert row["retired"] == "Names: read the tables." and row["paper"] == "b.pdf" and row["step"] == "names"
    again = MemoryStore(path)
    assert [e.lesson for e in again.retrieve("names", ["few_datasets"], NOW)] == ["Names: another lesson."]
