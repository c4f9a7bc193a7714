"""TextVectors and SparseRows reproduce sklearn's TF-IDF and scipy's sparse product bitwise, so the
offline patient's and doctors' scores (and their ties) are those of the library computation."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import sparse
from sklearn.feature_extraction.text import TfidfVectorizer

from pipelines.episodes.retrieval import WORDS, SparseRows, TextVectors

CORPUS = [
    "Chest pain radiating to the left arm\nShortness of breath on exertion",
    "Fever and productive cough for three days\nCough worse at night",
    "Troponin I: 2.3 ng/mL (high)\nChest pain at rest",
    "No known drug allergies\nLives alone, smokes 20 cigarettes a day",
    "Abdominal pain after fatty meals\nNausea and vomiting",
]
QUERIES = ["chest pain", "cough\nfever at night", "pain pain pain\nleft arm", "nothing in the vocabulary", "",
           "Shortness of breath\non exertion and chest pain radiating"]


@pytest.mark.parametrize("ngrams", [(1, 1), (1, 2)])
def test_text_vectors_are_sklearns_transform_bitwise(ngrams):
    vectorizer = TfidfVectorizer(stop_words="english", sublinear_tf=True, token_pattern=WORDS, ngram_range=ngrams)
    vectorizer.fit(CORPUS)
    ours = TextVectors(vectorizer).matrix(QUERIES)
    assert np.array_equal(ours.toarray(), vectorizer.transform(QUERIES).toarray())
    vectors = TextVectors(vectorizer)  # a patient's facts: counted from their lines alone, and kept nowhere
    for query, expected in zip(QUERIES, vectorizer.transform(QUERIES)):
        indices, data = vectors.sparse(query, evidence=False)
        assert np.array_equal(indices, np.sort(expected.indices))
        assert np.array_equal(data, expected[0, indices].toarray()[0])
    assert vectors.sparse(QUERIES[0], evidence=False)[1] is not vectors.sparse(QUERIES[0], evidence=False)[1]
    assert not vectors._texts


@pytest.mark.parametrize("ngrams", [(1, 1), (1, 2)])
def test_a_text_that_extends_an_earlier_one_is_counted_as_sklearn_counts_it(ngrams):
    """Evidence grows line by line: the counts of the earlier text are reused, and the bigrams that
    join it to the new lines (across an empty or wordless line too) are those of the whole text."""
    vectorizer = TfidfVectorizer(stop_words="english", sublinear_tf=True, token_pattern=WORDS, ngram_range=ngrams)
    vectorizer.fit(CORPUS)
    vectors = TextVectors(vectorizer)
    grown, texts = "Chest", []
    for more in ["pain radiating", "", "to the left arm", "42 / 7", "arm\nShortness of breath", "of breath on exertion",
                 "nothing known", "pain"]:
        grown = f"{grown}\n{more}"
        texts.append(grown)
    ours = vectors.matrix(texts)  # each text after the one it extends
    assert np.array_equal(ours.toarray(), vectorizer.transform(texts).toarray())
    again = TextVectors(vectorizer).matrix(texts[::-1])  # no earlier text to extend
    assert np.array_equal(again.toarray(), vectorizer.transform(texts[::-1]).toarray())


def test_a_text_grown_by_a_long_report_extends_the_latest_texts_counted():
    """A panel adds a line per result: the text it grows from is found however many lines it adds,
    with an unrelated text counted in between (the patient's question), and the counts stay sklearn's."""
    vectorizer = TfidfVectorizer(stop_words="english", sublinear_tf=True, token_pattern=WORDS, ngram_range=(1, 2))
    vectorizer.fit(CORPUS)
    vectors = TextVectors(vectorizer)
    heard = "Chest pain radiating\nShortness of breath"
    report = "\n".join(f"Troponin {i}: high chest pain" for i in range(12))
    texts = [heard, "any cough at night", f"{heard}\n{report}"]
    ours = vectors.matrix(texts)
    assert np.array_equal(ours.toarray(), vectorizer.transform(texts).toarray())
    base, end = vectors._extended(f"{heard}\n{report}\nfever")
    assert end == len(heard) + 1 + len(report)  # the longest text counted that it extends
    assert base is not None
    assert vectors._extended(f"{heard}ing\nfever") == (None, -1)  # a text that ends within a line is no base


def test_text_vectors_refuse_a_vectorizer_they_do_not_reproduce():
    with pytest.raises(ValueError, match="reproduces"):
        TextVectors(TfidfVectorizer(sublinear_tf=False).fit(CORPUS))


@pytest.mark.parametrize("shape", [(40, 300), (400, 3000)])  # multiplied as stored / read by column
def test_sparse_rows_are_the_dense_product_bitwise(shape):
    rng = np.random.default_rng(3)
    matrix = sparse.random(*shape, density=0.05, format="csr", random_state=4)
    matrix.data = rng.random(matrix.nnz)
    rows = SparseRows(matrix)
    for size in (0, 1, 7, 60):
        indices = np.sort(rng.choice(shape[1], size=size, replace=False))
        data = rng.random(size)
        dense = np.zeros(shape[1])
        dense[indices] = data
        assert np.array_equal(rows.dot(indices, data), matrix.sorted_indices() @ dense)


def test_sparse_rows_score_tfidf_queries_as_the_library_does():
    vectorizer = TfidfVectorizer(stop_words="english", sublinear_tf=True, token_pattern=WORDS, ngram_range=(1, 2))
    matrix = vectorizer.fit_transform(CORPUS)
    vectors, rows = TextVectors(vectorizer), SparseRows(matrix)
    for query in QUERIES:
        expected = matrix.sorted_indices() @ vectorizer.transform([query]).toarray().ravel()
        assert np.array_equal(rows.dot(*vectors.sparse(query)), expected)


@pytest.mark.parametrize("shape", [(40, 300), (400, 3000)])  # stored as given / read by column
def test_sparse_rows_of_rows_multiply_as_the_matrix_of_those_rows(shape):
    rng = np.random.default_rng(5)
    matrix = sparse.random(*shape, density=0.05, format="csr", random_state=6).sorted_indices()
    rows = [(matrix.indices[a:b], matrix.data[a:b]) for a, b in zip(matrix.indptr[:-1], matrix.indptr[1:])]
    ours, theirs = SparseRows.of_rows(rows, shape[1]), SparseRows(matrix)
    assert ours.shape == shape
    for size in (0, 1, 7, 60):
        indices = np.sort(rng.choice(shape[1], size=size, replace=False))
        data = rng.random(size)
        assert np.array_equal(ours.dot(indices, data), theirs.dot(indices, data))


def test_sparse_rows_of_no_rows_multiply_to_nothing():
    assert SparseRows.of_rows([], 10).dot(np.array([2], dtype=np.intp), np.array([1.0])).shape == (0,)
