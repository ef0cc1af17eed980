import dspy
import pytest
from dspy.utils import DummyLM

import dsminer.programs.compiling as optimize
from dsminer.errors import ConfigError
from dsminer.evaluation.scirex import read_document
from dsminer.evaluation.sentence_gold import SentenceExample
from dsminer.evidence.candidate_ranker import CandidateRanker, activate_candidate_ranker
from dsminer.programs.compiled import apply_program, load_program, save_program
from dsminer.programs.compiling import (
    compile_step,
    details_examples,
    dev_score,
    names_examples,
    names_metric,
    reflect_examples,
    reflect_metric,
    step_tasks,
    teaches,
)
from tests.scirex_docs import reef_doc, scirex_doc


def plain_doc(doc_id: str) -> dict:
    """A paper on the KelpScenes corpus that also names the SegNet model."""
    return scirex_doc(doc_id, [
        [("Segmenting Kelp", [])],
        [("section : Experiments", []),
         ("We train SegNet on the KelpScenes corpus of kelp images .",
          [("SegNet", "Method"), ("KelpScenes corpus", "Material")]),
         ("KelpScenes holds 500 images .", [("KelpScenes", "Material")])],
    ], {"KelpScenes": ["KelpScenes corpus", "KelpScenes"]})


@pytest.fixture(autouse=True)
def cue_candidates_only():
    """The names offered are the cue patterns' alone (a candidate ranker that finds no other phrase likelier a
    dataset than not), so that what each example teaches does not move with the bundled ranker."""
    previous = activate_candidate_ranker(CandidateRanker({}, -1.0))
    yield
    activate_candidate_ranker(previous)


@pytest.fixture
def names_reads(monkeypatch):
    """The files whose names inputs are built, in order (`names_inputs` recorded)."""
    read = []
    real = optimize.names_inputs
    monkeypatch.setattr(optimize, "names_inputs",
                        lambda paper, *args, **kwargs: read.append(paper.file_name) or real(paper, *args, **kwargs))
    return read


@pytest.fixture
def docs():
    return [read_document(reef_doc("doc-reef")), read_document(plain_doc("doc-kelp"))]


def answer(*items: tuple[str, str]) -> dict:
    return {"names": [{"name": name, "kind": kind, "role": "used"} for name, kind in items]}


def test_names_examples_hold_the_run_time_input_and_a_labelled_answer(docs):
    reef, kelp = names_examples(docs)
    assert set(reef.inputs().keys()) == {"context", "candidates"} and reef.file == "doc-reef.txt"
    assert reef.candidates == ["ReefCount", "ImageNet"]
    assert reef.names == [{"name": "ReefCount", "kind": "dataset", "role": "used"},
                          {"name": "ImageNet", "kind": "dataset", "role": "mentioned"}]
    assert kelp.names == [{"name": "KelpScenes", "kind": "dataset", "role": "used"}]
    catalogued = names_examples(docs, catalog_kinds={"imagenet": "task"})[0]  # the catalogue's kind wins
    assert catalogued.names[1] == {"name": "ImageNet", "kind": "task", "role": "mentioned"}


def test_the_names_metric_scores_what_the_shared_selection_keeps(docs):
    example = names_examples(docs)[0]
    metric = names_metric(docs, cap=5)
    assert metric(example, dspy.Prediction(names=answer(("ReefCount", "dataset"))["names"])) == 1.0
    half = metric(example, dspy.Prediction(names=answer(("ReefCount", "dataset"), ("FishNet", "dataset"))["names"]))
    assert 0.6 < half < 0.7
    assert metric(example, dspy.Prediction(names=answer(("ReefCount", "model"))["names"])) == 0.0
    feedback = metric(example, dspy.Prediction(names=[]), pred_name="names")
    assert feedback.score == 0.0 and "Missed the dataset 'ReefCount' (it is in the context)" in feedback.feedback


def test_labeled_compile_keeps_demonstrations_that_show_both_decisions(docs):
    (task,) = step_tasks("names", docs, docs, cap=5, demo_chars=1500, catalog_kinds={"imagenet": "task"})
    assert [teaches(example) for example in task.trainset] == [True, False]
    compiled = compile_step(task, "labeled", demos=1, budget=4, lm=DummyLM([]))
    assert [demo.file for demo in compiled.demos] == ["doc-reef.txt"]
    two = compile_step(task, "labeled", demos=2, budget=4, lm=DummyLM([]))  # too few show both: any with a dataset
    assert sorted(demo.file for demo in two.demos) == ["doc-kelp.txt", "doc-reef.txt"]


