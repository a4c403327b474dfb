"""Every reader of user input either returns plain values or raises its own error naming the place.

Hypothesis feeds arbitrary bytes and hostile JSON to the JSON-lines reader, the call parser, the
task file reader, the release reader and the run-file reader; the named inputs of the issue
(100k-deep JSON, 5,000-digit integers, thousands of unary minus signs, non-UTF-8 bytes) are
checked one by one with the message they must give.
"""

from __future__ import annotations

import io
import json
import shutil

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from execmem.core.files import DamagedFileError, complete_records_with_lines
from execmem.core.jsonl import MAX_DEPTH, JsonlError, records
from execmem.suites.coding.tasks import TaskFileError, load_tasks
from execmem.suites.vehicle.calls import CallSyntaxError, parse_call_string, parse_calls
from execmem.suites.vehicle.dataset import DatasetError, load_questions
from tests.coding.conftest import task_record

FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])

json_atoms = st.none() | st.booleans() | st.integers() | st.floats() | st.text()
json_values = st.recursive(
    json_atoms, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4)
)
hostile_lines = st.one_of(
    st.binary(max_size=200),
    json_values.map(lambda v: json.dumps(v).encode()),
    st.integers(1, 3000).map(lambda n: b"[" * n + b"]" * n),
    st.integers(4000, 6000).map(lambda n: b'{"a": ' + b"9" * n + b"}"),
    st.sampled_from(
        [b"NaN", b"[Infinity]", b"1e999", b'"\\ud800"', b'{"a": "\\udfff"}', b"\xff\xfe", b"\x00"]
    ),
)


def _read_all(data: bytes) -> list:
    return list(records(io.BytesIO(data), "input"))


@FUZZ
@given(st.lists(hostile_lines, max_size=4))
def test_jsonl_reader_returns_writable_values_or_a_located_error(lines):
    data = b"\n".join(lines)
    try:
        found = _read_all(data)
    except JsonlError as exc:
        assert str(exc).startswith("input:")
        return
    for where, value in found:
        assert where.startswith("input:")
        json.dumps(value, ensure_ascii=False, allow_nan=False).encode("utf-8")  # writable back out


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"{}\n" + b"[" * 100_000 + b"]" * 100_000, r"^input:2: JSON nested deeper than 100 levels$"),
        (b'{"scenario": ' + b"7" * 5000 + b"}", r"^input:1: an integer has 5000 digits \(at most 4300\)$"),
        (b'{}\n{}\n{"a": "caf\xe9"}', r"^input:3: not UTF-8 text \(byte 0xe9 at column 11\)$"),
        (b'{"a": NaN}', r"^input:1: NaN is not a JSON number$"),
        (b'{"a": 1e400}', r"^input:1: number 1e400 is too large$"),
        (b'{"a": "\\ud800"}', r"^input:1: a string holds a lone surrogate"),
        (b'{"a": 1,}', r"^input:1: invalid JSON \(.*column 9\)$"),
    ],
)
def test_jsonl_reader_names_line_and_problem(data, message):
    with pytest.raises(JsonlError, match=message):
        _read_all(data)


def test_depth_limit_is_inclusive():
    ok = b"[" * MAX_DEPTH + b"]" * MAX_DEPTH
    assert _read_all(ok)[0][0] == "input:1"
    with pytest.raises(JsonlError):
        _read_all(b"[" + ok + b"]")


call_texts = st.one_of(
    st.text(max_size=80),
    st.builds(lambda name, body: f"{name}({body})", st.from_regex(r"[a-z_]{1,8}", fullmatch=True), st.text()),
    st.integers(1, 6000).map(lambda n: "f(a=" + "-" * n + "1)"),
    st.integers(1, 3000).map(lambda n: "f(a=" + "[" * n + "]" * n + ")"),
    st.integers(1, 3000).map(lambda n: "f(a=" + "not " * n + "1)"),
    st.sampled_from(["f(a=0x" + "f" * 5000 + ")", "f(a=1" + "0" * 5000 + ")", "f(a=1e999)", "f(a=...)"]),
)


@FUZZ
@given(call_texts)
def test_call_parser_raises_only_call_syntax_errors(text):
    try:
        call = parse_call_string(text)
    except CallSyntaxError as exc:
        assert len(str(exc)) < 600  # the call is quoted, but cut
        return
    json.dumps(call.args, allow_nan=False)  # every parsed value can be scored and written


