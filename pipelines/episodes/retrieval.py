"""Which facts answer a question: TF-IDF over each fact's text plus its category's cue words.

:class:`Vocabulary` is the TF-IDF space, fitted once per store on unit texts and the cue words of
data/patient_cues.yaml (text only, no label), and shared by every patient. :class:`Retriever`
ranks one patient's facts for a question: ``text similarity + cue_weight * cue similarity``;
facts below ``min_score`` are never said, so an unrelated question gets "I don't know".

:class:`TextVectors` turns one text into its TF-IDF vector as a fitted ``TfidfVectorizer`` does,
without sklearn's per-call validation: the episodes vectorise a few short texts per turn, and
``transform`` costs more in overhead than in arithmetic.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any

import numpy as np
from scipy import sparse
from sklearn.feature_extraction.text import TfidfVectorizer

from pipelines.datafiles import yaml_mapping
from pipelines.episodes.voice import Fact

WORDS = r"(?u)\b[a-zA-Z][a-zA-Z]+\b"  # numbers carry no topic
QUESTIONS_CACHED = 4096
FACT_SETS_CACHED = 4096  # one per patient (case); the matrices are small
FACTS_CACHED = 1 << 15  # fact texts vectorised (a case holds a few dozen)
LINES_CACHED = 1 << 16  # lines of evidence (a reply, a result) already tokenised
TEXTS_CACHED = 512  # evidence texts already counted: an episode extends its latest by a line or two
RECENT_TEXTS = 8  # how many of the latest texts counted are tried as the one a text extends
GATHER_ABOVE_NNZ = 5_000  # stored values above which SparseRows reads by column (see there)


@cache
def cue_settings() -> dict[str, Any]:
    return yaml_mapping(__package__, "data/patient_cues.yaml", ("min_score", "cue_weight", "max_facts", "cues"))


class TextVectors:
    """``vectorizer.transform([text])`` of a fitted, sublinear, l2-normalised ``TfidfVectorizer``,
    one text at a time, bitwise as sklearn computes it: the same tokens and n-grams, the counts in
    column order, ``log(tf) + 1``, idf, and the l2 norm summed in column order.

    Evidence texts grow line by line during an episode (each reply, each result), so each line's
    tokens and in-vocabulary counts are kept (``LINES_CACHED``); a text's counts are its lines'
    counts plus the bigrams that join the last word of a line to the first of the next, which is
    what tokenising the whole text gives: the token pattern never spans a newline.
    """

    def __init__(self, vectorizer: TfidfVectorizer):
        supported = (vectorizer.analyzer == "word" and vectorizer.token_pattern == WORDS and vectorizer.lowercase
                     and vectorizer.tokenizer is None and vectorizer.preprocessor is None
                     and vectorizer.strip_accents is None and vectorizer.input == "content"
                     and vectorizer.ngram_range in ((1, 1), (1, 2)) and vectorizer.sublinear_tf
                     and vectorizer.use_idf and vectorizer.norm == "l2" and not vectorizer.binary)
        if not supported:
            raise ValueError("TextVectors reproduces lower-cased WORDS unigrams (and bigrams) with sublinear, "
                             "idf-weighted, l2-normalised TF-IDF only")
        self._tokenize = vectorizer.build_tokenizer()
        self._stop_words = vectorizer.get_stop_words() or frozenset()
        self._bigrams = vectorizer.ngram_range == (1, 2)
        self._columns = vectorizer.vocabulary_
        self._idf = vectorizer.idf_
        self.size = len(self._columns)
        self._line = lru_cache(maxsize=LINES_CACHED)(self._line_counts)
        self._texts: dict[str, _Counts] = {}  # texts counted, oldest first (:meth:`counts`)

    def _line_counts(self, line: str) -> _Line | None:
        """One line's words (stop words left out) and its in-vocabulary unigram and bigram counts."""
        words = [w for w in self._tokenize(line.lower()) if w not in self._stop_words]
        if not words:
            return None
        features = Counter(words)
        if self._bigrams:
            features.update(map(" ".join, zip(words, words[1:])))
        columns = self._columns
        found = sorted((columns[f], n) for f, n in features.items() if f in columns)
        line = _Line(words[0], words[-1], np.array([c for c, _ in found], dtype=np.intp),
                     np.array([n for _, n in found], dtype=np.float64))
        line.columns.flags.writeable = line.counts.flags.writeable = False  # cached: shared by every text
        return line

    def counts(self, text: str, evidence: bool = True) -> tuple[np.ndarray, np.ndarray]:
        """The text's in-vocabulary columns (ascending) and their term counts (what
        ``CountVectorizer.transform`` counts), gathered from its lines without a vocabulary-wide
        array: a text holds a few hundred terms of many thousand columns.

        An evidence text is usually an earlier one plus a reply or a result: the counts of the
        longest of the latest texts it extends by whole lines (:meth:`_extended`) are reused, and
        only the new lines are added. Other texts (``evidence`` False: a patient's facts, which
        extend nothing) are counted from their lines alone and not kept among the latest."""
        known = self._texts.get(text) if evidence else None
        if known is not None:
            return known.columns, known.counts.copy()
        base, cut = self._extended(text) if evidence else (None, -1)
        rest = text[cut + 1 :] if base is not None else text
        lines = [line for line in map(self._line, rest.split("\n")) if line is not None]
        parts = ([base] if base is not None and base.columns.size else []) + lines
        columns = [part.columns for part in parts]
        counts = [part.counts for part in parts]
        last, joins = base.last if base is not None else None, []
        for line in lines:  # the bigram that joins the last word so far to the line's first
            column = self._columns.get(f"{last} {line.first}") if self._bigrams and last is not None else None
            if column is not None:
                joins.append(column)
            last = line.last
        if joins:
            columns.append(np.array(joins, dtype=np.intp))
            counts.append(np.ones(len(joins)))
        shared = len(parts) == 1 and not joins  # one part's columns are ascending already
        if shared:
            found, summed = parts[0].columns, parts[0].counts
        else:
            found = np.concatenate(columns) if columns else np.zeros(0, dtype=np.intp)
            summed = np.zeros(0)
            if found.size:
                order = np.argsort(found)
                found, weights = found[order], np.concatenate(counts)[order]
                first = np.empty(found.size, dtype=bool)  # where each column's run starts
                first[0] = True
                np.not_equal(found[1:], found[:-1], out=first[1:])
                # A column's counts are small whole numbers: summed exactly, whatever the order.
                found, summed = found[first], np.bincount(np.cumsum(first) - 1, weights)
        if not evidence:
            return found, summed.copy() if shared else summed
        self._keep(text, _Counts(found, summed, last))
        return found, summed.copy()

    def _extended(self, text: str) -> tuple[_Counts | None, int]:
        """The counts of the longest of the latest texts counted that ``text`` extends by whole
        lines, and where that text ends in ``text`` (a lab report adds a line per result, so an
        episode's evidence may grow by many lines between two counts)."""
        best, end = None, -1
        for _, (earlier, counts) in zip(range(RECENT_TEXTS), reversed(self._texts.items())):
            if end < len(earlier) < len(text) and text[len(earlier)] == "\n" and text.startswith(earlier):
                best, end = counts, len(earlier)
        return best, end

    def _keep(self, text: str, counts: _Counts) -> None:
        counts.columns.flags.writeable = counts.counts.flags.writeable = False  # shared by later texts
        if len(self._texts) >= TEXTS_CACHED:
            del self._texts[next(iter(self._texts))]  # the oldest
        self._texts[text] = counts

    def sparse(self, text: str, evidence: bool = True) -> tuple[np.ndarray, np.ndarray]:
        """The text's non-zero columns (ascending) and their weights (``evidence``: :meth:`counts`)."""
        indices, data = self.counts(text, evidence)
        np.log(data, data)
        data += 1.0
        data *= self._idf[indices]
        if data.size:  # the squares summed one after the other, as sklearn's inplace_csr_row_normalize_l2
            data /= math.sqrt(np.add.accumulate(data * data)[-1])
        return indices, data

    def matrix(self, texts: Sequence[str]) -> sparse.csr_matrix:
        """``vectorizer.transform(texts)``: one row per text."""
        return _csr([self.sparse(t) for t in texts], self.size)


