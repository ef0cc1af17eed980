"""The run machinery: the harness over a corpus, the run directory, events, usage, faults and MLflow."""
