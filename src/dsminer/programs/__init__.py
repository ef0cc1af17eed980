"""DSPy modules, one per condition, all producing `DatasetRecord`s for one parsed paper."""
