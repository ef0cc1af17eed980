"""Running a condition over a corpus: the harness, one paper through a program, PDF parsing ahead of the model,
usage metering, DSPy tracing and the Ray executor. The run directory (`dsminer.store`), the event log
(`dsminer.events`), the faults (`dsminer.faults`) and MLflow tracking (`dsminer.tracking`) sit below it."""
