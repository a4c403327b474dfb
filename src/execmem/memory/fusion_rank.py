"""How ``fusion`` ranks one user's statements and gathers them into result items.

Score of a statement ``u`` for a query (each part scaled to [0, 1]):

    lexical * bm25(u) / max bm25  +  dense * cos(u, query)  +  salience * sal(u)
    +  speaker * named(u)  +  numbers * has_number(u)

* ``bm25``: over the statement's speaker and words, query without stop words or clock times.
* ``cos``: MiniLM cosine, for the statements that have a vector (0 for the others).
* ``sal``: the idf mass of the lexicon's words in the statement, capped at ``salience_cap``.
* ``named``: 1 when the statement's speaker is named in the query (first or last name).
* ``has_number``: 1 when the statement states a number (clock times aside): a statement of a
  setting usually says its value.

Without vectors, a statement that shares no word with the query scores 0 (priors alone never
make a hit).

Feedback (pseudo-relevance, once): the best ``anchors`` statements are taken as relevant; their
lexicon words join the query at weight ``feedback / rank`` and the query vector moves toward
their mean vector by ``rocchio``. Then everything is scored again.

Items: the best statement not yet used *anchors* an item; the other statements of the top
``pool`` join it when ``score(u) / best score + group_dense * cos(u, anchor) + group_lexicon *
jaccard(lexicon words)`` reaches ``group_threshold``, its similarity part alone reaches
``group_similarity``, and the item stays within ``item_tokens`` (4 characters a token); with
``replies`` > 0, the statements said right after the anchor join first. An item is one
subject's statements, in time order, so a reader sees how a preference changed and which
statement is the latest.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from execmem.memory.lexical import Bm25Index
from execmem.memory.terms import Lexicon


class RankSettings(BaseModel):
    """The weights and sizes of ``fusion``'s ranking (defaults: see docs/memory.md)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    lexical: float = Field(1.0, ge=0)
    dense: float = Field(2.0, ge=0)
    salience: float = Field(0.6, ge=0)
    speaker: float = Field(0.2, ge=0)
    numbers: float = Field(0.4, ge=0, description="lift of statements that state a number")
    salience_cap: float = Field(10.0, gt=0, description="idf mass at which salience is 1")
    anchors: int = Field(2, ge=0, description="statements taken as relevant for feedback")
    feedback: float = Field(0.5, ge=0, description="weight of the lexicon words feedback adds")
    rocchio: float = Field(0.5, ge=0, description="pull of the query vector toward the anchors")
    pool: int = Field(60, ge=1, description="best statements items are made from")
    item_tokens: int = Field(190, ge=1, description="most tokens of one item")
    group_threshold: float = Field(0.8, description="how related a statement must be to join an item")
    group_dense: float = Field(1.0, ge=0)
    group_similarity: float = Field(
        0.3, description="least similarity to the anchor (dense and lexicon parts alone) to join it"
    )
    group_lexicon: float = Field(1.0, ge=0)
    replies: int = Field(0, ge=0, description="statements right after an anchor that join its item")
    reply_minutes: int = Field(2, ge=0, description="how soon after the anchor a reply must come")


@dataclass
class Space:
    """One user's statements, ready to rank (built from the stored units)."""

    lines: list[str]  # the text an item shows: "[YYYY-MM-DD HH:MM] Speaker: words"
    speakers: list[str]
    index: Bm25Index
    salience: np.ndarray  # in [0, 1]
    lexicon_words: list[frozenset[str]]
    vectors: np.ndarray | None  # one row per statement; zeros where none was computed
    minutes: np.ndarray  # each statement's time, in minutes (for replies)
    numbers: np.ndarray  # 1 where the statement states a number (clock times aside)

    def __len__(self) -> int:
        return len(self.lines)


def statement_salience(index: Bm25Index, words: Sequence[frozenset[str]], cap: float) -> np.ndarray:
    """Each statement's lexicon words' idf mass, capped and scaled to [0, 1]."""
    mass = [sum(index.idf(word) for word in found) for found in words]
    return np.minimum(np.array(mass, dtype=np.float64), cap) / cap


def named_speakers(terms: Sequence[str], speakers: Sequence[str]) -> set[str]:
    """The speakers a query names by first, last or full name."""
    asked = set(terms)
    return {speaker for speaker in set(speakers) if asked & set(speaker.lower().split())}


@dataclass(frozen=True)
class Query:
    weights: dict[str, float]
    vector: np.ndarray | None
    named: frozenset[str]


def score(space: Space, query: Query, settings: RankSettings) -> np.ndarray:
    """Each statement's score; 0 for statements the query has no evidence for (no shared word,
    and no vectors to compare), whatever their salience, numbers or speaker."""
    lexical = space.index.scores(query.weights)
    top = lexical.max(initial=0.0)
    total = settings.lexical * (lexical / top if top > 0 else lexical)
    total += settings.salience * space.salience
    total += settings.numbers * space.numbers
    if query.named:
        total += settings.speaker * np.array([s in query.named for s in space.speakers], dtype=np.float64)
    if space.vectors is None or query.vector is None:
        return np.where(lexical > 0, total, 0.0)
    return total + settings.dense * (space.vectors @ query.vector)


