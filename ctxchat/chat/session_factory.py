"""The one way a session is opened: for the TUI, every CLI command and the benchmarks.

Each gets the same profile resolution, the same server facts (window and its source,
tokenizer, kind: cached in the app's state per base URL and model) and the same recall.
"""

from __future__ import annotations

import contextlib
import dataclasses
import time
from collections.abc import Callable, Sequence
from enum import StrEnum

from ctxchat.chat.connection import make_backend, same_server
from ctxchat.chat.options import SessionOptions
from ctxchat.chat.profile_choice import conversation_profile, with_preset_model
from ctxchat.chat.semantic import SemanticRecall
from ctxchat.chat.session import ChatSession
from ctxchat.chat.window import WindowInfo
from ctxchat.chat.workspace import Workspace
from ctxchat.config.errors import MissingApiKey
from ctxchat.config.server_facts import ServerFacts
from ctxchat.config.settings import ProviderProfile, Settings
from ctxchat.engine.profiles import default_engine_profile, with_engine_url
from ctxchat.model.backend import ModelListing
from ctxchat.model.errors import ProviderError
from ctxchat.store.records import Conversation

__all__ = [
    "Connect",
    "NoServer",
    "RecallPrepared",
    "SessionOptions",
    "conversation_profile",
    "given_server",
    "learn_server",
    "make_backend",
    "offered_profiles",
    "open_session",
    "prepare_recall",
    "profile_for_choice",
    "resolve_profile",
    "semantic_recall_for",
    "session_on",
    "unembedded_notice",
]


# The kind of a server nothing identified (no answer, or an unknown one).
GENERIC_FLAVOUR = "openai-compatible"


class Connect(StrEnum):
    """Whether a session gets a model backend."""

    NO = "no"  # planning only
    TRY = "try"  # a missing key or server becomes a note; the session can still plan
    MUST = "must"  # a missing key or server is an error


class NoServer(Exception):
    """No model server is configured and none was given."""

    def __init__(self) -> None:
        super().__init__(
            "no model server is configured: run `ctxchat config init`, set OPENAI_API_KEY, "
            "or pass --base-url"
        )


def resolve_profile(settings: Settings, options: SessionOptions) -> ProviderProfile | None:
    """The profile to talk to, with the options' model and base URL applied.

    None when nothing is configured and no base URL was given (first-run setup's case).
    Raises UnknownProfile for a profile name the config does not have.
    """
    if settings.needs_setup:
        if not options.base_url:
            return None
        profile = ProviderProfile(
            name="command-line", base_url=options.base_url, model=options.model or ""
        )
    else:
        profile = settings.profile(options.profile)
    if options.base_url:
        profile = dataclasses.replace(profile, base_url=options.base_url)
    if options.model:
        profile = dataclasses.replace(profile, model=options.model)
    return profile


def offered_profiles(session: ChatSession) -> list[ProviderProfile]:
    """The profiles F4 offers, each as choosing it would make it: the one in use and the
    run's default as this run has them (a server or model given on the command line
    included), the others as configured."""
    offered = []
    for configured in session.settings.profiles.values():
        offered.append(profile_for_choice(session, configured.name, None))
    if not any(profile.name == session.profile.name for profile in offered):
        offered.insert(0, session.profile)  # a profile made from the command line alone
    return offered


def profile_for_choice(session: ChatSession, name: str, model: str | None) -> ProviderProfile:
    """The profile a choice in F4 means: profile `name` (the run's default keeps the server
    and model the command line gave it; the one in use keeps its server), with `model` on
    that profile's server when one was picked."""
    if name == session.default_profile.name:
        profile = session.default_profile
    elif name == session.profile.name:
        profile = session.profile
    elif name in session.settings.profiles:
        profile = session.settings.profile(name)
    else:
        profile = session.profile
    return dataclasses.replace(profile, model=model) if model else profile


def given_server(session: ChatSession) -> str | None:
    """The server the session talks to, when it is not the one its profile's config names
    (a `--base-url`): the screen then names it."""
    if session.profile.engine:
        return None  # the engine's address of the moment, not a server given to the run
    configured = session.settings.profiles.get(session.profile.name)
    if configured is not None and configured.base_url == session.profile.base_url:
        return None
    return session.profile.base_url or None


