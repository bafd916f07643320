"""A request for work the model does for ctxchat (a summary, an extraction): its instructions
as a system message, or at the head of the one user message where the server's chat
template drops system messages (llama-cpp-python's `gemma` format), so they still arrive."""

from __future__ import annotations

INSTRUCTIONS_END = "\n\n---\n\n"
"""What separates the instructions from the task when both are in the user message."""


def task_request(instructions: str, task: str, *, system_role: bool = True) -> list[dict[str, str]]:
    """The messages of a task request: `instructions`, then `task` as the user's message."""
    if system_role:
        return [{"role": "system", "content": instructions}, {"role": "user", "content": task}]
    return [{"role": "user", "content": instructions + INSTRUCTIONS_END + task}]
