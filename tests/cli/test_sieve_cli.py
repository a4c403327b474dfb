"""``execmem coding sieve`` at the command line: bad input is one error line, before any stage runs."""

from __future__ import annotations

from tests.cli.conftest import assert_one_line_error, invoke
from tests.coding.sieve_support import make_sieve_tasks


def test_a_dead_endpoint_fails_in_seconds_before_any_stage(tmp_path):
    tasks = make_sieve_tasks(tmp_path)
    out = tmp_path / "out"
    result = invoke(
        "coding",
        "sieve",
        "--tasks",
        tasks,
        "--model",
        "m",
        "--base-url",
        "http://127.0.0.1:9/v1",
        "--max-retries",
        "0",
        "--out",
        out,
    )
    assert_one_line_error(result, "nothing answers at http://127.0.0.1:9/v1")
    assert not (out / "stages").exists()


def test_bad_options_and_files_are_one_line_each(tmp_path):
    tasks = make_sieve_tasks(tmp_path)
    base = ("coding", "sieve", "--model", "m", "--out", tmp_path / "out")
    assert_one_line_error(invoke(*base, "--tasks", tmp_path / "nope.jsonl"), "--tasks", "is not a file")
    assert_one_line_error(invoke(*base, "--tasks", tasks, "--only", "ghost"), "unknown task id(s) ghost")
    assert_one_line_error(invoke(*base, "--tasks", tasks, "--top-n", "0"), "--top-n")
    (tmp_path / "file").write_text("x")
    assert_one_line_error(
        invoke("coding", "sieve", "--tasks", tasks, "--model", "m", "--out", tmp_path / "file"), "is a file"
    )
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"instance_id": "x"}\n')
    assert_one_line_error(invoke(*base, "--tasks", broken), "broken.jsonl:1")


def test_a_bad_frozen_file_is_one_line(tmp_path):
    tasks = make_sieve_tasks(tmp_path)
    frozen = tmp_path / "frozen.jsonl"
    frozen.write_text('{"format": "execmem-frozen-v1", "target": "alpha__inc-2"}\n')
    result = invoke(
        "coding",
        "run",
        "--tasks",
        tasks,
        "--model",
        "m",
        "--memory",
        "frozen",
        "--frozen",
        frozen,
        "--out",
        tmp_path / "run",
    )
    assert_one_line_error(result, "frozen.jsonl:1", "field repo")
    missing = invoke(
        "coding", "run", "--tasks", tasks, "--model", "m", "--memory", "frozen", "--out", tmp_path / "r2"
    )
    assert_one_line_error(missing, "--frozen FILE")
