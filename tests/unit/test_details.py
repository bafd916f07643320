"""Details a turn holds: each kind found, with the forms it is found again by."""

from __future__ import annotations

import pytest

from ctxchat.core.detail_keys import numbers_in_words
from ctxchat.core.detail_kind import DetailKind
from ctxchat.core.details import details_in


def found(text: str) -> list[tuple[str, str]]:
    return [(detail.kind.value, detail.text) for detail in details_in(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "The docs are at https://example.com/docs/setup.",
            ("url", "https://example.com/docs/setup"),
        ),
        ("Edit /etc/nginx/nginx.conf now.", ("path", "/etc/nginx/nginx.conf")),
        ("It lives in src/app/settings.py today.", ("path", "src/app/settings.py")),
        ("Open C:\\Users\\ana\\notes.txt please.", ("path", "C:\\Users\\ana\\notes.txt")),
        ("The setting is in config.toml.", ("path", "config.toml")),
        (
            "Run `pip install -r requirements.txt` first.",
            ("command", "pip install -r requirements.txt"),
        ),
        ("then run git rebase -i HEAD~3 before pushing", ("command", "git rebase -i HEAD~3")),
        ("Set max_retries in the client.", ("identifier", "max_retries")),
        ("Call loadConfig from the entry point.", ("identifier", "loadConfig")),
        ("Call load_config() first.", ("identifier", "load_config()")),
        ("Pass --dry-run to see it.", ("identifier", "--dry-run")),
        ("The deadline is March 15, 2024.", ("date", "March 15, 2024")),
        ("Ship it by 2024-03-15.", ("date", "2024-03-15")),
        ("We meet on Friday.", ("date", "Friday")),
        ("The call is at 3pm.", ("date", "3pm")),
        ("The budget is $12,500 in total.", ("number", "$12,500")),
        ("Keep the pool at 20 connections.", ("number", "20")),
        ("A timeout of 30s is enough.", ("number", "30s")),
        ("We use Python 3.11.4 there.", ("number", "3.11.4")),
        ("Maria Lopez will review it.", ("name", "Maria Lopez")),
        ("Ask someone at Acme Corp about it.", ("name", "Acme Corp")),
        ("It must be GDPR compliant.", ("name", "GDPR")),
    ],
)
def test_each_kind_is_found(text: str, expected: tuple[str, str]) -> None:
    assert expected in found(text)


def test_a_fenced_shell_block_gives_one_command_per_line() -> None:
    text = "Do this:\n```bash\n$ docker compose up -d\nkubectl apply -f deploy.yaml\n```\nDone."
    commands = [d.text for d in details_in(text) if d.kind is DetailKind.COMMAND]
    assert commands == ["docker compose up -d", "kubectl apply -f deploy.yaml"]


def test_code_names_what_it_defines() -> None:
    text = "```python\ndef fold_into_summary(x):\n    return x\nclass LossReport:\n    pass\n```"
    names = [d.text for d in details_in(text) if d.kind is DetailKind.IDENTIFIER]
    assert names == ["fold_into_summary", "LossReport"]


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("We decided to use PostgreSQL instead of MySQL for orders.", DetailKind.DECISION),
        ("Let's go with the blue theme for the dashboard.", DetailKind.DECISION),
        ("Never push directly to the main branch.", DetailKind.CONSTRAINT),
        ("Replies must stay under two hundred words.", DetailKind.CONSTRAINT),
    ],
)
def test_decisions_and_rules_are_whole_sentences(text: str, kind: DetailKind) -> None:
    sentences = [
        d for d in details_in(text) if d.kind in (DetailKind.DECISION, DetailKind.CONSTRAINT)
    ]
    assert [(d.kind, d.text) for d in sentences] == [(kind, text)]


@pytest.mark.parametrize(
    "text",
    [
        "Thanks, that helps a lot.",
        "Sure, here are 2 options to consider.",
        "The quick answer is yes and/or no.",
        "1. First step\n2. Second step",
        "Okay. Great. Let me think about it.",
    ],
)
def test_small_talk_holds_no_details(text: str) -> None:
    assert found(text) == []


def test_a_sentence_opening_word_is_a_name_only_when_capitalized_elsewhere() -> None:
    text = "Postgres is fast. Restart the service."
    assert ("name", "Postgres") in [(d.kind.value, d.text) for d in details_in(text, {"Postgres"})]
    assert found(text) == []


@pytest.mark.parametrize(
    ("text", "numbers"),
    [
        ("twenty-five retries", [25]),
        ("three hundred and twelve users", [312]),
        ("twelve thousand five hundred dollars", [12500]),
        ("a dozen eggs and two spoons", [12, 2]),
    ],
)
def test_numbers_written_in_words(text: str, numbers: list[int]) -> None:
    assert list(numbers_in_words(text)) == numbers
