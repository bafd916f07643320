"""Which profile, preset, model and system prompt a session's conversation talks with, and the request they make."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Protocol

from ctxchat.chat.connection import make_backend, same_server
from ctxchat.chat.conversation_cache import ConversationCache
from ctxchat.chat.session_part import TalksToModel, locked
from ctxchat.config.errors import MissingApiKey
from ctxchat.config.settings import Preset, ProviderProfile, Settings
from ctxchat.core.plan import ContextPlan
from ctxchat.model.backend import ModelBackend
from ctxchat.model.request import ChatRequest, Sampling, build_chat_request
from ctxchat.store import Conversation


def with_preset_model(profile: ProviderProfile, preset: Preset | None) -> ProviderProfile:
    """`profile` talking to the preset's model, when the preset names one."""
    if preset is None or not preset.model:
        return profile
    return dataclasses.replace(profile, model=preset.model)


def conversation_profile(
    default: ProviderProfile,
    settings: Settings,
    conversation: Conversation,
    *,
    preset: str | None = None,
    model_given: bool = False,
) -> ProviderProfile:
    """The profile a conversation talks to: the profile and model chosen for it (F4), else
    `default`; with the model of its preset (`preset`, a preset given for this run, else
    the one it chose) unless a model was chosen for it since, or `model_given` (--model).
    A chosen profile the config no longer has leaves the choice unused."""
    name, model = conversation.chosen_profile, conversation.chosen_model
    profile = default
    if name is not None and name != default.name:
        if name not in settings.profiles:
            name, model = None, None
        else:
            profile = settings.profile(name)
    if (model and preset is None) or model_given:
        return dataclasses.replace(profile, model=model) if model else profile
    chosen = settings.presets.get(preset or conversation.preset or "")
    if chosen is not None and chosen.model:
        return with_preset_model(profile, chosen)
    return dataclasses.replace(profile, model=model) if model else profile


class ChoiceOwner(TalksToModel, Protocol):
    """What the choice reads of its session: the settings, the profile and server in use,
    and the conversation's row as the session keeps it."""

    @property
    def env(self) -> Mapping[str, str]: ...
    @property
    def cache(self) -> ConversationCache: ...


