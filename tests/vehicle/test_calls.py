"""Call strings are parsed safely and completely, or rejected with a reason."""

from __future__ import annotations

import pytest

from execmem.suites.vehicle.calls import CallSyntaxError, ToolCall, parse_call, parse_call_string, parse_calls


def test_benchmark_style_literals():
    call = parse_call_string('carcontrol_x(a="green", b=44, c=true, d=False, e=null, f=None)')
    assert call == ToolCall(
        "carcontrol_x", {"a": "green", "b": 44, "c": True, "d": False, "e": None, "f": None}
    )


def test_negative_numbers_floats_and_containers():
    call = parse_call_string("f(a=-3, b=2.5, c=-0.5, d=[1, 'x', true], e={'k': null})")
    assert call.args == {"a": -3, "b": 2.5, "c": -0.5, "d": [1, "x", True], "e": {"k": None}}


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("f(1)", "positional"),
        ("f(a=x)", "unsupported value 'x'"),
        ("f(a=1", "not a call"),
        ("os.system(a=1)", "name(key=value"),
        ("f(a=__import__('os'))", "unsupported value"),
        ("f(**k)", "**kwargs"),
        ("f(a=-'x')", "numbers only"),
        ("", "not a call"),
    ],
)
def test_unparsable_strings_are_errors(text, reason):
    with pytest.raises(CallSyntaxError, match=None) as info:
        parse_call_string(text)
    assert reason in str(info.value)


def test_call_objects_and_openai_arguments():
    assert parse_call({"name": "f", "args": {"a": 1}}) == ToolCall("f", {"a": 1})
    assert parse_call({"name": "f", "arguments": '{"a": -1}'}) == ToolCall("f", {"a": -1})
    assert parse_call({"name": "f"}) == ToolCall("f", {})
    with pytest.raises(CallSyntaxError, match="valid JSON"):
        parse_call({"name": "f", "arguments": "{oops"})
    with pytest.raises(CallSyntaxError, match=r"calls\[1\]"):
        parse_calls(["f(a=1)", {"args": {}}])


@pytest.mark.parametrize(
    ("arguments", "reason"),
    [
        ('{"a": ' + "9" * 5000 + "}", "an integer has 5000 digits"),
        ("[" * 100_000 + "]" * 100_000, "JSON nested deeper than 100 levels"),
        ('{"a": NaN}', "NaN is not a JSON number"),
        ('{"a": "\\udc80"}', "lone surrogate"),
    ],
    ids=["5000-digits", "nested-100k", "nan", "surrogate"],
)
def test_openai_arguments_are_read_as_safely_as_input_files(arguments, reason):
    with pytest.raises(CallSyntaxError) as info:
        parse_calls([{"name": "f", "arguments": arguments}])
    assert str(info.value).startswith("calls[0]: 'arguments' of f: ") and reason in str(info.value)


def test_key_is_order_independent():
    assert parse_call_string("f(a=1, b=2)").key() == parse_call_string("f(b=2, a=1)").key()
    assert parse_call_string("f(a=1)").key() != parse_call_string("f(a=1.0)").key()


def test_matches_release_parse_of_every_gold_answer():
    from tests.conftest import CONFORMANCE, read_jsonl

    for line in read_jsonl(CONFORMANCE / "conformance_gold.jsonl"):
        parsed = [parse_call_string(a).to_json() for a in line["answers"]]
        assert parsed == line["parsed_calls"], (line["file"], line["index"])
