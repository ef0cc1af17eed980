"""The adapter that asks the server for each signature's JSON schema as its response format.

llama.cpp's server and vLLM turn a `json_schema` response format into a grammar, so a small model
can only write a parseable object of the signature's fields. DSPy sends it only for models it knows
support it, which an `openai/<alias>` model on a private server never is; this adapter always sends it.
Arrays get a `maxItems` bound so a looping list ends.
"""

from __future__ import annotations

import copy
import functools
import logging
import re
import textwrap
from collections.abc import Mapping
from typing import Any, get_args

import dspy
from dspy.adapters.json_adapter import _get_structured_outputs_response_format
from dspy.utils.exceptions import AdapterParseError

from dsminer.config import Settings

log = logging.getLogger(__name__)
MAX_ITEMS = 20


def _bound_arrays(schema: Any, max_items: int) -> None:
    """Give every array in the schema (nested ones and definitions included) at most `max_items` items."""
    if isinstance(schema, dict):
        if schema.get("type") == "array":
            schema.setdefault("maxItems", max_items)
        for value in schema.values():
            _bound_arrays(value, max_items)
    elif isinstance(schema, list):
        for value in schema:
            _bound_arrays(value, max_items)


def response_format_for(signature: type[dspy.Signature], max_items: int = MAX_ITEMS,
                        limits: Mapping[str, int] | None = None) -> dict[str, Any]:
    """The OpenAI `json_schema` response format of a signature's output fields; `limits` bounds the
    arrays of named output fields, `max_items` every other array. Built once per signature and bounds (a
    copy each call): building it takes a pydantic model and its schema."""
    return copy.deepcopy(_response_format(signature, max_items, tuple(sorted((limits or {}).items()))))


@functools.lru_cache(maxsize=128)
def _response_format(signature: type[dspy.Signature], max_items: int,
                     limits: tuple[tuple[str, int], ...]) -> dict[str, Any]:
    schema = _get_structured_outputs_response_format(signature).model_json_schema()
    for name, limit in limits:
        prop = schema.get("properties", {}).get(name)
        if isinstance(prop, dict) and prop.get("type") == "array":
            prop["maxItems"] = limit
    _bound_arrays(schema, max_items)
    return {"type": "json_schema", "json_schema": {"name": signature.__name__, "schema": schema, "strict": True}}


class SchemaJSONAdapter(dspy.JSONAdapter):
    """DSPy's JSON adapter, sending the signature's output schema as the response format on every call,
    with a shorter prompt: the grammar the server builds from the schema holds the model to the fields and
    their types, so the system message is the instruction and one line each on the inputs and the answer,
    every field with its description, and the user message ends with its last input."""

    def __init__(self, max_items: int = MAX_ITEMS, limits: Mapping[str, int] | None = None) -> None:
        super().__init__()
        self.max_items = max_items
        self.limits = dict(limits or {})

    def format_system_message(self, signature: type[dspy.Signature]) -> str:
        inputs = "; ".join(_described(f"[[ ## {name} ## ]]", field) for name, field in signature.input_fields.items())
        outputs = "; ".join(_described(f"`{name}`", field) for name, field in signature.output_fields.items())
        return (f"{textwrap.dedent(signature.instructions).strip()}\n"
                f"The inputs come in sections: {inputs}.\nAnswer with one JSON object of {outputs}.")

    def user_message_output_requirements(self, signature: type[dspy.Signature]) -> None:
        """No reminder after the inputs: the system message names the answer's keys."""
        return None

    def _prepare_response_format(self, lm: Any, lm_kwargs: dict[str, Any], signature: type[dspy.Signature]) -> None:
        try:
            lm_kwargs["response_format"] = response_format_for(signature, self.max_items, self.limits)
        except Exception as exc:  # noqa: BLE001  (a signature DSPy cannot express as a schema)
            log.debug("no schema for %s (%s); asking for a JSON object", signature.__name__, exc)
            lm_kwargs["response_format"] = {"type": "json_object"}


class OneWordAdapter(dspy.Adapter):
    """One short user message for a signature whose one output is a choice of words (a `Literal`), and the
    answer's first word as that choice.

    The message holds each input the instruction does not name, as its description and its value, then the
    instruction with the named inputs written in ("which kind of thing is "{name}" ...?") and the choices: no system
    message and no JSON, about 110 tokens around one sentence. The answer is the first of its words that is a choice
    (or begins one, where the answer ends), in either spelling ("organization" is "organisation"); an answer with
    none is a parse failure."""

    _WORD = re.compile(r"[A-Za-z]+")

    def format(self, signature: type[dspy.Signature], demos: list[dict[str, Any]],
               inputs: dict[str, Any]) -> list[dict[str, Any]]:
        (output,) = signature.output_fields
        messages = []
        for demo in demos:  # each demonstration a question and its one-word answer, before the question asked
            if all(name in demo for name in (*signature.input_fields, output)):
                messages += [{"role": "user", "content": self._question(signature, demo)},
                             {"role": "assistant", "content": str(demo[output])}]
        return [*messages, {"role": "user", "content": self._question(signature, inputs)}]

    def _question(self, signature: type[dspy.Signature], inputs: Mapping[str, Any]) -> str:
        instruction = signature.instructions
        shown = [f"{field.json_schema_extra.get('desc') or name}:\n{inputs[name]}"
                 for name, field in signature.input_fields.items() if "{" + name + "}" not in instruction]
        question = instruction.format(**{name: inputs[name] for name in signature.input_fields})
        choices = self._choices(signature)
        listed = ", ".join(choices[:-1]) + f" or {choices[-1]}" if len(choices) > 1 else choices[0]
        return "\n\n".join([*shown, f"{question} Answer with one word: {listed}."])

    def parse(self, signature: type[dspy.Signature], completion: str) -> dict[str, Any]:
        (name,) = signature.output_fields
        spelled = {choice: _spelled(choice) for choice in self._choices(signature)}
        words = [_spelled(word) for word in self._WORD.findall(completion or "")]
        for position, word in enumerate(words):
            last = position == len(words) - 1  # the answer may end inside its word
            choice = next((c for c, form in spelled.items()
                           if form == word or (last and len(word) >= 2 and form.startswith(word))), None)
            if choice is not None:
                return {name: choice}
        raise AdapterParseError(type(self).__name__, signature, completion, "the answer names none of the choices")

    @staticmethod
    def _choices(signature: type[dspy.Signature]) -> list[str]:
        (field,) = signature.output_fields.values()
        choices = [str(choice) for choice in get_args(field.annotation)]
        if not choices:
            raise TypeError(f"{signature.__name__}: its one output must be a Literal of words")
        return choices


def _spelled(word: str) -> str:
    """A word folded for comparing answers: lower case, "-ize" spelled "-ise" ("organization" is "organisation")."""
    return word.casefold().replace("iz", "is")


def _described(label: str, field: Any) -> str:
    """A field's label and its description, where it has one (DSPy's placeholder "${name}" is none)."""
    desc = (field.json_schema_extra or {}).get("desc") or ""
    return f"{label}: {desc}" if desc and not desc.startswith("${") else label


def build_adapter(settings: Settings) -> dspy.Adapter:
    """The DSPy adapter of the settings: JSON with the response schema sent (default), plain JSON, or chat."""
    from dsminer.signatures.extraction import OUTPUT_ITEM_LIMITS

    if settings.adapter == "chat":
        return dspy.ChatAdapter()
    return SchemaJSONAdapter(limits=OUTPUT_ITEM_LIMITS) if settings.backend.response_schema else dspy.JSONAdapter()
