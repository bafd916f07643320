"""What every part of a session reads of it (the store, settings, conversation) and the lock they share."""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Concatenate, ParamSpec, Protocol, TypeVar

from ctxchat.config.settings import ProviderProfile, Settings
from ctxchat.model.backend import ModelBackend
from ctxchat.store import Store


class Locked(Protocol):
    """A part of a session: it holds the session's lock."""

    @property
    def lock(self) -> threading.RLock: ...


class PartOwner(Locked, Protocol):
    """The session, as each of its parts sees it: each part's own Protocol adds what else
    it reads, so no part imports the session (`tests/unit/test_chat_import_cycles.py`)."""

    @property
    def store(self) -> Store: ...
    @property
    def settings(self) -> Settings: ...
    @property
    def conversation_id(self) -> int | None: ...
    @property
    def stored_id(self) -> int: ...


class TalksToModel(PartOwner, Protocol):
    """The session, as a part that reads the profile, server and model in use sees it."""

    @property
    def profile(self) -> ProviderProfile: ...
    @property
    def backend(self) -> ModelBackend | None: ...
    @property
    def model(self) -> str: ...


_P = ParamSpec("_P")
_R = TypeVar("_R")
_S = TypeVar("_S", bound=Locked)


def locked(method: Callable[Concatenate[_S, _P], _R]) -> Callable[Concatenate[_S, _P], _R]:
    """Run `method` holding the session's lock: plans are drawn on the UI thread and in
    workers (a huge draft, the memory usage estimate) at once, over one cache."""

    def run(self: _S, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        with self.lock:
            return method(self, *args, **kwargs)

    functools.update_wrapper(run, method)
    return run
