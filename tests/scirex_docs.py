"""Small SciREX documents built in the tests: tokens, sentences, sections, typed mentions, clusters, relations."""

from __future__ import annotations

from typing import Any

Sentences = list[tuple[str, list[tuple[str, str]]]]  # (text, [(mention, type)])


def scirex_doc(doc_id: str, sections: list[Sentences], salient: dict[str, list[str]]) -> dict[str, Any]:
    """A SciREX document of the given sections; each sentence a text of space-separated tokens with its typed
    mentions; `salient` maps each result dataset's entity name to the mention strings of its cluster."""
    words: list[str] = []
    sentence_spans, section_spans, ner = [], [], []
    for section in sections:
        section_start = len(words)
        for text, mentions in section:
            tokens = text.split()
            start = len(words)
            words.extend(tokens)
            sentence_spans.append([start, len(words)])
            for mention, kind in mentions:
                span = mention.split()
                for i in range(len(tokens) - len(span) + 1):
                    if tokens[i:i + len(span)] == span:
                        ner.append([start + i, start + i + len(span), kind])
        section_spans.append([section_start, len(words)])
    coref = {entity: [[s, e] for s, e, kind in ner if " ".join(words[s:e]) in strings]
             for entity, strings in salient.items()}
    relations = [{"Material": entity, "Method": "M", "Metric": "Accuracy", "Task": "T", "score": "1"}
                 for entity in salient]
    return {"doc_id": doc_id, "words": words, "sentences": sentence_spans, "sections": section_spans, "ner": ner,
            "coref": coref, "coref_non_salient": {}, "n_ary_relations": relations, "method_subrelations": {}}


def reef_doc(doc_id: str = "doc-reef") -> dict[str, Any]:
    """A paper that trains on ReefCount (its gold), mentions the FishNet model and names ImageNet in passing."""
    return scirex_doc(doc_id, [
        [("Counting Fish with FishNet", [("FishNet", "Method")])],
        [("section : Abstract", []),
         ("We propose FishNet , a counting model .", [("FishNet", "Method")])],
        [("section : Experiments", []),
         ("We train and evaluate FishNet on the ReefCount dataset of reef images .",
          [("FishNet", "Method"), ("ReefCount dataset", "Material")]),
         ("ReefCount contains 3 , 000 images with counts .", [("ReefCount", "Material")]),
         ("The backbone was pretrained on the ImageNet dataset , following prior work .", [("ImageNet", "Material")]),
         ("FishNet reaches 91 % Accuracy on ReefCount .", [("FishNet", "Method"), ("Accuracy", "Metric"),
                                                           ("ReefCount", "Material")])],
    ], {"ReefCount": ["ReefCount dataset", "ReefCount"]})
