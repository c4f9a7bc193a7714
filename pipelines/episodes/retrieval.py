"""Which facts answer a question: TF-IDF over each fact's text plus its category's cue words.

:class:`Vocabulary` is the TF-IDF space, fitted once per store on unit texts and the cue words of
data/patient_cues.yaml (text only, no label), and shared by every patient. :class:`Retriever`
ranks one patient's facts for a question: ``text similarity + cue_weight * cue similarity``;
facts below ``min_score`` are never said, so an unrelated question gets "I don't know".
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cache, lru_cache
from importlib.resources import files
from typing import Any

import numpy as np
import yaml
from sklearn.feature_extraction.text import TfidfVectorizer

from pipelines.episodes.voice import Fact

WORDS = r"(?u)\b[a-zA-Z][a-zA-Z]+\b"  # numbers carry no topic
QUESTIONS_CACHED = 4096


@cache
def cue_settings() -> dict[str, Any]:
    return yaml.safe_load(files(__package__).joinpath("data/patient_cues.yaml").read_text())


class Vocabulary:
    def __init__(self, corpus: Iterable[str]):
        cues = cue_settings()["cues"]
        self.categories = {category: i for i, category in enumerate(cues)}
        self.vectorizer = TfidfVectorizer(stop_words="english", sublinear_tf=True, token_pattern=WORDS)
        self.vectorizer.fit([*corpus, *cues.values()])
        self.cue_matrix = self.vectorizer.transform(list(cues.values()))
        # Doctors repeat their questions across episodes: each is vectorised once.
        self.question = lru_cache(maxsize=QUESTIONS_CACHED)(self._column)

    def vectors(self, texts: Sequence[str]):
        return self.vectorizer.transform(list(texts))

    def _column(self, text: str):
        return self.vectorizer.transform([text]).T.tocsr()


class Retriever:
    def __init__(self, vocabulary: Vocabulary, facts: Sequence[Fact]):
        settings = cue_settings()
        self._facts = tuple(facts)
        self._vocabulary = vocabulary
        self._min_score = settings["min_score"]
        self._cue_weight = settings["cue_weight"]
        self._max_facts = settings["max_facts"]
        if self._facts:
            self._texts = vocabulary.vectors([f.text for f in self._facts])
            self._cues = vocabulary.cue_matrix[[vocabulary.categories[f.category] for f in self._facts]]

    def match(self, question: str, said: frozenset[str] = frozenset()) -> list[Fact]:
        """The best-matching facts for ``question``, best first (ties in fact order); facts whose
        ``unit_id`` is in ``said`` come after the others, so a patient does not repeat itself while
        it has something new to say."""
        if not self._facts:
            return []
        q = self._vocabulary.question(question)
        scores = (self._texts @ q).toarray().ravel() + self._cue_weight * (self._cues @ q).toarray().ravel()
        order = np.argsort(-scores, kind="stable")
        order = [i for i in order if scores[i] >= self._min_score]
        order.sort(key=lambda i: self._facts[i].unit_id in said)
        return [self._facts[i] for i in order[: self._max_facts]]
