"""The paper as a document: PDF text, sentences, tables, sections, references and links. No dataset-name rules."""
