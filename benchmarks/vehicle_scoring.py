"""Replay + score throughput on the 500 gold answers (CPU time per question).

Usage: python benchmarks/vehicle_scoring.py [--data DIR] [--repeats 7]

"cold" runs both the gold calls (reference) and the predicted calls on fresh
cars for every question, as the reference harness does; "warm" reuses each
question's reference, as ``execmem vehicle score`` does within one run. The
reference harness needs about 2.1 ms of CPU per question; the target is 0.3 ms.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from execmem.suites.vehicle.dataset import load_questions
from execmem.suites.vehicle.release import resolve_data_dir
from execmem.suites.vehicle.scorebook import Scorebook
from execmem.suites.vehicle.scoring import score_prediction


def cold_pass(questions) -> int:
    return sum(score_prediction(q.gold_calls, q.gold_calls).exact_match for q in questions)


def warm_pass(book: Scorebook, questions) -> int:
    return sum(book.score(q, list(q.gold_calls)).exact_match for q in questions)


def per_question_ms(run, n: int, repeats: int) -> list[float]:
    samples = []
    for _ in range(repeats):
        start = time.process_time()
        assert run() == n, "every gold answer must score as an exact match"
        samples.append((time.process_time() - start) * 1000 / n)
    return samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=None)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    questions = load_questions(resolve_data_dir(args.data))
    book = Scorebook(questions)
    n = len(questions)
    warm_pass(book, questions)  # fills the reference cache and the per-module initial states
    cold = per_question_ms(lambda: cold_pass(questions), n, args.repeats)
    warm = per_question_ms(lambda: warm_pass(book, questions), n, args.repeats)
    report = {
        "questions": n,
        "repeats": args.repeats,
        "cold_ms_per_question_median": round(statistics.median(cold), 4),
        "warm_ms_per_question_median": round(statistics.median(warm), 4),
        "reference_ms_per_question": 2.1,
        "target_ms_per_question": 0.3,
    }
    report["cold_speedup_vs_reference"] = round(2.1 / report["cold_ms_per_question_median"], 1)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
