"""Did a memory text deliver a question's evidence? What the diagnosis reads in the agent's memory.

A text *holds a value* when the value occurs in it as a whole word, stamps ignored
(``retrieval.values_present``). It *holds an event* when one of its lines contains at least
``QUOTE_SHARE`` of the distinct words of one of the event's history lines (the audit's rule for
items without line ids). It *delivers* the evidence when it holds every memory value (there being
at least one) or every event. A :class:`QuoteIndex` keeps a long text's lines indexed by word, so
that the many questions asked of one scenario memory stay fast.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from execmem.suites.vehicle.evidence import Value, value_pattern
from execmem.suites.vehicle.retrieval import MIN_QUOTE_WORDS, QUOTE_SHARE, Evidence, without_stamps, words

_SEPARATORS = re.compile(r"[\s_-]+")  # between the words of a value (see evidence.value_pattern)


class QuoteIndex:
    """The lines of a text, each as its set of words, and for every word the lines that hold it."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.raw = [line for line in text.splitlines() if line.strip()]
        self.lines = [words(line) for line in self.raw]
        self.postings: dict[str, list[int]] = defaultdict(list)
        for number, line in enumerate(self.lines):
            for word in line:
                self.postings[word].append(number)
        self._unstamped = without_stamps(text)

    def values_held(self, values: Sequence[Value]) -> list[Value]:
        """The ``values`` the text holds (``retrieval.values_present``)."""
        return [value for value in values if value_pattern(value).search(self._unstamped)]

    def quotes(self, wanted: frozenset[str]) -> bool:
        """Whether a line holds at least ``QUOTE_SHARE`` of ``wanted`` (never for short lines)."""
        return bool(self.quoting_lines(wanted, first_only=True))

    def quoting_lines(self, wanted: frozenset[str], first_only: bool = False) -> list[int]:
        """The lines holding at least ``QUOTE_SHARE`` of ``wanted`` (none for short lines).

        A line may lack at most ``spare`` of the wanted words, so it must hold one of any
        ``spare + 1`` of them: only the lines holding one of the rarest are compared."""
        if len(wanted) < MIN_QUOTE_WORDS:
            return []
        need = math.ceil(QUOTE_SHARE * len(wanted))
        spare = len(wanted) - need
        rarest = sorted(wanted, key=lambda word: len(self.postings.get(word, ())))[: spare + 1]
        found = []
        for number in sorted(set().union(*(self.postings.get(word, ()) for word in rarest))):
            if len(wanted & self.lines[number]) >= need:
                found.append(number)
                if first_only:
                    break
        return found

    def lines_holding(self, value: Value) -> list[int]:
        """The lines in which ``value`` occurs (candidates: the lines holding its first word)."""
        first = sorted(words(_SEPARATORS.split(str(value).strip())[0]))[:1]
        candidates = self.postings.get(first[0], []) if first else range(len(self.raw))
        pattern = value_pattern(value)
        return [n for n in candidates if pattern.search(without_stamps(self.raw[n]))]


@dataclass(frozen=True)
class Delivery:
    """What a text holds of one question's evidence."""

    values: tuple[Value, ...]  # the memory values it holds
    events: frozenset[int]  # the indexes of the events it holds
    delivered: bool


def delivery(index: QuoteIndex, evidence: Evidence, memory_values: Sequence[Value]) -> Delivery:
    """The memory values and events ``index``'s text holds, and whether it delivers the evidence."""
    held = tuple(index.values_held(memory_values))
    events = frozenset(
        number
        for number, lines in enumerate(evidence.events)
        if any(index.quotes(evidence.line_words[line]) for line in lines)
    )
    every_value = bool(memory_values) and len(held) == len(memory_values)
    every_event = bool(evidence.events) and len(events) == len(evidence.events)
    return Delivery(held, events, every_value or every_event)


def evidence_lines(index: QuoteIndex, evidence: Evidence, memory_values: Sequence[Value]) -> list[str]:
    """The lines of the text that hold a memory value or quote an evidence line, in text order."""
    found: set[int] = set()
    for wanted in evidence.line_words.values():
        found.update(index.quoting_lines(wanted))
    for value in memory_values:
        found.update(index.lines_holding(value))
    return [index.raw[number] for number in sorted(found)]