def test_thousands_of_unary_minus_signs():
    with pytest.raises(CallSyntaxError, match=r"nested too deeply"):
        parse_call_string("f(a=" + "-" * 5000 + "1)")
    assert parse_call_string("f(a=" + "-" * 501 + "1)").args == {"a": -1}
    assert parse_call_string("f(a=-+-2.5)").args == {"a": 2.5}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("f(a=0x" + "f" * 5000 + ")", "integer too large"),
        ("f(a=1e999)", "not finite"),
        ("f(a=...)", "unsupported value"),
        ("f(a=" + "[" * 150 + "]" * 150 + ")", "nested deeper than 100"),
        ("f(a=\x00)", "null bytes"),
    ],
)
def test_call_values_that_cannot_be_scored_are_refused(text, message):
    with pytest.raises(CallSyntaxError, match=message):
        parse_call_string(text)


def test_call_list_errors_name_the_position():
    with pytest.raises(CallSyntaxError, match=r"^calls\[1\]: not a call"):
        parse_calls(["f(a=1)", "f(a=" + "-" * 5000 + "1)"])


@FUZZ
@given(st.lists(hostile_lines, min_size=1, max_size=3))
def test_task_file_reader_raises_only_task_file_errors(tmp_path, lines):
    path = tmp_path / "tasks.jsonl"
    path.write_bytes(b"\n".join(lines))
    try:
        load_tasks(path)
    except TaskFileError as exc:
        assert str(exc).startswith(f"{path}:")


def test_task_file_non_utf8_and_deep_json_name_the_line(tmp_path):
    path = tmp_path / "tasks.jsonl"
    path.write_bytes(b"\n\xff\n")
    with pytest.raises(TaskFileError, match=r"tasks\.jsonl:2: not UTF-8"):
        load_tasks(path)
    path.write_text(json.dumps(task_record(FAIL_TO_PASS="[" * 5000 + "]" * 5000)))
    with pytest.raises(TaskFileError, match=r"tasks\.jsonl:1: field FAIL_TO_PASS: .*nested deeper"):
        load_tasks(path)


@pytest.fixture
def release(tmp_path, vehicle_data):
    for folder, name in (("qa_data", "qa_1.json"), ("history", "history_1.txt")):
        (tmp_path / folder).mkdir()
        shutil.copy(vehicle_data / folder / name, tmp_path / folder)
    return tmp_path


@FUZZ
@given(hostile_lines)
def test_release_reader_raises_only_dataset_errors(release, data):
    (release / "qa_data" / "qa_1.json").write_bytes(data)
    try:
        load_questions(release, [1])
    except DatasetError as exc:
        assert "qa_1.json" in str(exc)


def test_release_file_that_is_not_utf8_names_line_and_column(release):
    (release / "qa_data" / "qa_1.json").write_bytes(b'{\n  "x": "\xc3("\n}')
    with pytest.raises(DatasetError, match=r"qa_1\.json: line 2: not UTF-8 text \(byte 0xc3 at column 9\)"):
        load_questions(release, [1])


@FUZZ
@given(st.lists(hostile_lines, max_size=4), st.binary(max_size=30))
def test_run_file_reader_reports_damaged_lines_and_ignores_a_torn_tail(tmp_path, lines, tail):
    path = tmp_path / "episodes.jsonl"
    path.write_bytes(b"".join(line.replace(b"\n", b" ") + b"\n" for line in lines) + tail.replace(b"\n", b""))
    try:
        found = complete_records_with_lines(path)
    except DamagedFileError as exc:
        assert str(exc).startswith(f"{path}:")
        return
    assert all(isinstance(record, dict) for _, record in found)


def test_run_file_damaged_middle_line_is_named_torn_last_line_is_not(tmp_path):
    path = tmp_path / "episodes.jsonl"
    path.write_bytes(b'{"id": "a"}\n{"id": "b"}\n{"id": "c"')
    assert [r["id"] for _, r in complete_records_with_lines(path)] == ["a", "b"]
    path.write_bytes(b'{"id": "a"}\n{"id": \n{"id": "c"}\n')
    with pytest.raises(DamagedFileError, match=r"episodes\.jsonl:2: damaged line"):
        complete_records_with_lines(path)
