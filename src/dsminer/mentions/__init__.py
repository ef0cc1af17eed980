"""The dataset-name rules, one copy each: the lexicon, candidates, cleaning, cues, the evidence model, selection, the known-dataset catalogue."""
