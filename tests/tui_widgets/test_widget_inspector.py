"""The request inspector: the exact JSON, per-message layers and tokens, the diff, copying."""

import json
from typing import Any

from textual.binding import Binding
from textual.screen import ModalScreen
from textual.widgets import Input, Static, TabbedContent

from ctxchat.core.memory import Mode
from ctxchat.tui.screens.inspector import (
    RequestInspector,
    WrappedLines,
    diff_lines,
    message_line_owners,
    pretty_json,
)

from ..app.app_harness import burst
from ..waiting import until
from .widget_hosts import HostApp, make_plan, rendered, request_body, sampling_change


def noted(app: HostApp) -> list[str]:
    """Every notification `app` shows from now on, as it is asked for."""
    notes: list[str] = []
    original = app.notify

    def record(message: str, **options: Any) -> None:
        notes.append(message)
        original(message, **options)

    app.notify = record
    return notes


def shown(screen: RequestInspector, view: str) -> str:
    return screen.query_one(f"#{view}", WrappedLines).text


def test_message_line_owners_follow_the_messages_array() -> None:
    body = {
        "model": "m",
        "messages": [{"role": "system", "content": "a"}, {"role": "user", "content": "b"}],
        "stream": True,
    }
    text = pretty_json(body)
    owners = message_line_owners(text)
    assert len(owners) == len(text.splitlines())
    by_line = dict(zip(text.splitlines(), owners, strict=True))
    assert by_line['      "content": "a"'] == 0
    assert by_line['      "content": "b"'] == 1
    assert by_line['  "stream": true'] is None
    assert message_line_owners(pretty_json({"messages": []})) == [None, None, None]


async def test_shows_the_body_exactly_and_copies_exactly_that() -> None:
    plan = make_plan()
    body = request_body(plan)
    app = HostApp(lambda: [])
    async with app.run_test(size=(100, 30)) as pilot:
        screen = RequestInspector(body, plan)
        await app.push_screen(screen)
        await pilot.pause()
        assert json.loads(screen.json_text) == body
        assert shown(screen, "json-view") == screen.json_text
        # What is drawn: the first rows, each with its gutter.
        drawn = rendered(screen.query_one("#json-view", WrappedLines)).splitlines()
        assert [row.strip() for row in drawn[:3]] == ["{", '"model": "gpt-4o",', '"messages": [']
        assert drawn[3].strip() == "▌     {"
        assert "the body's messages differ" not in rendered(
            screen.query_one(".inspector--summary", Static)
        )
        await pilot.press("ctrl+c")
        assert app.clipboard == screen.json_text
        assert json.loads(app.clipboard) == body
        await pilot.press("escape")
        assert app.screen is not screen


async def test_messages_tab_lists_layers_and_tokens() -> None:
    plan = make_plan(mode=Mode.OBJECTIVE)
    app = HostApp(lambda: [])
    async with app.run_test(size=(120, 40)) as pilot:
        screen = RequestInspector(request_body(plan), plan, tab="messages")
        await app.push_screen(screen)
        await pilot.pause()
        assert app.screen.query_one(TabbedContent).active == "messages"
        text = shown(screen, "messages-view").splitlines()
        assert text[0].split() == ["#", "layer", "role", "tokens", "ref", "content"]
        rows = text[1 : 1 + len(plan.messages)]
        for row, message in zip(rows, plan.messages, strict=True):
            assert row.split()[1:5] == [
                message.layer.value,
                message.role,
                f"{message.tokens:,}",
                message.ref,
            ]
        in_messages = sum(m.tokens for m in plan.messages)
        assert (
            f"total {plan.tokens:,} = {in_messages:,} in messages + 3 that start the reply (the chat template adds them)"
            in text
        )


async def test_diff_against_the_previous_request() -> None:
    previous = make_plan(new_input="What did we decide?")
    plan = make_plan(new_input="And what about deploys?", mode=Mode.OBJECTIVE)
    app = HostApp(lambda: [])
    async with app.run_test(size=(100, 30)) as pilot:
        screen = RequestInspector(request_body(plan), plan, previous=previous)
        await app.push_screen(screen)
        await pilot.press("ctrl+d")
        assert screen.query_one(TabbedContent).active == "diff"
        text = shown(screen, "diff-view").splitlines()
        assert text[0].startswith("same start as the previous request: 1 of ")
        assert "--- previous request" in text and "+++ this request" in text
        assert '-      "content": "What did we decide?"' in text
        assert '+      "content": "And what about deploys?"' in text
        assert any(line.startswith("-") and "Prefers short answers." in line for line in text)
        changes = text.index("--- previous request")
        assert text[1:changes] == [
            "What changed since the previous request:",
            "  no key besides the messages",
            "  messages: changed #2 system, #11 user",
            "",
        ]
        assert diff_lines(screen.previous_json or "", screen.json_text) == text[changes:]


async def test_diff_with_a_previous_body_none_or_the_same() -> None:
    plan = make_plan()
    body = request_body(plan)
    app = HostApp(lambda: [])
    async with app.run_test(size=(100, 30)) as pilot:
        screen = RequestInspector(body, plan, tab="diff")
        await app.push_screen(screen)
        await pilot.pause()
        assert shown(screen, "diff-view") == "No previous request to compare with."
        screen.dismiss()
        await pilot.pause()
        same = RequestInspector(body, plan, previous=dict(body), tab="diff")
        await app.push_screen(same)
        await pilot.pause()
        assert shown(same, "diff-view") == "No change from the previous request."
        changed = RequestInspector(body, plan, previous={**body, "model": "gpt-4.1"}, tab="diff")
        await app.push_screen(changed)
        await pilot.pause()
        assert '-  "model": "gpt-4.1",' in shown(changed, "diff-view").splitlines()


