"""Adapters to outside memory systems, one module each, each behind its own extra (docs/adapters.md).

``common`` holds what they share: the source record written next to stored memories, the
``before`` cut-off, and ids the systems accept.
"""
