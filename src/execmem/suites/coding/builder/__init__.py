"""The built-in offline task set: real libraries (``repos``), their tests run under coverage
(``testrun``), bugs injected by AST mutations (``operators``, ``mutations``, ``candidates``),
issue texts written from the failures (``statements``), every task validated end to end
(``validation``); ``build`` runs it all."""
