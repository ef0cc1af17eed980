"""S2: the optimised agent.

Twelve atomic tools work on one paper's document state (`Workspace`): six PDF tools and three grounding
tools in pure code, three model tools (the metadata, names and details signatures S0 and S1 use). At each
step the constraints say which tools the state allows; a planner picks one (the model, with a Literal over
the allowed tools, or a fixed fallback order, which also answers when the model's choice fails or is not
allowed). The model tools run through S1's reflective loop (reflection, retries, memory). A dataset whose
details or link failed after its retries is stuck, and the section, table, keyword, page and reference tools
try to recover it. Every episode ends within its step budget with verified, normalised records.
"""