def follows_choice(settings: Settings, conversation: Conversation) -> bool:
    """Whether a profile or model chosen for the conversation (F4) applies: one was chosen
    and its profile is still configured (see `conversation_profile`)."""
    name, model = conversation.chosen_profile, conversation.chosen_model
    return (name is not None and name in settings.profiles) or (name is None and model is not None)


def _given_on_command_line(options: SessionOptions) -> bool:
    return bool(options.profile or options.model or options.base_url)


def open_session(
    workspace: Workspace,
    options: SessionOptions,
    conversation_id: int | None,
    *,
    connect: Connect,
    profile: ProviderProfile | None = None,
    notes: Callable[[str], None] = lambda note: None,
) -> ChatSession:
    """A session on `conversation_id` (None: plan for a conversation not started yet).

    `profile` replaces the one the options resolve to (first-run setup's choice). The
    window is the configured one, else what the server said last time (cached), else the
    known-models table; `learn_server` asks the server. Raises NoServer and MissingApiKey
    when `connect` is MUST.
    """
    settings = workspace.settings
    default = profile or resolve_profile(settings, options)
    if default is None and connect is Connect.MUST:
        # Nothing configured: the small model on this machine, when it is installed.
        default = default_engine_profile()
        if default is None:
            raise NoServer
    if default is None:
        default = ProviderProfile(name="none", base_url="", model=options.model or "")
    if options.preset is not None:
        settings.preset(options.preset)  # UnknownPreset: one line naming the configured ones
    profile = default
    if conversation_id is not None and default.base_url:
        conversation = workspace.store.conversations.get_conversation(conversation_id)
        if not _given_on_command_line(options):
            profile = conversation_profile(default, settings, conversation, preset=options.preset)
        elif not options.model:
            # A profile or server named for this run: the conversation's preset still
            # chooses the model on it, unless --model names one too.
            named = options.preset or conversation.preset
            profile = with_preset_model(profile, settings.presets.get(named or ""))
    elif options.preset is not None and not options.model:
        profile = with_preset_model(profile, settings.presets[options.preset])
    default = with_engine_url(workspace.locations.engine_dir, default)
    profile = with_engine_url(workspace.locations.engine_dir, profile)
    backend = None
    if connect is not Connect.NO and profile.base_url:
        try:
            backend = make_backend(profile, workspace.env, settings.model)
        except MissingApiKey as error:
            if connect is Connect.MUST:
                raise
            notes(f"{error} Replies cannot be sent until it is set.")
    session = ChatSession(
        workspace.store,
        settings,
        profile,
        conversation_id,
        backend=backend,
        mode=options.mode or workspace.state.last_mode or settings.default_mode,
        window=cached_window(workspace, profile),
        secrets=workspace.secrets,
        env=workspace.env,
        default_profile=default,
        given_preset=options.preset,
        model_given=bool(options.model),
    )
    session.use_facts(workspace.state.facts_for(profile.base_url, profile.model))
    return session


def session_on(
    session: ChatSession,
    workspace: Workspace,
    conversation_id: int,
    *,
    notes: Callable[[str], None] = lambda note: None,
) -> ChatSession:
    """A session on another conversation, talking to the profile and model chosen for it
    (else the default one): the same connection when it is the same server."""
    other = session.for_conversation(conversation_id)
    follow_choice(other, workspace, notes=notes)
    return other


