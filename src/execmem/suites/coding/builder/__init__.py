"""The built-in offline task set: real libraries (``repos``), their tests run under coverage
(``testrun``), bugs injected by AST mutations (``operators``, ``mutations``, ``candidates``),
issue texts written from the failures (``statements``), every task validated end to end
(``validation``), synthetic same-family histories for some targets (``families``); ``build`` runs it
all and ``stats`` says what it cost."""
