"""The coding suite: does memory help a coding agent fix real repositories?

Tasks follow the SWE-bench record format (``tasks``); each episode gets its own
copy of the repository (``workspace``), agent commands run in a sandbox
(``sandbox``), and a task is resolved when its JUnit report (``reports``) shows
every FAIL_TO_PASS test passing and every PASS_TO_PASS test still passing.
``builder`` makes the built-in offline task set from real PyPI sdists.
"""
