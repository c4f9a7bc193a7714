"""clinlab_eval: ClinLab's fidelity on held-out test-split lab values (data-contract.md; ClinVerse
Table 6 and section I, plus DiagGym's Wasserstein distance). One row per predictor and lab, and one
``ALL`` row per predictor pooling its items; the formulas are in pipelines/episodes/clinlab/evaluation.py.
A metric with nothing to average over (no range, no abnormal value) is null."""

import pandera.polars as pa
import polars as pl

PREDICTORS = ["clinlab", "population_median"]
ERROR = pa.Column(pl.Float64, pa.Check.ge(0), nullable=True)

SCHEMA = pa.DataFrameSchema(
    {
        "predictor": pa.Column(pl.Utf8, pa.Check.isin(PREDICTORS)),
        "exam_name": pa.Column(pl.Utf8, pa.Check.str_length(min_value=1)),  # or ALL
        "n": pa.Column(pl.Int32, pa.Check.ge(1)),
        "mape": ERROR,
        "median_mape": ERROR,
        "mae": ERROR,
        "norm_ref_err": ERROR,
        "anomaly_recall": pa.Column(pl.Float64, pa.Check.in_range(0.0, 1.0), nullable=True),
        "wasserstein": ERROR,
    },
    name="clinlab_eval",
    strict=True,
    coerce=True,
    unique=["predictor", "exam_name"],
)
