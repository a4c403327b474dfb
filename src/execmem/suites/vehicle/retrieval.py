"""One retrieval judged against a question's located evidence: the audit's per-question numbers.

An item *hits* a gold event when its source line ids overlap the event's placed lines. Items
without line sources are judged on their text instead: each text line (segment) of the item
*quotes* a history line when it contains at least ``QUOTE_SHARE`` of that line's distinct words
(lines of fewer than ``MIN_QUOTE_WORDS`` words are too short to tell and are never quoted); the
item hits the events whose lines it quotes.

*Noise* is the share of retrieved tokens that come from no evidence line: with line ids, the
item's tokens are split over its source lines in proportion to their size in the history; without,
the segments that quote no evidence line are noise. Tokens are ``estimate_tokens`` (4 characters
each), the yardstick of every MemToken in execmem.

Beside the share of events hit (evidence recall), three figures look at *which* events were hit:
all-events recall (1 when every event is hit), latest-event recall (1 when the most recent event
is hit) and *stale* (1 when an earlier event is hit but not the latest: the memory offers a
preference that was later changed; undefined for questions whose events all share one time).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from execmem.core.protocols import MemoryItem
from execmem.core.tokens import estimate_tokens
from execmem.suites.vehicle.evidence import PlacedEvent, Value, value_pattern

QUOTE_SHARE = 0.8
MIN_QUOTE_WORDS = 3
METRICS = ("evidence_recall", "value_coverage", "noise", "memtoken")
EVENT_METRICS = ("all_events_recall", "latest_event_recall", "stale")
BUDGET_METRICS = ("budget_recall", "budget_tokens")
_WORD = re.compile(r"\w+")
# Stamps that memory text carries; their digits are not values ("15" in 2025-04-15): history line
# stamps, the time spans search results are led by, and the gold memory's "[April 15, 2025]".
_TIME = r"\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(?::\d{2})?"
_STAMP = re.compile(rf"\[{_TIME}(?: - {_TIME})?\]|\[[A-Za-z]+ \d{{1,2}}, \d{{4}}\]")


def words(text: str) -> frozenset[str]:
    return frozenset(_WORD.findall(text.lower()))


@dataclass(frozen=True)
class Evidence:
    """What one question's retrieval is judged against."""

    events: tuple[frozenset[int], ...]  # placed line ids of each gold event
    values: tuple[Value, ...]
    line_tokens: Mapping[int, int]  # estimated tokens of every history line of the scenario
    line_words: Mapping[int, frozenset[str]]  # words of each evidence line (for items without ids)
    text: str = ""  # the evidence lines' spoken text, in history order
    latest: frozenset[int] = frozenset()  # indexes of the most recent event(s)

    @property
    def lines(self) -> frozenset[int]:
        return frozenset().union(*self.events)


def make_evidence(
    placed: Sequence[PlacedEvent],
    values: Sequence[Value],
    line_texts: Mapping[int, str],
    line_tokens: Mapping[int, int],
) -> Evidence:
    """``line_texts``: the spoken text of each history line; ``line_tokens``: each line's size."""
    events = tuple(frozenset(p.line_ids) for p in placed)
    evidence_lines = frozenset().union(*events)
    line_words = {line: words(line_texts[line]) for line in evidence_lines}
    text = "\n".join(line_texts[line] for line in sorted(evidence_lines))
    return Evidence(events, tuple(values), line_tokens, line_words, text, latest_events(placed))


def latest_events(placed: Sequence[PlacedEvent]) -> frozenset[int]:
    """Indexes of the events stamped at the latest time (one, unless several share it)."""
    if not placed:
        return frozenset()
    last = max(p.event.when for p in placed)
    return frozenset(i for i, p in enumerate(placed) if p.event.when == last)


@dataclass(frozen=True)
class Judged:
    """One item as the metrics see it."""

    events: frozenset[int]  # indexes of the gold events it hits
    tokens: int
    noise_tokens: float


def judge(item: MemoryItem, evidence: Evidence) -> Judged:
    tokens = estimate_tokens(item.text)
    if item.line_ids:
        return _judge_by_lines(item.line_ids, tokens, evidence)
    return _judge_by_text(item.text, tokens, evidence)


def _judge_by_lines(line_ids: Sequence[int], tokens: int, evidence: Evidence) -> Judged:
    ids = set(line_ids)
    hits = frozenset(i for i, lines in enumerate(evidence.events) if lines & ids)
    sizes = {line: evidence.line_tokens.get(line, 0) for line in ids}
    total = sum(sizes.values())
    outside = sum(size for line, size in sizes.items() if line not in evidence.lines)
    share = outside / total if total else 1.0  # lines unknown to the scenario are not evidence
    return Judged(hits, tokens, tokens * share)


