"""SIEVE's model-facing parts: the distillers (an LLM one and an extractive one that needs no model)
and the optional LLM judge of the patch-pattern screen, with their versioned prompts."""
