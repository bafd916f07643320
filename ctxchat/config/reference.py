"""Every setting as a row of a Markdown table (key, value, default, help), for docs/configuration.md.

Made from the declarations in `ctxchat.config.settings`; `scripts/settings_table.py` writes
it into docs/configuration.md and a test checks that it holds the current one.
"""

from __future__ import annotations

from ctxchat.config.declare import Declaration, declarations, plain, share_keys
from ctxchat.config.settings import Settings


def settings_table() -> str:
    """The table, header included, one line per row."""
    rows = ["| key | value | default | what it sets |", "|---|---|---|---|"]
    rows += _rows(Settings, "")
    return "\n".join(rows)


def _rows(cls: type, prefix: str) -> list[str]:
    values = [item for item in declarations(cls) if item.kind == "value"]
    tables = [item for item in declarations(cls) if item.kind != "value"]
    rows = [_row(prefix + item.key, item.expects(), _default(item), item) for item in values]
    for item in tables:
        rows += _table_rows(item, prefix + item.key)
    return rows


def _table_rows(item: Declaration, key: str) -> list[str]:
    if item.kind == "section":
        return [_row(f"[{key}]", "a table", "", item), *_rows(item.of, f"{key}.")]
    if item.kind == "sections":
        return [_row(f"[{key}.NAME]", "a table", "", item), *_rows(item.of, f"{key}.NAME.")]
    if item.kind == "strings":
        return [_row(f"[{key}]", f"name = {item.expects()}", "none", item)]
    shares = item.default.as_dict()
    return [
        _row(f"[{key}]", "a table", "", item),
        *(
            _row(
                f"{key}.{name}",
                item.expects(),
                _literal(shares[name]),
                f"The {name} layer's share.",
            )
            for name in share_keys()
        ),
    ]


def _row(key: str, value: str, default: str, item: Declaration | str) -> str:
    help = item if isinstance(item, str) else item.declared.help
    cells = [f"`{key}`", value, default, help]
    return "| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |"


def _default(item: Declaration) -> str:
    if item.required:
        return "required"
    return "unset" if item.unset_number and item.default is None else _literal(plain(item.default))


def _literal(value: object) -> str:
    """A value as TOML writes it, in backticks."""
    import tomli_w

    return "`" + tomli_w.dumps({"k": value}).removeprefix("k = ").rstrip("\n") + "`"
