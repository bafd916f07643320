"""The effective settings as one typed, frozen object (what `config.toml` and the environment say)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ctxchat.config.errors import MissingApiKey, UnknownProfile
from ctxchat.core.adaptive import AdaptivePolicy
from ctxchat.core.budget import Budget, BudgetShares
from ctxchat.core.memory import Mode
from ctxchat.core.summary import SummaryPolicy, SummaryStrategy
from ctxchat.core.working import Selection
from ctxchat.redaction import header_secrets, is_sensitive_header, mask_secret, masked_headers

if TYPE_CHECKING:
    from ctxchat.core.assemble import AssemblyOptions

__all__ = [
    "ContextSettings",
    "ProviderProfile",
    "RecallSettings",
    "Settings",
    "SummarySettings",
    "default_output_reserve",
    "is_sensitive_header",
]

DEFAULT_SYSTEM_PROMPT = "You are a helpful assistant."
DEFAULT_THEME = "textual-dark"
# The output reserve chosen when none is configured: an eighth of the window, at most 4096.
MAX_DEFAULT_OUTPUT_RESERVE = 4096


def default_output_reserve(context_window: int) -> int:
    """The reserve for the reply when none is configured: min(4096, window // 8)."""
    return min(MAX_DEFAULT_OUTPUT_RESERVE, context_window // 8)


@dataclass(frozen=True, slots=True)
class ProviderProfile:
    """One OpenAI-compatible server and model, and where its API key comes from."""

    name: str
    """The profile's name: the `[profiles.<name>]` table it came from."""
    base_url: str
    """The server's OpenAI-compatible API root, e.g. `http://127.0.0.1:8080/v1`."""
    model: str
    """The model name sent with each request."""
    api_key_env: str | None = None
    """The environment variable holding the key, or None."""
    api_key: str | None = None
    """A key stored in the config file (secret: masked in repr, never printed), or None."""
    context_window: int = 0
    """The model's context window in tokens; 0 = ask the server, then the known-models table."""
    output_reserve: int = 0
    """Tokens kept free for the reply; 0 = the `[context]` setting, else chosen from the window."""
    headers: Mapping[str, str] = field(default_factory=dict)
    """Extra HTTP headers sent with each request (values of auth-like headers are secrets)."""

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
            f"ProviderProfile(name={self.name!r}, base_url={self.base_url!r}, "
            f"model={self.model!r}, api_key_env={self.api_key_env!r}, api_key={key!r}, "
            f"context_window={self.context_window!r}, output_reserve={self.output_reserve!r}, "
            f"headers={headers!r})"
        )

    def resolve_api_key(self, env: Mapping[str, str]) -> str | None:
        """The key to send: the stored one, else the named variable's value, else None (no key).

        Raises MissingApiKey (naming the variable, never a value) when `api_key_env` is set
        but the variable is unset or empty.
        """
        if self.api_key:
            return self.api_key
        if self.api_key_env:
            value = self.env_key(env)
            if not value:
                raise MissingApiKey(self.name, self.api_key_env)
            return value
        return None

    def secrets(self, env: Mapping[str, str]) -> list[str]:
        """Every secret this profile may put on the wire, to redact from any text shown."""
        found = [self.api_key or "", self.env_key(env)]
        found.extend(header_secrets(self.headers))
        return [secret for secret in found if secret]


@dataclass(frozen=True, slots=True)
class ContextSettings:
    """How the context is budgeted and how working memory is chosen."""

    shares: BudgetShares = field(default_factory=BudgetShares)
    """Fractions of the input budget for the system, memory, summary and working layers."""
    min_recent: int = 10
    """The last messages always kept in working memory (when they fit)."""
    selection: Selection = Selection.RECENCY
    """How older messages are chosen for working memory: `recency` or `scored`."""
    context_window: int = 0
    """The context window for profiles that set none; 0 = detect."""
    output_reserve: int = 0
    """Tokens kept free for the reply for profiles that set none; 0 = min(4096, window // 8)."""
    system_prompt: str = DEFAULT_SYSTEM_PROMPT
    """The system message sent first in every request (empty = none)."""

    def assembly_options(self) -> AssemblyOptions:
        """These settings as the core's options for choosing working memory."""
        from ctxchat.core.assemble import AssemblyOptions

        return AssemblyOptions(min_recent=self.min_recent, selection=self.selection)


@dataclass(frozen=True, slots=True)
class SummarySettings:
    """How and when older messages are folded into the running summary."""

    strategy: SummaryStrategy = SummaryStrategy.SUMMARIZE
    """How the summary is written: `summarize` (prose), `semantic` or `keyvalue`."""
    auto: bool = True
    """Whether messages that left working memory are folded automatically."""
    min_messages: int = 6
    """Fold automatically once this many messages have left working memory..."""
    min_tokens: int = 2000
    """...or once they hold this many tokens."""
    max_unsummarized: int = 0
    """Also fold when more messages than this are not yet summarized; 0 = off."""
    profile: str | None = None
    """A separate profile for the summarizer; None = the chat profile."""
    model: str | None = None
    """A model for the summarizer on its profile; None = the profile's model."""

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

    enabled: bool = True
    """Search earlier messages for the new one and bring back the relevant ones."""
    share: float = 0.10
    """The share recall takes from working memory while it has results."""
    half_life: float = 150.0
    """Recency breaks near-ties: a message this many messages old loses half of the most
    recency can take off (a quarter of its score)."""
    limit: int = 50
    """At most this many full-text results (twice as many by meaning) are considered; the
    recall share is filled by tokens from them, best first, leaving out what working memory
    holds."""
    semantic: bool = True
    """Also search by meaning when the `embeddings` extra is installed."""
    long_after_turns: int = 20
    """Past this many user turns, working memory yields `long_shift` to summary and recall."""
    long_shift: float = 0.10
    """The share working memory yields in a long conversation."""

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

    hypothesis_turns: int = 30
    """Flag a hypothesis in the memory panel after this many turns without confirmation."""
    dates: bool = False
    """Put today's date and each entry's date in the memory layer (off: the request's start
    stays the same from day to day, so prompt caches keep hitting)."""


@dataclass(frozen=True, slots=True)
class ModelSettings:
    """How long to wait on a model server (`[model]`), in seconds."""

    chunk_timeout: float = 60.0
    """The longest silence allowed between two chunks of a reply before it is stopped."""
    first_chunk_timeout: float = 300.0
    """The longest wait for a reply to start (a local model may read a long prompt first)."""
    connect_timeout: float = 5.0
    """The longest wait to connect to the server."""


@dataclass(frozen=True)
class Settings:
    """Everything configurable, validated; built by `load_settings` from the file and environment."""

    profiles: Mapping[str, ProviderProfile] = field(default_factory=dict)
    """Provider profiles by name, in file order (empty on a first run with no environment)."""
    default_profile: str = ""
    """The profile used unless another is chosen ("" when there are none)."""
    context: ContextSettings = field(default_factory=ContextSettings)
    """Budget shares, working-memory selection, window and reserve defaults, system prompt."""
    summary: SummarySettings = field(default_factory=SummarySettings)
    """Summary strategy, thresholds and summarizer profile."""
    recall: RecallSettings = field(default_factory=RecallSettings)
    """Recall of earlier turns and the adaptive budget."""
    memory: MemorySettings = field(default_factory=MemorySettings)
    """Hypothesis flags and dates in the memory layer."""
    model: ModelSettings = field(default_factory=ModelSettings)
    """Timeouts for talking to the model server."""
    default_mode: Mode = Mode.PERSONALIZATION
    """The mode a new conversation starts in."""
    theme: str = DEFAULT_THEME
    """The Textual theme name (built-in or a file in the user themes directory)."""
    keymap: Mapping[str, str] = field(default_factory=dict)
    """Key remaps: binding id to keys, e.g. `mode.toggle` = `ctrl+o`."""

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

    def budget(self, profile: ProviderProfile, detected_window: int = 0) -> Budget:
        """The token budget for a profile: configured window, else the detected one.

        Raises BudgetError when no window is known or the reserve does not fit.
        """
        window = self.context_window(profile) or detected_window
        reserve = (
            profile.output_reserve or self.context.output_reserve or default_output_reserve(window)
        )
        return Budget(window, reserve, self.context.shares)

    def secrets(self, env: Mapping[str, str]) -> list[str]:
        """Every configured secret (stored keys, keys from the environment, auth headers)."""
        return [secret for p in self.profiles.values() for secret in p.secrets(env)]
