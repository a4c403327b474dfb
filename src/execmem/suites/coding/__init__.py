"""The coding suite: does memory help a coding agent fix real repositories?

Tasks follow the SWE-bench record format (``tasks``); each episode gets its own copy of the
repository at the task's base state (``workspace``, from ``sources`` with ``gitrepo``) and a venv
of its test dependencies (``venvs``); agent commands run in a sandbox (``sandbox/``); an episode
is scored one way, ``evaluation.evaluate.evaluate``: resolved when its JUnit report shows every
FAIL_TO_PASS test passing and every PASS_TO_PASS test still passing (``evaluation/``). ``records``
writes the memory a paired run injects; ``builder/`` makes the built-in offline task set from real
PyPI sdists (``pypi``).
"""
