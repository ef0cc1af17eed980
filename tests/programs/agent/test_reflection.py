import pytest

from dsminer.evidence.records import DatasetDetails
from dsminer.mentions.benchmarks import BenchmarkCues
from dsminer.programs.agent.reflection import (
    Issue,
    Reflection,
    covered,
    feedback_text,
    judge,
    parse_score,
    plan_retry,
    reflect_on_details,
    reflect_on_metadata,
    reflect_on_names,
    search_terms,
    with_model_view,
)
from dsminer.schema import PaperRefs

TEXT = "We evaluate on FooBench-10 and BarSet. Table 1: Accuracy on FooBench-10, BarSet and QuxData."
EVALUATED = BenchmarkCues(result_tables=1, evaluation_phrases=1, candidates=("FooBench-10", "BarSet", "QuxData"))
SILENT = BenchmarkCues()


@pytest.mark.parametrize(
    ("raw", "kept", "cues", "codes", "low", "diagnosable"),
    [
        ([], [], EVALUATED, ["empty"], True, True),
        ([], [], SILENT, ["empty"], False, False),
        (["FooBench-10"], ["FooBench-10"], EVALUATED, ["few_datasets"], True, True),
        (["FooBench-10", "BarSet"], ["FooBench-10", "BarSet"], EVALUATED, ["few_datasets"], False, True),
        (["FooBench-10", "BarSet", "QuxData"], ["FooBench-10", "BarSet", "QuxData"], EVALUATED, [], False, False),
        (["FooBench-10"], ["FooBench-10"], BenchmarkCues(evaluation_phrases=2), [], False, False),
        (["FooBench-10", "BarSet", "QuxData", "accuracy", "BERT-base"], ["FooBench-10", "BarSet", "QuxData"],
         EVALUATED, ["non_dataset"], False, True),
        (["FooBench-10", "BarSet", "QuxData", "Imaginary-9"], ["FooBench-10", "BarSet", "QuxData"],
         EVALUATED, ["not_in_text"], False, True),
        (["FooBench-10", "ResNet-50 model", "Made-Up-1", "Made-Up-2"], ["FooBench-10"], EVALUATED,
         ["few_datasets", "non_dataset", "not_in_text"], True, True),
        (["Smith et al., 2015", "large text dataset", "FooBench-10"], ["FooBench-10"], EVALUATED,
         ["few_datasets", "citation", "generic"], True, True),
        (["FooBench-10", "BarSet", "QuxData", "We evaluate on FooBench-10 and BarSet with many more words"],
         ["FooBench-10", "BarSet", "QuxData"], EVALUATED, ["sentence"], False, True),
        (["Smith et al., 2015", "Jones et al. 2016", "FooBench-10", "BarSet", "QuxData"],
         ["FooBench-10", "BarSet", "QuxData"], EVALUATED, ["citation"], True, True),
        (["FooBench-10", "BarSet", "QuxData", "BarSet-train BarSet-test"], ["FooBench-10", "BarSet", "QuxData"],
         EVALUATED, ["split"], False, True),
    ],
)
def test_names_reflection(raw, kept, cues, codes, low, diagnosable):
    reflection = reflect_on_names(raw, kept, TEXT, cues)
    assert reflection.codes() == codes
    assert 0.0 <= reflection.score <= 1.0
    assert (reflection.score < 0.6) is low
    assert reflection.diagnosable is diagnosable
    assert bool(reflection.suggestions) is bool(codes and diagnosable)


def test_names_left_unread_in_the_data_sections_take_the_score_under_the_threshold():
    complete = ["FooBench-10", "BarSet", "QuxData"]
    reflection = reflect_on_names(complete, complete, TEXT, EVALUATED, unread=["CoralWatch"])
    assert reflection.codes() == ["unread_data"] and reflection.score < 0.6 and reflection.diagnosable
    assert "CoralWatch" in reflection.issues[0].message and "CoralWatch" in " ".join(reflection.suggestions)
    assert reflect_on_names(complete, complete, TEXT, EVALUATED).codes() == []


def test_missing_candidates_become_retry_keywords():
    reflection = reflect_on_names(["FooBench-10"], ["FooBench-10"], TEXT, EVALUATED)
    assert reflection.keywords == ["BarSet", "QuxData"]
    assert any("BarSet" in suggestion for suggestion in reflection.suggestions)


def test_no_names_at_all_scores_lowest():
    empty = reflect_on_names([], [], TEXT, EVALUATED).score
    few = reflect_on_names(["FooBench-10"], ["FooBench-10"], TEXT, EVALUATED).score
    assert empty < few < 1.0


@pytest.mark.parametrize(
    ("candidate", "names", "expected"),
    [
        ("BarSet", ["BarSet"], True),
        ("barset", ["BarSet"], True),
        ("BarSet", ["the BarSet corpus"], True),
        ("BarSet v2 corpus", ["BarSet v2"], True),
        ("BarSet", ["BarSetX"], False),
        ("BarSet", [], False),
    ],
)
def test_covered(candidate, names, expected):
    assert covered(candidate, names) is expected


