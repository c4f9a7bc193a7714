"""episode_events: the trace, one row per turn and role (data-contract.md, "episode_events").

Turn 0 is the opening the doctor read (``controller`` / ``START``); turn t >= 1 is the doctor's
t-th action attempt and what answered it, in the order it happened: two questions give two
``patient`` rows, several tests or a panel one ``lab`` row per examination. ``unit_ids`` are the
information units a patient reply revealed; ``memory_card_ids`` the memory cards shown to the
doctor for the decision (empty without memory); ``returned`` whether a lab row returned a result;
``self_check`` whether the patient's self-check passed or blocked a reply (null without one);
``error`` why a doctor output was unusable (an error turn, ``ERROR``).
"""

import pandera.polars as pa
import polars as pl

from schemas._types import STR_LIST

ACTORS = ["doctor", "patient", "lab", "controller", "consultant", "judge"]
ACTIONS = ["ASK", "REQUEST_TEST", "CALL_MDT", "FINALIZE", "REPLY", "RESULT", "ERROR", "START", "WARN", "END"]
MATCH_TYPES = ["exact", "predicted", "not_allowed", "not_in_case", "budget_limited"]

SCHEMA = pa.DataFrameSchema(
    {
        "episode_id": pa.Column(pl.Utf8, pa.Check.str_matches(r"^e_[0-9a-f]{16}$")),
        "turn": pa.Column(pl.Int32, pa.Check.ge(0)),
        "actor": pa.Column(pl.Utf8, pa.Check.isin(ACTORS)),
        "action": pa.Column(pl.Utf8, pa.Check.isin(ACTIONS)),
        "content": pa.Column(pl.Utf8),
        "test_name": pa.Column(pl.Utf8, nullable=True),
        "match_type": pa.Column(pl.Utf8, pa.Check.isin(MATCH_TYPES), nullable=True),
        "unit_ids": pa.Column(STR_LIST),
        "memory_card_ids": pa.Column(STR_LIST),
        "returned": pa.Column(pl.Boolean, nullable=True),
        "self_check": pa.Column(pl.Utf8, pa.Check.isin(["passed", "blocked"]), nullable=True),
        "error": pa.Column(pl.Utf8, nullable=True),
    },
    name="episode_events",
    strict=True,
    coerce=True,
)
