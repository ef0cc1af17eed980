"""Model-free tools: PDF text, URLs, sentences, links and dataset-name cleaning."""
