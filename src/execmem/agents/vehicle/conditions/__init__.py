"""The memory conditions of the vehicle agent: what it knows of a scenario's history, and how.

``base`` holds what they share; ``prompt`` the text conditions (none, gold, full-history);
``summary`` and ``key_value`` the model-built memories in execmem's style, ``summary_release`` and
``key_value_release`` in the VehicleMemBench release's (both cached by ``build_cache``);
``memory_system`` protocol B, any registered memory system searched through ``memory_search``
after ``ingest`` wrote the history into it.
"""
