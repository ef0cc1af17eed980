"""Contracts of the reflective agent: the extraction steps with a memory block, and reflection on a step.

The memory-block variants keep the paper context first and add the block last, so the prefix a
serving engine caches is the same as without memory. An attempt with nothing in its block is asked
without it (`without_memory_block`), as the workflow asks.
"""

from __future__ import annotations

import dspy

from dsminer.signatures.extraction import ClassifyDatasetNames, DescribeDataset, ExtractPaperMetadata


def with_memory_block(signature: type[dspy.Signature]) -> type[dspy.Signature]:
    """`signature` with a last input `memory_block`, same instructions, named `<Name>WithMemory`."""
    block = dspy.InputField(desc="lessons from earlier papers and feedback on a previous attempt at this step; "
                                 "may be empty")
    appended = signature.append("memory_block", block, type_=str)
    name = f"{signature.__name__}WithMemory"
    return dspy.Signature(dict(appended.fields), signature.instructions, signature_name=name)


def without_memory_block(signature: type[dspy.Signature]) -> type[dspy.Signature]:
    """`signature` without its `memory_block` input and with its own instructions (a compiled program's,
    when one was loaded), named as the signature it was made from: a prompt word for word the workflow's."""
    kept = signature.delete("memory_block")
    name = signature.__name__.removesuffix("WithMemory")
    return dspy.Signature(dict(kept.fields), signature.instructions, signature_name=name)


ExtractPaperMetadataWithMemory = with_memory_block(ExtractPaperMetadata)
ClassifyDatasetNamesWithMemory = with_memory_block(ClassifyDatasetNames)
DescribeDatasetWithMemory = with_memory_block(DescribeDataset)


class ReflectOnStep(dspy.Signature):
    """Judge one step of extracting the datasets a paper uses, from the step's result and the problems
    rule checks found. Score its quality, name what may be wrong or missing, and say how a retry should
    search the paper differently (sections, table captions, words)."""

    step: str = dspy.InputField(desc="metadata, names or details")
    step_result: str = dspy.InputField(desc="what the step produced")
    paper_cues: str = dspy.InputField(desc="what the paper's text shows about its experiments")
    rule_issues: str = dspy.InputField(desc="problems found by rule checks, one a line, or none")
    score: float = dspy.OutputField(desc="quality from 0.0 (wrong or empty) to 1.0 (complete and correct)")
    risks: list[str] = dspy.OutputField(desc="what may be wrong or missing")
    suggestions: list[str] = dspy.OutputField(desc="how a retry should change")
    search_terms: list[str] = dspy.OutputField(desc="words or section names a retry should search the paper for")
