"""The reflective agent (S1a, S1b): its controller, its step tools, rule reflection and memory."""