def follow_choice(
    session: ChatSession, workspace: Workspace, *, notes: Callable[[str], None] = lambda note: None
) -> bool:
    """Make `session` talk to the profile and model its conversation has chosen as stored
    now (else the default one), as a session made now would: a choice another process
    made since (`ctxchat send --model` remembers one) applies. Whether it switched."""
    conversation_id = session.conversation_id
    if conversation_id is None or not session.default_profile.base_url:
        return False
    conversation = workspace.store.conversations.get_conversation(conversation_id)
    wanted = conversation_profile(
        session.default_profile,
        workspace.settings,
        conversation,
        preset=session.choice.given_preset,
        model_given=session.choice.model_given,
    )
    wanted = with_engine_url(workspace.locations.engine_dir, wanted)
    if wanted == session.profile:
        return False
    backend = session.backend
    if backend is None or not same_server(wanted, session.profile, workspace.env):
        try:
            backend = make_backend(wanted, workspace.env, workspace.settings.model)
        except MissingApiKey as error:
            notes(f"{error} Replies cannot be sent until it is set.")
            backend = None
    session.switch_model(wanted, backend)
    window = cached_window(workspace, wanted)
    if window is not None:
        session.server.use_window(window)
    session.use_facts(workspace.state.facts_for(wanted.base_url, wanted.model))
    return True


def cached_window(workspace: Workspace, profile: ProviderProfile) -> WindowInfo | None:
    """The window the server reported for this model last time (None: configured, or
    never asked)."""
    if workspace.settings.context_window(profile) > 0:
        return None  # the user's setting wins
    facts = workspace.state.facts_for(profile.base_url, profile.model)
    if facts is None:
        return None
    return WindowInfo(facts.context_window, facts.window_source, facts.warnings)


async def learn_server(
    session: ChatSession, workspace: Workspace, *, offline: bool = False, refresh: bool = False
) -> WindowInfo:
    """Ask the server for its window, kind and tokenizer, and keep the answer for every
    later run; cached facts younger than a day stand unless `refresh`. `offline` asks
    nothing. A configured window is never replaced."""
    if offline or session.backend is None:
        return session.window
    # The reachability check just before has most likely listed the models: one answer
    # serves adopting the only one and the window probe that reads the list too.
    listing = session.server.take_listing()
    several = None
    if not session.model:
        if listing is None:
            with contextlib.suppress(ProviderError):
                listing = await session.backend.model_listing()
        if listing is not None:
            several = adopt_only_model(session, workspace, listing.ids)
    window = await _ask_server(session, workspace, refresh=refresh, listing=listing)
    if several is not None:
        session.server.note(several)
    from ctxchat.engine.backend import EngineBackend

    if isinstance(session.backend, EngineBackend):
        state = session.backend.state
        if state is not None and state.window_note:
            # Less than the model was trained for: every plan says why.
            session.server.note(state.window_note)
    return window


async def _ask_server(
    session: ChatSession, workspace: Workspace, *, refresh: bool, listing: ModelListing | None
) -> WindowInfo:
    """The window, from the facts kept for this server and model or from asking it
    (`listing`: its `/models` answer, when just received)."""
    profile = session.profile
    if session.settings.context_window(profile) > 0:
        return session.window
    cached = workspace.state.facts_for(profile.base_url, profile.model)
    if cached is not None and cached.fresh() and not refresh:
        return session.window
    facts = await session.probe_server(listing)
    if facts is not None and _worth_keeping(facts):
        # Facts only save time: a state file that cannot be written costs a probe next time.
        with contextlib.suppress(OSError):
            workspace.save_state(workspace.state.with_facts(profile.base_url, profile.model, facts))
    return session.window


def adopt_only_model(
    session: ChatSession, workspace: Workspace, models: Sequence[str]
) -> str | None:
    """No model is named: talk to the server's model when it serves just one (what
    llama.cpp and llama-cpp-python do), with what an earlier run learned of it. When it
    serves several, the note to show (None otherwise)."""
    assert session.backend is not None
    if len(models) != 1:
        return (
            f"No model is named and the server offers {len(models)}: "
            "pick one with F4, --model or `model` in the config."
            if models
            else None
        )
    profile = dataclasses.replace(session.profile, model=models[0])
    if session.default_profile == session.profile:
        session.choice.default_profile = profile  # other conversations with no choice use it too
    session.switch_model(profile, session.backend)
    window = cached_window(workspace, profile)
    if window is not None:
        session.server.use_window(window)
    session.use_facts(workspace.state.facts_for(profile.base_url, profile.model))
    return None


