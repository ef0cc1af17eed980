"""Language-model backends: the embedded local model server and OpenAI-compatible endpoints."""
