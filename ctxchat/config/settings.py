"""Every setting of `config.toml`, declared once: the typed, frozen settings the app uses.

Each setting is a field of one of the dataclasses below; its annotation is its type and
`setting(default, help, ...)` (from `ctxchat.config.declare`) says the rest, e.g.::

    max_tokens: int = setting(400, "The longest summary the model may write, in tokens.")
    share: float = setting(0.10, "The share recall takes from working memory.", ge=0, le=1)

To add a setting, add such a field to the dataclass of its table (`[summary]` is
`SummarySettings`), with its default, its bounds (`ge`/`le`/`gt`, `unit="seconds"`) and one
line of help, then run `python scripts/settings_table.py` for docs/configuration.md's table. The
reader's key list and checks (`schema.py`), the template `config init` writes
(`template.py`) and `config show` (`report.py`) follow from the declaration. A new table is
a new dataclass of settings, added to `Settings` with `section(ItsClass, help)`. Only a
check that involves other settings (a profile name that must exist, a reserve smaller than
its window) is written by hand, in `schema.py`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ctxchat.config.declare import required, section, setting
from ctxchat.config.errors import MissingApiKey, UnknownPreset, UnknownProfile, UnusableApiKey
from ctxchat.config.shipped_keys import SHIPPED_KEYS
from ctxchat.core.across import RecallAcross
from ctxchat.core.adaptive import AdaptivePolicy
from ctxchat.core.budget import Budget, BudgetShares
from ctxchat.core.memory import Mode
from ctxchat.core.placement import PlacementChoice
from ctxchat.core.prices import ModelPrice, PriceTable, Pricing
from ctxchat.core.summary import SummaryPolicy, SummaryStrategy
from ctxchat.core.working import Selection
from ctxchat.redaction import (
    header_secrets,
    is_sensitive_header,
    mask_secret,
    masked_headers,
    shown_url,
)

if TYPE_CHECKING:
    from ctxchat.core.assemble import AssemblyOptions

__all__ = [
    "ContextSettings",
    "FilesSettings",
    "MemorySettings",
    "ModelSettings",
    "Preset",
    "PriceSettings",
    "ProviderProfile",
    "RecallSettings",
    "Settings",
    "SummarySettings",
    "TaskSettings",
    "default_output_reserve",
    "is_sensitive_header",
]

# The output reserve chosen when none is configured: an eighth of the window, at most 4096.
MAX_DEFAULT_OUTPUT_RESERVE = 4096
_URL = "a URL starting with http:// or https://"
_TEMPERATURE_HELP = (
    "How random the reply is (0 = the most likely words); unset = the server's default."
)
_TOP_P_HELP = (
    "Sample only from the likeliest words that make up this share of the odds; unset = the "
    "server's default."
)


def sendable_key(key: str) -> bool:
    """Whether a request header can carry `key`: ASCII and printable (a Cyrillic letter
    pasted for a Latin one, a typographic quote or a line break cannot go)."""
    return key.isascii() and key.isprintable()


BUNDLED_ENGINE_MODEL = "smollm2"
"""The small model the engine extra installs, as a profile's `engine` names it."""

MAX_WINDOW = 100_000_000
"""Tokens: far above any model's window (ten million is the largest announced); a larger
number is a typo, refused with the line it is on rather than planned with."""


