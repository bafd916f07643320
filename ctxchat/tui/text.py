"""Display-safe text: control sequences neutralised, never markup, numbers written for people."""

from __future__ import annotations

from pathlib import PurePosixPath, PureWindowsPath
from urllib.parse import urlsplit

from rich.text import Text
from textual.content import Content

from ctxchat.safe_text import clean

__all__ = ["clean", "content", "model_name", "plain", "shown_server", "signed", "tokens"]


def plain(text: str, style: str = "") -> Text:
    """A Rich `Text` of `text`, cleaned and never read as markup."""
    return Text(clean(text), style=style, end="")


def content(text: str, style: str = "") -> Content:
    """A Textual `Content` of `text`, cleaned and never read as markup.

    `style` may name theme variables (`"$layer-memory"`): Textual resolves them when drawing.
    """
    return Content.styled(clean(text), style) if style else Content(clean(text))


def tokens(count: int) -> str:
    """A token count with thousands separators: `123904` → `123,904`."""
    return f"{count:,}"


def signed(count: int | float, precision: int = 0) -> str:
    """A signed number with a real minus sign: `+16`, `−41`, `0`, `+1.3` (precision 1)."""
    shown = f"{abs(count):,.{precision}f}"
    if float(shown.replace(",", "")) == 0:
        return shown
    return ("+" if count > 0 else "\u2212") + shown


def model_name(model: str) -> str:
    """A model id as the header, the status line and a reply show it: a model file's name
    without its folders (llama.cpp servers name a model by the path it was loaded from:
    `/models/gemma-3-270m-q4_k_m.gguf` → `gemma-3-270m-q4_k_m.gguf`); other ids as they are
    (`meta-llama/Llama-3.1-8B` is a name, not a path)."""
    if model.startswith(("/", "~/", "./", "../")):
        return PurePosixPath(model).name or model
    if len(model) > 2 and model[1:3] == ":\\":  # C:\models\…
        return PureWindowsPath(model).name or model
    return model


def shown_server(base_url: str) -> str:
    """A server as the header names it: its host and port (`127.0.0.1:8765`), never the
    credentials a URL may carry; the URL as given when it has no host."""
    try:
        parts = urlsplit(base_url)
        host, port = parts.hostname, parts.port
    except ValueError:
        return base_url
    if not host:
        return base_url
    host = f"[{host}]" if ":" in host else host
    return f"{host}:{port}" if port else host
