"""What an offline doctor makes of the experience cards it is shown (pipelines/evaluation/memory/).

The cards arrive as a block at the end of an observation; :meth:`Experience.see` takes the block
off (the rest is what the doctor was told) and reads each card from its text. A card is followed
only while it fits the patient: at least ``match`` of the specific words of its findings (its
``IF`` part, demographics and the setting left out), and at least ``min_words`` of them, occur in
what the doctor has heard so far. A followed card says

* success (``IF ... THEN diagnose D [C] and order T first``): finalise D and order T first and no
  other test, if C's ICD-10 block is one the doctor's own evidence points to (``blocks``);
* correction (``IF ... AVOID D [C] and skip T``): do not finalise the code C, do not order T;
* ``ACTION=REQUEST_TEST T early``: order T first;
* ``ACTION=FINALIZE after N questions``: stop asking after N questions.

Every card seen in an episode is kept (in the order first shown), as a model keeps the
conversation: a card shown at the opening still counts once the evidence fits it. Among fitting
cards the best fit leads, then the one sharing more words with the evidence, then the first shown.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass

from pipelines.episodes.judge import block_of
from pipelines.evaluation.memory.cards import ReadCard, read_card, split_shown, words


@dataclass(frozen=True)
class Followed:
    card: ReadCard
    fit: float  # the share of the card's specific finding words heard
    shared: int  # how many of them


class Experience:
    def __init__(self, match: float, min_words: int, unspecific: Iterable[str]):
        if not 0 < match <= 1 or min_words < 1:
            raise ValueError(f"a card is followed when a share in (0, 1] and at least 1 of its words were heard, "
                             f"not match={match}, min_words={min_words}")
        self.match, self.min_words, self.unspecific = match, min_words, frozenset(unspecific)
        self._cards: dict[str, tuple[ReadCard, frozenset[str]]] = {}

    def __bool__(self) -> bool:
        return bool(self._cards)

    def see(self, observation: str) -> str:
        """The observation without its memory block; the block's readable cards are kept."""
        observation, shown = split_shown(observation)
        for text in shown:
            card = read_card(text) if text not in self._cards else None
            if card is not None:
                self._cards[text] = (card, words(card.findings) - self.unspecific)
        return observation

    def followed(self, heard: str, *templates: str) -> list[Followed]:
        """The cards of these templates that fit what was heard, best first."""
        said = words(heard)
        fits = [Followed(card, len(findings & said) / len(findings), len(findings & said))
                for card, findings in self._cards.values() if card.template in templates and findings]
        return sorted((f for f in fits if f.fit >= self.match and f.shared >= self.min_words),
                      key=lambda f: (-f.fit, -f.shared))

    def successes(self, heard: str, blocks: Collection[str]) -> list[ReadCard]:
        """The fitting success cards whose code lies in ``blocks`` and that no fitting correction avoids."""
        avoided = self.avoided(heard)
        return [f.card for f in self.followed(heard, "success")
                if f.card.diagnosis and f.card.code not in avoided and block_of(f.card.code) in blocks]

    def avoided(self, heard: str) -> set[str]:
        return {f.card.code for f in self.followed(heard, "correction") if f.card.code}

    def tests(self, heard: str, blocks: Collection[str]) -> tuple[list[str], set[str], bool]:
        """The tests to order first (success cards, then early-test rules), those to leave out, and
        whether a success card is followed (then only its tests are ordered)."""
        success = self.successes(heard, blocks)
        early = [t for f in self.followed(heard, "request_test") for t in f.card.tests]
        skipped = {t for f in self.followed(heard, "correction") for t in f.card.tests}
        first = [t for t in (*(t for card in success for t in card.tests), *early) if t not in skipped]
        return list(dict.fromkeys(first)), skipped, bool(success)

    def question_cap(self, heard: str) -> int | None:
        """How many questions the fitting finalise rules say suffice (the most of them), or None."""
        caps = [f.card.questions for f in self.followed(heard, "finalize") if f.card.questions is not None]
        return max(caps) if caps else None
