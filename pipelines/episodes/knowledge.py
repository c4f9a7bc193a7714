"""What the offline doctors and consultant learn from the train split.

Each train case becomes one evidence document, written as the doctor would read it: its units'
text and its results as the laboratory physician reports them (:func:`evidence_text`). A TF-IDF
nearest-neighbour index over those documents predicts a primary ICD-10 code for any evidence
(a similarity-weighted vote over ICD-10 blocks among the nearest cases, then the nearest case's
code within the winning block), and ranks examinations by how typical an abnormal result is of
the cases nearest to the evidence so far, compared with the whole train split (its lift).
Only train cases are read; a test case's diagnosis never enters.

The vote also hears the textbook (pipelines/episodes/criteria.py): each block a diagnostic
criterion supports gets ``CRITERIA_WEIGHT`` times that criterion's matched share of the best
one's. Close precedents outvote it (several similar train cases agreeing sum to more), a lone
distant neighbour does not, and a block no train case holds can still win, with the criterion's
code.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from sklearn.feature_extraction.text import TfidfVectorizer

from pipelines.episodes.criteria import EVIDENCE_CACHED, Candidate, candidates
from pipelines.episodes.lab import render
from pipelines.exams.vocabulary import panels
from pipelines.episodes.retrieval import WORDS, SparseRows, TextVectors
from pipelines.episodes.store import CaseStore
from pipelines.episodes.views import ExamResult, Unit

NEIGHBOURS = 5  # cases voting on the diagnosis
TEST_NEIGHBOURHOOD = 10  # cases whose abnormal results suggest the tests to order
ABSENT, RECORDED, ABNORMAL = 0, 1, 2  # an exam's status in a case
IMPORTANCE_WEIGHT = {"key": 1.0, "supporting": 0.5, "background": 0.1}
CRITERIA_WEIGHT = 0.5  # the best criterion's vote, against summed cosine similarities
SIMILARITY_BYTES = 32 << 20  # at most this much of similarities kept for evidence seen before


def evidence_text(units: Sequence[Unit], results: Sequence[ExamResult]) -> str:
    return "\n".join([*(u.text for u in units), *(render(r) for r in results)])


def salient_text(units: Sequence[Unit], results: Sequence[ExamResult]) -> str:
    """The key units and abnormal results, or everything when a case has neither."""
    key = [u for u in units if u.importance == "key"]
    abnormal = [r for r in results if r.abnormal]
    return evidence_text(key, abnormal) if key or abnormal else evidence_text(units, results)


def _nearest(sims: np.ndarray, k: int) -> np.ndarray:
    """The ``k`` most similar train cases, most similar first, ties in case order: the head of
    ``np.argsort(-sims, kind="stable")``, without sorting every train case."""
    if sims.size <= k:
        return np.argsort(-sims, kind="stable")
    kth = np.partition(sims, sims.size - k)[sims.size - k]  # the k-th largest similarity
    close = np.flatnonzero(sims >= kth)  # in case order, ties included
    return close[np.argsort(-sims[close], kind="stable")][:k]


@dataclass(frozen=True)
class Prediction:
    code: str
    block: str
    diagnosis: str
    score: float
    alternatives: tuple[str, ...]  # other blocks in vote order


class TrainingKnowledge:
    def __init__(self, store: CaseStore):
        cases = [store.case(cid) for cid in store.case_ids("train")]
        cases = [c for c in cases if c.manager.primary_icd10 and c.manager.primary_icd10_block]
        if not cases:
            raise ValueError("the store has no train case with an ICD-10 code to learn from")
        self.codes = [c.manager.primary_icd10 for c in cases]
        self.blocks = [c.manager.primary_icd10_block for c in cases]
        self.names = [c.manager.diagnosis_name for c in cases]
        # Words in over half the cases (report boilerplate, common history) tell no diagnosis apart.
        self._vectorizer = TfidfVectorizer(stop_words="english", sublinear_tf=True, token_pattern=WORDS,
                                           ngram_range=(1, 2), max_df=0.5)
        self._matrix = SparseRows(self._vectorizer.fit_transform([evidence_text(c.patient.units, c.exams.results)
                                                                  for c in cases]))
        self._vectors = TextVectors(self._vectorizer)
        # The arms of a study play the same cases, so the same evidence recurs: its cosine similarity
        # to every train case (read-only, within a memory budget) and its ranking of the tests are
        # kept, by the evidence's TF-IDF vector rather than its text, since the seeded style words of
        # a patient's replies change the text far more often than the vector.
        kept = max(1, min(EVIDENCE_CACHED, SIMILARITY_BYTES // (8 * len(cases))))
        self._cosines = lru_cache(maxsize=kept)(self._cosines_of)
        self._vector = lru_cache(maxsize=EVIDENCE_CACHED)(self._vector_of)  # one text, several callers in a turn
        self._ranking = lru_cache(maxsize=EVIDENCE_CACHED)(self._rank)
        self.tests = self._test_names(store)
        self._test_index = {t: i for i, t in enumerate(self.tests)}
        self._allowed: dict[tuple[str, ...], tuple[list[str], np.ndarray]] = {}
        by_name = {t: rank for rank, t in enumerate(sorted(self.tests))}
        self._name_rank = np.array([by_name[t] for t in self.tests])  # the order of the names
        self._status = np.array([[self._status_of(c.exams.by_name, t) for t in self.tests] for c in cases])
        self._abnormal = self._status == ABNORMAL
        self._recorded = self._status != ABSENT
        self._abnormal_rate = self._abnormal.mean(axis=0)  # over the whole train split
        # How much hidden, important history each category holds: the order to ask in.
        self.category_weight: Counter[str] = Counter()
        for c in cases:
            for u in c.patient.hidden:
                self.category_weight[u.category] += IMPORTANCE_WEIGHT[u.importance]

    @staticmethod
    def _test_names(store: CaseStore) -> list[str]:
        recorded = {r.exam_name for cid in store.case_ids("train") for r in store.case(cid).exams.results}
        return sorted(recorded) + sorted(panels())

    @staticmethod
    def _status_of(results: dict[str, ExamResult], test: str) -> int:
        members = panels().get(test, (test,))
        found = [results[m] for m in members if m in results]
        if not found:
            return ABSENT
        return ABNORMAL if any(r.abnormal for r in found) else RECORDED

    def similarities(self, evidence: str) -> np.ndarray:
        """The cosine similarity of the evidence to every train case (read-only)."""
        return self._cosines(self._vector(evidence))

    def _vector_of(self, evidence: str) -> tuple[bytes, bytes]:
        """The evidence's TF-IDF vector (its columns and weights) as a cache key (:attr:`_vector`)."""
        indices, data = self._vectors.sparse(evidence)
        return indices.tobytes(), data.tobytes()

    def _cosines_of(self, vector: tuple[bytes, bytes]) -> np.ndarray:
        sims = self._matrix.dot(np.frombuffer(vector[0], dtype=np.intp), np.frombuffer(vector[1]))
        sims.flags.writeable = False  # shared by every caller of the same evidence
        return sims

    def predict(self, evidence: str) -> Prediction:
        return self.prediction(self.similarities(evidence), candidates(evidence))

    def prediction(self, sims: np.ndarray, found: Sequence[Candidate] = ()) -> Prediction:
        """The prediction for evidence with these :attr:`similarities` and criteria candidates."""
        nearest = _nearest(sims, NEIGHBOURS)
        votes: Counter[str] = Counter()
        for i in nearest:
            votes[self.blocks[i]] += float(sims[i])
        textbook: dict[str, Candidate] = {}
        for c in found:  # best first: each block keeps its best criterion
            if c.block not in textbook:
                textbook[c.block] = c
                votes[c.block] += CRITERIA_WEIGHT * c.matched / found[0].matched
        ranked = sorted(votes, key=lambda b: (-votes[b], b))
        best = next((i for i in nearest if self.blocks[i] == ranked[0]), None)
        if best is None:
            criterion = textbook[ranked[0]].criterion
            return Prediction(criterion.code, ranked[0], criterion.title, votes[ranked[0]], tuple(ranked[1:]))
        return Prediction(self.codes[best], ranked[0], self.names[best], votes[ranked[0]], tuple(ranked[1:]))

    def informative_tests(self, evidence: str, allowed: Sequence[str], exclude: set[str]) -> list[str]:
        """``allowed`` tests, ``exclude`` left out, most informative first: the lift of an abnormal
        result among the train cases nearest to the evidence (similarity-weighted) over its rate in
        the whole train split, then how often the nearest cases have it recorded, then the name."""
        # Every name has its own rank, so leaving the excluded out after ranking orders the rest alike.
        return [name for name in self._ranking(self._vector(evidence), tuple(allowed)) if name not in exclude]

    def _rank(self, vector: tuple[bytes, bytes], allowed: tuple[str, ...]) -> tuple[str, ...]:
        """Every ``allowed`` test the train split has, most informative first (:attr:`_ranking`)."""
        names, found = self._known_tests(allowed)
        sims = self._cosines(vector)
        near = _nearest(sims, TEST_NEIGHBOURHOOD)
        close = sims[near]
        total = close.sum()
        weights = close / total if total > 0 else np.full(near.size, 1 / near.size)
        lift = weights @ self._abnormal[near] - self._abnormal_rate
        recorded = weights @ self._recorded[near]
        order = np.lexsort((self._name_rank[found], -recorded[found], -lift[found]))  # the last key first
        return tuple(map(names.__getitem__, order.tolist()))

    def _known_tests(self, allowed: tuple[str, ...]) -> tuple[list[str], np.ndarray]:
        """The ``allowed`` names the train split has a column for, and those columns (once per
        orderable list: every episode of a preset offers the same one)."""
        if allowed not in self._allowed:
            names = [t for t in allowed if t in self._test_index]
            self._allowed[allowed] = names, np.array([self._test_index[t] for t in names], dtype=np.intp)
        return self._allowed[allowed]
