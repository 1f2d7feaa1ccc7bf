"""The DAIDE text form of messages (docs/protocol.md §6.8).

Output (:func:`render_text`): tokens separated by single spaces, brackets as
``(`` and ``)``, integers in decimal with a ``-`` sign, mnemonics upper case,
a run of text tokens as one string in single quotes with ``'`` doubled::

    NME ( 'Bot' ) ( '1.0' )
    HLO ( TUR ) ( 132 ) ( ( LVL 0 ) )

Input (:func:`parse_text`) is lenient, as real files are written by hand:
any whitespace separates tokens and may be omitted next to brackets and
strings (``(Ben(AMY Esd Tri))`` in the variant files), mnemonics are
case-insensitive.

Extension: a token that has no mnemonic in the representation (an unknown
value, a private-use token) is written ``0xHHHH`` and read back as that raw
value, so every token sequence has a text form (``daide decode``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from protocol.errors import EncodeError, TextSyntaxError
from protocol.tokens import BRA, KET, STANDARD, TEXT_BASE, Representation, tokens_to_text
from protocol.tree import Node, Text, Tree, from_tree, to_tree

_SEPARATORS = frozenset(" \t\r\n\f\v")
_WORD_END = frozenset(" \t\r\n\f\v()'")
#: A bracket or a word, for text without strings (the separators of _SEPARATORS).
_WORDS = re.compile(r"[()]|[^ \t\r\n\f\v()]+")


def plain_words(s: str) -> list[str]:
    """``_WORDS.findall(s)``: the brackets and words of text without strings.

    ``str.split`` finds the same words several times faster once the
    brackets are spaced out, when its separators are those of the text form:
    for ASCII text it also splits at the four control characters 0x1C-0x1F,
    which are word characters here, so text holding one of them (or any
    non-ASCII character) takes the regular expression.
    """
    if s.isascii() and "\x1c" not in s and "\x1d" not in s and "\x1e" not in s \
            and "\x1f" not in s:
        return s.replace("(", " ( ").replace(")", " ) ").split()
    return _WORDS.findall(s)


def parse_text(s: str, rep: Representation = STANDARD) -> tuple[int, ...]:
    """Parse the text form into tokens; :class:`TextSyntaxError` on faults.

    Brackets need not balance (PRN messages are unbalanced by nature).
    """
    if "'" not in s:
        # The common case - orders, positions, results: brackets, upper-case
        # mnemonics and plain numbers, split by one regular expression.
        # Anything else (lower case, signs, raw tokens, faults) takes the
        # general reader below.
        table = rep.word_table
        found = [table.get(word) for word in plain_words(s)]
        if None not in found:
            return tuple(found)  # type: ignore[arg-type]
    return _parse_text(s, rep)


def _parse_text(s: str, rep: Representation) -> tuple[int, ...]:
    """The general reader: any text, faults reported with their position."""
    out: list[int] = []
    values = rep.values
    n = len(s)
    i = 0
    while i < n:
        c = s[i]
        if c in _SEPARATORS:
            i += 1
        elif c == "(":
            out.append(BRA)
            i += 1
        elif c == ")":
            out.append(KET)
            i += 1
        elif c == "'":
            i = _parse_string(s, i, out)
        else:
            j = i + 1
            while j < n and s[j] not in _WORD_END:
                j += 1
            out.append(_word_token(s, i, s[i:j], values))
            i = j
    return tuple(out)


def _parse_string(s: str, start: int, out: list[int]) -> int:
    """Read a quoted string starting at ``s[start] == "'"``; return the end index."""
    chars: list[str] = []
    i = start + 1
    n = len(s)
    while True:
        k = s.find("'", i)
        if k < 0:
            raise TextSyntaxError("unterminated string", s, start)
        chars.append(s[i:k])
        if k + 1 < n and s[k + 1] == "'":  # '' = one apostrophe
            chars.append("'")
            i = k + 2
            continue
        data = "".join(chars).encode("utf-8", "surrogateescape")
        out.extend(TEXT_BASE | b for b in data)
        return k + 1


def _word_token(s: str, pos: int, word: str, values: Mapping[str, int]) -> int:
    if word[0].isdigit() or (word[0] == "-" and len(word) > 1):
        if word.startswith(("0x", "0X")):
            try:
                raw = int(word[2:], 16)
            except ValueError:
                raise TextSyntaxError(f"bad raw token {word!r}", s, pos) from None
            if not 0 <= raw <= 0xFFFF or len(word) != 6:
                raise TextSyntaxError(f"raw token {word!r} must be 0x and 4 hex digits", s, pos)
            return raw
        try:
            n = int(word, 10)
        except ValueError:
            raise TextSyntaxError(f"bad integer {word!r}", s, pos) from None
        if not -8192 <= n <= 8191:
            raise TextSyntaxError(f"integer {n} outside -8192..8191", s, pos)
        return n & 0x3FFF
    v = values.get(word.upper())
    if v is None:
        raise TextSyntaxError(f"unknown token {word!r}", s, pos)
    return v


def render_text(tokens: tuple[int, ...] | list[int], rep: Representation = STANDARD) -> str:
    """Render tokens in the text form (never fails: unnamed tokens as ``0xHHHH``)."""
    # The common case - brackets, named tokens, numbers - word by word from
    # one table; text (a run of tokens is one string) and unnamed tokens below.
    table = rep.token_words
    words = [table.get(t) for t in tokens]
    if None not in words:
        return " ".join(words)  # type: ignore[arg-type]
    return _render_text(tokens, rep)


def _render_text(tokens: tuple[int, ...] | list[int], rep: Representation) -> str:
    """The general writer: any tokens, strings and unnamed tokens included."""
    names = rep.names
    parts: list[str] = []
    append = parts.append
    n = len(tokens)
    i = 0
    while i < n:
        t = tokens[i]
        if 0 <= t < 0x4000:
            append(str(t - 0x4000 if t & 0x2000 else t))
        elif t == BRA:
            append("(")
        elif t == KET:
            append(")")
        elif t >> 8 == 0x4B:
            j = i + 1
            while j < n and tokens[j] >> 8 == 0x4B:
                j += 1
            text = tokens_to_text(tokens[i:j])
            append("'" + text.replace("'", "''") + "'")
            i = j
            continue
        else:
            name = names.get(t)
            append(name if name is not None else f"0x{t:04X}")
        i += 1
    return " ".join(parts)


def tree_from_text(s: str, rep: Representation = STANDARD) -> Tree:
    """Parse the text form straight into a tree (brackets must balance)."""
    tree = plain_tree(s, rep)
    return tree if tree is not None else to_tree(parse_text(s, rep), rep)


def plain_tree(s: str, rep: Representation = STANDARD) -> Tree | None:
    """The tree of text made of brackets, upper-case mnemonics and plain
    numbers only, with balanced brackets - what :func:`tree_from_text`
    returns, without the token sequence in between - or None for any other
    text (strings, lower case, signs, raw tokens, unknown words, faults)."""
    if "'" in s:
        return None
    nodes = rep.word_nodes
    stack: list[list[Node]] = []
    current: list[Node] = []
    for word in plain_words(s):
        node = nodes.get(word)
        if isinstance(node, str):  # a mnemonic
            current.append(node)
        elif node is None:  # an unknown word
            return None
        elif node < BRA:  # a number
            current.append(node)
        elif node == BRA:
            stack.append(current)
            current = []
        elif node == KET and stack:
            group = tuple(current)
            current = stack.pop()
            current.append(group)
        else:  # a closing bracket too many
            return None
    return None if stack else tuple(current)


def tree_to_text(tree: Tree, rep: Representation = STANDARD) -> str:
    """Render a tree in the text form: ``render_text(from_tree(tree, rep), rep)``.

    A tree of mnemonics, integers and groups (every ORD, NOW, SCO, THX) is
    written straight from its nodes, as the mnemonics of a representation
    are its names; a tree with strings or other node types goes through the
    tokens (adjacent strings merge, node subclasses convert).  Raises
    :class:`EncodeError` as :func:`from_tree` does.
    """
    parts: list[str] = []
    if _plain_parts(tree, rep.encode_table, parts):
        return " ".join(parts)
    return render_text(from_tree(tree, rep), rep)


def _plain_parts(nodes: tuple[Node, ...], values: Mapping[str, int], parts: list[str]) -> bool:
    """Append the text of a tree's plain nodes; False at the first other node."""
    append = parts.append
    for node in nodes:
        cls = type(node)
        if cls is str:
            if node not in values:
                raise EncodeError(f"unknown mnemonic {node!r}")
            append(node)  # type: ignore[arg-type]
        elif cls is tuple:
            append("(")
            if not _plain_parts(node, values, parts):  # type: ignore[arg-type]
                return False
            append(")")
        elif cls is int and -8192 <= node <= 8191:  # type: ignore[operator]
            append(str(node))
        else:
            return False
    return True


def format_tree(tree: Tree) -> str:
    """Render a tree in the text form without a representation (for logs).

    Unlike :func:`tree_to_text` this never looks mnemonics up, so it works
    for any map; it does not validate the tree.
    """
    parts: list[str] = []
    _format(tree, parts)
    return " ".join(parts)


def _format(nodes: tuple[Node, ...], parts: list[str]) -> None:
    for node in nodes:
        if isinstance(node, tuple):
            parts.append("(")
            _format(node, parts)
            parts.append(")")
        elif isinstance(node, Text):
            parts.append("'" + node.replace("'", "''") + "'")
        else:
            parts.append(str(node))


__all__ = [
    "format_tree", "parse_text", "plain_tree", "plain_words", "render_text", "tree_from_text",
    "tree_to_text",
]
