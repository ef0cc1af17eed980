import json

import dspy
import pytest

from dsminer.backend.adapter import SchemaJSONAdapter, build_adapter, response_format_for
from dsminer.config import Settings
from dsminer.signatures import ClassifyDatasetNames, DescribeDataset, ExtractPaperMetadata
from dsminer.signatures.extraction import OUTPUT_ITEM_LIMITS
from tests.fake_openai import FakeOpenAI, chat_reply


def answer_names(body):
    names = [{"name": "OrcaSet", "kind": "dataset", "role": "used"}]
    return 200, chat_reply(json.dumps({"names": names}))


def test_each_call_sends_the_signatures_schema_as_response_format():
    with FakeOpenAI([answer_names]) as fake:
        lm = dspy.LM("openai/fake-model", api_base=fake.api_base, api_key="k", cache=False)
        with dspy.context(lm=lm, adapter=SchemaJSONAdapter(limits=OUTPUT_ITEM_LIMITS)):
            result = dspy.Predict(ClassifyDatasetNames)(context="[p1] We use OrcaSet.", candidates=["OrcaSet"])
        sent = fake.requests[0]["response_format"]
    assert [(d.name, d.kind, d.role) for d in result.names] == [("OrcaSet", "dataset", "used")]
    assert sent["type"] == "json_schema" and sent["json_schema"]["name"] == "ClassifyDatasetNames"
    schema = sent["json_schema"]["schema"]
    assert schema["required"] == ["names"] and schema["properties"]["names"]["maxItems"] == OUTPUT_ITEM_LIMITS["names"]
    decision = schema["$defs"]["NameDecision"]["properties"]
    assert decision["kind"]["enum"] == ["dataset", "model", "method", "metric", "task", "other"]
    assert decision["role"]["enum"] == ["used", "created", "mentioned"]


def test_the_prompt_is_the_instruction_and_each_field_once_with_its_description():
    inputs = {"dataset_name": "OrcaSet", "evidence": "[p2] We use it."}
    system, user = SchemaJSONAdapter().format(DescribeDataset, [], inputs)
    text = system["content"]
    assert text.startswith("Describe one dataset from what the paper says about it.")
    assert "[[ ## evidence ## ]]: the paper's sentences and table lines" in text
    assert "`data_type`: kind of data, e.g. text, images" in text
    assert "Your input fields are" not in text and "In adhering" not in text  # DSPy's longer layout
    assert user["content"] == "[[ ## dataset_name ## ]]\nOrcaSet\n\n[[ ## evidence ## ]]\n[p2] We use it."
    metadata = SchemaJSONAdapter().format(ExtractPaperMetadata, [], {"first_page": "T"})[0]["content"]
    assert "; `title`;" not in metadata and "of `title`; `venue`: conference or journal" in metadata  # no "${title}"


@pytest.mark.parametrize("signature, fields", [
    (DescribeDataset, {"content", "data_type", "domain", "data_fields"}),
    (ExtractPaperMetadata, {"title", "authors", "institutions", "venue", "year"}),
])
def test_every_list_output_is_bounded(signature, fields):
    schema = response_format_for(signature, max_items=7)["json_schema"]["schema"]
    assert set(schema["properties"]) == fields
    arrays = [p for p in schema["properties"].values() if p.get("type") == "array"]
    assert arrays and all(p["maxItems"] == 7 for p in arrays)


@pytest.mark.parametrize("adapter, response_schema, kind", [
    ("json", True, SchemaJSONAdapter), ("json", False, dspy.JSONAdapter), ("chat", True, dspy.ChatAdapter),
])
def test_the_setting_chooses_the_adapter(adapter, response_schema, kind):
    built = build_adapter(Settings(adapter=adapter, backend={"response_schema": response_schema}))
    assert type(built) is kind


def test_one_word_adapter_asks_about_the_name_in_one_message_and_reads_the_first_kind_word():
    from dspy.utils.exceptions import AdapterParseError

    from dsminer.backend.adapter import OneWordAdapter
    from dsminer.signatures import CheckDatasetName

    adapter = OneWordAdapter()
    (message,) = adapter.format(CheckDatasetName, [], {"text": "We used the {X} cohort.", "name": "Q{1}"})
    assert message["role"] == "user"
    assert message["content"] == ("Text from a research paper:\nWe used the {X} cohort.\n\n"
                                  'Which kind of thing is "Q{1}" in this text? Answer with one word: dataset, '
                                  "method, model, software, metric, task, organisation, measurement, setting or other.")
    assert adapter.parse(CheckDatasetName, " Software.") == {"kind": "software"}
    assert adapter.parse(CheckDatasetName, "It is a dataset") == {"kind": "dataset"}
    assert adapter.parse(CheckDatasetName, "organis") == {"kind": "organisation"}  # cut by the output budget
    assert adapter.parse(CheckDatasetName, "Organization") == {"kind": "organisation"}  # the other spelling
    assert adapter.parse(CheckDatasetName, "organiz") == {"kind": "organisation"}
    with pytest.raises(AdapterParseError):
        adapter.parse(CheckDatasetName, "Q1")


def test_one_word_adapter_sends_each_demonstration_as_a_question_and_its_answer_before_the_question():
    from dsminer.backend.adapter import OneWordAdapter
    from dsminer.signatures import CheckDatasetName

    demos = [dspy.Example(text="Reads were deposited at the Kestrel Archive.", name="Kestrel Archive",
                          kind="organisation"),
             dspy.Example(text="A demonstration without its answer.", name="Tarn")]  # incomplete: left out
    messages = OneWordAdapter().format(CheckDatasetName, demos, {"text": "We used the Reef cohort.", "name": "Reef"})
    assert [m["role"] for m in messages] == ["user", "assistant", "user"]
    assert messages[0]["content"].startswith("Text from a research paper:\nReads were deposited at the Kestrel")
    assert messages[1]["content"] == "organisation"
    assert 'Which kind of thing is "Reef" in this text?' in messages[2]["content"]
