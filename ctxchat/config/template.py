"""The starting `config.toml` that `ctxchat config init` writes: every setting, each explained."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from ctxchat.config.files import write_private_file
from ctxchat.config.settings import ProviderProfile, Settings
from ctxchat.config.shipped_keys import SHIPPED_KEYS

EXAMPLE_PROFILE = ProviderProfile(
    name="local",
    base_url="http://127.0.0.1:8080/v1",
    model="gemma-3-270m",
)

_HEADER = """\
# ctxchat configuration.
# This file is yours: ctxchat reads it and never rewrites it. What the app changes while it
# runs (the last mode, a theme picked in the app) goes to its own state file instead
# (`ctxchat config path` shows where). Every key is optional; an unknown key is an error,
# so a typo cannot pass unnoticed.
"""


def _dump(values: Mapping[str, object]) -> str:
    import tomli_w  # only needed when writing

    return tomli_w.dumps(values)


def _key(name: str) -> str:
    """A key as TOML writes it (bare, or quoted when it must be)."""
    return _dump({name: True}).removesuffix(" = true\n")


def _table(*path: str) -> str:
    return "[" + ".".join(_key(part) for part in path) + "]\n"


def _setting(name: str, value: object, *comment: str) -> str:
    lines = "".join(f"# {line}\n" for line in comment)
    return lines + _dump({name: value})


def _commented(line: str) -> str:
    return "".join(f"# {part}\n" for part in line.splitlines())


def _profile(profile: ProviderProfile) -> str:
    text = _table("profiles", profile.name)
    text += _setting("base_url", profile.base_url, "The server's API root (most end in /v1).")
    text += _setting(
        "model",
        profile.model,
        "The model name sent with each request (llama.cpp serves one model and accepts any name).",
    )
    text += "# Where the API key comes from: an environment variable...\n"
    if profile.api_key_env:
        text += _dump({"api_key_env": profile.api_key_env})
    else:
        text += _commented(_dump({"api_key_env": "OPENAI_API_KEY"}))
    text += "# ...or the key itself (then keep this file private: mode 0600). A local server needs none.\n"
    if profile.api_key:
        text += _dump({"api_key": profile.api_key})
    else:
        text += _commented(_dump({"api_key": "sk-..."}))
    text += _setting(
        "context_window",
        profile.context_window,
        "The model's context window in tokens; 0 = ask the server, then the known-models table.",
    )
    text += _setting(
        "output_reserve",
        profile.output_reserve,
        "Tokens kept free for the reply; 0 = [context] output_reserve.",
    )
    if profile.headers:
        text += "# Extra HTTP headers sent with each request.\n"
        text += _table("profiles", profile.name, "headers")
        text += _dump(dict(profile.headers))
    return text


def render_config(settings: Settings) -> str:
    """A commented config file that loads back to exactly `settings`."""
    parts = [_HEADER, "\n"]
    if settings.default_profile:
        parts.append(
            _setting(
                "default_profile",
                settings.default_profile,
                "The profile used unless another is chosen (else the first one).",
            )
        )
    else:
        parts.append("# The profile used unless another is chosen (else the first one).\n")
        parts.append(_commented(_dump({"default_profile": EXAMPLE_PROFILE.name})))
    parts.append(
        _setting(
            "default_mode",
            settings.default_mode.value,
            'The mode new conversations start in: "personalization" (all of memory) or',
            '"objective" (facts and constraints only: no preferences or hypotheses).',
        )
    )
    parts.append(
        _setting(
            "theme",
            settings.theme,
            "A Textual theme, or the name of a theme file in the themes directory.",
        )
    )
    parts.append("\n# One table per OpenAI-compatible server: [profiles.NAME].\n")
    if settings.profiles:
        parts.extend(_profile(profile) + "\n" for profile in settings.profiles.values())
    else:
        example = {"base_url": EXAMPLE_PROFILE.base_url, "model": EXAMPLE_PROFILE.model}
        parts.append(_commented(_table("profiles", EXAMPLE_PROFILE.name) + _dump(example)) + "\n")
    parts.append(_context(settings) + "\n")
    parts.append(_summary(settings) + "\n")
    parts.append(_recall(settings) + "\n")
    parts.append(_memory(settings) + "\n")
    parts.append(_model(settings) + "\n")
    parts.append(_keys(settings))
    return "".join(parts)


def _context(settings: Settings) -> str:
    context = settings.context
    text = "# What the model sees: the system prompt, and how the budget is shared out.\n"
    text += _table("context")
    text += _setting("system_prompt", context.system_prompt, "Sent first in every request.")
    text += _setting(
        "min_recent",
        context.min_recent,
        "The last messages always kept in working memory (when they fit).",
    )
    text += _setting(
        "selection",
        context.selection.value,
        'How older messages are chosen: "recency" (newest first) or "scored".',
    )
    text += _setting(
        "context_window",
        context.context_window,
        "The context window for profiles that set none; 0 = detect.",
    )
    text += _setting(
        "output_reserve",
        context.output_reserve,
        "Tokens kept free for the reply; 0 = an eighth of the window, at most 4096.",
    )
    text += "\n# Fractions of the input budget for each layer; together at most 1.\n"
    text += _table("context", "shares")
    text += _dump(context.shares.as_dict())
    return text


def _summary(settings: Settings) -> str:
    summary = settings.summary
    text = "# Folding older messages into a running summary.\n"
    text += _table("summary")
    text += _setting(
        "strategy",
        summary.strategy.value,
        '"summarize" (prose, ~3x shorter), "semantic" (one statement a line, ~5-10x)',
        'or "keyvalue" (decision: / constraint: lines, ~10-20x).',
    )
    text += _setting("auto", summary.auto, "Fold messages that left working memory automatically.")
    text += _setting(
        "min_messages",
        summary.min_messages,
        "Fold once this many messages have left working memory...",
    )
    text += _setting("min_tokens", summary.min_tokens, "...or once they hold this many tokens.")
    text += _setting(
        "max_unsummarized",
        summary.max_unsummarized,
        "Also fold when more messages than this are not yet summarized; 0 = off.",
    )
    text += _setting(
        "profile",
        summary.profile or "",
        'A profile for the summarizer; "" = the chat profile.',
    )
    text += _setting(
        "model", summary.model or "", 'A model for the summarizer; "" = its profile\'s model.'
    )
    text += _setting(
        "max_tokens",
        summary.max_tokens,
        "The longest summary, in tokens; 0 = what the summary share of the budget allows.",
        "A longer reply is cut at its last whole sentence and flagged as cut.",
    )
    return text


def _recall(settings: Settings) -> str:
    recall = settings.recall
    text = "# Recall of earlier turns, and a budget that adapts as the conversation grows.\n"
    text += _table("recall")
    text += _setting("enabled", recall.enabled, "Search earlier messages for the new one.")
    text += _setting(
        "share", recall.share, "The share recall takes from working memory when it finds something."
    )
    text += _setting(
        "half_life",
        recall.half_life,
        "Recency breaks near-ties; it halves every this many messages.",
    )
    text += _setting(
        "limit", recall.limit, "At most this many results of each search; filled by tokens."
    )
    text += _setting(
        "semantic", recall.semantic, "Also search by meaning (needs the embeddings extra)."
    )
    text += _setting(
        "long_after_turns",
        recall.long_after_turns,
        "Past this many turns, working memory yields long_shift to summary and recall.",
    )
    text += _setting("long_shift", recall.long_shift, "How much working memory yields then.")
    return text


def _memory(settings: Settings) -> str:
    memory = settings.memory
    text = "# Memory entries over time.\n"
    text += _table("memory")
    text += _setting(
        "hypothesis_turns",
        memory.hypothesis_turns,
        "Flag a hypothesis unconfirmed for this many turns (0 = never): confirm, keep or drop.",
    )
    text += _setting(
        "dates",
        memory.dates,
        "Put today's date and each entry's date in the memory layer. Off by default: the",
        "start of the request then stays the same from day to day, so prompt caches hit.",
    )
    return text


def _model(settings: Settings) -> str:
    model = settings.model
    text = "# How long to wait on the model server, in seconds.\n"
    text += _table("model")
    text += _setting(
        "chunk_timeout",
        model.chunk_timeout,
        "Silence allowed between two chunks of a reply; then it is stopped (what arrived is kept).",
    )
    text += _setting(
        "first_chunk_timeout",
        model.first_chunk_timeout,
        "Wait for a reply to start: a local model may read a long prompt for minutes.",
    )
    text += _setting("connect_timeout", model.connect_timeout, "Wait to connect to the server.")
    return text


def _keys(settings: Settings) -> str:
    text = "# Key remaps: binding id = keys (comma-separated for several).\n"
    text += _table("keys")
    if settings.keymap:
        text += _dump(dict(settings.keymap))
    text += (
        "# Every binding id, with the keys it ships with. Letters typed on the conversation\n"
        "# or the memory panel go to the composer, so a bare letter there never fires.\n"
    )
    shipped = {name: keys for name, keys in SHIPPED_KEYS.items() if name not in settings.keymap}
    text += _commented(_dump(shipped))
    return text


def starter_settings(profile: ProviderProfile | None = None) -> Settings:
    """The settings a fresh config starts from: defaults and one profile (a local server)."""
    chosen = profile or EXAMPLE_PROFILE
    return Settings(profiles={chosen.name: chosen}, default_profile=chosen.name)


def write_initial_config(
    path: Path,
    *,
    profile: ProviderProfile | None = None,
    settings: Settings | None = None,
    force: bool = False,
) -> Path:
    """Write a commented starting config (mode 0600, new directories 0700) and return its path.

    It holds `settings`, else the defaults with `profile` (else a local llama.cpp server).
    An existing file is never replaced unless `force` (FileExistsError otherwise); the
    caller asks the user first.
    """
    if profile is not None and settings is not None:
        raise ValueError("pass a profile or settings, not both")
    text = render_config(settings if settings is not None else starter_settings(profile))
    write_private_file(path, text, overwrite=force)
    return path
