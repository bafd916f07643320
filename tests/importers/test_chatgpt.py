"""ChatGPT's export: the conversation the user last saw, other answers as variants, edited
questions as branch conversations, and every node that is no message left out."""

from __future__ import annotations

from pathlib import Path

from ctxchat.chat.history_import import import_file
from ctxchat.core.tokens import TokenCounter, count_message
from ctxchat.store import Store
from ctxchat.store.search import find_expression

from .chatgpt_export import research, short, trip
from .conftest import imported, write_json

CODE = "[called python]\n```python\nprint(6 * 7)\n```\n\n[python output]\n```\n42\n```"


def test_the_branch_shown_last_is_the_conversation(
    store: Store, counter: TokenCounter, tmp_path: Path
) -> None:
    imported(store, counter, tmp_path, [trip()])
    first = store.conversations.list_conversations()[-1]
    assert (first.title, first.origin, first.origin_id) == ("Trip to Oslo", "chatgpt", "conv-trip")
    messages = store.messages.messages(first.id)
    assert [(m.role, m.content) for m in messages] == [
        ("system", "Custom instructions\nAbout me: I live in Bergen.\nHow to respond: Be brief."),
        ("user", "When should I visit Oslo?"),
        ("assistant", "Go in summer."),
        ("user", "[image not imported: 800×600]\nWhat should I pack, judging by this photo?"),
        ("assistant", f"{CODE}\n\nPack layers."),
    ]
    reply = messages[-1]
    assert (reply.model, reply.reasoning) == ("o3", "Weather\n\nOslo is rainy.")
    assert [m.created_at for m in messages][1:3] == [1_700_000_030.0, 1_700_000_050.0]


def test_other_answers_are_variants_of_the_reply(
    store: Store, counter: TokenCounter, tmp_path: Path
) -> None:
    imported(store, counter, tmp_path, [trip()])
    conversation = store.conversations.list_conversations()[-1].id
    replies = [m for m in store.messages.messages(conversation) if m.role == "assistant"]
    assert [[v.content for v in store.variants.variants(r.id)] for r in replies] == [
        ["Go in winter."],
        [f"{CODE}\n\nPack a raincoat."],
    ]
    variant = store.variants.variants(replies[0].id)[0]
    assert variant.change == "another answer in ChatGPT"
    assert variant.tokens == count_message(counter, "assistant", "Go in winter.").tokens


def test_an_edited_question_is_a_branch_conversation(
    store: Store, counter: TokenCounter, tmp_path: Path
) -> None:
    imported(store, counter, tmp_path, [trip()])
    branch = store.conversations.list_conversations()[0]
    assert (branch.title, branch.origin_id) == ("Trip to Oslo (branch 2)", "conv-trip#brunost")
    assert [m.content for m in store.messages.messages(branch.id)][1:] == [
        "When should I visit Oslo?",
        "Go in summer.",
        "What should I eat there?",
        "Try brunost.",
    ]


def test_each_message_is_counted_once_when_imported(
    store: Store, counter: TokenCounter, tmp_path: Path
) -> None:
    imported(store, counter, tmp_path, [short("c1", "Hello there", "Hi!")])
    messages = store.messages.messages(store.conversations.list_conversations()[0].id)
    assert [(m.tokens, m.encoding, m.exact) for m in messages] == [
        (count_message(counter, m.role, m.content).tokens, "o200k_base", True) for m in messages
    ]

    def never(role: str, content: str) -> int:
        raise AssertionError("an imported message was counted again")

    history = store.messages.history(messages[0].conversation_id, "o200k_base", never)
    assert [h.tokens for h in history] == [m.tokens for m in messages]


def test_importing_the_same_export_again_adds_nothing(
    store: Store, counter: TokenCounter, tmp_path: Path
) -> None:
    path = write_json(tmp_path / "conversations.json", [trip(), short("c2", "Hi", "Hello")])
    first = import_file(store, path, counter=counter)
    before = store.conversations.list_conversations()
    again = import_file(store, path, counter=counter)
    assert store.conversations.list_conversations() == before
    assert (len(first.conversation_ids), again.conversation_ids) == (3, [])
    assert again.summary() == (
        "Nothing new to import from ChatGPT. 3 were imported before and are left as they are."
    )


def test_a_part_that_is_null_and_a_message_without_content_hold_no_text(
    store: Store, counter: TokenCounter, tmp_path: Path
) -> None:
    conversation = short("c1", "Hello there", "Hi!")
    conversation["mapping"]["q"]["message"]["content"]["parts"] = [None, "Hello there"]
    conversation["mapping"]["a"]["message"]["content"] = {}
    done = imported(store, counter, tmp_path, [conversation])
    assert [(m.role, m.content) for m in store.messages.messages(done.conversation_ids[0])] == [
        ("user", "Hello there")
    ]


def test_imported_messages_are_found_and_recalled(
    store: Store, counter: TokenCounter, tmp_path: Path
) -> None:
    done = imported(store, counter, tmp_path, [trip()])
    main, branch = done.conversation_ids[:2]
    assert set(store.search.find_conversations("brunost")) == {branch}
    assert set(store.search.find_conversations("visit oslo")) == {main, branch}
    found = store.search.search_messages(main, find_expression("summer"))
    assert [candidate.content for candidate in found] == ["Go in summer."]


def test_browsing_quotes_voice_and_images_are_text_or_placeholders(
    store: Store, counter: TokenCounter, tmp_path: Path
) -> None:
    done = imported(store, counter, tmp_path, [research()])
    assert [(m.role, m.content) for m in store.messages.messages(done.conversation_ids[0])] == [
        ("user", "Find me a source on fjords.\n\n[file not imported: report.pdf]"),
        (
            "assistant",
            '[called browser]\n```json\nsearch("fjords")\n```\n\n'
            "[browser output]\n```\n1. Fjords (example.org)\n```\n\n"
            "[quoted from Fjords https://example.org/fjords]\n\n"
            "> A fjord is a long, narrow inlet.\n\nHere is what I found.",
        ),
        ("user", "Draw one for me.\n[audio not imported]"),
        (
            "assistant",
            '[called dalle.text2im]\n```json\n{"prompt": "A fjord at dawn"}\n```\n\n'
            "[image not imported: 1024×1024, made from the prompt “A fjord at dawn”]\n\n"
            "Here is your picture.",
        ),
    ]
