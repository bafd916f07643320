"""Shared builders for core tests."""

from collections.abc import Callable

import pytest

from ctxchat.core.history import HistoryMessage
from ctxchat.core.tokens import CachingCounter, TokenCounter, count_message, counter_for_model


@pytest.fixture(scope="session")
def counter() -> TokenCounter:
    return CachingCounter(counter_for_model("gpt-4o"))


@pytest.fixture
def make_history(counter: TokenCounter) -> Callable[[list[str]], list[HistoryMessage]]:
    """Alternating user/assistant messages with ids 1..n, counted once like the store does."""

    def build(texts: list[str]) -> list[HistoryMessage]:
        messages = []
        for index, text in enumerate(texts):
            role = "user" if index % 2 == 0 else "assistant"
            tokens = count_message(counter, role, text).tokens
            messages.append(HistoryMessage(index + 1, role, text, tokens))
        return messages

    return build
