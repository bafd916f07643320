"""`[prices]`, a profile's `pricing`, and the task and files settings."""

from pathlib import Path

import pytest

from ctxchat.config.errors import ConfigError
from ctxchat.config.loader import parse_settings
from ctxchat.config.settings import Settings
from ctxchat.core.adaptive import AdaptivePolicy
from ctxchat.core.prices import PRICE_DATE, ModelPrice, Pricing


def _settings(text: str) -> Settings:
    return parse_settings(text, {}, path=Path("config.toml")).settings


def _error(text: str) -> str:
    with pytest.raises(ConfigError) as caught:
        parse_settings(text, {}, path=Path("config.toml"))
    return str(caught.value)


def test_prices_override_and_add_to_the_shipped_table() -> None:
    settings = _settings(
        '[prices."gpt-4.1"]\ninput = 1.0\ncached_input = 0.25\noutput = 4.0\n'
        "[prices.my-model]\ninput = 0.5\noutput = 1.5\n"
    )
    table = settings.price_table()
    found = table.find("gpt-4.1-2025-04-14")
    assert found is not None and (found.price, found.source) == (
        ModelPrice(1.0, 0.25, 4.0),
        "config",
    )
    # Without a cached price, cached tokens cost the input price.
    mine = table.find("my-model")
    assert mine is not None and mine.price == ModelPrice(0.5, 0.5, 1.5)
    shipped = table.find("gpt-4o")
    assert shipped is not None and (shipped.source, shipped.date) == ("shipped", PRICE_DATE)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "[prices.m]\ninput = 1.0\n",
            "config.toml:1: prices.m: give output (US dollars per million tokens)",
        ),
        (
            "[prices.m]\ninput = -1.0\noutput = 1.0\n",
            "config.toml:2: prices.m.input: expected a number, got -1.0",
        ),
        (
            "[prices.m]\ninput = 1.0\noutput = 1.0\nbatch = 0.5\n",
            "config.toml:4: prices.m.batch: unknown key (known here: input, cached_input, output)",
        ),
    ],
)
def test_a_bad_price_is_one_line_with_its_place(text: str, message: str) -> None:
    assert _error(text) == message


def test_a_profile_says_whether_its_replies_cost_money() -> None:
    settings = _settings(
        '[profiles.gateway]\nbase_url = "http://127.0.0.1:4000/v1"\nmodel = "gpt-4o"\n'
        'pricing = "priced"\n'
    )
    assert settings.profile("gateway").pricing is Pricing.PRICED
    assert _error('[profiles.g]\nbase_url = "http://a/v1"\nmodel = "m"\npricing = "cheap"\n') == (
        'config.toml:4: profiles.g.pricing: expected one of "auto", "priced", "free", got "cheap"'
    )


def test_task_and_files_take_their_shares_through_the_adaptive_policy() -> None:
    settings = _settings("[task]\nshare = 0.1\n[files]\nshare = 0.3\nmax_bytes = 2000\n")
    assert settings.adaptive() == AdaptivePolicy(task_share=0.1, files_share=0.3)
    assert (settings.files.max_bytes, settings.files.part_tokens) == (2000, 500)
    assert Settings().adaptive() == AdaptivePolicy(task_share=0.05, files_share=0.25)


def test_config_show_reports_prices_and_each_profiles_pricing() -> None:
    from ctxchat.config.loader import LoadedSettings
    from ctxchat.config.report import settings_report

    settings = _settings(
        '[profiles.g]\nbase_url = "http://127.0.0.1:4000/v1"\nmodel = "gpt-4o"\n'
        'pricing = "priced"\n[prices."gpt-4o"]\ninput = 1.0\noutput = 4.0\n'
    )
    shown = settings_report(LoadedSettings(settings, None), {})["settings"]
    assert isinstance(shown, dict)
    assert shown["profiles"]["g"]["pricing"] == "priced"  # type: ignore[index,call-overload]
    assert shown["prices"] == {"gpt-4o": {"input": 1.0, "cached_input": 1.0, "output": 4.0}}
