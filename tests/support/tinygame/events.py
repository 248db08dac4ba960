"""Ten's one event: a number said aloud."""

from tally.core.model import Event


class NumberSaid(Event, tag="number_said", frozen=True):
    player: str = ""
    amount: int = 0


EVENTS: tuple[type[Event], ...] = (NumberSaid,)
