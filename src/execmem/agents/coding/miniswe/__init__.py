"""mini-swe-agent 2.x as a coding solver (``pip install "execmem[miniswe]"``).

Its own agent loop (``DefaultAgent``) and prompts (its ``mini.yaml``), with execmem's sandbox as its
environment (``environment``), execmem's client behind its model protocol (``model``: budgets,
seeds, token accounting and the response cache as for the built-in solver), and the one memory
slot at the top of its first user message (``solver``).
"""