def with_feedback(space: Space, query: Query, first: np.ndarray, visible: np.ndarray, settings: RankSettings):
    """The query with the lexicon words and the mean vector of the best visible statements added."""
    anchors = best(first, visible, settings.anchors)
    weights = dict(query.weights)
    for rank, position in enumerate(anchors, start=1):
        for word in space.lexicon_words[position]:
            weights[word] = weights.get(word, 0.0) + settings.feedback / rank
    vector = query.vector
    if vector is not None and space.vectors is not None and anchors:
        vector = (vector + settings.rocchio * space.vectors[anchors].mean(axis=0)) / (1.0 + settings.rocchio)
    return Query(weights, vector, query.named)


def best(scores: np.ndarray, visible: np.ndarray, count: int) -> list[int]:
    """Positions of the ``count`` best visible statements with a positive score, best first (ties:
    older first). A statement nothing speaks for (score 0) is never returned."""
    masked = np.where(visible & (scores > 0), scores, -np.inf)
    order = np.argsort(-masked, kind="stable")[:count]
    return [int(i) for i in order if np.isfinite(masked[i])]


def rank(space: Space, query: Query, visible: np.ndarray, settings: RankSettings) -> np.ndarray:
    """Every statement's final score (feedback applied when ``anchors`` > 0)."""
    first = score(space, query, settings)
    if settings.anchors == 0:
        return first
    return score(space, with_feedback(space, query, first, visible, settings), settings)


def group(space: Space, scores: np.ndarray, visible: np.ndarray, settings: RankSettings, top_k: int):
    """Up to ``top_k`` items as (anchor score, anchor, member positions in time order), best first."""
    pool = best(scores, visible, settings.pool)
    if not pool:
        return []
    strength = relatedness(space, pool, scores, settings)
    used: set[int] = set()
    items = []
    for slot, anchor in enumerate(pool):
        if anchor in used:
            continue
        members = [anchor, *replies(space, anchor, visible, used, settings)]
        members += companions(space, pool, strength[slot], used | set(members), members, settings)
        used.update(members)
        items.append((float(scores[anchor]), anchor, sorted(members)))
        if len(items) == top_k:
            break
    return items


def replies(
    space: Space, anchor: int, visible: np.ndarray, used: set[int], settings: RankSettings
) -> list[int]:
    """The statements right after the anchor, said within ``reply_minutes`` of it (its answer, or
    the speaker's own follow-up, which often carries the value that was set), while the item stays
    within ``item_tokens``."""
    found = []
    size = len(space.lines[anchor])
    for position in range(anchor + 1, min(anchor + 1 + settings.replies, len(space))):
        close = space.minutes[position] - space.minutes[anchor] <= settings.reply_minutes
        size += 1 + len(space.lines[position])
        fits = math.ceil(size / 4) <= settings.item_tokens
        if not (close and fits and visible[position]) or position in used:
            break
        found.append(position)
    return found


def companions(
    space: Space,
    pool: list[int],
    strength: np.ndarray,
    taken: set[int],
    members: list[int],
    settings: RankSettings,
) -> list[int]:
    """Pool statements related enough to the anchor, within the item's token budget."""
    size = sum(len(space.lines[m]) + 1 for m in members) - 1
    joined = []
    for slot in np.argsort(-strength, kind="stable"):
        if strength[slot] < settings.group_threshold:
            break
        position = pool[slot]
        grown = size + 1 + len(space.lines[position])  # joined with a newline
        if position not in taken and math.ceil(grown / 4) <= settings.item_tokens:
            joined.append(position)
            size = grown
    return joined


def relatedness(space: Space, pool: list[int], scores: np.ndarray, settings: RankSettings) -> np.ndarray:
    """``strength[a, b]``: how much pool statement ``b`` belongs in an item anchored by ``a``."""
    top = scores[pool[0]]
    relative = scores[pool] / (top if top > 0 else 1.0)
    similar = np.zeros((len(pool), len(pool)))
    if space.vectors is not None:
        vectors = space.vectors[pool]
        similar += settings.group_dense * (vectors @ vectors.T)
    words = [space.lexicon_words[p] for p in pool]
    for a, mine in enumerate(words):
        for b, theirs in enumerate(words):
            union = len(mine | theirs)
            if union:
                similar[a, b] += settings.group_lexicon * len(mine & theirs) / union
    strength = relative[None, :] + similar
    return np.where(similar >= settings.group_similarity, strength, -np.inf)


def lexicon_words(words: Sequence[str], lexicon: Lexicon) -> frozenset[str]:
    return frozenset(word for word in words if word in lexicon)
