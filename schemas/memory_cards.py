"""memory_cards: the experience bank of a run (data-contract.md, "memory_cards"; MedEvoEval
section 3 and Appendix B.4), written by the manager after each episode is scored.

Partitioned by run (one file per batch, like ``episodes``). ``memory_type``: ``success``
(``IF ... THEN ...``), ``correction`` (``IF ... AVOID ...``) or ``rule`` (``ACTION=...``);
``rule_text`` is what the doctor is shown, at most 80 whitespace-separated units; ``search_text``
what retrieval matches the doctor's context against. ``episode_id`` and ``visit_index`` (the
episode's position in its run's case order) name the episode that wrote the card.

Added to the contract: ``ordinal``, the card's position in the run's bank (retrieval breaks ties
by it), and ``source_card_id``, the card a pre-populated bank copied (null for a card the run
wrote itself; a copy keeps the writer's ``episode_id`` and ``visit_index``).
"""

import pandera.polars as pa
import polars as pl

MEMORY_TYPES = ["success", "correction", "rule"]
CARD_ID = pa.Check.str_matches(r"^m_[0-9a-f]{16}$")

SCHEMA = pa.DataFrameSchema(
    {
        "card_id": pa.Column(pl.Utf8, CARD_ID, unique=True),
        "run_id": pa.Column(pl.Utf8, pa.Check.str_length(min_value=1)),
        "episode_id": pa.Column(pl.Utf8, pa.Check.str_matches(r"^e_[0-9a-f]{16}$")),
        "visit_index": pa.Column(pl.Int32, pa.Check.ge(0)),
        "memory_type": pa.Column(pl.Utf8, pa.Check.isin(MEMORY_TYPES)),
        "rule_text": pa.Column(pl.Utf8, pa.Check.str_length(min_value=1)),
        "search_text": pa.Column(pl.Utf8),
        "ordinal": pa.Column(pl.Int32, pa.Check.ge(0)),
        "source_card_id": pa.Column(pl.Utf8, CARD_ID, nullable=True),
    },
    name="memory_cards",
    strict=True,
    coerce=True,
    unique=["run_id", "ordinal"],
)
