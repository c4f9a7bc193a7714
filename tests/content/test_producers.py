"""The producer registry (pipelines/content/producers.py): what it derives and what it refuses."""

import polars as pl
import pytest

from pipelines.config import Settings
from pipelines.content import producers
from pipelines.content.producers import PRODUCERS, Producer
from pipelines.units.publish import note_precedence


def _noop(p, warehouse, settings):  # pragma: no cover - never run
    raise AssertionError


def test_every_producer_is_one_asset_of_one_table_with_a_known_source():
    assert len({p.asset for p in PRODUCERS}) == len(PRODUCERS)
    assert {p.table for p in PRODUCERS} == set(producers.TABLES)
    assert [p.asset for p in producers.joint(producers.MEDQA)] == [
        "unit_candidates_medqa", "exam_candidates_medqa", "presentations_medqa"]


@pytest.mark.parametrize(("entry", "problem"), [
    (Producer("unit_candidates", "x", ("mimic_iv",), (), "d."), "needs either produce or joint"),
    (Producer("unit_candidates", "x", ("nowhere",), (), "d.", _noop), "unknown source"),
    (Producer("exam_results", "x", ("sicdb",), (), "d.", _noop), "table must be one of"),
    (Producer("unit_candidates", "medqa", ("medqa",), (), "d.", _noop), "listed twice"),
])
def test_a_registry_that_cannot_be_built_from_is_refused(entry, problem):
    with pytest.raises(ValueError, match=problem):
        producers._check((*PRODUCERS, entry))


def test_skip_reasons_name_the_missing_sources(tmp_path):
    notes = next(p for p in PRODUCERS if p.asset == "unit_candidates_mimic_notes")
    only_mimic = Settings(home=tmp_path, locations={"mimic_iv": (tmp_path,)})
    assert producers.unconfigured(notes, only_mimic) == "MIMIC-IV-Note not configured"
    assert producers.unconfigured(notes, Settings(home=tmp_path)) == "MIMIC-IV and MIMIC-IV-Note not configured"
    with pytest.raises(ValueError, match="medqa_content"):
        producers.run(producers.joint(producers.MEDQA)[0], None, only_mimic)


def test_note_precedence_follows_superseded_by():
    candidates = pl.DataFrame({
        "unit_id": ["u1", "u2", "u3", "u4"], "case_id": ["c1"] * 4,
        "producer": ["notes", "coded", "coded", "coded"], "category": ["pmh", "pmh", "medication", "vital"],
    })
    kept = note_precedence(candidates, {"coded": "notes"})
    assert kept["unit_id"].to_list() == ["u1", "u3", "u4"]  # u2 is told by the note already
    assert note_precedence(candidates, {}).height == 4
    assert producers.superseded() == {"mimic_structured": "mimic_notes"}
