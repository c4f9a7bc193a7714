import polars as pl

from pipelines.content.leakage_guard import case_terms
from pipelines.units.publish import guard, note_precedence, read_candidates, told_once
from pipelines.warehouse import Warehouse

SKELETON = pl.DataFrame({
    "case_id": ["c_dis"], "source": ["mimic_iv"], "diagnosis_name": ["Disorientation, unspecified"],
    "acceptable_names": [[]], "primary_icd10": ["R41.0"], "acceptable_icd10": [["R41.0"]],
})


def test_a_coded_unit_that_is_an_index_name_of_the_diagnosis_is_dropped():
    units = pl.DataFrame({
        "case_id": ["c_dis"] * 3, "unit_id": ["u_1", "u_2", "u_3"],
        "text": ["I was treated for delirium due to known physiological condition before",
                 "I have high blood pressure", "Family thinks the delirium started yesterday"],
        "producer": ["mimic_structured", "mimic_structured", "mimic_notes"],
        "source_ref": ["dx:F05", "dx:I10", "n1:0-40"],
    })
    kept, removals = guard(units, case_terms(SKELETON), SKELETON.select("case_id", "primary_icd10"))
    assert kept["unit_id"].to_list() == ["u_2", "u_3"]  # free text is the scrubber's and the audit's business
    assert removals.select("source_ref", "term", "action").rows() == [("dx:F05", "delirium", "dropped_unit")]


def test_a_note_history_covers_coded_operations_too():
    units = pl.DataFrame({
        "case_id": ["c1", "c1", "c2"], "unit_id": ["u_n", "u_s", "u_t"],
        "category": ["pmh", "psh", "psh"], "producer": ["mimic_notes", "mimic_structured", "mimic_structured"],
    })
    kept = note_precedence(units, {"mimic_structured": "mimic_notes"})
    assert kept["unit_id"].to_list() == ["u_n", "u_t"]


def test_a_fact_is_told_once_whatever_its_case_or_punctuation():
    units = pl.DataFrame({
        "case_id": ["c1"] * 5 + ["c2"], "unit_id": [f"u_{i}" for i in range(6)],
        "category": ["pmh", "pmh", "pmh", "medication", "pmh", "pmh"],
        "negated": [False, False, True, False, False, False],
        "text": ["I have leukemia", "I have  Leukemia.", "I have leukemia", "I have leukemia", "I have anemia",
                 "I have leukemia"],
        "producer": ["mimic_structured", "mimic_notes", "mimic_structured", "mimic_structured", "mimic_structured",
                     "mimic_structured"],
        "ordinal": [3, 7, 4, 5, 6, 0],
    })
    # the note's wording goes first (producer order), a denial or another category is another fact
    assert sorted(told_once(units)["unit_id"]) == ["u_1", "u_2", "u_3", "u_4", "u_5"]


def _unit(case_id: str, unit_id: str) -> dict:
    return {"case_id": case_id, "unit_id": unit_id, "ordinal": 0, "category": "pmh", "text": "I have asthma",
            "negated": False, "disclosed": False, "source_ref": "dx:J45", "concept": None}


def test_a_unit_s_producer_is_its_partition_whatever_its_batch_and_shard_file(tmp_path):
    """The producer decides note precedence and the tie-break order: a shard's or a batch's file
    of a partition (mimic_notes-00000.s01.parquet) is still that partition's."""
    warehouse = Warehouse(tmp_path)
    case, unit = "c_{:016x}".format, "u_{:016x}".format
    warehouse.shard_view("s01").write("unit_candidates", pl.DataFrame([_unit(case(1), unit(1))]), "mimic_notes-00000")
    warehouse.shard_view("s02").write("unit_candidates", pl.DataFrame([_unit(case(2), unit(2))]), "mimic_structured")
    warehouse.write("unit_candidates", pl.DataFrame([_unit(case(3), unit(3))]), "medqa")
    found = read_candidates(warehouse, pl.DataFrame({"case_id": [case(1), case(2), case(3)]}))
    assert dict(found.select("unit_id", "producer").iter_rows()) == {
        unit(1): "mimic_notes", unit(2): "mimic_structured", unit(3): "medqa"}