def default_output_reserve(context_window: int) -> int:
    """The reserve for the reply when none is configured: min(4096, window // 8)."""
    return min(MAX_DEFAULT_OUTPUT_RESERVE, context_window // 8)


@dataclass(frozen=True, slots=True)
class ProviderProfile:
    """One OpenAI-compatible server and model, and where its API key comes from."""

    name: str
    """The profile's name: the `[profiles.<name>]` table it came from."""
    base_url: str = required(
        "The server's OpenAI-compatible API root (most end in /v1).", what=_URL
    )
    model: str = required(
        "The model name sent with each request (llama.cpp serves one model and accepts any).",
        what='a model name, like "gpt-4o-mini"',
    )
    engine: str | None = setting(
        None,
        'Run the model on this machine in ctxchat\'s own engine: "smollm2" (the small model '
        "the engine extra installs) or a .gguf file's path; base_url and the key then come "
        "from the engine, which starts when needed.",
        what='"smollm2" or a .gguf file\'s path',
        example=BUNDLED_ENGINE_MODEL,
    )
    api_key_env: str | None = setting(
        None,
        "Where the API key comes from: an environment variable...",
        what="an environment variable name",
        example="OPENAI_API_KEY",
    )
    api_key: str | None = setting(
        None,
        "...or the key itself (then keep this file private: mode 0600); a local server needs none.",
        what="a string",
        example="sk-...",
        secret=True,
    )
    context_window: int = setting(
        0,
        "The model's context window in tokens; 0 = ask the server, then the known-models table.",
        ge=0,
        le=MAX_WINDOW,
    )
    output_reserve: int = setting(
        0,
        "Tokens kept free for the reply, and the most it may have (max_tokens); 0 = [context] "
        "output_reserve.",
        ge=0,
        le=MAX_WINDOW,
    )
    temperature: float | None = setting(None, _TEMPERATURE_HELP, ge=0, le=2, example=0.7)
    top_p: float | None = setting(None, _TOP_P_HELP, ge=0, le=1, example=0.9)
    headers: Mapping[str, str] = section(
        dict,
        "Extra HTTP headers sent with every request to this server (replies, summaries, "
        "extraction, the model list, the probes); auth-like values are masked wherever shown.",
        what="a string",
        example={"X-Title": "ctxchat"},
    )
    pricing: Pricing = setting(
        Pricing.AUTO,
        'Whether its replies cost money: "auto" (a server on this machine or the local '
        'network is free, any other is priced by [prices] and the shipped table), "priced" '
        '(a gateway on this machine that forwards to a paid API) or "free".',
    )

    def masked_headers(self) -> dict[str, str]:
        """The headers, with the values of auth-like ones masked."""
        return masked_headers(self.headers)

    def env_key(self, env: Mapping[str, str]) -> str:
        """The value of the variable `api_key_env` names, trimmed ("" when unset or none)."""
        return env.get(self.api_key_env, "").strip() if self.api_key_env else ""

    def __repr__(self) -> str:
        key = None if self.api_key is None else mask_secret(self.api_key)
        headers = self.masked_headers()
        return (
            f"ProviderProfile(name={self.name!r}, base_url={shown_url(self.base_url)!r}, "
            f"model={self.model!r}, api_key_env={self.api_key_env!r}, api_key={key!r}, "
            f"context_window={self.context_window!r}, output_reserve={self.output_reserve!r}, "
            f"temperature={self.temperature!r}, top_p={self.top_p!r}, headers={headers!r})"
        )

    def resolve_api_key(self, env: Mapping[str, str]) -> str | None:
        """The key to send: the stored one, else the named variable's value, else None (no key).

        Raises MissingApiKey (naming the variable, never a value) when `api_key_env` is set
        but the variable is unset or empty.
        """
        if self.api_key:
            return self._sendable(self.api_key, "the config file")
        if self.api_key_env:
            value = self.env_key(env)
            if not value:
                raise MissingApiKey(self.name, self.api_key_env)
            return self._sendable(value, f"${self.api_key_env}")
        return None

    def _sendable(self, key: str, source: str) -> str:
        """`key`, if a request header can carry it; else UnusableApiKey (an HTTP library
        fails on it deep inside a request otherwise)."""
        if not sendable_key(key):
            raise UnusableApiKey(self.name, source)
        return key

    def secrets(self, env: Mapping[str, str]) -> list[str]:
        """Every secret this profile may put on the wire, to redact from any text shown."""
        found = [self.api_key or "", self.env_key(env)]
        found.extend(header_secrets(self.headers))
        return [secret for secret in found if secret]


@dataclass(frozen=True, slots=True)
class Preset:
    """A named way of talking: a system prompt, a model and how the reply is sampled.

    A conversation chooses one (in the app, or with `--preset`) and keeps it; every setting
    left unset is the conversation's profile's, else `[context]`'s, else the server's.
    """

    name: str
    """The preset's name: the `[presets.<name>]` table it came from."""
    system_prompt: str | None = setting(
        None,
        'The system message sent first in every request; "" = [context] system_prompt.',
        what="a string",
        example="Answer briefly and exactly.",
    )
    model: str | None = setting(
        None,
        'The model sent with each request, on the conversation\'s profile; "" = the '
        "profile's (--model wins over it).",
        what="a model name",
        example="gpt-4o-mini",
    )
    temperature: float | None = setting(None, _TEMPERATURE_HELP, ge=0, le=2, example=0.2)
    top_p: float | None = setting(None, _TOP_P_HELP, ge=0, le=1, example=0.9)
    max_output_tokens: int = setting(
        0,
        "The most tokens a reply may have (max_tokens), also kept free for it in the budget; "
        "0 = the profile's output_reserve.",
    )


EXAMPLE_PRESET = Preset(
    name="precise",
    system_prompt="Answer briefly and exactly.",
    model="gpt-4o-mini",
    temperature=0.2,
    top_p=0.9,
    max_output_tokens=1024,
)
"""The preset a fresh config shows, commented out."""


ENGINE_PLACEHOLDER_URL = "http://127.0.0.1:0/v1"
"""An engine profile's base_url until its engine runs (the engine's own replaces it)."""


def engine_model_name(engine: str) -> str:
    """The model name an engine profile sends: the bundled model's, or the file's name."""
    name = engine.strip()
    if name in ("", BUNDLED_ENGINE_MODEL):
        return BUNDLED_ENGINE_MODEL
    return name.replace("\\", "/").rsplit("/", 1)[-1].removesuffix(".gguf")


def engine_profile(name: str = "local", engine: str = BUNDLED_ENGINE_MODEL) -> ProviderProfile:
    """A profile whose model runs in ctxchat's own engine."""
    return ProviderProfile(
        name=name, base_url=ENGINE_PLACEHOLDER_URL, model=engine_model_name(engine), engine=engine
    )


EXAMPLE_PROFILE = ProviderProfile(
    name="local", base_url="http://127.0.0.1:8080/v1", model="gemma-3-270m"
)
"""The profile a fresh config holds (a local llama.cpp server), and the example of one."""


@dataclass(frozen=True, slots=True)
class ContextSettings:
    """How the context is budgeted and how working memory is chosen."""

    system_prompt: str = setting(
        "You are a helpful assistant.",
        "The system message sent first in every request (empty = none).",
    )
    min_recent: int = setting(
        10, "The last messages always kept in working memory (when they fit)."
    )
    selection: Selection = setting(
        Selection.RECENCY,
        'How older messages are chosen for working memory: "recency" (newest first) or "scored".',
    )
    system_placement: PlacementChoice = setting(
        PlacementChoice.AUTO,
        "Where the system content (the system prompt, memory, summary, task, files and recall) "
        'goes: "auto" (at the start of the first user message when the server\'s chat template '
        'drops system messages, else as system messages), "system" (always system messages) or '
        '"user" (always there).',
    )
    context_window: int = setting(
        0, "The context window for profiles that set none; 0 = detect.", ge=0, le=MAX_WINDOW
    )
    output_reserve: int = setting(
        0,
        "Tokens kept free for the reply, for profiles that set none; 0 = an eighth of the "
        "window, at most 4096.",
        ge=0,
        le=MAX_WINDOW,
    )
    shares: BudgetShares = setting(
        BudgetShares(),
        "Fractions of the input budget for each layer; all together at most 1.",
        what="a number from 0 to 1",
    )

    def assembly_options(self) -> AssemblyOptions:
        """These settings as the core's options for choosing working memory."""
        from ctxchat.core.assemble import AssemblyOptions

        return AssemblyOptions(min_recent=self.min_recent, selection=self.selection)


@dataclass(frozen=True, slots=True)
class SummarySettings:
    """How and when older messages are folded into the running summary."""

    strategy: SummaryStrategy = setting(
        SummaryStrategy.SUMMARIZE,
        'How the summary is written: "summarize" (prose, ~3x shorter), "semantic" (one '
        'statement a line, ~5-10x) or "keyvalue" (decision: / constraint: lines, ~10-20x).',
    )
    auto: bool = setting(True, "Fold messages that left working memory automatically.")
    min_messages: int = setting(
        6, "Fold automatically once this many messages have left working memory..."
    )
    min_tokens: int = setting(2000, "...or once they hold this many tokens.")
    accept_unreviewed: bool = setting(
        False,
        "Put an automatic summary in force as it comes even when its check finds lost "
        "details or faults (the plan then says it was not reviewed and what it lost); "
        "false holds it for your review (f3) and sends the turns as they were.",
    )
    max_unsummarized: int = setting(
        0, "Also fold when more messages than this are not yet summarized; 0 = off."
    )
    profile: str | None = setting(
        None,
        'A separate profile for the summarizer (its own server, key and headers); "" = the '
        "chat profile.",
        what="a profile name",
    )
    model: str | None = setting(
        None,
        'A model for the summarizer on its profile; "" = the profile\'s model.',
        what="a model name",
    )
    max_tokens: int = setting(
        0,
        "The most tokens a summary may have (what its request asks for at most); 0 = what "
        "the summary share of the budget allows. Never more than that share.",
        ge=0,
    )

    def policy(self) -> SummaryPolicy:
        """The core's policy for automatic folding."""
        return SummaryPolicy(
            auto=self.auto,
            min_messages=self.min_messages,
            min_tokens=self.min_tokens,
            max_unsummarized=self.max_unsummarized,
        )


@dataclass(frozen=True, slots=True)
class RecallSettings:
    """Recall of earlier turns and the budget that adapts as a conversation grows."""

    enabled: bool = setting(
        True, "Search earlier messages for the new one and bring back the relevant ones."
    )
    share: float = setting(
        0.10, "The share recall takes from working memory while it has results.", ge=0, le=1
    )
    half_life: float = setting(
        150.0,
        "Recency breaks near-ties: a message this many messages old loses half of the most "
        "recency can take off (a quarter of its score).",
        gt=0,
    )
    limit: int = setting(
        50,
        "At most this many full-text results (twice as many by meaning) are considered; the "
        "recall share is filled by tokens from them, best first, leaving out what working "
        "memory holds.",
    )
    semantic: bool = setting(True, "Also search by meaning when the embeddings extra is installed.")
    across: RecallAcross = setting(
        RecallAcross.PROJECT,
        'Also search other conversations, by words: "project" (the other conversations of '
        'the project a conversation is in; none outside a project), "all" (every other '
        'conversation) or "off".',
    )
    long_after_turns: int = setting(
        20, "Past this many user turns, working memory yields long_shift to summary and recall."
    )
    long_shift: float = setting(
        0.10, "The share working memory yields in a long conversation.", ge=0, le=1
    )

    def policy(self) -> AdaptivePolicy:
        return AdaptivePolicy(
            recall_share=self.share,
            long_after_turns=self.long_after_turns,
            long_shift=self.long_shift,
            recall_enabled=self.enabled,
        )


@dataclass(frozen=True, slots=True)
class MemorySettings:
    """How memory entries show their time."""

    hypothesis_turns: int = setting(
        30,
        "Flag a hypothesis unconfirmed for this many turns in the memory panel (confirm, keep "
        "or drop it); 0 = never.",
    )
    dates: bool = setting(
        False,
        "Put today's date and each entry's date in the memory layer (off: the request's start "
        "stays the same from day to day, so prompt caches keep hitting).",
    )


@dataclass(frozen=True, slots=True)
class TaskSettings:
    """The task layer: a conversation's goal, what is done and what is pending."""

    share: float = setting(
        0.05,
        "The share the task layer takes from working memory while the conversation has a task.",
        ge=0,
        le=1,
    )


@dataclass(frozen=True, slots=True)
class FilesSettings:
    """Files attached to a conversation."""

    share: float = setting(
        0.25,
        "The share attached files take from working memory while any are attached.",
        ge=0,
        le=1,
    )
    max_bytes: int = setting(
        1_000_000, "The largest file attach reads; a bigger one is refused.", ge=1
    )
    part_tokens: int = setting(
        500,
        "A file too big for its share is sent in parts of about this many tokens, those most "
        "relevant to the new message.",
        ge=50,
    )


@dataclass(frozen=True, slots=True)
class PriceSettings:
    """One model's prices, US dollars per million tokens."""

    input: float = setting(0.0, "Per million prompt tokens.", ge=0)
    cached_input: float = setting(
        0.0, "Per million prompt tokens read from the provider's cache (left out: as input).", ge=0
    )
    output: float = setting(0.0, "Per million completion tokens (reasoning included).", ge=0)

    def price(self) -> ModelPrice:
        return ModelPrice(self.input, self.cached_input, self.output)


EXAMPLE_PRICE = PriceSettings(input=2.5, cached_input=1.25, output=10.0)


@dataclass(frozen=True, slots=True)
class ModelSettings:
    """How long to wait on a model server."""

    chunk_timeout: float = setting(
        60.0,
        "The longest silence between two chunks of a reply; then it is stopped (what arrived "
        "is kept).",
        gt=0,
        unit="seconds",
    )
    first_chunk_timeout: float = setting(
        300.0,
        "The longest wait for a reply to start (a local model may read a long prompt for minutes).",
        gt=0,
        unit="seconds",
    )
    connect_timeout: float = setting(
        5.0, "The longest wait to connect to the server.", gt=0, unit="seconds"
    )


@dataclass(frozen=True)
class Settings:
    """Everything configurable, validated; built by `load_settings` from the file and environment."""

    default_profile: str = setting(
        "",
        "The profile used unless another is chosen (else the first one).",
        what="a profile name",
        example=EXAMPLE_PROFILE.name,
    )
    default_mode: Mode = setting(
        Mode.PERSONALIZATION,
        'The mode a new conversation starts in: "personalization" (all of memory) or '
        '"objective" (facts and constraints only: no preferences or hypotheses).',
    )
    theme: str = setting(
        "textual-dark",
        "A Textual theme, or the name of a theme file in the themes directory.",
        what="a theme name",
        nonblank=True,
    )
    profiles: Mapping[str, ProviderProfile] = section(
        dict,
        "One table per OpenAI-compatible server: [profiles.NAME]; the first is the default "
        "unless default_profile names another.",
        example={EXAMPLE_PROFILE.name: EXAMPLE_PROFILE},
    )
    presets: Mapping[str, Preset] = section(
        dict,
        "Named presets a conversation can choose (in the app, or with --preset NAME): "
        "[presets.NAME] holds a system prompt, a model and sampling settings.",
        example={EXAMPLE_PRESET.name: EXAMPLE_PRESET},
    )
    context: ContextSettings = section(
        ContextSettings, "What the model sees: the system prompt, and how the budget is shared."
    )
    summary: SummarySettings = section(
        SummarySettings, "Folding older messages into a running summary."
    )
    recall: RecallSettings = section(
        RecallSettings,
        "Recall of earlier turns, and a budget that adapts as the conversation grows.",
    )
    memory: MemorySettings = section(MemorySettings, "Memory entries over time.")
    task: TaskSettings = section(
        TaskSettings, "The task layer: a conversation's goal, what is done and what is pending."
    )
    files: FilesSettings = section(FilesSettings, "Files attached to a conversation.")
    model: ModelSettings = section(ModelSettings, "How long to wait on the model server.")
    prices: Mapping[str, PriceSettings] = section(
        dict,
        "Prices of models in US dollars per million tokens, one table each: "
        '[prices."gpt-4o"]; they override or add to the shipped table of OpenAI\'s prices.',
        example={"gpt-4o": EXAMPLE_PRICE},
    )
    keymap: Mapping[str, str] = section(
        dict,
        "Key remaps: binding id = keys, comma-separated for several (letters typed on the "
        "conversation or the memory panel go to the composer, so a bare letter there never "
        "fires).",
        key="keys",
        what='keys such as "ctrl+o"',
        nonblank=True,
        example=SHIPPED_KEYS,
    )

    @property
    def needs_setup(self) -> bool:
        """True when no server is configured anywhere: the first-run setup should run."""
        return not self.profiles

    def profile(self, name: str | None = None) -> ProviderProfile:
        """A profile by name, else the default (else the first); raises UnknownProfile."""
        wanted = name if name is not None else self.default_profile or next(iter(self.profiles), "")
        try:
            return self.profiles[wanted]
        except KeyError:
            raise UnknownProfile(wanted, list(self.profiles)) from None

    def preset(self, name: str) -> Preset:
        """A preset by name; raises UnknownPreset (naming the configured ones)."""
        try:
            return self.presets[name]
        except KeyError:
            raise UnknownPreset(name, list(self.presets)) from None

    def summarizer_profile(self, chat: ProviderProfile) -> ProviderProfile:
        """The profile the summarizer uses: `[summary] profile` if it names another one (its
        own server, key and headers), else the chat profile as in use (with `--base-url`,
        `--model` or `OPENAI_BASE_URL` applied); with `[summary] model` applied when set.

        Raises UnknownProfile when `[summary] profile` names none there is.
        """
        named = self.summary.profile
        profile = self.profile(named) if named and named != chat.name else chat
        if self.summary.model:
            return dataclasses.replace(profile, model=self.summary.model)
        return profile

    def context_window(self, profile: ProviderProfile) -> int:
        """The configured window for a profile: its own, else `[context]`'s; 0 = detect."""
        return profile.context_window or self.context.context_window

    def budget(
        self,
        profile: ProviderProfile,
        detected_window: int = 0,
        *,
        undercount: float = 1.0,
        gap: int = 0,
        output_reserve: int = 0,
    ) -> Budget:
        """The token budget for a profile: configured window, else the detected one, less
        what ctxchat's count runs under the server's (`undercount`, a ratio of counts; at
        least `gap` tokens, the most it ran under so far).
        `output_reserve` (a preset's max_output_tokens) replaces the configured reserve.

        Raises BudgetError when no window is known or the reserve does not fit.
        """
        window = self.context_window(profile) or detected_window
        reserve = (
            output_reserve
            or profile.output_reserve
            or self.context.output_reserve
            or default_output_reserve(window)
        )
        margin = 0
        if undercount > 1 and window > reserve:
            margin = (window - reserve) - int((window - reserve) / undercount)
        margin = min(max(margin, gap), max(0, window - reserve - 1))
        return Budget(window, reserve, self.context.shares, margin)

    def reserve_setting(self, profile: ProviderProfile, preset: Preset | None = None) -> str:
        """The setting that sets the reply's limit (max_tokens) for `profile` with `preset`,
        in the words the config uses: the one to raise when replies are cut at it."""
        if preset is not None and preset.max_output_tokens:
            return f"max_output_tokens of the preset {preset.name!r}"
        if profile.output_reserve:
            return f"output_reserve of the profile {profile.name!r}"
        if self.context.output_reserve:
            return "output_reserve in the [context] config table"
        return "output_reserve in the [context] config table (unset: an eighth of the window)"

    def adaptive(self) -> AdaptivePolicy:
        """How the shares shift: recall's policy, with the task's and the files' shares."""
        return dataclasses.replace(
            self.recall.policy(), task_share=self.task.share, files_share=self.files.share
        )

    def price_table(self) -> PriceTable:
        """The shipped prices with `[prices]` on top."""
        return PriceTable({name: entry.price() for name, entry in self.prices.items()})

    def secrets(self, env: Mapping[str, str]) -> list[str]:
        """Every configured secret (stored keys, keys from the environment, auth headers)."""
        return [secret for p in self.profiles.values() for secret in p.secrets(env)]
