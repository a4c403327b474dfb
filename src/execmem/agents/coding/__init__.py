"""The coding solver: a small fixed agent with one ``bash`` tool, run in an episode's sandbox.

``prompts`` holds the versioned prompt (with its single memory slot), ``bash_tool``
the tool, ``config`` the budgets and ``solver`` the loop. The solver never sees a
task object beyond its problem statement, and memory only through the slot.
"""
