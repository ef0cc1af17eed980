"""Compiled programs: a step's instructions and demonstrations, saved as JSON and loaded into any condition.

A program file holds, per step (`names`, `details`, `reflect`), the instructions and demonstrations an
optimiser chose, the version of the step's signature they were compiled for, and what they were compiled
with (model, optimiser, dev scores, dsminer version). Loading puts them into the matching predictor of
whichever condition runs (S0's `names` and S1's `names` alike), so conditions stay comparable. A file
compiled for another version of a signature is refused: its demonstrations would not fit the fields.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import dspy
from pydantic_core import to_jsonable_python

from dsminer.errors import ConfigError
from dsminer.mentions.evidence_model import EvidenceModel
from dsminer.signatures import ClassifyDatasetNames, DescribeDataset, ReflectOnStep

log = logging.getLogger(__name__)

FORMAT = "dsminer-program/1"
# step -> (the attribute holding its predictor in every condition's module, the signature it is compiled for)
STEPS: dict[str, tuple[str, type[dspy.Signature]]] = {
    "names": ("names", ClassifyDatasetNames),
    "details": ("details", DescribeDataset),
    "reflect": ("reflector", ReflectOnStep),
}
BUNDLED = "default-program.json"  # the program compiled for the default local model, shipped as package data
NONE = "none"


def signature_version(signature: type[dspy.Signature]) -> str:
    """A short hash of a signature's fields (names, sides and types): what demonstrations depend on."""
    fields = [(name, "input" if name in signature.input_fields else "output", str(field.annotation))
              for name, field in signature.fields.items()]
    return hashlib.sha256(json.dumps(fields).encode()).hexdigest()[:12]


@dataclass(frozen=True)
class CompiledStep:
    """One step as compiled: its instructions and its demonstrations (field name to value)."""

    instructions: str
    demos: list[dict[str, Any]]


@dataclass(frozen=True)
class CompiledProgram:
    """A loaded program file: its steps, what it was compiled with, and the file's hash."""

    path: Path
    sha256: str
    steps: dict[str, CompiledStep]
    meta: dict[str, Any]
    evidence_model: EvidenceModel | None = None


def program_params(compiled: CompiledProgram | None) -> dict[str, str]:
    """Which compiled program a run used, as manifest entries and MLflow parameters."""
    if compiled is None:
        return {"program_file": "none", "program_sha256": "none"}
    return {"program_file": str(compiled.path), "program_sha256": compiled.sha256}


def _demo_fields(demo: Any, signature: type[dspy.Signature]) -> dict[str, Any]:
    values = demo.toDict() if hasattr(demo, "toDict") else dict(demo)
    return {name: to_jsonable_python(values[name]) for name in signature.fields if name in values}


def save_program(path: Path, predictors: Mapping[str, dspy.Predict], meta: Mapping[str, Any]) -> str:
    """Write the compiled `predictors` (step name to predictor) as a program file; return its sha256."""
    steps = {}
    for step, predictor in predictors.items():
        signature = STEPS[step][1]
        steps[step] = {
            "signature": signature.__name__,
            "signature_version": signature_version(signature),
            "instructions": predictor.signature.instructions,
            "demos": [_demo_fields(demo, signature) for demo in predictor.demos],
        }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"format": FORMAT, "meta": dict(meta), "steps": steps}, indent=1, ensure_ascii=False),
                    encoding="utf-8")
    return file_sha256(path)


def file_sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def bundled_program_path() -> Path | None:
    """The program shipped with the package for the default local model, if this version ships one."""
    resource = resources.files("dsminer.programs").joinpath(BUNDLED)
    return Path(str(resource)) if resource.is_file() else None


def resolve_program(value: str | Path | None, default_model: bool) -> Path | None:
    """The program file a run loads: `none` for none, a path as given; unset, the bundled program when the run
    uses the model it was compiled for."""
    if value is None:
        return bundled_program_path() if default_model else None
    if str(value) == NONE:
        return None
    return Path(value).absolute()  # Ray workers and resumes may start elsewhere


def load_program(path: Path) -> CompiledProgram:
    """Read and check a program file; ConfigError in one line when it is not one or does not fit this version."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"program file not found: {path}") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ConfigError(f"cannot read program file {path}: {exc}") from exc
    if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(data.get("steps"), dict):
        raise ConfigError(f"{path} is not a dsminer program file (format {FORMAT})")
    steps = {}
    for step, saved in data["steps"].items():
        if step not in STEPS or not isinstance(saved, dict):
            raise ConfigError(f"{path}: unknown step {step!r} (steps: {', '.join(STEPS)})")
        version = signature_version(STEPS[step][1])
        if saved.get("signature_version") != version:
            raise ConfigError(f"{path} was compiled for another version of the {step} step's signature "
                              f"({saved.get('signature_version')}, this dsminer has {version}): compile it again")
        steps[step] = CompiledStep(str(saved.get("instructions") or STEPS[step][1].instructions),
                                   [dict(demo) for demo in saved.get("demos") or []])
    try:
        evidence = EvidenceModel.from_json(data["selection"]) if data.get("selection") else None
    except (KeyError, TypeError, ValueError) as exc:
        raise ConfigError(f"{path}: its evidence model cannot be read ({exc}): fit it again") from None
    return CompiledProgram(path, file_sha256(path), steps, dict(data.get("meta") or {}), evidence)


def save_evidence_model(base: Path, out: Path, model: EvidenceModel) -> str:
    """Write the program file `base` to `out` with `model` as its evidence model (`selection`); its sha256."""
    load_program(base)  # checked before it is copied
    data = json.loads(base.read_text(encoding="utf-8"))
    data["selection"] = model.to_json()
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(data, indent=1, ensure_ascii=False), encoding="utf-8")
    return file_sha256(out)


def apply_program(module: dspy.Module, program: CompiledProgram) -> list[str]:
    """Put the program's instructions and demonstrations into `module`'s predictors; the steps applied.

    A step the module lacks (S0 has no reflection) is left out. An agent's predictor keeps its extra memory
    input: the instructions are the same text, and its demonstrations show that input empty. The program's
    evidence model, if it has one, weighs the module's selection."""
    applied = []
    if program.evidence_model is not None and hasattr(module, "use_evidence_model"):
        module.use_evidence_model(program.evidence_model)
        applied.append("selection")
    for step, compiled in program.steps.items():
        predictor = getattr(module, STEPS[step][0], None)
        if isinstance(predictor, dspy.Predict):
            apply_step(predictor, step, compiled)
            applied.append(step)
    log.info("program %s: compiled %s", program.path, ", ".join(applied) or "no step of this condition")
    return applied


def apply_step(predictor: dspy.Predict, step: str, compiled: CompiledStep) -> None:
    """Give `predictor` (the `step`'s, of any condition) the compiled instructions and demonstrations."""
    predictor.signature = predictor.signature.with_instructions(compiled.instructions)
    extra = {name: "" for name in predictor.signature.input_fields if name not in STEPS[step][1].input_fields}
    predictor.demos = [dspy.Example(**extra, **demo) for demo in compiled.demos]
