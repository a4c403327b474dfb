"""The solver's prompt (versioned: any change means a new ``PROMPT_VERSION``).

Memory has exactly one place: a ``<memory>`` section at the top of the first
user message. When there is no memory text the section is left out entirely,
so the "off" prompt is the "on" prompt minus that section.
"""

from __future__ import annotations

PROMPT_VERSION = "coding-solver-v1"
SUBMIT_SENTINEL = "EXECMEM_SUBMIT"
SUBMIT_COMMAND = f"echo {SUBMIT_SENTINEL}"
MEMORY_OPEN = "<memory>"
MEMORY_CLOSE = "</memory>"
MEMORY_SLOT_RULE = f"{MEMORY_OPEN} section at the top of the first user message"
"""Where memory goes, as the manifest states it (the same for every solver)."""

SYSTEM = f"""You are a software engineer fixing a bug in a Python repository.
You act only through the `bash` tool: each call runs one shell command in the repository's root folder
(no network, no interactive programs) and returns its exit code and output.
Find the cause of the bug, change the source code to fix it, and check your fix by running the tests.
Do not change the tests. When you are done, run the command `{SUBMIT_COMMAND}` on its own: your changes
to the files are what is submitted."""

MEMORY_SLOT = f"""Notes from your memory of earlier work:
{MEMORY_OPEN}
{{memory}}
{MEMORY_CLOSE}

"""

ISSUE = """{memory_slot}Fix this issue:
<issue>
{statement}
</issue>"""

NO_TOOL_CALL = f"Call the `bash` tool to act. When you are done, run `{SUBMIT_COMMAND}` with the bash tool."


def first_user_message(statement: str, memory: str | None) -> str:
    """The issue, preceded by the memory slot when there is memory text."""
    slot = MEMORY_SLOT.format(memory=memory) if memory else ""
    return ISSUE.format(memory_slot=slot, statement=statement)


def memory_slot_text(message: str) -> str | None:
    """The text inside the memory slot of a first user message, or None when it has none."""
    start = message.find(MEMORY_OPEN + "\n")
    end = message.find(f"\n{MEMORY_CLOSE}\n\n", max(start, 0))
    if start < 0 or end < 0:
        return None
    return message[start + len(MEMORY_OPEN) + 1 : end]