async def test_message_text_is_shown_literally_and_a_mismatched_body_is_flagged() -> None:
    plan = make_plan(new_input="[bold]x[/bold] [@click=app.quit]q[/] \x1b]0;t\x07\u202eevil")
    body = request_body(plan)
    app = HostApp(lambda: [])
    async with app.run_test(size=(100, 30)) as pilot:
        screen = RequestInspector(body, plan, tab="messages")
        await app.push_screen(screen)
        await pilot.pause()
        # JSON escapes the ESC and BEL; the bidi override is shown escaped, for display only.
        assert (
            '"content": "[bold]x[/bold] [@click=app.quit]q[/] \\u001b]0;t\\u0007\\u202eevil"'
            in shown(screen, "json-view")
        )
        assert "[bold]x[/bold] [@click=app.quit]q[/]" in shown(screen, "messages-view")
        assert "\u202e" in screen.json_text
        screen.dismiss()
        tampered = RequestInspector({**body, "messages": body["messages"][:-1]}, plan)
        await app.push_screen(tampered)
        await pilot.pause()
        summary = " ".join(rendered(tampered.query_one(".inspector--summary", Static)).split())
        assert "the body's messages differ from the plan's" in summary


def test_every_binding_has_an_id_and_a_tooltip() -> None:
    assert {b.id for b in Binding.make_bindings(RequestInspector.BINDINGS)} == {
        "inspector.close",
        "inspector.copy",
        "inspector.json",
        "inspector.messages",
        "inspector.diff",
        "inspector.rendered",
        "inspector.next",
        "inspector.previous",
    }
    assert all(b.tooltip for b in Binding.make_bindings(RequestInspector.BINDINGS))


async def test_a_long_request_scrolls_and_rewraps_on_resize() -> None:
    plan = make_plan(messages=200, summary=None)
    app = HostApp(lambda: [])
    async with app.run_test(size=(80, 24)) as pilot:
        screen = RequestInspector(request_body(plan), plan)
        await app.push_screen(screen)
        await pilot.pause()
        view = screen.query_one("#json-view", WrappedLines)
        assert app.focused is view
        narrow_rows = view.virtual_size.height
        assert narrow_rows > len(screen.json_text.splitlines())  # the memory line wraps
        await pilot.press("end")
        await pilot.pause()
        assert view.scroll_offset.y == view.max_scroll_y > 0
        assert rendered(view).rstrip().splitlines()[-1].strip() == "}"
        await pilot.resize_terminal(200, 24)
        await pilot.pause()
        assert view.virtual_size.height < narrow_rows


async def test_typing_closes_the_inspector_and_every_key_reaches_the_box_in_order() -> None:
    plan = make_plan()
    app = HostApp(lambda: [Input(id="box")])
    async with app.run_test(size=(100, 30)) as pilot:
        box = app.query_one("#box", Input)
        box.focus()
        await pilot.press(*"I'")
        screen = RequestInspector(request_body(plan), plan, previous=make_plan())
        await app.push_screen(screen)
        await pilot.pause()
        typed = "d made my mind up: just do it, cat"  # d, m and j switched tabs, c copied
        burst(pilot, typed)
        await until(pilot, lambda: box.value == "I'" + typed)
        assert app.screen is not screen
        assert app.focused is box
        assert app.clipboard == ""  # c copied nothing: the clipboard is the user's


async def test_typing_over_another_dialog_is_ignored_and_said_once() -> None:
    plan = make_plan()
    app = HostApp(lambda: [Input(id="box")])
    notes = noted(app)
    async with app.run_test(size=(100, 30)) as pilot:
        await app.push_screen(ModalScreen[None]())
        screen = RequestInspector(request_body(plan), plan, previous=make_plan())
        await app.push_screen(screen)
        await pilot.pause()
        await pilot.press(*"just do it")
        await pilot.pause()
        assert app.screen is screen
        assert screen.query_one(TabbedContent).active == "json"
        assert notes == [RequestInspector.TYPING_NOTE]
        assert app.query_one("#box", Input).value == ""


async def test_tabs_switch_on_chords_and_arrows() -> None:
    plan = make_plan()
    app = HostApp(lambda: [])
    notes = noted(app)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = RequestInspector(request_body(plan), plan, previous=make_plan())
        await app.push_screen(screen)
        await pilot.pause()
        tabs = screen.query_one(TabbedContent)
        seen = []
        for key in ("ctrl+t", "ctrl+d", "ctrl+j", "ctrl+r", "left", "left", "right", "right"):
            await pilot.press(key)
            seen.append((tabs.active, app.focused and app.focused.id))
        assert seen == [
            ("messages", "messages-view"),
            ("diff", "diff-view"),
            ("json", "json-view"),
            ("rendered", "rendered-view"),
            ("diff", "diff-view"),
            ("messages", "messages-view"),
            ("diff", "diff-view"),
            ("rendered", "rendered-view"),
        ]
        assert notes == []  # chords and arrows are not typing


async def test_the_diff_names_every_key_of_the_body_that_differs() -> None:
    """Sampling and max_tokens changes are told (and in the diff), not only the messages'."""
    body, plan, previous = sampling_change()
    app = HostApp(lambda: [])
    async with app.run_test() as pilot:
        screen = RequestInspector(body, plan, previous=previous, tab="diff")
        await app.push_screen(screen)
        await pilot.pause()
        text = shown(screen, "diff-view")
    assert "max_tokens: 1,024 → 150" in text
    assert "temperature: not sent → 0.3" in text
    assert "messages: changed #11 user" in text
    assert '-  "max_tokens": 1024' in text
    assert '+  "max_tokens": 150,' in text
    assert '+  "temperature": 0.3' in text
