"""A fitted ``HistGradientBoostingRegressor`` evaluated in numpy, for ClinLab's one-row predictions.

The laboratory physician asks for one case's value at a time; sklearn's ``predict`` then spends
milliseconds per call on input checks and an OpenMP launch per tree, for trees two levels deep.
:class:`Forest` holds the same trees as padded node arrays and walks all of them level by level
at once. It follows sklearn's own rule (``_predictor.pyx``: a missing value goes where the node's
``missing_go_to_left`` says, else ``value <= num_threshold`` goes left) and sums the trees in
sklearn's order from the same baseline, so its output is bit-identical to ``regressor.predict``
(tests/episodes/test_clinlab.py compares the two on every model). It reads the estimator's fitted
``_predictors`` and ``_baseline_prediction``; constraints.txt pins scikit-learn, and that test fails
loudly if a new release changes them.
"""

from __future__ import annotations

import numpy as np
from sklearn.ensemble import HistGradientBoostingRegressor


class Forest:
    def __init__(self, regressor: HistGradientBoostingRegressor):
        trees = [iteration[0] for iteration in regressor._predictors]  # one tree per round (one output)
        if any(t.nodes["is_categorical"].any() for t in trees):
            raise ValueError("categorical splits are not supported (ClinLab's features are numeric)")
        width = max(len(t.nodes) for t in trees)

        def padded(field: str, dtype: type) -> np.ndarray:
            out = np.zeros((len(trees), width), dtype=dtype)
            for i, tree in enumerate(trees):
                out[i, : len(tree.nodes)] = tree.nodes[field]
            return out

        self.feature = padded("feature_idx", np.intp)
        self.threshold = padded("num_threshold", np.float64)
        self.missing_left = padded("missing_go_to_left", bool)
        self.left = padded("left", np.intp)
        self.right = padded("right", np.intp)
        self.leaf = padded("is_leaf", bool)
        self.value = padded("value", np.float64)
        self.depth = int(max(t.nodes["depth"].max() for t in trees))
        self.baseline = regressor._baseline_prediction.ravel()[0]
        self.inverse = regressor._loss.link.inverse

    def predict(self, x: np.ndarray) -> np.ndarray:
        rows, trees = x.shape[0], np.arange(self.feature.shape[0])
        node = np.zeros((rows, len(trees)), dtype=np.intp)
        row = np.arange(rows)[:, None]
        for _ in range(self.depth):
            value = x[row, self.feature[trees, node]]
            goes_left = np.where(np.isnan(value), self.missing_left[trees, node], value <= self.threshold[trees, node])
            step = np.where(goes_left, self.left[trees, node], self.right[trees, node])
            node = np.where(self.leaf[trees, node], node, step)
        # From the baseline, one tree at a time, as sklearn adds them: a running sum along each row.
        terms = np.column_stack([np.zeros(rows) + self.baseline, self.value[trees, node]])
        return self.inverse(np.cumsum(terms, axis=1)[:, -1])