def _worth_keeping(facts: ServerFacts) -> bool:
    """Whether facts should stand in for asking again: what a server said, or a known host's
    documented window; not a guess, nor the table for a server that may not have answered."""
    if facts.window_source in ("server", "probed"):
        return True
    return facts.window_source == "table" and facts.flavour != GENERIC_FLAVOUR


def semantic_recall_for(session: ChatSession) -> SemanticRecall | None:
    """Semantic recall for the session's conversation, when configured and installed."""
    recall = session.settings.recall
    if session.conversation_id is None or not (recall.enabled and recall.semantic):
        return None
    if not SemanticRecall.possible():
        return None
    return SemanticRecall(session.store, session.conversation_id)


def unembedded_notice(left: int) -> str:
    """What a command says when it planned before every message had a vector."""
    return (
        f"note: {left:,} messages are not embedded yet: recall by meaning searched the others "
        "(each command embeds about a second's worth; --embed-all waits for all)."
    )


EMBEDDING_WAIT = 1.0
"""About how long a command embeds messages that have no vector yet before it plans (seconds)."""


@dataclasses.dataclass(frozen=True)
class RecallPrepared:
    """What a command did for recall by meaning before it planned, and what it left."""

    left: int = 0
    """The conversation's messages still without a vector."""
    loading: float = 0.0
    """Seconds loading the encoder's weights and the stored vectors (0: not loaded)."""
    embedding: float = 0.0
    """Seconds embedding messages that had no vector."""
    embedded: int = 0

    def to_dict(self) -> dict[str, float | int] | None:
        """The figures for a command's JSON (None: recall by meaning was not loaded)."""
        if not self.loading:
            return None
        return {
            "loading_seconds": round(self.loading, 3),
            "embedding_seconds": round(self.embedding, 3),
            "embedded": self.embedded,
            "left": self.left,
        }

    def timing_note(self) -> str:
        """What a command says of the time recall by meaning took before it planned ("" when
        it was not loaded)."""
        if not self.loading:
            return ""
        spent = f"{self.loading:.1f} s loading its encoder"
        if self.embedded:
            spent += f", {self.embedding:.1f} s embedding {self.embedded:,} messages"
        return (
            f"note: recall by meaning took {self.loading + self.embedding:.1f} s before planning "
            f"({spent}); `[recall] semantic = false` plans by words alone."
        )


def prepare_recall(
    session: ChatSession, draft: str | None = None, *, wait: float | None = EMBEDDING_WAIT
) -> RecallPrepared:
    """Load semantic recall and embed what has no vector yet, for about `wait` seconds (None:
    all of it): what the draft's full-text search finds first, then the newest. For commands,
    which plan once; the TUI does this in a worker thread. Says how many of the
    conversation's messages are left without a vector (they are embedded by the next
    command, or in the app) and what it took. Time left goes to the messages of the other
    conversations recall searches (`[recall] across`). Without the extra, recall goes by words."""
    semantic = semantic_recall_for(session)
    if semantic is None:
        return RecallPrepared()
    from ctxchat.embeddings import EmbeddingsUnavailable

    started = time.perf_counter()
    try:
        semantic.prepare()
        others = session.recaller.others()
        semantic.prepare_others(others)
        loaded = time.perf_counter()
        session.semantic = semantic
        if draft:
            session.recall(draft)  # asks for what its full-text search found to be embedded
        embedding_started = time.perf_counter()
        embedded = semantic.embed_for(wait)
        # What time is left goes to the other conversations recall searches, newest first.
        ends = None if wait is None else embedding_started + wait
        embedded += semantic.embed_others(
            others, cancelled=lambda: ends is not None and time.perf_counter() >= ends
        )
    except (EmbeddingsUnavailable, OSError, ValueError):
        session.semantic = None
        return RecallPrepared()
    embedding = time.perf_counter() - embedding_started
    session.cache.forget_recall()  # worked out again with the vectors there are now
    left = semantic.missing(m.id for m in session.history() if m.sendable)
    return RecallPrepared(left, loaded - started, embedding, embedded)
