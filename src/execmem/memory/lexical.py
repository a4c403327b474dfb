"""Okapi BM25 over a fixed list of short documents, in numpy, with weighted query terms.

The ``fusion`` memory builds one per user space from the units stored in SQLite (the file stays
the state of record; this is a derived, in-process index). Unlike FTS5's ``bm25()``, a query
here is a bag of *weighted* terms, which query feedback needs (terms it adds count less than the
asked ones). ``idf`` is the usual ``log(1 + (N - n + 0.5) / (n + 0.5))``, never negative.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence

import numpy as np

K1 = 1.2
B = 0.75


class Bm25Index:
    """Term -> (document indexes, term counts), plus the length of every document."""

    def __init__(self, documents: Sequence[Sequence[str]]):
        self.size = len(documents)
        self.lengths = np.array([len(doc) for doc in documents], dtype=np.float64)
        self._average = float(self.lengths.mean()) if self.size else 0.0
        postings: dict[str, list[tuple[int, int]]] = {}
        for position, doc in enumerate(documents):
            for term, count in Counter(doc).items():
                postings.setdefault(term, []).append((position, count))
        self._postings = {
            term: (np.array([p for p, _ in pairs]), np.array([c for _, c in pairs], dtype=np.float64))
            for term, pairs in postings.items()
        }

    def idf(self, term: str) -> float:
        found = len(self._postings[term][0]) if term in self._postings else 0
        return math.log(1.0 + (self.size - found + 0.5) / (found + 0.5))

    def scores(self, weights: Mapping[str, float]) -> np.ndarray:
        """BM25 of every document for the weighted terms (0 for documents with none of them)."""
        total = np.zeros(self.size)
        if not self.size:
            return total
        norm = K1 * (1.0 - B + B * self.lengths / self._average)
        for term, weight in weights.items():
            if term not in self._postings or weight == 0:
                continue
            where, counts = self._postings[term]
            total[where] += weight * self.idf(term) * counts * (K1 + 1.0) / (counts + norm[where])
        return total
