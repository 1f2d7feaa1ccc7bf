"""The words of the DAIDE admin messages (`server.admin_adm`): reading a
command's own options, and writing the answers.

Pure text, in and out: the options of ``new ... game`` read into the
settings they ask for (`new_game_options`), and the plain-English pieces
every answer is made of - a sentence, seconds, a game's line, its seats.
A client's words are never trusted: numbers are at most six digits
(`whole_number`), and what is shown of a client's text is printable and cut
short (`printable`, `cut`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from server.settings import GameSettings, SettingsError

#: At most this many lines answer one command, so that a long list cannot fill
#: the asker's outbound queue (`server.session.Client.send` drops a client whose
#: queue is full).
MAX_LINES = 20
#: Names shown in answers (a client's ADM name, a game's name) are cut to this.
MAX_NAME = 40

#: ``<phase> time limit``: the phase words and the setting each names.
PHASES = {"move": "mtl", "movement": "mtl", "retreat": "rtl", "build": "btl",
          "adjustment": "btl", "press": "ptl"}
#: ``new ... game`` options taking a number, and the setting each sets.
NUMBER_OPTIONS = {"level": "level", "mtl": "mtl", "rtl": "rtl", "btl": "btl", "ptl": "ptl",
                  "port": "port"}
#: ``new ... game`` options that switch a rule on (the HLO variant options).
FLAG_OPTIONS = ("dsd", "aoa", "pda", "npr", "npb")


def new_game_options(words: Sequence[str]) -> tuple[dict[str, Any], str | None]:
    """The settings ``new ... game`` options ask for, and the bot kind of ``fill``."""
    changes: dict[str, Any] = {}
    fill: str | None = None
    i = 0
    while i < len(words):
        word = words[i].lower()
        following = words[i + 1] if i + 1 < len(words) else ""
        if word == "name":
            name = " ".join(words[i + 1:])
            if not name:
                raise SettingsError("the name option needs a name after it")
            changes["name"] = name
            break
        if word in NUMBER_OPTIONS or (word == "max" and following.lower() == "year"):
            if word == "max":
                key, i = "max_year", i + 1
                following = words[i + 1] if i + 1 < len(words) else ""
                word = "max year"
            else:
                key = NUMBER_OPTIONS[word]
            value = whole_number(following)
            if value is None:
                raise SettingsError(f'"{word}" needs a number after it')
            changes[key] = value
            i += 2
        elif word in FLAG_OPTIONS:
            changes[word] = True
            i += 1
        elif word == "fill":
            if not re.fullmatch(r"[a-z0-9_]{1,40}", following.lower()):
                raise SettingsError('"fill" needs a bot name after it ("list bots" shows them)')
            fill = following.lower()
            i += 2
        else:
            raise SettingsError(f'unknown option "{cut(word, 20)}"; the options are level N,'
                                f" mtl N, rtl N, btl N, ptl N, max year N, dsd, aoa, pda, npr,"
                                f" npb, fill BOT, port N and name TEXT (last)")
    return changes, fill


def sentence(text: str) -> str:
    """``text`` as a sentence: a capital first, a full stop last (`HostingError`s have neither)."""
    text = text.strip()
    if not text:
        return text
    text = text[0].upper() + text[1:]
    return text if text[-1] in ".!?" else text + "."


def whole_number(word: str) -> int | None:
    """A whole number of at most six digits, else None (no huge or non-ASCII numbers)."""
    return int(word) if re.fullmatch(r"[0-9]{1,6}", word) else None


def printable(text: str) -> str:
    return "".join(c for c in text if c.isprintable())[:MAX_NAME]


def cut(text: str, size: int) -> str:
    """At most ``size`` printable characters of a client's words, for an answer."""
    text = "".join(c for c in text[:size + 1] if c.isprintable())
    return text if len(text) <= size else text[:size - 3] + "..."


def seconds_text(value: float | int) -> str:
    number = int(value) if float(value).is_integer() else value
    return f"{number} second" + ("" if number == 1 else "s")


def joined(label: str, items: Sequence[str]) -> str:
    if not items:
        return f"{label}: none."
    shown = list(items[:30])
    more = f" and {len(items) - len(shown)} more" if len(items) > len(shown) else ""
    return f"{label}: {', '.join(shown)}{more}."


def settings_text(settings: GameSettings) -> str:
    parts = [settings.variant, f"press level {settings.level}"]
    limits = {"mtl": settings.mtl, "rtl": settings.rtl, "btl": settings.btl,
              "ptl": settings.ptl}
    parts.append(limits_text(limits))
    flags = [f for f in FLAG_OPTIONS if getattr(settings, f)]
    if flags:
        parts.append(" ".join(f.upper() for f in flags))
    if settings.max_year is not None:
        parts.append(f"ends after {settings.max_year}")
    if settings.name:
        parts.append(f'named "{cut(settings.name, MAX_NAME)}"')
    return ", ".join(parts)


def limits_text(settings: dict[str, Any]) -> str:
    names = (("mtl", "move"), ("rtl", "retreat"), ("btl", "build"), ("ptl", "press"))
    limits = [f"{word} {seconds_text(settings[key])}" for key, word in names if settings.get(key)]
    return "time limits " + ", ".join(limits) if limits else "no time limits"


def game_line(game: dict[str, Any]) -> str:
    name = game.get("name") or ""
    head = f"Game {game.get('id', '?')}" + (f' "{cut(str(name), MAX_NAME)}"' if name else "")
    parts = [str(game.get("variant", "?")), str(game.get("status", "?"))]
    if game.get("turn"):
        parts.append(str(game["turn"]))
    if game.get("paused"):
        parts.append("paused")
    return f"{head}: {', '.join(parts)}."


def seats_text(game: dict[str, Any]) -> str:
    """Who holds which power (`server.hosting.Host.game`): for the admin's ``status``."""
    bots: dict[str, Any] = game["bots"] if isinstance(game.get("bots"), dict) else {}
    out = []
    for seat in game.get("seats") or []:
        power = str(seat.get("power", "?"))
        if power in bots:
            out.append(f"{power} {cut(str(bots[power]), 30)} (server-started)")
        else:
            out.append(f"{power} {cut(str(seat.get('name') or 'nobody'), 30)}")
    for invited in game.get("invited") or []:
        holder = invited.get("bot") or invited.get("name") or "?"
        out.append(f"{invited.get('power') or 'any power'} invited: {cut(str(holder), 30)}")
    if game.get("free_seats"):
        out.append(f"{game['free_seats']} free")
    return ", ".join(out[:40])
