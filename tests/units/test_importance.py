import polars as pl

from pipelines.units.candidates import finish
from pipelines.units.importance import ImportanceRule, label


def _units(rows):
    df = pl.DataFrame(rows, schema=["case_id", "category", "text", "disclosed", "concept"], orient="row")
    return finish(df.with_columns(pl.lit(False).alias("negated"), pl.lit("test").alias("source_ref")))


def _case(i: int) -> str:
    return f"c_{i:016x}"


def test_associated_concepts_are_key_common_ones_background_and_every_case_gets_a_key():
    rows, cases = [], []
    for i in range(40):
        block = "I20-I25" if i < 20 else "J40-J4A"
        cases.append((_case(i), "test" if i % 10 == 9 else "train", f"p{i}", block))
        rows.append((_case(i), "demographic", "Age: 60 years", True, "demographic:age"))
        rows.append((_case(i), "social", "Marital status: married", False, "social:marital_status:married"))
        rows.append((_case(i), "measurement", "Last outpatient weight: 180 lbs", False, "measurement:weight"))
        if block == "I20-I25":
            rows.append((_case(i), "medication", "Nitroglycerin 0.4 mg SL", False, "drug:nitroglycerin"))
            rows.append((_case(i), "pmh", f"Appendectomy at age {i}", False, None))
        else:
            rows.append((_case(i), "pmh", f"Rare history {i}", False, None))
    cases_df = pl.DataFrame(cases, schema=["case_id", "split", "patient_key", "block"], orient="row")
    out = label(_units(rows), cases_df, ImportanceRule(min_support=3, key_lift=1.5, alpha=0.05))
    units = out.units
    importance = dict(units.select(pl.concat_str("case_id", "category", separator="|"), "importance").iter_rows())
    assert importance[f"{_case(0)}|medication"] == "key"  # nitroglycerin ~ ischaemic heart disease
    assert importance[f"{_case(9)}|medication"] == "key"  # test cases use what train learned
    assert importance[f"{_case(0)}|pmh"] == "supporting"  # too rare to judge
    assert importance[f"{_case(0)}|social"] == "background"
    assert importance[f"{_case(0)}|demographic"] == "background"
    assert importance[f"{_case(0)}|measurement"] == "background"  # everyone has it
    # J40 cases have no associated concept: their rare history is promoted and the note says so
    assert importance[f"{_case(25)}|pmh"] == "key"
    notes = out.notes
    assert set(notes.filter(pl.col("resolution") == "promoted")["case_id"]) == {_case(i) for i in range(20, 40)}
    assert set(units["importance"]) == {"key", "supporting", "background"}
    assert out.associations.filter(pl.col("key"))["concept_key"].to_list() == ["drug:nitroglycerin"]


def test_a_case_with_only_background_facts_has_a_note_instead_of_a_key():
    rows = [(_case(1), "social", "Preferred language: english", False, "social:language:english"),
            (_case(1), "demographic", "Age: 70 years", True, "demographic:age")]
    cases_df = pl.DataFrame([(_case(1), "train", "p1", "I30-I5A")], schema=["case_id", "split", "patient_key", "block"],
                            orient="row")
    out = label(_units(rows), cases_df)
    assert "key" not in out.units["importance"].to_list()
    assert out.notes.row(0, named=True)["resolution"] == "no_key"


def test_learning_counts_a_patient_once_per_block():
    rows = [(_case(i), "pmh", "Gout", False, "icd10:M10") for i in range(5)]
    cases_df = pl.DataFrame([(_case(i), "train", "same-patient", "N17-N19") for i in range(5)],
                            schema=["case_id", "split", "patient_key", "block"], orient="row")
    out = label(_units(rows), cases_df)
    assert out.associations.row(0, named=True)["n_cb"] == 1


def test_labels_are_deterministic():
    rows = [(_case(i), "pmh", f"History {i % 3}", False, None) for i in range(12)]
    cases_df = pl.DataFrame([(_case(i), "train", f"p{i}", "A00-A09" if i % 2 else "B00-B09") for i in range(12)],
                            schema=["case_id", "split", "patient_key", "block"], orient="row")
    first, second = label(_units(rows), cases_df), label(_units(rows), cases_df)
    assert first.units.equals(second.units) and first.notes.equals(second.notes)
