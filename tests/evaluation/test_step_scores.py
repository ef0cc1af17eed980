from dsminer.evaluation.gold import GoldDataset, GoldPaper
from dsminer.evaluation.step_scores import names_feedback, score_details, score_names
from dsminer.evidence.records import DatasetDetails
from dsminer.mentions.selection import ChosenDataset

GOLD = GoldPaper("p.txt", "P", [GoldDataset("ReefCount", ("ReefCount dataset",)), GoldDataset("FishSet")],
                 {"ImageNet": 1})


def chosen(*names: str, aliases: tuple[str, ...] = ()) -> list[ChosenDataset]:
    return [ChosenDataset(name, aliases, "used", 1) for name in names]


def test_names_score_counts_gold_by_alias_and_material_mentions_as_supported():
    score = score_names(chosen("ReefCount dataset", "ImageNet", "FishNet"), GOLD)
    assert (score.recalled, score.correct, score.supported, score.wrong) == (1, 1, 1, ("FishNet",))
    assert score.missed == ("FishSet",)
    assert score.recall == 0.5 and round(score.precision_lenient, 3) == 0.667
    assert round(score.value, 3) == 0.571


def test_names_score_of_a_perfect_and_an_empty_answer():
    assert score_names(chosen("ReefCount", "FishSet"), GOLD).value == 1.0
    assert score_names([], GOLD).value == 0.0
    assert score_names([], GoldPaper("q.txt", None, [])).value == 1.0


def test_feedback_says_what_was_missed_and_what_the_wrong_names_are():
    score = score_names(chosen("FishNet"), GOLD)
    feedback = names_feedback(score, {"FishNet": "method"}.get, "we train on ReefCount")
    assert "Missed the dataset 'ReefCount' (it is in the context)" in feedback
    assert "Missed the dataset 'FishSet' (it is not in the context)" in feedback
    assert "'FishNet' is not a dataset of this paper: it is a method." in feedback


def test_details_score_is_completeness_and_grounding():
    evidence = "ReefCount holds 3,000 underwater reef images annotated with fish counts."
    grounded = DatasetDetails("underwater reef images with fish counts", "images", "marine ecology", ["counts"])
    score, feedback = score_details(grounded, evidence)
    assert score > 0.8 and "Empty" not in feedback
    invented, feedback = score_details(DatasetDetails("satellite photographs of forests", None, None, []), evidence)
    assert invented < 0.2
    assert "Empty: data_type, domain, data_fields" in feedback and "satellite" in feedback


def test_a_data_type_the_evidence_has_no_cue_of_halves_the_score():
    evidence = "Cityscapes, a large-scale dataset of real-world street imagery with pixel annotations (Table 2)."
    content = "street imagery with pixel annotations"
    right, _ = score_details(DatasetDetails(content, "images", "", []), evidence)
    wrong, feedback = score_details(DatasetDetails(content, "tabular", "", []), evidence)
    assert right == 0.75 and wrong == 0.375
    assert "The evidence says nothing of tabular data" in feedback
    unknown, _ = score_details(DatasetDetails(content, "mixed", "", []), evidence)
    assert unknown == right