def test_an_optimiser_that_cannot_run_is_refused_before_any_call(docs, monkeypatch):
    (task,) = step_tasks("details", docs, docs, cap=5, demo_chars=1500)
    with pytest.raises(ConfigError, match="needs labelled examples"):
        compile_step(task, "labeled", demos=2, budget=4, lm=DummyLM([]))
    with pytest.raises(ConfigError, match="unknown optimiser"):
        compile_step(task, "sgd", demos=2, budget=4, lm=DummyLM([]))
    with pytest.raises(ConfigError, match="unknown module"):
        step_tasks("everything", docs, docs, cap=5, demo_chars=1500)
    monkeypatch.setattr("importlib.util.find_spec", lambda name, *args: None)  # optuna not installed
    with pytest.raises(ConfigError, match="mipro optimiser needs optuna"):
        compile_step(task, "mipro", demos=2, budget=4, lm=DummyLM([]))


def test_bootstrap_keeps_the_answers_that_score_well(docs):
    (task,) = step_tasks("names", docs, docs, cap=5, demo_chars=1500)
    lm = DummyLM([answer(("ReefCount", "dataset")), answer(("SegNet", "dataset"))])
    with dspy.context(lm=lm):
        compiled = compile_step(task, "bootstrap", demos=2, budget=2, lm=lm)
    assert [demo["names"][0].name for demo in compiled.demos] == ["ReefCount"]


def test_a_saved_program_reloads_and_reproduces_its_dev_score(tmp_path, docs):
    (task,) = step_tasks("names", docs, docs, cap=5, demo_chars=1500, catalog_kinds={"imagenet": "task"})
    compiled = compile_step(task, "labeled", demos=1, budget=1, lm=DummyLM([]))
    replies = [answer(("ReefCount", "dataset")), answer(("SegNet", "dataset"))]
    with dspy.context(lm=DummyLM(replies)):
        score = dev_score(compiled, task)
    path = tmp_path / "program.json"
    save_program(path, {"names": compiled}, {"model": "dummy"})
    reloaded = task.student()

    class Holder(dspy.Module):
        def __init__(self):
            super().__init__()
            self.names = reloaded

    assert apply_program(Holder(), load_program(path)) == ["names"]
    assert [demo.toDict() for demo in reloaded.demos] == [
        {k: v for k, v in demo.toDict().items() if k in ("context", "candidates", "names")} for demo in compiled.demos]
    with dspy.context(lm=DummyLM(replies)):
        assert dev_score(reloaded, task) == score == 0.5


def test_details_examples_read_each_gold_dataset_s_evidence(docs):
    examples = details_examples(docs)
    assert [ex.dataset_name for ex in examples] == ["ReefCount", "KelpScenes"]
    assert "3, 000 images" in examples[0].evidence


def test_sentence_gold_trains_the_names_step_and_is_scored_per_sentence(docs):
    sentences = [SentenceExample("We evaluate on the KelpScenes corpus and on ImageNet.", ("KelpScenes corpus",))]
    (task,) = step_tasks("names", [], docs, cap=5, demo_chars=1500, catalog_kinds={"imagenet": "task"},
                         train_sentences=sentences)
    (example,) = task.trainset
    assert example.context == "[p1] We evaluate on the KelpScenes corpus and on ImageNet."
    assert example.names == [{"name": "KelpScenes corpus", "kind": "dataset", "role": "used"},
                             {"name": "ImageNet", "kind": "task", "role": "mentioned"}]
    assert task.metric(example, dspy.Prediction(names=answer(("KelpScenes", "dataset"))["names"])) == 1.0
    wrong = task.metric(example, dspy.Prediction(names=answer(("ImageNet", "dataset"))["names"]), pred_name="names")
    assert wrong.score == 0.0 and "Missed the dataset 'KelpScenes corpus'" in wrong.feedback
    assert "'ImageNet' is not a dataset name in this sentence." in wrong.feedback
    with pytest.raises(ConfigError, match="trains on SciREX documents"):
        step_tasks("details", [], docs, cap=5, demo_chars=1500, train_sentences=sentences)


