"""The settings object: profiles, the budget it implies, and the core options it becomes."""

from __future__ import annotations

import dataclasses

import pytest

from ctxchat.config.errors import UnknownProfile
from ctxchat.config.settings import (
    ContextSettings,
    ProviderProfile,
    Settings,
    SummarySettings,
    default_output_reserve,
)
from ctxchat.core.assemble import AssemblyOptions
from ctxchat.core.budget import Budget, BudgetError, BudgetShares
from ctxchat.core.summary import SummaryPolicy
from ctxchat.core.working import Selection

LOCAL = ProviderProfile("local", "http://127.0.0.1:8080/v1", "gemma")
SIZED = ProviderProfile("sized", "http://x/v1", "m", context_window=8192, output_reserve=512)
SETTINGS = Settings(profiles={"local": LOCAL, "sized": SIZED}, default_profile="local")


def test_profile_by_name_and_default() -> None:
    assert SETTINGS.profile() is LOCAL
    assert SETTINGS.profile("sized") is SIZED
    assert Settings(profiles={"sized": SIZED, "local": LOCAL}).profile() is SIZED
    with pytest.raises(UnknownProfile) as caught:
        SETTINGS.profile("nope")
    assert (
        str(caught.value) == 'no profile named "nope"; the configured profiles are "local", "sized"'
    )


@pytest.mark.parametrize(
    ("window", "reserve"), [(0, 0), (8, 1), (4096, 512), (32768, 4096), (200_000, 4096)]
)
def test_default_output_reserve(window: int, reserve: int) -> None:
    assert default_output_reserve(window) == reserve


def test_the_budget_uses_the_profile_then_the_context_then_the_detected_window() -> None:
    shares = BudgetShares(0.1, 0.1, 0.1, 0.7)
    settings = Settings(
        profiles={"local": LOCAL, "sized": SIZED},
        context=ContextSettings(shares=shares, context_window=0, output_reserve=0),
    )
    assert settings.budget(SIZED, detected_window=100_000) == Budget(8192, 512, shares)
    assert settings.budget(LOCAL, detected_window=32768) == Budget(32768, 4096, shares)
    with_context = Settings(context=ContextSettings(context_window=16384, output_reserve=1000))
    assert with_context.budget(LOCAL, detected_window=4096) == Budget(16384, 1000)
    assert with_context.context_window(LOCAL) == 16384
    with pytest.raises(BudgetError, match="context window is 0"):
        settings.budget(LOCAL)


def test_the_summarizer_profile_and_model() -> None:
    assert SETTINGS.summarizer_profile(LOCAL) is LOCAL
    assert SETTINGS.summarizer_profile(SIZED) is SIZED
    # The chat profile as in use (a --base-url applied) is the summarizer's too.
    moved = dataclasses.replace(LOCAL, base_url="http://elsewhere/v1")
    assert SETTINGS.summarizer_profile(moved) is moved
    separate = Settings(
        profiles=SETTINGS.profiles,
        default_profile="local",
        summary=SummarySettings(profile="sized", model="tiny"),
    )
    assert separate.summarizer_profile(LOCAL) == ProviderProfile(
        "sized", "http://x/v1", "tiny", context_window=8192, output_reserve=512
    )


def test_settings_become_the_core_options() -> None:
    summary = SummarySettings(auto=False, min_messages=3, min_tokens=100, max_unsummarized=9)
    assert summary.policy() == SummaryPolicy(
        auto=False, min_messages=3, min_tokens=100, max_unsummarized=9
    )
    context = ContextSettings(min_recent=4, selection=Selection.SCORED)
    assert context.assembly_options() == AssemblyOptions(min_recent=4, selection=Selection.SCORED)


def test_secrets_lists_stored_environment_and_header_secrets() -> None:
    profiles = {
        "a": ProviderProfile("a", "http://a", "m", api_key="stored"),
        "b": ProviderProfile(
            "b", "http://b", "m", api_key_env="B_KEY", headers={"X-Api-Key": "h", "X-T": "t"}
        ),
    }
    assert Settings(profiles=profiles).secrets({"B_KEY": " from-env "}) == [
        "stored",
        "from-env",
        "h",
    ]
