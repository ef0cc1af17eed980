import json

import dspy
import pytest

from dsminer.config import DEFAULT_LOCAL_MODEL, Settings
from dsminer.errors import ConfigError
from dsminer.programs.compiled import (
    apply_program,
    bundled_program_path,
    load_program,
    program_params,
    resolve_program,
    save_program,
    signature_version,
)
from dsminer.programs.registry import build_program
from dsminer.signatures import ClassifyDatasetNames, ClassifyDatasetNamesWithMemory

DEMO = {"context": "[p2] We evaluate on the KelpScenes corpus.", "candidates": ["KelpScenes", "SegNet"],
        "names": [{"name": "KelpScenes", "kind": "dataset", "role": "used"},
                  {"name": "SegNet", "kind": "model", "role": "mentioned"}]}


@pytest.fixture
def program_file(tmp_path):
    predictor = dspy.Predict(ClassifyDatasetNames)
    predictor.signature = predictor.signature.with_instructions("Find the datasets; models are not datasets.")
    predictor.demos = [dspy.Example(**DEMO, file="kelp.txt")]
    path = tmp_path / "program.json"
    save_program(path, {"names": predictor}, {"model": "dummy", "optimizer": "labeled"})
    return path


def test_a_program_file_holds_each_step_s_instructions_demos_and_signature_version(program_file):
    saved = json.loads(program_file.read_text())
    step = saved["steps"]["names"]
    assert step["signature_version"] == signature_version(ClassifyDatasetNames)
    assert step["demos"] == [DEMO]  # only the signature's fields
    program = load_program(program_file)
    assert program.meta["optimizer"] == "labeled" and len(program.sha256) == 64
    assert program_params(program) == {"program_file": str(program_file), "program_sha256": program.sha256}
    assert program_params(None) == {"program_file": "none", "program_sha256": "none"}


def test_the_same_program_goes_into_s0_and_into_the_agent_with_its_memory_input_empty(program_file, tmp_path):
    program = load_program(program_file)
    s0 = build_program(Settings(condition="s0", program="none"))
    assert apply_program(s0, program) == ["names"]
    assert s0.names.signature.instructions == "Find the datasets; models are not datasets."
    assert s0.names.demos[0].toDict() == DEMO
    agent = build_program(Settings(condition="s1a", program=str(program_file), out_dir=tmp_path / "run"))
    assert agent.compiled.sha256 == program.sha256
    assert agent.names.signature.instructions == "Find the datasets; models are not datasets."
    assert agent.names.signature.fields.keys() == ClassifyDatasetNamesWithMemory.fields.keys()
    assert agent.names.demos[0].toDict() == {"memory_block": "", **DEMO}
    assert agent.details.demos == []


def test_a_program_for_another_signature_version_is_refused_in_one_line(program_file):
    saved = json.loads(program_file.read_text())
    saved["steps"]["names"]["signature_version"] = "0123456789ab"
    program_file.write_text(json.dumps(saved))
    with pytest.raises(ConfigError, match=r"compiled for another version of the names step's signature") as caught:
        load_program(program_file)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize("content, fragment", [
    ("{not json", "cannot read program file"),
    ('{"format": "other", "steps": {}}', "is not a dsminer program file"),
    ('{"format": "dsminer-program/1", "steps": {"plan": {}}}', "unknown step 'plan'"),
])
def test_a_bad_program_file_is_one_line(tmp_path, content, fragment):
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(ConfigError, match=fragment):
        load_program(path)
    with pytest.raises(ConfigError, match="program file not found"):
        load_program(tmp_path / "missing.json")


def test_which_program_a_run_loads(tmp_path, monkeypatch):
    assert resolve_program("none", default_model=True) is None
    assert resolve_program(str(tmp_path / "p.json"), default_model=False) == tmp_path / "p.json"
    monkeypatch.chdir(tmp_path)
    assert resolve_program("p.json", default_model=False) == tmp_path / "p.json"
    assert resolve_program(None, default_model=False) is None
    monkeypatch.setattr("dsminer.programs.compiled.bundled_program_path", lambda: tmp_path / "bundled.json")
    assert resolve_program(None, default_model=True) == tmp_path / "bundled.json"


def test_a_bundled_program_is_the_default_model_s_default_and_other_models_run_uncompiled(monkeypatch, program_file):
    monkeypatch.setattr("dsminer.programs.compiled.bundled_program_path", lambda: program_file)
    assert build_program(Settings(condition="s0")).compiled.path == program_file
    assert build_program(Settings(condition="s0", program="none")).compiled is None
    openai = Settings(condition="s0", backend={"kind": "openai", "api_base": "http://127.0.0.1:9/v1", "model": "m"})
    assert build_program(openai).compiled is None


def test_the_bundled_program_fits_this_version_s_signatures_and_beat_the_uncompiled_steps():
    path = bundled_program_path()
    assert path is not None
    program = load_program(path)  # refused if a signature changed since it was compiled: compile it again
    assert program.meta["model"] == DEFAULT_LOCAL_MODEL and program.meta["backend"] == "local"
    assert program.steps and all(step.demos for step in program.steps.values())
    for step in program.steps:
        for scores in (program.meta["dev_scores"][step], program.meta["held_out_scores"][step]):
            assert scores["compiled"] > scores["uncompiled"]
    agent = build_program(Settings(condition="s1b", agent={"memory": False}))
    assert agent.compiled.path == path and len(agent.reflector.demos) == len(program.steps["reflect"].demos)
