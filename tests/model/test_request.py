"""The request builder: the body each host wants, and headers shown without their secrets."""

from __future__ import annotations

import pytest

from ctxchat.model.request import build_chat_request

MESSAGES = [{"role": "user", "content": "Hi"}]


@pytest.mark.parametrize(
    ("base_url", "field"),
    [
        ("https://api.openai.com/v1", "max_completion_tokens"),
        ("https://openrouter.ai/api/v1", "max_tokens"),
        ("http://127.0.0.1:8080/v1", "max_tokens"),
    ],
)
def test_the_output_limit_is_named_as_the_host_wants_it(base_url: str, field: str) -> None:
    request = build_chat_request(
        base_url=base_url, model="gpt-4o", messages=MESSAGES, max_tokens=500
    )
    assert request.body == {
        "model": "gpt-4o",
        "messages": MESSAGES,
        field: 500,
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    assert request.url == base_url + "/chat/completions"


def test_every_field_is_decided_here() -> None:
    request = build_chat_request(
        base_url="http://h/v1",
        model="m",
        messages=MESSAGES,
        temperature=0.25,
        stream_usage=False,
    )
    assert request.body == {"model": "m", "messages": MESSAGES, "stream": True, "temperature": 0.25}


def test_headers_are_sent_in_clear_and_shown_masked() -> None:
    request = build_chat_request(
        base_url="http://h/v1",
        model="m",
        messages=MESSAGES,
        api_key="sk-secret-0123456789abcdef",
        headers={"HTTP-Referer": "https://example.org", "X-Api-Key": "gateway-secret-12345678"},
    )
    assert request.headers == {
        "Authorization": "Bearer sk-secret-0123456789abcdef",
        "HTTP-Referer": "https://example.org",
        "X-Api-Key": "gateway-secret-12345678",
    }
    shown = request.shown()
    assert shown["headers"] == {
        "Authorization": "Bearer sk-…cdef",
        "HTTP-Referer": "https://example.org",
        "X-Api-Key": "…5678",
    }
    assert "secret" not in str(shown)
