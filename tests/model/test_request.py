"""The request builder: the body each host wants, and headers shown without their secrets."""

from __future__ import annotations

import pytest

from ctxchat.model.request import Sampling, build_chat_request

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


def test_sampling_goes_in_the_body_and_is_read_back() -> None:
    request = build_chat_request(
        base_url="http://127.0.0.1:8080/v1",
        model="m",
        messages=[{"role": "user", "content": "hi"}],
        max_tokens=300,
        temperature=0.2,
        top_p=0.5,
    )
    assert (request.body["temperature"], request.body["top_p"]) == (0.2, 0.5)
    assert request.sampling == Sampling(0.2, 0.5, 300)
    assert request.sampling.words() == ["temperature 0.2", "top_p 0.5"]
    plain = build_chat_request(base_url="http://x/v1", model="m", messages=[])
    assert "top_p" not in plain.body and plain.sampling == Sampling()


def test_sampling_of_a_body_from_elsewhere_keeps_only_numbers() -> None:
    body = {"temperature": "hot", "top_p": True, "max_completion_tokens": 50}
    assert Sampling.of_body(body) == Sampling(None, None, 50)
    assert Sampling.of_body({"max_tokens": "many"}).words() == []