def _judge_by_text(text: str, tokens: int, evidence: Evidence) -> Judged:
    quoted: set[int] = set()
    noise = total = 0
    for segment in filter(str.strip, text.splitlines()):
        found = quoted_lines(segment, evidence.line_words)
        size = estimate_tokens(segment)
        total += size
        noise += 0 if found else size
        quoted |= found
    hits = frozenset(i for i, lines in enumerate(evidence.events) if lines & quoted)
    return Judged(hits, tokens, tokens * noise / total if total else 0.0)


def quoted_lines(segment: str, line_words: Mapping[int, frozenset[str]]) -> set[int]:
    """The lines whose words the segment contains (at least ``QUOTE_SHARE`` of them)."""
    have = words(segment)
    return {
        line
        for line, want in line_words.items()
        if len(want) >= MIN_QUOTE_WORDS and len(want & have) >= QUOTE_SHARE * len(want)
    }


def judge_all(items: Sequence[MemoryItem], evidence: Evidence) -> list[Judged]:
    return [judge(item, evidence) for item in items]


def score(
    items: Sequence[MemoryItem],
    evidence: Evidence,
    ks: Sequence[int],
    judged: Sequence[Judged] | None = None,
) -> dict[str, float | None]:
    """``metric@K`` for every metric and K (``METRICS``, then ``EVENT_METRICS``); None where a metric
    is undefined (no values, no text, no earlier event). ``judged``: the items already judged."""
    judged = judge_all(items, evidence) if judged is None else judged
    result: dict[str, float | None] = {}
    for k in ks:
        top = judged[:k]
        tokens = sum(j.tokens for j in top)
        hit = frozenset().union(*(j.events for j in top))
        result[f"evidence_recall@{k}"] = _share(len(hit), len(evidence.events))
        result[f"value_coverage@{k}"] = value_share(evidence.values, "\n".join(i.text for i in items[:k]))
        result[f"noise@{k}"] = _share(sum(j.noise_tokens for j in top), tokens)
        result[f"memtoken@{k}"] = tokens
    for k in ks:
        hit = frozenset().union(*(j.events for j in judged[:k]))
        result.update({f"{name}@{k}": value for name, value in event_scores(hit, evidence).items()})
    return result


def event_scores(hit: frozenset[int], evidence: Evidence) -> dict[str, float | None]:
    """All-events recall, latest-event recall and stale for the events ``hit`` (see the module doc)."""
    if not evidence.events:
        return dict.fromkeys(EVENT_METRICS)
    earlier = frozenset(range(len(evidence.events))) - evidence.latest
    latest_hit = bool(hit & evidence.latest)
    return {
        "all_events_recall": float(len(hit) == len(evidence.events)),
        "latest_event_recall": float(latest_hit),
        "stale": float(bool(hit & earlier) and not latest_hit) if earlier else None,
    }


def value_share(values: Sequence[Value], text: str) -> float | None:
    """The share of ``values`` present in ``text`` (stamps ignored); None without values."""
    return _share(len(values_present(values, text)), len(values))


def values_present(values: Sequence[Value], text: str) -> list[Value]:
    """The ``values`` that occur in ``text`` (see ``evidence.value_pattern``), stamps ignored."""
    text = without_stamps(text)
    return [v for v in values if value_pattern(v).search(text)]


def without_stamps(text: str) -> str:
    """``text`` with its time stamps and event dates blanked out."""
    return _STAMP.sub(" ", text)


def _share(part: float, whole: float) -> float | None:
    return part / whole if whole else None


# ------------------------------------------------------------------ token budgets


def score_budgets(
    items: Sequence[MemoryItem],
    evidence: Evidence,
    budgets: Sequence[int],
    judged: Sequence[Judged] | None = None,
) -> dict[str, float | None]:
    """Evidence recall within a token budget, for each budget B.

    The items are taken in rank order while their running total of tokens stays within B; the
    first item that would go over B ends the list (it does not count, not even in part, and no
    later, smaller item is taken in its place). ``budget_recall@B`` is the share of gold events
    those items hit, ``budget_tokens@B`` the tokens they hold. Only the items the search returned
    are considered, so a budget larger than the largest K's items is not filled.
    """
    judged = judge_all(items, evidence) if judged is None else judged
    result: dict[str, float | None] = {}
    for budget in budgets:
        taken = within_budget([j.tokens for j in judged], budget)
        hit = frozenset().union(*(j.events for j in judged[:taken]))
        result[f"budget_recall@{budget}"] = _share(len(hit), len(evidence.events))
        result[f"budget_tokens@{budget}"] = sum(j.tokens for j in judged[:taken])
    return result


def within_budget(sizes: Sequence[int], budget: int) -> int:
    """How many leading sizes fit in ``budget`` together."""
    total = 0
    for count, size in enumerate(sizes):
        total += size
        if total > budget:
            return count
    return len(sizes)
