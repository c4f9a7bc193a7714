"""Which cards the doctor is shown: the top K of its run's bank by TF-IDF cosine similarity between
the cards' ``search_text`` and the doctor's context (MedEvoEval section 3, K = 3).

The vectoriser (scikit-learn) is fitted on the bank's search texts, again whenever the bank has
grown. Ties go to the card earlier in the bank; a card sharing no word with the context is never
shown, and a card saying what a better-ranked one says (an experience written again by a later
pass) gives its place to the next. :class:`BankMemory` is what an episode's controller holds (the engine's ``Memory``): it
appends the cards' block to the observation and says which cards it showed.
"""

from __future__ import annotations

import numpy as np
from sklearn.feature_extraction.text import TfidfVectorizer

from pipelines.evaluation.memory.bank import MemoryBank, MemoryCard
from pipelines.evaluation.memory.cards import card_settings, show


class Retriever:
    def __init__(self, bank: MemoryBank, k: int | None = None):
        self.bank = bank
        self.k = k if k is not None else card_settings().top_k
        if self.k < 1:
            raise ValueError(f"memory top-K must be >= 1, not {self.k}")
        self._fitted_on = -1  # the bank size the vectoriser was fitted on
        self._vectorizer: TfidfVectorizer | None = None

    def _fit(self) -> TfidfVectorizer | None:
        size = len(self.bank)
        if size != self._fitted_on:
            self._fitted_on = size
            self._vectorizer = TfidfVectorizer(stop_words="english", sublinear_tf=True)
            try:
                self._matrix = self._vectorizer.fit_transform([c.search_text for c in self.bank.cards])
            except ValueError:  # no card, or no card with a word that is not a stop word
                self._vectorizer = None
        return self._vectorizer

    def top(self, context: str) -> list[MemoryCard]:
        """The (at most) K cards most similar to ``context``, best first."""
        vectorizer = self._fit()
        if vectorizer is None:
            return []
        sims = (self._matrix @ vectorizer.transform([context]).T).toarray().ravel()
        order = np.lexsort((np.arange(sims.size), -sims))  # the last key first: similarity, then bank order
        cards, shown = self.bank.cards, {}
        for i in order.tolist():
            if len(shown) == self.k or sims[i] <= 0:
                break
            shown.setdefault(cards[i].rule_text, cards[i])  # a text said twice is shown once, the earlier card
        return list(shown.values())


class BankMemory:
    """An episode's view of its run's bank: the cards for each decision, appended to what the
    doctor reads."""

    def __init__(self, retriever: Retriever):
        self._retriever = retriever

    def show(self, observation: str, context: str) -> tuple[str, tuple[str, ...]]:
        cards = self._retriever.top(context)
        return show(observation, [c.rule_text for c in cards]), tuple(c.card_id for c in cards)
