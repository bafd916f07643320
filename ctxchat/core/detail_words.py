"""The words details are recognised by: months, commands, file types, marker and common words."""

from __future__ import annotations

import re


def _words(text: str) -> frozenset[str]:
    """The whitespace-separated words of `text`."""
    return frozenset(text.split())


MONTHS = {
    name: number
    for number, names in enumerate(
        (
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ),
        start=1,
    )
    for name in names
}
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")

COMMANDS = _words(
    """git pip pip3 python python3 uv uvx poetry pipx npm npx yarn pnpm node deno bun cargo
    rustc rustup go make cmake ninja docker podman kubectl helm terraform ansible
    ansible-playbook ssh scp rsync curl wget sudo apt apt-get dnf yum brew systemctl journalctl
    service psql pg_dump mysql sqlite3 redis-cli mongosh pytest tox nox ruff mypy black flake8
    pre-commit ls cd cp mv rm mkdir chmod chown cat grep rg sed awk find tar unzip zip export
    source echo openssl ffmpeg jq gh aws gcloud az mvn gradle java javac dotnet ctxchat
    crontab kill pkill nginx certbot alembic django-admin flask uvicorn gunicorn"""
)
"""Commands recognised at the start of a code span or a shell line."""

PROSE_COMMANDS = _words(
    """git pip pip3 python3 uv uvx poetry pipx npm npx yarn pnpm cargo rustc rustup cmake docker
    podman kubectl helm terraform ansible-playbook ssh scp rsync curl wget sudo apt-get dnf brew
    systemctl journalctl psql pg_dump sqlite3 redis-cli mongosh pytest ruff mypy pre-commit
    chmod chown openssl ffmpeg jq gcloud mvn gradle dotnet ctxchat crontab certbot alembic
    django-admin uvicorn gunicorn"""
)
"""Commands that are never English words, so they mark a command in running prose too."""

SHELL_LANGUAGES = frozenset({"bash", "sh", "shell", "console", "zsh", "fish", "powershell", "ps1"})

PROSE_COMMAND_STOP = _words(
    """to and then before after so if when because which that but or for with on in first
    again once until while as is was it this"""
)
"""Words that end a command written in prose ("run pip install x before pushing")."""

FILE_EXTENSIONS = (
    "py|pyi|js|mjs|cjs|ts|tsx|jsx|json|jsonl|toml|yaml|yml|md|rst|txt|cfg|ini|conf|sh|bash|zsh|"
    "ps1|rs|go|java|kt|c|h|cc|cpp|hpp|cs|rb|php|swift|sql|csv|tsv|log|lock|html|css|scss|xml|"
    "env|gguf|db|sqlite|parquet|ipynb|pdf|png|jpg|jpeg|svg|gif|tcss|proto|tf|service|whl|zip|gz"
)
NAMED_FILES = "Dockerfile|Makefile|Procfile|Justfile|Gemfile|Vagrantfile|Containerfile"

COMMON_ACRONYMS = _words(
    """I OK AI API APIs UI UX CLI TUI GUI LLM LLMs ID IDs URL URLs HTTP HTTPS JSON SQL CPU GPU
    RAM PDF CSV TODO FYI ASAP ETA EOD PR PRs CI CD TL DR FAQ OS PS NB AM PM TV USA US UK EU
    IMO IIRC BTW TBD"""
)

COMMON_CAPITALIZED = _words(
    """a an the this that these those there here it its i i'm i've i'd i'll we we're we've
    we'll you you're you'll your he she they they're them their our my me us yes no not ok
    okay sure thanks thank hi hello hey please let let's what what's how why when where which
    who whom whose can could would should will shall may might must do does did done is are
    was were be been being have has had also but and or so then now next first second third
    last finally great good fine nice cool right well maybe perhaps actually note use run add
    make set check try see look just only one two three some any all each every both either
    neither none after before since until while if because though although however therefore
    instead meanwhile still yet again once today tomorrow yesterday tonight morning evening
    afternoon update done perfect agreed understood correct exactly absolutely got glad sorry
    step summary important remember in on at to for from with without by of as about into
    over under between option plan idea question answer problem issue error warning tip
    example because good great happy welcome sounds that's it's here's there's don't do
    never always avoid keep go going our"""
)
"""Capitalized words that begin sentences far more often than they name something."""