def _stacked(rows: Sequence[tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray]:
    """The rows' columns and weights, one row after the other."""
    if not rows:
        return np.zeros(0, dtype=np.intp), np.zeros(0)
    return np.concatenate([columns for columns, _ in rows]), np.concatenate([data for _, data in rows])


def _csr(rows: Sequence[tuple[np.ndarray, np.ndarray]], width: int) -> sparse.csr_matrix:
    indptr = np.cumsum([0, *(len(columns) for columns, _ in rows)])
    return sparse.csr_matrix((*_stacked(rows)[::-1], indptr), shape=(len(rows), width))


@dataclass(frozen=True)
class _Line:
    first: str  # word
    last: str
    columns: np.ndarray  # ascending
    counts: np.ndarray


@dataclass(frozen=True)
class _Counts:
    columns: np.ndarray  # ascending
    counts: np.ndarray
    last: str | None  # its last word (None: no word), which a bigram joins to the next line's first


class SparseRows:
    """A sparse matrix against one sparse vector: ``matrix.sorted_indices() @ x`` for the dense ``x``
    holding ``data`` at ``indices`` (ascending), bitwise. Each row's products are added up from zero
    in column order, as scipy's ``csr_matvec`` adds a row's stored entries (a zero of ``x`` adds
    nothing). Column order, not storage order: the fitted ``TfidfVectorizer`` stores rows
    unsorted, and a score should not depend on that.

    A large matrix (the train cases) is read by column, at the cost of the vector's columns only;
    a small one (a patient's facts) is multiplied as it is stored, row after row, which costs less
    than the gathering (and far less than scipy's checks around a product this small)."""

    def __init__(self, matrix: sparse.spmatrix):
        self.shape = matrix.shape
        self._by_column = matrix.nnz > GATHER_ABOVE_NNZ
        if self._by_column:
            columns = sparse.csc_matrix(matrix)
            columns.sort_indices()
            self._starts, self._rows, self._values = columns.indptr, columns.indices, columns.data
        else:
            rows = sparse.csr_matrix(matrix).sorted_indices()
            self._by_row(np.diff(rows.indptr), rows.indices, rows.data)

    @classmethod
    def of_rows(cls, rows: Sequence[tuple[np.ndarray, np.ndarray]], width: int) -> SparseRows:
        """The matrix whose rows are these (ascending columns, weights), as :meth:`TextVectors.sparse`
        gives them: a small one (a patient's facts, built once per case) is stored as it is, without
        a scipy matrix in between."""
        if sum(len(columns) for columns, _ in rows) > GATHER_ABOVE_NNZ:
            return cls(_csr(rows, width))
        matrix = cls.__new__(cls)
        matrix.shape, matrix._by_column = (len(rows), width), False
        matrix._by_row(np.array([len(columns) for columns, _ in rows], dtype=np.intp), *_stacked(rows))
        return matrix

    def _by_row(self, lengths: np.ndarray, columns: np.ndarray, values: np.ndarray) -> None:
        self._entry_rows = np.repeat(np.arange(self.shape[0]), lengths)
        self._columns, self._values = columns, values

    def dot(self, indices: np.ndarray, data: np.ndarray) -> np.ndarray:
        if not self._by_column:
            vector = np.zeros(self.shape[1])
            vector[indices] = data
            return np.bincount(self._entry_rows, self._values * vector[self._columns], minlength=self.shape[0])
        starts = self._starts[indices]
        lengths = self._starts[indices + 1] - starts
        ends = np.cumsum(lengths)
        # The stored positions of the vector's columns, one column after the other.
        positions = np.arange(ends[-1] if ends.size else 0) + np.repeat(starts - ends + lengths, lengths)
        products = self._values[positions] * np.repeat(data, lengths)
        return np.bincount(self._rows[positions], products, minlength=self.shape[0])


@dataclass(frozen=True)
class Question:
    """A question in the patient's TF-IDF space, and its similarity to every category's cue words."""

    indices: np.ndarray
    data: np.ndarray
    cue_scores: np.ndarray  # by category index


class Vocabulary:
    def __init__(self, corpus: Iterable[str]):
        cues = cue_settings()["cues"]
        self.categories = {category: i for i, category in enumerate(cues)}
        self.vectorizer = TfidfVectorizer(stop_words="english", sublinear_tf=True, token_pattern=WORDS)
        self.vectorizer.fit([*corpus, *cues.values()])
        self.cue_matrix = SparseRows(self.vectorizer.transform(list(cues.values())))
        self.text_vectors = TextVectors(self.vectorizer)
        # Doctors repeat their questions across episodes, and every episode of a case has the same
        # facts: each is vectorised once.
        self.question = lru_cache(maxsize=QUESTIONS_CACHED)(self._question)
        self.fact_matrix = lru_cache(maxsize=FACT_SETS_CACHED)(self._fact_matrix)
        # A case's facts recur in its patients' sets (the stress test's single-layer patient holds
        # the dual-layer one's hidden units): each text is vectorised once.
        self._fact = lru_cache(maxsize=FACTS_CACHED)(self._fact_vector)

    def _question(self, text: str) -> Question:
        indices, data = self.text_vectors.sparse(text)
        return Question(indices, data, self.cue_matrix.dot(indices, data))

    def _fact_vector(self, text: str) -> tuple[np.ndarray, np.ndarray]:
        indices, data = self.text_vectors.sparse(text, evidence=False)
        data.flags.writeable = False  # cached: shared by every fact set holding the text
        return indices, data

    def _fact_matrix(self, texts: tuple[str, ...]) -> SparseRows:
        return SparseRows.of_rows([self._fact(t) for t in texts], self.text_vectors.size)


class Retriever:
    def __init__(self, vocabulary: Vocabulary, facts: Sequence[Fact]):
        settings = cue_settings()
        self._facts = tuple(facts)
        self._vocabulary = vocabulary
        self._min_score = settings["min_score"]
        self._cue_weight = settings["cue_weight"]
        self._max_facts = settings["max_facts"]
        if self._facts:
            self._texts = vocabulary.fact_matrix(tuple(f.text for f in self._facts))
            self._cue_rows = np.array([vocabulary.categories[f.category] for f in self._facts], dtype=np.intp)

    def match(self, question: str, said: frozenset[str] = frozenset()) -> list[Fact]:
        """The best-matching facts for ``question``, best first (ties in fact order); facts whose
        ``unit_id`` is in ``said`` come after the others, so a patient does not repeat itself while
        it has something new to say."""
        if not self._facts:
            return []
        q = self._vocabulary.question(question)
        text_scores = self._texts.dot(q.indices, q.data)
        scores = text_scores + self._cue_weight * q.cue_scores[self._cue_rows]
        order = np.argsort(-scores, kind="stable")
        order = [i for i in order.tolist() if scores[i] >= self._min_score]
        order.sort(key=lambda i: self._facts[i].unit_id in said)
        return [self._facts[i] for i in order[: self._max_facts]]
