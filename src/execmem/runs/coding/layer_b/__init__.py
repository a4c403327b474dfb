"""Layer B: a registered memory system ingests each target's eligible history (a SIEVE output) and a
declared query selects the records injected through the one memory slot (docs/layer_b.md)."""
