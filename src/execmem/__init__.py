"""execmem: executable benchmarks for agent long-term memory."""

__version__ = "0.1.0"
