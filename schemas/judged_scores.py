"""judged_scores: a stored run's traces graded again by another judge, or by the same judge once
more, without rerunning an episode (pipelines/evaluation/rejudge.py; MedEvoEval Appendix E.3).

The columns of ``episode_scores`` (schemas/episode_scores.py: every score and the components it is
computed from) and ``judging``, the label of the pass that graded them (``offline``,
``llm:<model>``; a same-judge repeat's passes end in ``#1`` and ``#2``). Kept apart from
``episode_scores`` so that the run's own scores, which the statistics and the report read, are never
mixed with a re-judging. Partition = run id; one row per judging and episode.
"""

import pandera.polars as pa
import polars as pl

from schemas.episode_scores import SCHEMA as SCORES

SCHEMA = pa.DataFrameSchema(
    {
        "judging": pa.Column(pl.Utf8, pa.Check.str_length(min_value=1)),
        **SCORES.update_column("episode_id", unique=False).columns,
    },
    name="judged_scores",
    strict=True,
    coerce=True,
    unique=["judging", "episode_id"],
)
