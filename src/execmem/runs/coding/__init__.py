"""Coding runs: the paired protocol's config and manifest, one episode, the run folder, metrics, compare."""