@pytest.mark.parametrize(
    ("details", "missing", "low", "diagnosable"),
    [
        (DatasetDetails("photos of reefs", "images", "marine biology", ["count"]), [], False, False),
        (DatasetDetails(None, "images", "marine biology", ["count"]), ["content"], False, True),
        (DatasetDetails("N/A", "not provided", "marine biology", ["count"]), ["content", "data_type"], True, True),
        (DatasetDetails("photos of reefs", "images", "marine biology", []), ["fields"], False, False),
        (DatasetDetails(), ["content", "data_type", "domain", "fields"], True, True),
    ],
)
def test_details_reflection(details, missing, low, diagnosable):
    reflection = reflect_on_details("ReefSet", details)
    assert reflection.codes() == (["missing_fields"] if missing else [])
    assert all(field in reflection.issues[0].message for field in missing) if missing else not reflection.issues
    assert (reflection.score < 0.6) is low
    assert reflection.diagnosable is diagnosable
    assert ("ReefSet" in reflection.keywords) is bool(missing)


@pytest.mark.parametrize(
    ("refs", "score", "diagnosable"),
    [
        (PaperRefs(title="A Title", authors=["A. Author"]), 1.0, False),
        (PaperRefs(title="A Title"), 0.7, True),
        (PaperRefs(authors=["A. Author"]), 0.5, True),
        (PaperRefs(), 0.2, True),
    ],
)
def test_metadata_reflection(refs, score, diagnosable):
    reflection = reflect_on_metadata(refs)
    assert reflection.score == pytest.approx(score)
    assert reflection.diagnosable is diagnosable


def test_score_is_clamped_to_the_unit_interval():
    assert judge([Issue("a", "x", 0.8), Issue("b", "y", 0.9)]).score == 0.0
    assert judge([]).score == 1.0


def test_a_retry_plan_looks_for_the_names_missed_and_reads_more_first_pages():
    reflection = reflect_on_names(["FooBench-10"], ["FooBench-10"], TEXT, EVALUATED)
    first, second = plan_retry(reflection, 1, 2500), plan_retry(reflection, 2, 2500)
    assert first.keywords == second.keywords == ("BarSet", "QuxData")  # no generic words: they would match anything
    assert first.max_chars > 2500 and first.feedback.startswith("Retry 1.") and second.feedback.startswith("Retry 2.")
    assert f"{reflection.score:.2f}" in first.feedback and "BarSet" in first.feedback


def test_feedback_is_empty_without_issues():
    assert feedback_text(judge([])) == ""


@pytest.mark.parametrize(
    ("value", "expected"),
    [("0.8", 0.8), (0.35, 0.35), ("80", 0.8), ("7/10", 0.7), ("score: 1", 1.0), ("high", None), (None, None)],
)
def test_parse_score(value, expected):
    assert parse_score(value) == expected


def test_search_terms_are_short_and_plain():
    terms = search_terms(["Table 2", "the experiments section of the paper", "appendix!", "", "N/A"])
    assert terms == ["Table 2", "appendix"]


def test_model_view_shapes_the_retry_but_the_rule_score_decides():
    rule = Reflection(0.9, [], [], [], "rule")
    judged = with_model_view(rule, 0.3, ["datasets in the appendix were missed"], ["read the appendix"], ["appendix"])
    assert judged.score == 0.9 and judged.model_score == 0.3 and judged.source == "llm"
    assert judged.keywords == ["appendix"] and "read the appendix" in judged.suggestions
    assert "model_risk" in judged.codes() and not judged.diagnosable


def test_model_view_adds_its_advice_to_a_rule_issue():
    rule = reflect_on_names([], [], TEXT, EVALUATED)
    judged = with_model_view(rule, 0.9, ["the results table was not read"], ["read Table 2"], ["Table 2"])
    assert judged.score == rule.score and judged.diagnosable
    feedback = plan_retry(judged, 1, 6000).feedback
    assert "the results table was not read" in feedback and "read Table 2" in feedback
    assert "Table 2" in plan_retry(judged, 1, 6000).keywords


def test_model_view_without_a_score_keeps_the_rule_score():
    rule = reflect_on_names([], [], TEXT, EVALUATED)
    judged = with_model_view(rule, None, [], [], [])
    assert judged.score == rule.score and judged.source == "rule"


def test_every_kind_of_name_problem_has_advice_for_the_retry():
    import ast
    import inspect

    from dsminer.mentions import names
    from dsminer.programs.agent import reflection

    returned = {node.value.elts[0].value for node in ast.walk(ast.parse(inspect.getsource(names.name_problem)))
                if isinstance(node, ast.Return) and isinstance(node.value, ast.Tuple)}
    assert {"citation", "platform", "fragment"} <= returned
    assert returned <= set(reflection._PROBLEM_ADVICE)


def test_a_platform_given_as_a_dataset_is_left_out_with_advice():
    reflection = reflect_on_names(["FooBench-10", "BarSet", "QuxData", "GitHub"], ["FooBench-10", "BarSet", "QuxData"],
                                  TEXT + " Code is on GitHub.", EVALUATED)
    assert "platform" in reflection.codes()
    assert any("GitHub" in hint and "host data" in hint for hint in reflection.suggestions)
