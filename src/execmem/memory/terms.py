"""Words as the lexical side of the ``fusion`` memory sees them: tokens, stop words, a domain lexicon.

* Tokens are runs of letters and digits, lower-cased (``_`` splits, so ``north_up`` is two words).
* Stop words are function words that carry no subject (``the``, ``my``, ``would``...). They are
  dropped from queries; documents keep them (BM25's idf already makes them cheap).
* Clock times (``7:30 AM``) are dropped from queries: they say when something is asked, not what.
* A ``Lexicon`` is an optional list of *domain terms* given by whoever sets the memory up: the
  words of the things an agent acts on (for a car, its modules, settings and their values; for a
  code base, its module and function names). Statements using them are the ones worth keeping,
  so the lexicon lifts them in ranking, chooses which units get embeddings, and is the vocabulary
  that query feedback may add. The memory itself knows no domain.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable

_WORD = re.compile(r"[^\W_]+")
_CLOCK = re.compile(r"\b\d{1,2}:\d{2}(?::\d{2})?\s*(?:[ap]\.?\s?m\.?)?(?!\w)", re.IGNORECASE)
_DIGIT = re.compile(r"\d")
_SPLIT_IDENTIFIER = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")

_STOP_WORDS_TEXT = """
    a about above after again against all am an and any are as at be because been before being
    below between both but by can could did do does doing don down during each few for from further
    had has have having he her here hers herself him himself his how i if in into is it its itself
    just let lets me more most my myself no nor not now of off on once only or other our ours
    ourselves out over own same she should so some such than that the their theirs them themselves
    then there these they this those through to too under until up very was we were what when where
    which while who whom why will with would you your yours yourself yourselves im ive id ill youre
    dont doesnt didnt cant wont isnt its thats theres s t d ll m re ve get got go going gonna okay
    oh yeah also really still even much many well may might must shall us one
"""
STOP_WORDS = frozenset(_STOP_WORDS_TEXT.split())


def tokens(text: str) -> list[str]:
    """The lower-cased words of ``text``, in order."""
    return [word.lower() for word in _WORD.findall(text)]


def stem(word: str) -> str:
    """A light suffix stripper, so that *lights*, *lighting* and *light* meet: plural -s/-es/-ies,
    -ing and -ed (not -eed, as in *speed*) go when a stem of at least 3 letters stays. Short words
    stay whole."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 5 and word.endswith("ing"):
        return word[:-3]
    if len(word) > 4 and word.endswith("ed") and not word.endswith("eed"):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def index_words(text: str) -> list[str]:
    """The stemmed words of ``text``: what the lexical index and the lexicon compare."""
    return [stem(word) for word in tokens(text)]


def without_clock_times(text: str) -> str:
    return _CLOCK.sub(" ", text)


def query_terms(query: str) -> list[str]:
    """The words of a query worth searching for, stemmed: no clock times, no stop words."""
    return [stem(word) for word in tokens(without_clock_times(query)) if word not in STOP_WORDS]


def states_number(text: str) -> bool:
    """Whether the text holds a number (digits, as in ``44`` or ``480p``); strip clock times first."""
    return _DIGIT.search(text) is not None


def identifier_words(identifier: str) -> list[str]:
    """``setAmbientColor`` or ``north_up`` -> their words, lower-cased."""
    return tokens(_SPLIT_IDENTIFIER.sub(" ", identifier))


class Lexicon:
    """Domain terms: single words, lower-cased and stemmed, stop words and one-letter words left out."""

    def __init__(self, terms: Iterable[str] = ()):
        words = {word for term in terms for word in identifier_words(term)}
        self.words = frozenset(stem(w) for w in words if len(w) > 1 and w not in STOP_WORDS)

    def __bool__(self) -> bool:
        return bool(self.words)

    def __contains__(self, word: object) -> bool:
        return word in self.words

    def describe(self) -> dict[str, object]:
        """Its size and a digest of its words (the list itself can be long)."""
        digest = hashlib.sha256("\n".join(sorted(self.words)).encode()).hexdigest()
        return {"words": len(self.words), "sha256": digest}
