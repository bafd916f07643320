"""A paste lands in the composer as it will be sent: control characters shown, not acted on."""

from __future__ import annotations

from textual import events

from ctxchat.testing.server import ScriptedModelServer

from .app_harness import SIZE, MakeApp, burst, settle, until


async def test_a_pasted_escape_sequence_shows_in_the_box_as_it_is_sent(
    make_app: MakeApp, server: ScriptedModelServer
) -> None:
    app, notes = make_app()
    server.script("Seen.")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.conversation_screen.composer.focus()
        app.conversation_screen.composer.insert("before ")
        app.post_message(events.Paste("\x1b[31mred\x1b[0m, a bell \x07\rand a tab\t"))
        burst(pilot, " after\r")
        await until(
            pilot,
            lambda: (
                app.conversation_screen.session.store.messages.count_messages(
                    app.conversation_screen.session.stored_id
                )
                == 2
            ),
        )
        await settle(pilot)
        sent = [
            m.content
            for m in app.conversation_screen.session.store.messages.messages(
                app.conversation_screen.session.stored_id
            )
        ]
        assert sent == ["before ␛[31mred␛[0m, a bell ␇\nand a tab\t after", "Seen."]
        assert app.conversation_screen.composer.text == ""
        assert notes.of("error") == []