GENERIC_NAME_WORDS = _words(
    """inc corp corporation co ltd llc gmbh team project street st avenue ave road university
    mr mrs ms dr prof the of de da do dos di del van von der den la le du and"""
)
"""Words of a name that do not tell it apart ("Acme Corp" is found again by "Acme")."""

STOPWORDS = _words(
    """a an the this that these those it its i me my we us our you your he she they them their
    is are was were be been being am do does did have has had will would shall should can could
    may might to of in on at by for from with without as and or but if then so than too very
    just also only not no yes all any some each every both there here what which who whom
    whose when where why how into over under about after before again once while because until
    up down out off more most less such own same other now let lets let's we'll we're i'm it's
    that's don't doesn't isn't aren't won't can't i'll you'll we've i've"""
)

DECISION = re.compile(
    r"\b(?:decided|decision|agreed|agree on|chose|chosen|picked|settled on|opted|go with|"
    r"going with|went with|we(?:'ll| will) (?:use|go|keep|ship|switch|move|drop|stick)|"
    r"let'?s (?:use|go|keep|switch|stick|drop|move|ship)|instead of|rather than|approved|"
    r"rejected|switch(?:ed)? to|the plan is)\b",
    re.IGNORECASE,
)
"""Words that mark a sentence as a decision."""

CONSTRAINT = re.compile(
    r"\b(?:must|mustn't|never|always|do not|shall not|may not|not allowed|forbidden|"
    r"prohibited|mandatory|no more than|no less than|at most|under no circumstances|"
    r"(?:nobody|no one|none of us) (?:may|can|should|is allowed to))\b"
    r"|^(?:don't|do not|never|always|avoid|only)\b|^(?:constraint|rule)s?:",
    re.IGNORECASE,
)
"""Words that mark a sentence as a rule the work must respect."""

MARKER_WORDS = _words(
    """decided decision agreed agree chose chosen picked settled opted go going went use keep
    ship switch switched move drop stick instead rather approved rejected plan must mustn't
    never always don't shall allowed forbidden prohibited mandatory less least circumstances
    constraint rule avoid"""
)
"""The marker words themselves: a summary says "chose" where a message said "decided"."""

NUMBER_WORDS = {
    word: value
    for value, word in enumerate(
        [
            "zero",
            "one",
            "two",
            "three",
            "four",
            "five",
            "six",
            "seven",
            "eight",
            "nine",
            "ten",
            "eleven",
            "twelve",
            "thirteen",
            "fourteen",
            "fifteen",
            "sixteen",
            "seventeen",
            "eighteen",
            "nineteen",
        ]
    )
} | {
    word: 10 * tens
    for tens, word in enumerate(
        ("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"), start=2
    )
}
NUMBER_WORDS["dozen"] = 12
SCALE_WORDS = {"hundred": 100, "thousand": 1000, "million": 10**6, "billion": 10**9}
SCALE_SUFFIXES = {"k": 1000, "m": 10**6, "mm": 10**6, "bn": 10**9, "b": 10**9}
UNITS = (
    r"%|percent\b|per cent\b|ms\b|s\b|secs?\b|seconds?\b|mins?\b|minutes?\b|h\b|hrs?\b|hours?\b|days?\b|"
    r"weeks?\b|months?\b|years?\b|[kKMGT]i?B\b|bytes?\b|tokens?\b|px\b|fps\b|[kKMG]?Hz\b|"
    r"kW\b|W\b|V\b|mA\b|km\b|cm\b|mm\b|kg\b|g\b|[KMG]B/s\b|req/s\b|rps\b|qps\b|USD\b|EUR\b|"
    r"GBP\b|RUB\b|dollars?\b|euros?\b|rubles?\b|x\b|×|[kK]\b|[mM]\b|bn\b"
)
"""What may follow a number and makes it worth keeping even when it is small."""
