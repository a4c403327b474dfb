"""Every command, fed bad bytes, hostile JSON or invalid option values: one 'error:' line naming the
file, line, field or option, exit 2, no traceback, and nothing created or overwritten."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.cli.conftest import assert_one_line_error, invoke

DEEP = b"[" * 100_000 + b"]" * 100_000
HUGE_INT = b'{"scenario": ' + b"9" * 5000 + b', "index": 0, "calls": []}'
MINUS = json.dumps({"scenario": 1, "index": 0, "calls": ["f(a=" + "-" * 5000 + "1)"]}).encode()
GOOD = json.dumps({"scenario": 1, "index": 0, "calls": []}).encode()


@pytest.mark.parametrize("command", ["replay", "score"])
@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        (GOOD + b"\n\xff\xfe\n", ":2: not UTF-8 text (byte 0xff at column 1)"),
        (GOOD + b"\n" + DEEP, ":2: JSON nested deeper than 100 levels"),
        (HUGE_INT, ":1: an integer has 5000 digits"),
        (GOOD + b"\n" + MINUS, ":2: field calls[0]: not a call:"),
        (b'{"scenario": NaN}', ":1: NaN is not a JSON number"),
        (b"[1, 2]", ":1: expected a JSON object"),
    ],
)
def test_bad_input_files(tmp_path, command, content, fragment):
    source = tmp_path / "in.jsonl"
    source.write_bytes(content)
    line = assert_one_line_error(invoke("vehicle", command, source), f"{source}{fragment}")
    assert len(line) < 400  # long call strings are cut in the message


@pytest.mark.parametrize(
    ("record", "fragment"),
    [
        ({"scenario": True, "index": 0, "calls": []}, "field 'scenario': expected an integer, got true"),
        ({"scenario": 1.0, "index": 0, "calls": []}, "field 'scenario': expected an integer, got 1.0"),
        ({"scenario": 1, "index": False, "calls": []}, "field 'index': expected an integer, got false"),
        ({"scenario": "1", "index": 0, "calls": []}, "field 'scenario': expected an integer, got \"1\""),
        ({"scenario": 1, "index": 99, "calls": []}, "no question 99 in scenario 1"),
    ],
)
def test_score_refuses_booleans_and_decimals_as_question_numbers(record, fragment):
    result = invoke("vehicle", "score", "-", input=json.dumps(record) + "\n")
    assert_one_line_error(result, "<stdin>:1:", fragment)


@pytest.mark.parametrize("command", ["replay", "score"])
def test_out_file_is_written_whole_or_not_at_all(tmp_path, command):
    out = tmp_path / "out.jsonl"
    out.write_text("earlier result\n")
    source = tmp_path / "in.jsonl"
    source.write_bytes(GOOD + b"\n" + GOOD + b"\n" + b"{oops\n")
    assert_one_line_error(invoke("vehicle", command, source, "--out", out), f"{source}:3: invalid JSON")
    assert out.read_text() == "earlier result\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.jsonl", "out.jsonl"]  # no temporary file left
    source.write_bytes(GOOD + b"\n" + GOOD + b"\n")
    assert invoke("vehicle", command, source, "--out", out).exit_code == 0
    assert len(out.read_text().splitlines()) == 2


def test_folder_given_as_out_file(tmp_path):
    assert_one_line_error(invoke("vehicle", "gold", "--out", tmp_path), f"--out {tmp_path} is a folder")
    result = invoke("vehicle", "score", "-", "--summary", tmp_path, input=GOOD.decode())
    assert_one_line_error(result, f"--summary {tmp_path} is a folder")


def test_missing_and_unreadable_input_files(tmp_path):
    assert_one_line_error(invoke("vehicle", "replay", tmp_path / "nope.jsonl"), "No such file", "nope.jsonl")
    assert_one_line_error(invoke("vehicle", "replay", tmp_path), "Is a directory")
    (tmp_path / "tasks.jsonl").write_bytes(b"\xc3\x28")
    result = invoke("coding", "validate", tmp_path / "tasks.jsonl")
    assert_one_line_error(result, "tasks.jsonl:1: not UTF-8 text")


RUN = ["vehicle", "run", "--model", "m", "--base-url", "http://127.0.0.1:9/v1", "--quiet"]
CODING = ["coding", "run", "--model", "m", "--base-url", "http://127.0.0.1:9/v1", "--quiet"]


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        ([*RUN, "--max-steps", "0"], "'--max-steps'"),
        ([*RUN, "--max-connections", "0"], "'--max-connections'"),
        ([*RUN, "--timeout", "nan"], "'--timeout': nan is not a finite number"),
        ([*RUN, "--timeout", "0"], "'--timeout': 0.0 must be more than 0"),
        ([*RUN, "--temperature", "nan"], "'--temperature': nan is not a finite number"),
        ([*RUN, "--temperature", "inf"], "'--temperature': inf is not a finite number"),
        ([*RUN, "--scenarios", ","], "'--scenarios': ',' names no scenario"),
        ([*RUN, "--scenarios", "0-3"], "'--scenarios': '0-3' is outside scenarios 1-50"),
        ([*RUN, "--scenarios", "9" * 5000], "'--scenarios'"),
        ([*RUN, "--scenarios", "1.5"], "'--scenarios': '1.5' is not a number"),
        ([*RUN, "--memory", "nosuch"], "unknown memory condition 'nosuch'"),
        ([*RUN, "--memory", "gold", "--window", "hour"], "apply to memory systems"),
        (["vehicle", "audit", "--memory", "nosuch"], "unknown memory system 'nosuch'"),
        (["vehicle", "audit", "--memory", "bm25", "--top-k", "0"], "'--top-k'"),
        (["vehicle", "audit", "--memory", "bm25", "--top-k", "9" * 60], "'--top-k'"),
        (["vehicle", "audit", "--memory", "bm25", "--scenarios", ","], "'--scenarios'"),
        (["vehicle", "audit", "--memory", "bm25", "--memory-option", "novalue"], "--memory-option"),
        (
            [*RUN, "--memory", "bm25", "--memory-option", "k1=" + "9" * 5000],
            "--memory-option: k1: an integer",
        ),
        (
            [*RUN, "--memory", "bm25", "--memory-option", "k1=" + "[" * 100_000],
            "--memory-option: k1: JSON nested",
        ),
        (
            [*RUN, "--memory", "bm25", "--memory-option", "k1=NaN"],
            "--memory-option: k1: NaN is not a JSON number",
        ),
        ([*RUN, "--tokenizer", "nosuch"], "--tokenizer 'nosuch': not auto, chars"),
        ([*RUN, "--tokenizer", "tiktoken:nosuch"], "cannot load the nosuch encoding"),
        ([*CODING, "--seeds", "0"], "'--seeds'"),
        ([*CODING, "--time-limit", "nan"], "'--time-limit': nan is not a finite number"),
        ([*CODING, "--concurrency", "0"], "'--concurrency'"),
        ([*CODING, "--memory", "nosuch"], "'nosuch' is neither a memory condition (off, record,"),
        ([*CODING, "--memory", "off", "--top-k", "2"], "'--top-k': applies to memory systems, not 'off'"),
        ([*CODING, "--memory", "frozen", "--history", "."], "'--history': applies to memory systems"),
        ([*CODING, "--memory", "bm25"], "'--history': --memory bm25 needs the SIEVE output folder"),
        ([*CODING, "--memory", "bm25", "--history", "."], "is not a SIEVE output folder (no sieve.json)"),
        ([*CODING, "--memory", "bm25", "--top-k", "0"], "'--top-k'"),
        ([*CODING, "--memory", "bm25", "--top-k", "21"], "'--top-k'"),
        ([*CODING, "--memory", "bm25", "--query", "gold"], "'--query'"),
        (["coding", "compare", "a", "b", "--n-resamples", "0"], "'--n-resamples'"),
        (["coding", "report", "nothing"], "nothing is not a coding run folder: manifest.json is missing"),
        (["coding", "report", ".", "--permutations", "0"], "'--permutations'"),
        (["coding", "report", ".", "--sieve", "nothing"], "--sieve nothing is not a folder"),
        (["coding", "given-files", "nothing", "--out", "g"], "nothing is not a coding run folder"),
        (["coding", "build-tasks", "--out", "t.jsonl", "--repos", ","], "'--repos': ',' names nothing"),
        (["coding", "build-tasks", "--out", "."], "--out . is a folder; give a file name"),
        (["coding", "validate", "tasks.jsonl", "--only", ","], "'--only': ',' names nothing"),
        (["coding", "validate", "tasks.jsonl", "--stats", "."], "--stats . is a folder"),
        (["vehicle", "run", "--model", "m", "--bogus"], "No such option: --bogus"),
    ],
)
def test_invalid_option_values_create_nothing(tmp_path, monkeypatch, args, fragment):
    monkeypatch.chdir(tmp_path)
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text("")
    if args[:2] == ["coding", "run"]:
        args = [*args, "--tasks", tasks]
    if args[1] in ("run", "audit") and "--bogus" not in args:
        args = [*args, "--out", tmp_path / "out"]
    assert_one_line_error(invoke(*args), fragment)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tasks.jsonl"]  # no run folder, no runs/


@pytest.mark.parametrize(
    "args",
    [
        RUN,
        ["vehicle", "audit", "--memory", "bm25", "--scenarios", "1", "--quiet"],
        [*CODING, "--tasks", "TASKS"],
    ],
)
def test_existing_file_as_out_folder(tmp_path, args):
    blocker = tmp_path / "occupied"
    blocker.write_text("keep me")
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text("")
    args = [str(tasks) if a == "TASKS" else a for a in args]
    assert_one_line_error(invoke(*args, "--out", blocker), f"--out {blocker} is a file")
    assert blocker.read_text() == "keep me"


FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
hostile = st.one_of(
    st.binary(max_size=120),
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    ).map(lambda v: json.dumps({"scenario": 1, "index": 0, "setup": v, "calls": v}).encode()),
    st.lists(st.text(max_size=30), max_size=3).map(lambda calls: json.dumps({"calls": calls}).encode()),
)


@FUZZ
@given(st.sampled_from(["replay", "score"]), st.lists(hostile, min_size=1, max_size=3))
def test_fuzzed_input_never_gives_a_traceback(command, lines):
    result = invoke("vehicle", command, "-", input=b"\n".join(lines))
    assert result.exit_code in (0, 2), result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.output
    if result.exit_code == 2:
        errors = result.stderr.splitlines()
        assert len(errors) == 1 and errors[0].startswith("error: <stdin>:")


def test_arguments_that_are_not_utf8_are_refused_before_anything(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = invoke(*RUN, "--model", "gpt\udcff", "--out", tmp_path / "out")  # how Python keeps a byte 0xff
    assert_one_line_error(result, "argument 9 (gpt\\udcff) is not UTF-8 text")
    assert list(tmp_path.iterdir()) == []


def test_a_file_given_as_cache_folder(tmp_path):
    (tmp_path / "a-file").write_text("keep")
    result = invoke(*RUN, "--cache-dir", tmp_path / "a-file", "--out", tmp_path / "out")
    assert_one_line_error(result, f"--cache-dir {tmp_path / 'a-file'} is a file; give a folder")
    assert not (tmp_path / "out").exists() and (tmp_path / "a-file").read_text() == "keep"


def test_a_memory_store_that_cannot_be_opened_is_one_line(tmp_path):
    args = [*RUN, "--memory", "bm25", "--memory-option", f"path={tmp_path / 'no' / 'such' / 'x.sqlite'}"]
    assert_one_line_error(invoke(*args, "--out", tmp_path / "out"), "memory system 'bm25': cannot open")
