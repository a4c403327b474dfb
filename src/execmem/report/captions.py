"""Each chart's title and the question it answers, shown above it (and in docs/report.md)."""

from __future__ import annotations

CAPTIONS: dict[str, tuple[str, str]] = {
    "leaderboard-esm": (
        "ESM per run",
        "Which memory makes the agent act correctly most often, and how sure is that?",
    ),
    "esm-by-type": (
        "ESM by reasoning type",
        "Which kinds of memory question does each run fail: conflicts between people, conditions, "
        "references, changes, corrections?",
    ),
    "value-field": (
        "Value F1 against field F1",
        "Did memory know where to act but not what to set? Points below the diagonal changed the right "
        "fields to the wrong values.",
    ),
    "esm-memtoken": (
        "ESM against MemToken",
        "Does more memory text buy better actions? One point per run: up is better, left is cheaper.",
    ),
    "audit-recall": (
        "Retrieval audit: evidence recall@K",
        "Does the memory system bring back the history lines a question depends on, without any agent? "
        "Dashed: the oracle query (the gold memory's own words), the retriever's ceiling.",
    ),
    "diagnosis": (
        "Why episodes failed",
        "Where did the chain from history to car first break: the memory (not stored, not retrieved), "
        "the reader (not used) or the car handling?",
    ),
    "diagnosis-by-type": (
        "Why episodes failed, by reasoning type",
        "The same breakdown within each reasoning type of each run.",
    ),
    "paired": (
        "Paired differences",
        "Is a run better than the baseline on the same questions, or within chance?",
    ),
    "coding-resolved": (
        "Resolved per condition",
        "How often does the solver fix the task with each memory condition?",
    ),
    "coding-effects": (
        "Paired effects of memory",
        "Does the memory help beyond having any text in the slot? record − off should exclude 0, and "
        "irrelevant − off should not show the same gain.",
    ),
}
