"""Scoring an episode: ``evaluate`` (the one way), the files it leaves out (``protected``), the
one-off plugin that runs only the declared tests (``selection``), reading pytest's JUnit report
(``junit``) and the checks that make a report suspect (``integrity``)."""
