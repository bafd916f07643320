"""A draft belongs to its conversation: switching away leaves it there, coming back finds
it, and Enter never sends it into another conversation."""

from __future__ import annotations

from ctxchat.testing.server import ScriptedModelServer

from .app_harness import SIZE, MakeApp, settle, typed


async def test_a_draft_stays_with_its_conversation(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, _ = make_app()
    server.script("Reply in B.")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        first = app.conversation_screen.session.conversation_id
        await typed(pilot, "half a thought for A")
        await pilot.press("ctrl+n")
        await settle(pilot)
        second = app.conversation_screen.session.conversation_id
        assert second != first
        assert app.conversation_screen.composer.text == ""

        await typed(pilot, "a question for B")
        assert first is not None and second is not None
        await app.conversation_screen.open_conversation(first)
        await settle(pilot)
        assert app.conversation_screen.composer.text == "half a thought for A"

        await app.conversation_screen.open_conversation(second)
        await settle(pilot)
        assert app.conversation_screen.composer.text == "a question for B"
        await pilot.press("enter")
        await settle(pilot)

    store = app.workspace.store
    assert [(m.role, m.content) for m in store.messages.messages(second)] == [
        ("user", "a question for B"),
        ("assistant", "Reply in B."),
    ]
    assert [m.content for m in store.messages.messages(first) if m.role == "user"] == []
