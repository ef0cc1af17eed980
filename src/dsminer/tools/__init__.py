"""The atomic tools the agents call, each thin over the libraries below: reading a page, sections, tables,
keywords and references (`reading.py`); link search, the evidence check and the normalisation (`checking.py`);
all over one paper's document state (`workspace.py`)."""
