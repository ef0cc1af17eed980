"""What the model reads of a paper, and how a record is built and grounded on the paper's text."""
