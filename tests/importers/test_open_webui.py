"""Open WebUI's export: answers of several models as variants, reasoning blocks as
reasoning, files as placeholders, a failed reply kept as failed, and older chats."""

from __future__ import annotations

from pathlib import Path

from ctxchat.core.history import MessageStatus
from ctxchat.core.tokens import TokenCounter
from ctxchat.store import Store

from .conftest import imported
from .open_webui_export import compare, older, with_output


def test_the_answer_shown_is_the_reply_and_the_other_model_a_variant(
    store: Store, counter: TokenCounter, tmp_path: Path
) -> None:
    done = imported(store, counter, tmp_path, [compare()])
    conversation = store.conversations.get_conversation(done.conversation_ids[0])
    assert (conversation.title, conversation.origin, conversation.model) == (
        "Fjords",
        "open-webui",
        "qwen3",
    )
    messages = store.messages.messages(conversation.id)
    assert [(m.role, m.content, m.status) for m in messages] == [
        ("user", "[image not imported]\n\nName a fjord.", MessageStatus.COMPLETE),
        ("assistant", "Sognefjord.", MessageStatus.COMPLETE),
        ("user", "How deep is it?", MessageStatus.COMPLETE),
        ("assistant", "", MessageStatus.FAILED),
    ]
    reply = messages[1]
    assert reply.reasoning == "Norway has many fjords.\nPick a famous one."
    assert (reply.prompt_tokens, reply.completion_tokens) == (12, 30)
    assert messages[3].error == "Ollama: model unloaded"
    variants = store.variants.variants(reply.id)
    assert [(v.content, v.model, v.change) for v in variants] == [
        ("Geirangerfjord.", "llama3.2", "another answer in Open WebUI")
    ]


def test_an_older_chat_is_its_list_of_messages(
    store: Store, counter: TokenCounter, tmp_path: Path
) -> None:
    done = imported(store, counter, tmp_path, [older()])
    messages = store.messages.messages(done.conversation_ids[0])
    assert [(m.role, m.content) for m in messages] == [
        ("system", "You are terse."),
        ("user", "Hi"),
        ("assistant", "Hello."),
    ]


def test_a_reply_kept_as_output_items_is_read_from_them(
    store: Store, counter: TokenCounter, tmp_path: Path
) -> None:
    done = imported(store, counter, tmp_path, [with_output()])
    messages = store.messages.messages(done.conversation_ids[0])
    assert (messages[-1].role, messages[-1].content, messages[-1].status) == (
        "assistant",
        "About 1,300 metres.",
        MessageStatus.COMPLETE,
    )
