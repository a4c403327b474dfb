"""Where a question's gold memory happened in the scenario's history, and what values it must yield.

A question's ``gold_memory`` is a few *events*, each opening a line with its date and clock time:
``[April 15, 2025] At 9:00 AM, Justin drove alone and set the panel to blue...``. An event is
*placed* on the history lines of the same calendar day stamped from its minute up to
``window_minutes`` later (inclusive). Across the release, the history line that best matches an
event's words sits 0 (941 events), 1 (66), 2 (13) or 3 (2) minutes after its stamp; the dialogue
runs about two lines a minute, so a 5-minute window catches the event's own turns with a margin
while adding little unrelated chatter. Ten events have no line at their exact minute: their
conversation starts one or two minutes later, which the window also covers.

Placement is by time only: it never looks at the words, so it cannot be tuned to a retriever.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from execmem.suites.vehicle.dataset import HistoryLine, Question

EVENT_WINDOW_MINUTES = 5
MONTHS = (
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
)
_DATE = re.compile(r"^\[(?P<month>[A-Za-z]+) (?P<day>\d{1,2}), (?P<year>\d{4})\]", re.MULTILINE)
# A stray quote before "At" occurs twice in the release ("[June 1, 2025] 'At 2:00 PM, ...").
_CLOCK = re.compile(
    r"^\s*'?At (?P<hour>\d{1,2}):(?P<minute>\d{2})\s*(?P<half>[AaPp])\.?\s*[Mm]\.?\s*,?\s*", re.DOTALL
)


class EvidenceError(ValueError):
    """Gold memory that cannot be read as dated, timed events."""


@dataclass(frozen=True)
class Event:
    """One gold-memory event: when it happened and what the gold memory says about it."""

    when: datetime
    text: str


@dataclass(frozen=True)
class PlacedEvent:
    """An event and the history lines (``line_no``) that hold it; empty when nothing was found."""

    event: Event
    line_ids: tuple[int, ...]

    @property
    def placed(self) -> bool:
        return bool(self.line_ids)


def split_events(gold_memory: str) -> list[Event]:
    """The events of a gold memory, in text order; text before the first date is an error."""
    starts = list(_DATE.finditer(gold_memory))
    if not starts:
        raise EvidenceError(f"no '[Month D, YYYY]' event in gold memory {gold_memory[:80]!r}")
    if gold_memory[: starts[0].start()].strip():
        raise EvidenceError(f"text before the first event date: {gold_memory[:80]!r}")
    ends = [m.start() for m in starts[1:]] + [len(gold_memory)]
    return [_event(m, gold_memory[m.end() : end]) for m, end in zip(starts, ends, strict=True)]


def _event(date_match: re.Match[str], rest: str) -> Event:
    clock = _CLOCK.match(rest)
    if clock is None:
        raise EvidenceError(f"event {date_match.group(0)} has no 'At H:MM AM/PM' time: {rest[:60]!r}")
    day = _date(date_match)
    hour = to_24h(int(clock.group("hour")), clock.group("half"))
    minute = int(clock.group("minute"))
    if minute > 59:
        raise EvidenceError(f"event {date_match.group(0)}: invalid minute in {clock.group(0)!r}")
    when = datetime(day.year, day.month, day.day, hour, minute)
    return Event(when, rest[clock.end() :].strip())


def _date(match: re.Match[str]) -> date:
    month = match.group("month").lower()
    if month not in MONTHS:
        raise EvidenceError(f"unknown month in {match.group(0)}")
    try:
        return date(int(match.group("year")), MONTHS.index(month) + 1, int(match.group("day")))
    except ValueError as exc:
        raise EvidenceError(f"invalid date {match.group(0)}: {exc}") from None


def to_24h(hour: int, half: str) -> int:
    """A 12-hour clock hour as 0-23: 12 AM is midnight (0), 12 PM is noon (12)."""
    if not 1 <= hour <= 12:
        raise EvidenceError(f"hour {hour} is not on a 12-hour clock")
    return hour % 12 + (12 if half.lower() == "p" else 0)


class HistoryIndex:
    """A scenario's history lines grouped by calendar day, for placing many events."""

    def __init__(self, history: Sequence[HistoryLine]):
        self.by_day: dict[date, list[HistoryLine]] = defaultdict(list)
        for line in history:
            self.by_day[line.timestamp.date()].append(line)

    def place(self, event: Event, window_minutes: int = EVENT_WINDOW_MINUTES) -> PlacedEvent:
        """The event on the lines of its day stamped in [its time, its time + window] (inclusive)."""
        end = event.when + timedelta(minutes=window_minutes)
        lines = self.by_day.get(event.when.date(), ())
        return PlacedEvent(event, tuple(x.line_no for x in lines if event.when <= x.timestamp <= end))


def locate(
    question: Question,
    history: Sequence[HistoryLine] | HistoryIndex,
    window_minutes: int = EVENT_WINDOW_MINUTES,
) -> list[PlacedEvent]:
    """Every event of the question's gold memory, placed in the history of its scenario."""
    index = history if isinstance(history, HistoryIndex) else HistoryIndex(history)
    return [index.place(event, window_minutes) for event in split_events(question.gold_memory)]


# ------------------------------------------------------------------ gold values

# Arguments that pick *where* to act (which seat, zone, window...). Their values ("driver", "all",
# "left") come from the request itself, not from memory, and occur all over any dialogue.
SELECTOR_ARGS = frozenset({"seat", "zone", "side", "window", "door", "light", "position"})

Value = str | int | float


def gold_values(question: Question) -> tuple[Value, ...]:
    """The values the gold calls set, distinct and in call order (strings case-insensitively).

    Kept: strings and numbers of non-selector arguments. Left out: booleans (an on/off choice is
    rarely written as ``true`` in dialogue, and two values cannot say which one memory supplied),
    None, lists and objects, and the selector arguments of ``SELECTOR_ARGS``.
    """
    seen: dict[Value, Value] = {}
    for call in question.gold_calls:
        for name, value in call.args.items():
            if _is_memory_value(name, value):
                seen.setdefault(value.lower() if isinstance(value, str) else value, value)
    return tuple(seen.values())


def memory_values(question: Question) -> tuple[Value, ...]:
    """The gold values the request text does not state: what only memory can supply."""
    return tuple(v for v in gold_values(question) if not value_present(v, question.query))


def _is_memory_value(name: str, value: object) -> bool:
    if name in SELECTOR_ARGS or isinstance(value, bool):
        return False
    return isinstance(value, int | float) or (isinstance(value, str) and bool(value.strip()))


def value_pattern(value: Value) -> re.Pattern[str]:
    """How a value is recognised in text.

    Numbers: the digits with no digit, decimal part or clock colon glued on, so 44 matches "at 44."
    but not "144", "4.4" or "9:44". Strings: case-insensitive, whole words; the words of an identifier may be
    joined by spaces, "_", "-" or "and" ("north_up" ~ "North-up", "face_feet" ~ "face and feet").
    """
    if isinstance(value, int | float) and not isinstance(value, bool):
        return re.compile(rf"(?<![\d.:]){re.escape(str(value))}(?!\d|[.:]\d)")
    words = [re.escape(w) for w in re.split(r"[\s_-]+", str(value).strip()) if w]
    joined = r"(?:[\s_-]+|\s+and\s+)".join(words)
    return re.compile(rf"(?<!\w){joined}(?!\w)", re.IGNORECASE)


def value_present(value: Value, text: str) -> bool:
    return value_pattern(value).search(text) is not None
