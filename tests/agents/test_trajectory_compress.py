"""The documented compression of a solver trajectory into a history item's text."""

from __future__ import annotations

from execmem.agents.coding.trajectory import compress_trajectory


def test_compression_keeps_commands_and_output_head_and_tail_but_no_prompts_or_test_results():
    output = "\n".join(f"line {i}" for i in range(30))
    lines = [
        {
            "id": "t@0",
            "messages": [
                {"role": "system", "content": "SYSTEM PROMPT"},
                {"role": "user", "content": "ISSUE"},
            ],
        },
        {
            "step": 1,
            "assistant": {"content": "Let me   look.\nNow."},
            "tool_results": [
                {"command": "cat a.py", "exit_code": 0, "timed_out": False, "output": output},
                {"error": "malformed_arguments", "message": "bash takes a command"},
            ],
        },
        {
            "step": 2,
            "assistant": {"content": None},
            "tool_results": [
                {"command": "sleep 9", "exit_code": -9, "timed_out": True, "output": ""},
                {
                    "command": "echo EXECMEM_SUBMIT",
                    "exit_code": 0,
                    "submitted": True,
                    "output": "EXECMEM_SUBMIT",
                },
            ],
        },
        {
            "end_reason": "submitted",
            "evaluation": {"resolved": True, "outcomes": {"tests/t.py::x": "passed"}},
        },
    ]
    text = compress_trajectory(lines)
    assert "SYSTEM PROMPT" not in text and "ISSUE" not in text and "tests/t.py" not in text
    assert text.splitlines()[:3] == ["step 1:", "Let me look. Now.", "$ cat a.py"]
    assert (
        "  line 5" in text and "  line 6" not in text and "[... 20 lines ...]" in text and "  line 29" in text
    )
    assert "! malformed_arguments: bash takes a command" in text
    assert "-> exit -9, timed out" in text and "$ echo EXECMEM_SUBMIT" in text
    assert text.splitlines()[-1] == "end: submitted" and "EXECMEM_SUBMIT\n" not in text.replace(
        "$ echo EXECMEM_SUBMIT\n", ""
    )
