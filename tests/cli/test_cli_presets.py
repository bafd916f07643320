"""Presets on the command line: `--preset` sends its sampling and prompt and is remembered,
`ctxchat presets` lists them, `ctxchat system-prompt` gives a conversation its own prompt."""

from __future__ import annotations

import json
from pathlib import Path

from ctxchat.testing.server import ScriptedModelServer

from .conftest import Run

PRESETS = (
    "[presets.precise]\n"
    'system_prompt = "Answer in one line."\n'
    'model = "small"\n'
    "temperature = 0.2\n"
    "top_p = 0.5\n"
    "max_output_tokens = 300\n"
    "[presets.loose]\n"
    "temperature = 1.2\n"
)


def _add_presets(home: Path, text: str = PRESETS) -> None:
    config = home / "config.toml"
    config.write_text(config.read_text() + text)


def _conversation_preset(run: Run) -> object:
    code, out, _ = run("presets", "--json")
    assert code == 0
    return json.loads(out)["chosen"]


def test_send_with_a_preset_sends_its_sampling_prompt_and_model(
    run: Run, home: Path, server: ScriptedModelServer
) -> None:
    _add_presets(home)
    server.default_reply = "Yes."
    code, _, err = run("send", "--new", "--preset", "precise", "Is it raining?")
    assert (code, err) == (0, "")
    body = server.requests[-1]
    assert body["model"] == "small"
    assert (body["temperature"], body["top_p"], body["max_tokens"]) == (0.2, 0.5, 300)
    assert body["messages"][0] == {"role": "system", "content": "Answer in one line."}


def test_the_preset_is_remembered_for_the_conversation(
    run: Run, home: Path, server: ScriptedModelServer
) -> None:
    _add_presets(home)
    server.default_reply = "Yes."
    assert run("send", "--new", "--preset", "precise", "First?")[0] == 0
    assert run("send", "Second?")[0] == 0  # no --preset: the conversation's
    body = server.requests[-1]
    assert (body["model"], body["temperature"], body["max_tokens"]) == ("small", 0.2, 300)
    assert body["messages"][0]["content"] == "Answer in one line."
    assert _conversation_preset(run) == "precise"

    code, out, _ = run("context", "--json")
    assert code == 0
    shown = json.loads(out)
    assert shown["sampling"] == {
        "preset": "precise",
        "temperature": 0.2,
        "top_p": 0.5,
        "max_tokens": 300,
    }
    assert shown["request"]["body"]["top_p"] == 0.5
    code, out, _ = run("context")
    assert "preset precise · temperature 0.2 · top_p 0.5" in out


def test_context_with_a_preset_shows_it_and_changes_nothing(
    run: Run, home: Path, server: ScriptedModelServer
) -> None:
    _add_presets(home)
    server.default_reply = "Yes."
    assert run("send", "--new", "Hi")[0] == 0
    code, out, _ = run("context", "--json", "--preset", "loose")
    assert code == 0
    assert json.loads(out)["sampling"]["temperature"] == 1.2
    assert _conversation_preset(run) is None


def test_the_command_lines_model_wins_over_the_presets(
    run: Run, home: Path, server: ScriptedModelServer
) -> None:
    _add_presets(home)
    server.default_reply = "Yes."
    assert run("send", "--new", "--preset", "precise", "--model", "gpt-4o", "Hi")[0] == 0
    assert (server.requests[-1]["model"], server.requests[-1]["temperature"]) == ("gpt-4o", 0.2)


def test_an_unknown_preset_is_one_line_naming_the_configured_ones(
    run: Run, home: Path, server: ScriptedModelServer
) -> None:
    _add_presets(home)
    code, out, err = run("send", "--new", "--preset", "fast", "Hi")
    assert (code, out) == (1, "")
    assert err == (
        'ctxchat: no preset named "fast"; the configured presets are "precise", "loose"\n'
    )
    assert server.requests == []
    assert json.loads(run("conversations", "--json")[1]) == []


def test_a_bad_preset_in_the_config_is_one_line(
    run: Run, home: Path, server: ScriptedModelServer
) -> None:
    _add_presets(home, "[presets.hot]\ntemperature = 5\n")
    code, out, err = run("send", "--new", "Hi")
    assert (code, out) == (1, "")
    assert err.endswith("presets.hot.temperature: expected a number from 0 to 2, got 5\n")
    assert err.count("\n") == 1 and "Traceback" not in err
    assert server.requests == []


def test_presets_are_listed_with_the_conversations_marked(
    run: Run, home: Path, server: ScriptedModelServer
) -> None:
    code, out, _ = run("presets")
    assert (code, out.startswith("No presets")) == (0, True)
    _add_presets(home)
    server.default_reply = "Yes."
    assert run("send", "--new", "--preset", "loose", "Hi")[0] == 0
    code, out, _ = run("presets")
    assert code == 0
    rows = {line.split("│")[2].strip(): line for line in out.splitlines() if "│" in line}
    assert "*" in rows["loose"].split("│")[1]
    assert "*" not in rows["precise"].split("│")[1]
    assert "Answer in one line." in rows["precise"]
    listed = json.loads(run("presets", "--json")[1])
    assert listed["presets"]["precise"]["max_output_tokens"] == 300
    assert listed["chosen"] == "loose"


def test_a_conversation_gets_its_own_system_prompt(
    run: Run, home: Path, server: ScriptedModelServer
) -> None:
    server.default_reply = "Arr."
    assert run("send", "--new", "Hi")[0] == 0
    code, out, err = run("system-prompt")
    assert (code, out, err) == (
        0,
        "You are terse.\n",
        "From the config ([context] system_prompt):\n",
    )

    code, _, err = run("system-prompt", "Speak like a pirate.")
    assert code == 0 and "its own system prompt" in err
    assert run("send", "Hello")[0] == 0
    assert server.requests[-1]["messages"][0]["content"] == "Speak like a pirate."
    shown = json.loads(run("system-prompt", "--json")[1])
    assert (shown["system_prompt"], shown["own"]) == ("Speak like a pirate.", True)

    assert run("system-prompt", "")[0] == 0  # none sent
    assert run("send", "Again")[0] == 0
    assert "system" not in [m["role"] for m in server.requests[-1]["messages"]]

    assert run("system-prompt", "--clear")[0] == 0
    assert run("send", "Once more")[0] == 0
    assert server.requests[-1]["messages"][0]["content"] == "You are terse."


def test_the_system_prompt_needs_a_conversation(run: Run) -> None:
    code, out, err = run("system-prompt", "Be brief.")
    assert (code, out) == (1, "")
    assert err == "ctxchat: there is no conversation yet: start one with `ctxchat send`\n"


def test_the_system_prompt_takes_text_or_clear_not_both(
    run: Run, server: ScriptedModelServer
) -> None:
    server.default_reply = "Yes."
    assert run("send", "--new", "Hi")[0] == 0
    code, _, err = run("system-prompt", "--clear", "Be brief.")
    assert (code, err) == (2, "ctxchat: give the prompt or --clear, not both\n")
