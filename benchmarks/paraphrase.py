"""A reworded copy of the VehicleMemBench questions, to check that a retriever's recall is not tuned
to the wording of the 500 queries.

Usage: python benchmarks/paraphrase.py OUT_DIR [--data DIR]

Writes OUT_DIR/history (links to the release's histories) and OUT_DIR/qa_data with every query
reworded by fixed, hand-written rules: clock times said differently or moved, verbs and car
words swapped for synonyms (told -> said to, adjust -> change, temperature -> cabin warmth...),
people named by first name only, and the quoted request moved to the front. Gold memory and
answers are unchanged, so ``execmem vehicle audit --data OUT_DIR`` scores the same evidence.
A query no rule changes is counted and left as it is. Prints how many queries changed.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

from execmem.suites.vehicle.dataset import QUESTION_KEY, SCENARIOS, history_path, qa_path
from execmem.suites.vehicle.release import resolve_data_dir

# Whole-word swaps, applied in order (case kept for the first letter).
SYNONYMS = [
    ("told the car", "said to the car"),
    ("asked the car to", "had the car"),
    ("got into the car", "climbed into the vehicle"),
    ("got in the car", "climbed into the vehicle"),
    ("driving", "behind the wheel"),
    ("driver's seat", "seat behind the wheel"),
    ("passenger seat", "seat next to the driver"),
    ("adjust", "change"),
    ("set", "put"),
    ("turn on", "switch on"),
    ("turn off", "switch off"),
    ("temperature", "cabin warmth"),
    ("brightness", "light level"),
    ("volume", "loudness"),
    ("usual", "normal"),
    ("preference", "liking"),
    ("favorite", "preferred"),
    ("again", "once more"),
    ("said", "remarked"),
    ("told", "said to"),
    ("music", "songs"),
    ("navigation", "route guidance"),
    ("screen", "display"),
    ("lights", "lighting"),
    ("hot", "warm"),
    ("cold", "chilly"),
    ("bright", "glaring"),
    ("dark", "dim"),
    ("wants", "would like"),
    ("want", "would like"),
    ("need to", "have to"),
    ("need", "require"),
]
_CLOCK = re.compile(r"^At (\d{1,2}):(\d{2}) ?([AP])M,\s*", re.IGNORECASE)
_VERBS = [
    "got",
    "drove",
    "was",
    "sat",
    "told",
    "said",
    "asked",
    "borrowed",
    "picked",
    "entered",
    "loaded",
    "parked",
    "looked",
    "glanced",
    "complained",
    "mentioned",
    "nodded",
    "opened",
    "held",
    "started",
    "came",
    "had",
    "wanted",
    "turned",
    "felt",
]
_FULL_NAME = re.compile(rf"\b([A-Z][a-z]+) (?:[A-Z][a-z]+)\b(?= (?:{'|'.join(_VERBS)}))")
_QUOTE = re.compile(r"^(.*?)(['\"])(.+)\2\s*\.?\s*$", re.DOTALL)


def reword(query: str) -> str:
    """The query under every rule that applies."""
    text = _FULL_NAME.sub(r"\1", query.strip())
    text, moved = _move_clock(text)
    for old, new in SYNONYMS:
        text = re.sub(rf"\b{re.escape(old)}\b", lambda m, new=new: _same_case(m.group(0), new), text)
        text = re.sub(
            rf"\b{re.escape(old.capitalize())}\b", lambda m, new=new: _same_case(m.group(0), new), text
        )
    text = _quote_first(text)
    return f"{text} {moved}".strip() if moved else text


def _move_clock(text: str) -> tuple[str, str]:
    """``At 7:30 AM, X...`` -> (``X...``, ``(half past 7 in the morning)``)."""
    match = _CLOCK.match(text)
    if match is None:
        return text, ""
    hour, minute, half = int(match.group(1)), match.group(2), match.group(3).upper()
    part = (
        "in the morning"
        if half == "A"
        else ("in the afternoon" if hour in (12, 1, 2, 3, 4, 5) else "in the evening")
    )
    said = {"00": f"{hour} o'clock", "30": f"half past {hour}", "15": f"quarter past {hour}"}.get(
        minute, f"{hour}:{minute}"
    )
    rest = text[match.end() :]
    return rest[:1].upper() + rest[1:], f"(It was {said} {part}.)"


def _quote_first(text: str) -> str:
    """``Sam told the car: 'Do X.'`` -> ``'Do X,' Sam told the car.``"""
    match = _QUOTE.match(text)
    if match is None or len(match.group(1)) < 10:
        return text
    lead = match.group(1).rstrip(" :,")
    quote = match.group(3).strip().rstrip(".")
    return f'"{quote}," {lead}.' if lead else text


def _same_case(found: str, new: str) -> str:
    return new[:1].upper() + new[1:] if found[:1].isupper() else new


def write_copy(data_dir: Path, out: Path) -> tuple[int, int]:
    """The reworded release in ``out``; (queries, queries changed)."""
    (out / "history").mkdir(parents=True, exist_ok=True)
    (out / "qa_data").mkdir(exist_ok=True)
    total = changed = 0
    for scenario in SCENARIOS:
        link = out / "history" / history_path(data_dir, scenario).name
        if not link.exists():
            link.symlink_to(history_path(data_dir, scenario).resolve())
        payload = json.loads(qa_path(data_dir, scenario).read_text(encoding="utf-8"))
        for item in payload[QUESTION_KEY]:
            new = reword(item["query"])
            total += 1
            changed += new != item["query"]
            item["query"] = new
        (out / "qa_data" / qa_path(data_dir, scenario).name).write_text(
            json.dumps(payload, indent=1), encoding="utf-8"
        )
    return total, changed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument(
        "--data", type=Path, default=None, help="release folder (default: $EXECMEM_VEHICLE_DATA)"
    )
    args = parser.parse_args()
    total, changed = write_copy(resolve_data_dir(args.data), args.out.resolve())
    print(f"{changed} of {total} queries reworded into {args.out}")


if __name__ == "__main__":
    main()
