"""Model-free evaluation of runs: loading, summaries, gold scoring, comparison, audit sheets, MLflow logging."""
