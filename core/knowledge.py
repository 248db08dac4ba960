"""Hidden information: what the log knows of a zone of cards, and which cards are still unlocated.

At a real table the recorder often cannot see a card: another player's hand, a card drawn from a
pile, a blind reserve. A `Zone` holds the cards the log knows plus a count of cards it does not; an
unknown card becomes known when it is revealed (played, discarded, shown). The manifest says how many
copies of each card exist, so the cards not yet located anywhere bound what can still be revealed:
revealing a copy that is already located everywhere it can be is impossible, and is refused.

A seat that reports its own hidden cards (`game_started`'s `seated`) names every card it draws or is
dealt, so its zones hold no unknown card and its moves are judged in full; what another seat knows of
them is the zone `concealed()`: the count alone (`core/seated.py`, each game's `conceal`).

Pure helpers on frozen values; each game decides which zones it has and when a card is revealed.
"""

from __future__ import annotations

from collections import Counter
from typing import Iterable, Mapping

import msgspec


class Zone(msgspec.Struct, frozen=True, array_like=True, gc=False):
    """Cards in one place (a hand, a pile): those the log knows, in order, and how many it does not."""

    known: tuple[str, ...] = ()
    unknown: int = 0

    @property
    def size(self) -> int:
        return len(self.known) + self.unknown

    def concealed(self) -> "Zone":
        """The zone as someone who cannot see into it knows it: as many cards, none of them known."""
        return self if not self.known else Zone((), self.size)

    def add(self, cards: Iterable[str] = (), unknown: int = 0) -> "Zone":
        return Zone(self.known + tuple(cards), self.unknown + unknown)

    def has(self, card: str) -> bool:
        """Whether `card` can leave this zone: it is known to be here, or it may be one of the unknown cards."""
        return card in self.known or self.unknown > 0

    def remove(self, card: str) -> "Zone":
        """The zone without `card`: a known copy if there is one, else one of the unknown cards (now revealed).

        The caller has checked `has(card)`."""
        rest = list(self.known)
        try:
            rest.remove(card)  # one scan, and cheaper than slicing around the card: a known card is the usual case
        except ValueError:
            return Zone(self.known, self.unknown - 1)
        return Zone(tuple(rest), self.unknown)


def located(zones: Iterable[Zone], *more: Iterable[str]) -> Counter[str]:
    """How many copies of each card the log has placed: the known cards of `zones`, plus other cards seen."""
    counts: Counter[str] = Counter()
    for zone in zones:
        counts.update(zone.known)
    for cards in more:
        counts.update(cards)
    return counts


def unlocated(copies: Mapping[str, int], placed: Counter[str]) -> dict[str, int]:
    """Copies of each card not yet located anywhere: any unknown card may be one of these."""
    seen = placed.get  # not `placed[card]`: Counter's __missing__ is slow Python for every card never placed
    return {card: n - seen(card, 0) for card, n in copies.items() if n > seen(card, 0)}


def can_reveal(card: str, copies: Mapping[str, int], placed: Counter[str]) -> bool:
    """Whether an unknown card may turn out to be `card`: a copy of it exists that the log has not located."""
    return copies.get(card, 0) > placed.get(card, 0)