class ProfileChoice:
    """The profile, preset and system prompt in force for a session's conversation
    (`ChatSession.choice`), what the run was given (`default_profile`, `given_preset`,
    `model_given`) and the choices remembered with the conversation."""

    def __init__(
        self,
        session: ChoiceOwner,
        *,
        default_profile: ProviderProfile,
        given_preset: str | None = None,
        model_given: bool = False,
        summary_backend: ModelBackend | None = None,
    ) -> None:
        self._session = session
        self.lock = session.lock
        self.default_profile = default_profile
        """The profile of a conversation with none chosen for it (see `conversation_profile`)."""
        self.given_preset = given_preset
        """A preset named for this run (`--preset`): it wins over the conversation's, and a
        conversation this session starts keeps it."""
        self.model_given = model_given
        """A model was named for this run (`--model`): a preset's model does not replace it."""
        # The summarizer's own server, when `[summary] profile` names another one.
        self.own_summary_backend = summary_backend

    @property
    def preset_name(self) -> str | None:
        """The preset in force: the one named for this run, else the conversation's."""
        if self.given_preset is not None:
            return self.given_preset
        record = self._session.cache.record()
        return None if record is None else record.preset

    @property
    def preset(self) -> Preset | None:
        """The settings of the preset in force (None: none, or one the config no longer has)."""
        name = self.preset_name
        return None if name is None else self._session.settings.presets.get(name)

    @property
    def own_system_prompt(self) -> str | None:
        """The conversation's own system prompt (None: it has none)."""
        record = self._session.cache.record()
        return None if record is None else record.system_prompt

    @property
    def system_prompt(self) -> str:
        """The system prompt the plan sends: the conversation's own, else its preset's, else
        `[context] system_prompt` ("" sends none)."""
        own = self.own_system_prompt
        if own is not None:
            return own
        preset = self.preset
        if preset is not None and preset.system_prompt is not None:
            return preset.system_prompt
        return self._session.settings.context.system_prompt

    @property
    def system_prompt_source(self) -> str:
        """Where the system prompt in force comes from, in words."""
        if self.own_system_prompt is not None:
            return "the conversation's own"
        preset = self.preset
        if preset is not None and preset.system_prompt is not None:
            return f'preset "{preset.name}"'
        return "the config ([context] system_prompt)"

    @property
    def sampling(self) -> Sampling:
        """How replies are sampled: the preset's temperature and top_p, else the profile's
        (None: the server's default); the reply's limit is the plan's output reserve."""
        preset = self.preset
        profile = self._session.profile
        temperature, top_p = profile.temperature, profile.top_p
        if preset is not None:
            temperature = temperature if preset.temperature is None else preset.temperature
            top_p = top_p if preset.top_p is None else preset.top_p
        return Sampling(temperature, top_p)

    def remember_model(self) -> None:
        """Remember the profile and model in use for this conversation; the default one
        (with its preset's model) forgets the choice (the configured one applies again)."""
        session = self._session
        if session.conversation_id is None:
            return
        profile = session.profile
        unchosen = self.with_preset(self.default_profile)
        chosen = (None, None) if profile == unchosen else (profile.name, profile.model)
        session.store.conversations.choose_model(session.conversation_id, *chosen)
        session.cache.forget_conversation()

    def with_preset(self, profile: ProviderProfile) -> ProviderProfile:
        """`profile` with the model of the preset in force, unless a model was named."""
        return profile if self.model_given else with_preset_model(profile, self.preset)

    @locked
    def choose_preset(self, name: str | None) -> str | None:
        """Make `name` the conversation's preset (None: none), remembered with it (see
        `ChatSession.choose_preset`); the model to talk to now, when it changed.

        Raises UnknownPreset (naming the configured ones) for a name the config lacks.
        """
        session = self._session
        settings = session.settings
        preset = None if name is None else settings.preset(name)
        conversation = session.stored_id
        record = session.store.conversations.choose_preset(conversation, name)
        if preset is not None and preset.model and record.chosen_model is not None:
            record = session.store.conversations.choose_model(
                conversation, record.chosen_profile, None
            )
        self.given_preset = None  # chosen for the conversation now: its own choice applies
        session.cache.forget_conversation()
        session.cache.conversation_changed()
        if self.model_given:
            return None
        base = self.default_profile
        if session.profile.name != base.name:
            base = settings.profiles.get(session.profile.name, session.profile)
        wanted = conversation_profile(base, settings, record)
        return None if wanted.model == session.model else wanted.model

    def summary_profile(self) -> ProviderProfile:
        """The profile summaries are written with (see `Settings.summarizer_profile`)."""
        return self._session.settings.summarizer_profile(self._session.profile)

    def summary_backend(self) -> ModelBackend | None:
        """The server summaries are written by: the chat's, unless the summary profile talks
        to another server (or with another key or headers). Raises MissingApiKey."""
        session = self._session
        profile = self.summary_profile()
        if session.backend is None or same_server(profile, session.profile, session.env):
            return session.backend
        if self.own_summary_backend is None:
            self.own_summary_backend = make_backend(profile, session.env, session.settings.model)
        return self.own_summary_backend

    async def close(self) -> None:
        """Close the connection to the summarizer's own server, if one was made."""
        if self.own_summary_backend is not None:
            await self.own_summary_backend.aclose()
        self.own_summary_backend = None

    def request_for(self, plan: ContextPlan, *, model: str | None = None) -> ChatRequest:
        """The request `plan` goes out as: what the client sends and every surface shows."""
        session = self._session
        profile = session.profile
        try:
            api_key = profile.resolve_api_key(session.env)
        except MissingApiKey:
            api_key = None
        backend = session.backend
        sampling = self.sampling
        return build_chat_request(
            base_url=profile.base_url,
            model=model or session.model,
            messages=plan.request_messages(),
            max_tokens=plan.output_reserve,
            temperature=sampling.temperature,
            top_p=sampling.top_p,
            stream_usage=True if backend is None else backend.sends_usage_option,
            api_key=api_key,
            headers=profile.headers,
        )

    def with_request(self, plan: ContextPlan) -> ContextPlan:
        """`plan` with the request it goes out as (see `ContextPlan.request`)."""
        if plan.request is not None:
            return plan
        return dataclasses.replace(plan, request=self.request_for(plan).shown())