def test_reflection_examples_are_names_results_of_known_quality_as_the_agent_shows_them(docs):
    examples = reflect_examples(docs[:1], cap=5)
    # the labelled answer (ReefCount, and ImageNet which the gold counts as supported), half of its datasets,
    # and its other names as datasets (it has none: nothing kept)
    assert [ex.quality for ex in examples] == [1.0, 1.0, 0.0]
    full, _, empty = examples
    assert set(full.inputs().keys()) == {"step", "step_result", "paper_cues", "rule_issues"}
    assert full.step == "names" and full.step_result.startswith("kept: ReefCount, ImageNet")
    assert empty.step_result.startswith("kept: none") and "no dataset names" in empty.rule_issues
    assert empty.wrong == [] and empty.missed == ["ReefCount"]
    assert reflect_metric(full, dspy.Prediction(score=0.9)) == 0.9
    assert reflect_metric(empty, dspy.Prediction(score="8/10")) == 0.2
    feedback = reflect_metric(empty, dspy.Prediction(score=None), pred_name="reflector")
    assert feedback.score == 0.0 and "Missed dataset: ReefCount." in feedback.feedback
    (task,) = step_tasks("reflect", docs, docs, cap=5, demo_chars=1500)
    assert not task.labeled and len(task.devset) == 6
    student = task.student()
    assert student.signature.__name__ == "ReflectOnStep" and student.lm is None
    lm = DummyLM([{"score": 0.9, "risks": [], "suggestions": [], "search_terms": []}] * 12)
    with dspy.context(lm=lm):
        compiled = compile_step(task, "bootstrap", demos=2, budget=3, lm=lm)
    # the first two results score 1.0 against the gold, so a judged 0.9 passes; the third (0.0) would not
    assert [demo.step_result.split(";")[0] for demo in compiled.demos] == ["kept: ReefCount, ImageNet",
                                                                           "kept: ReefCount"]


def test_all_steps_read_each_dev_document_once(docs, names_reads):
    read = names_reads
    names, reflect, details = step_tasks("all", docs[:1], docs[1:], cap=5, demo_chars=1500)
    assert [task.step for task in (names, reflect, details)] == ["names", "reflect", "details"]
    # the training document twice (a demonstration's short context, the reflection's run context), the dev one once
    assert sorted(read) == ["doc-kelp.txt", "doc-reef.txt", "doc-reef.txt"]
    assert [ex.file for ex in names.devset] == ["doc-kelp.txt"] and len(reflect.devset) == 3


def test_mipro_searches_instructions_and_demonstrations_over_its_trials(docs):
    (task,) = step_tasks("reflect", docs, docs, cap=5, demo_chars=1500)
    # one answer for every signature MIPROv2 calls: the step's own, the dataset and program summaries, the
    # proposed instruction
    answer = {"score": 0.9, "risks": [], "suggestions": [], "search_terms": [], "observations": "Papers.",
              "summary": "Papers and the datasets they use.", "program_description": "Judges a step.",
              "module_description": "Judges a step.", "proposed_instruction": "Judge the names step strictly."}
    lm = DummyLM([answer] * 500)
    with dspy.context(lm=lm):
        compiled = compile_step(task, "mipro", demos=1, budget=2, lm=lm)
    # the uncompiled program's full evaluation is trial 1, then the two trials of the budget
    assert sorted(compiled.trial_logs) == [1, 2, 3]
    assert all(trial["full_eval_score"] == 50.0 for trial in compiled.trial_logs.values())
    assert compiled.signature.__name__ == "ReflectOnStep"


def test_without_training_documents_the_tasks_hold_dev_examples_only(docs):
    tasks = step_tasks("all", [], docs, cap=5, demo_chars=0)
    assert [task.step for task in tasks] == ["names", "reflect", "details"]
    assert all(not task.trainset and task.devset for task in tasks)


def test_a_collection_of_steps_builds_the_dev_names_inputs_once(docs, names_reads):
    read = names_reads
    tasks = step_tasks(("reflect", "names"), [], docs, cap=5, demo_chars=0)
    assert [task.step for task in tasks] == ["names", "reflect"]
    assert sorted(read) == sorted(doc.paper.file_name for doc in docs)
    with pytest.raises(ConfigError, match="unknown module 'everything'"):
        step_tasks(("names", "everything"), [], docs, cap=5, demo_chars=0)
