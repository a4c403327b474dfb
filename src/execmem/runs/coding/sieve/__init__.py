"""SIEVE: which targets have a useful experience in their history? Four resumable stages (source
validation, patch-pattern screen, history execution and distillation, uplift verification and
freeze), each a content-addressed folder with its provenance, then the funnel (docs/sieve.md)."""
