"""Where agent commands and tests run: the ``Sandbox`` protocol and ``make_sandbox`` (``base``), the
kinds (``bubblewrap``, ``docker``, ``local``), their typed settings (``config``), who commands run
as and under which limits (``launcher``), and running one capped, time-limited process (``process``)."""
