"""Vehicle runs: the run folder, its config, the memory condition it asks for, metrics, compare, the audit."""
