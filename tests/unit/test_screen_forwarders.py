"""The conversation screen runs few actions that only call another object: an action runs
where its owner is (`Action.target`, routed by `ConversationScreen.action_route`), so the
screen does not grow a forwarder per key or palette command again."""

from __future__ import annotations

import ast
from pathlib import Path

SCREEN = Path(__file__).resolve().parents[2] / "ctxchat" / "tui" / "conversation_screen.py"
MOST_FORWARDERS = 10


def forwards(method: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether `method`'s body (its docstring aside) is one call of another object's method
    (`self.part.method(...)`, awaited or not)."""
    body = method.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    if len(body) != 1 or not isinstance(body[0], ast.Expr | ast.Return):
        return False
    call = body[0].value
    if isinstance(call, ast.Await):
        call = call.value
    if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Attribute):
        return False
    on = call.func.value
    return not (isinstance(on, ast.Name) and on.id == "self")


def forwarders() -> list[str]:
    """The conversation screen's actions that only forward to another object."""
    tree = ast.parse(SCREEN.read_text(encoding="utf-8"))
    screen = next(
        node
        for node in tree.body
        if isinstance(node, ast.ClassDef) and node.name == "ConversationScreen"
    )
    return [
        node.name
        for node in screen.body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.name.startswith("action_")
        and forwards(node)
    ]


def test_the_screen_has_few_forwarding_actions() -> None:
    found = forwarders()
    assert len(found) <= MOST_FORWARDERS, (
        f"{len(found)} actions of the conversation screen only call another object: {found}. "
        "Name that part or widget as the action's `target` in tui/actions.py instead."
    )


def test_a_forwarder_is_told_from_an_action_that_decides() -> None:
    source = '''
class ConversationScreen:
    def action_stop(self) -> None:
        """Stop."""
        self.turn_runner.stop()

    async def action_find(self) -> None:
        await self.chat.find()

    def action_mode(self) -> None:
        self.toggle()

    def action_focus(self) -> None:
        if self.app.screen is self:
            self.chat.focus_turns()
'''
    screen = ast.parse(source).body[0]
    assert isinstance(screen, ast.ClassDef)
    methods = [
        node for node in screen.body if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    ]
    assert [node.name for node in methods if forwards(node)] == ["action_stop", "action_find"]
