import polars as pl
import pytest
from scipy.stats import hypergeom

from pipelines.units.candidates import finish
from pipelines.units.importance import ImportanceRule, basis_counts, key_problems, label
from pipelines.units.knowledge import ASSOCIATIONS


def _units(rows):
    rows = [r if len(r) == 6 else (*r, False) for r in rows]
    df = pl.DataFrame(rows, schema=["case_id", "category", "text", "disclosed", "concept", "negated"], orient="row")
    return finish(df.with_columns(pl.lit("test").alias("source_ref")))


def _case(i: int) -> str:
    return f"c_{i:016x}"


def _cases(rows):
    return pl.DataFrame(rows, schema=["case_id", "split", "patient_key", "block", "primary_icd10"], orient="row")


def _importance(out) -> dict[str, tuple[str, str]]:
    return {t: (i, b) for t, i, b in out.units.select("text", "importance", "importance_basis").iter_rows()}


def test_associated_concepts_are_key_common_ones_background_and_nothing_is_promoted():
    rows, cases = [], []
    for i in range(40):
        block, code = ("I20-I25", "I25.10") if i < 20 else ("S80-S89", "S82.101A")
        cases.append((_case(i), "test" if i % 10 == 9 else "train", f"p{i}", block, code))
        rows.append((_case(i), "demographic", "Age: 60 years", True, "demographic:age"))
        rows.append((_case(i), "social", "Marital status: married", False, "social:marital_status:married"))
        rows.append((_case(i), "measurement", "Last outpatient weight: 180 lbs", False, "measurement:weight"))
        if block == "I20-I25":
            rows.append((_case(i), "medication", "I take ranitidine", False, "drug:ranitidine"))
            rows.append((_case(i), "pmh", f"Appendectomy at age {i}", False, None))
        else:
            rows.append((_case(i), "pmh", f"Rare history {i}", False, None))
    out = label(_units(rows), _cases(cases), ImportanceRule(min_support=3, key_lift=1.5, alpha=0.05))
    importance = {(c, cat): (i, b) for c, cat, i, b in
                  out.units.select("case_id", "category", "importance", "importance_basis").iter_rows()}
    assert importance[(_case(0), "medication")] == ("key", "statistics")  # ranitidine ~ this cohort's IHD
    assert importance[(_case(9), "medication")] == ("key", "statistics")  # test cases use what train learned
    assert importance[(_case(0), "pmh")] == ("supporting", "none")  # too rare to judge, no known association
    assert importance[(_case(0), "social")] == ("background", "category")
    assert importance[(_case(0), "demographic")] == ("background", "category")
    assert importance[(_case(0), "measurement")] == ("background", "statistics")  # everyone has it
    # the fracture cases have no associated unit: none is promoted, and their notes say so
    assert importance[(_case(25), "pmh")] == ("supporting", "none")
    notes = out.notes.filter(pl.col("resolution") != "statistics")
    assert set(notes["case_id"]) == {_case(i) for i in range(20, 40)}
    assert set(notes["resolution"]) == {"no_key"}
    assert notes["reason"].str.contains("knowledge-based fallback").all()
    first = out.notes.row(0, named=True)
    assert first["resolution"] == "statistics" and len(first["statistics_keys"]) == 1 and first["knowledge_keys"] == []
    assert out.associations.filter(pl.col("key"))["concept_key"].to_list() == ["drug:ranitidine"]
    # only tested pairs (n_cb >= min_support) get p, the upper tail of the hypergeometric distribution
    stats = out.associations
    assert stats.filter(pl.col("n_cb") < 3)["p"].null_count() == stats.filter(pl.col("n_cb") < 3).height > 0
    tested = stats.filter(pl.col("n_cb") >= 3)
    n = 36  # train observations: (patient, block) pairs
    expected = [hypergeom.sf(both - 1, n, concept, block) for both, concept, block in tested.select(
        "n_cb", "n_c", "n_b").rows()]
    assert tested["p"].to_list() == pytest.approx(expected)
    assert tested["p_adjusted"].null_count() == 0


def test_a_block_the_train_split_has_barely_seen_cannot_make_a_common_unit_background():
    rows, cases = [], []
    for i in range(12):  # belly pain is common on train, where nobody has appendicitis
        block, code = ("K80-K87", "K80.20") if i < 10 else ("K35-K38", "K35.80")
        split = "test" if i == 11 else "train"  # one appendicitis case on train: too few to judge K35-K38
        cases.append((_case(i), split, f"p{i}", block, code))
        rows.append((_case(i), "chief_complaint", "Belly pain", True, None))
        rows.append((_case(i), "measurement", "Last outpatient weight: 180 lbs", False, "measurement:weight"))
    out = label(_units(rows), _cases(cases), ImportanceRule(min_support=3))
    importance = {(c, cat): f"{i}|{b}" for c, cat, i, b in
                  out.units.select("case_id", "category", "importance", "importance_basis").iter_rows()}
    assert importance[(_case(11), "chief_complaint")] == "key|knowledge"  # abdominal pain ~ digestive disease
    assert importance[(_case(11), "measurement")] == "supporting|none"  # one appendicitis: nothing measured
    assert importance[(_case(0), "measurement")] == "background|statistics"  # ten gallstone patients: lift 1.0
    # Belly pain has lift 1.0 too (every train case has it), but a known association is not overruled by it.
    assert importance[(_case(0), "chief_complaint")] == "key|knowledge"


def test_a_known_association_is_key_although_the_block_s_few_cases_lack_it():
    rows, cases = [], []
    for i in range(8):  # atrial fibrillation is common on train, but the three stroke patients lack it
        block, code = ("I60-I69", "I63.40") if i < 4 else ("I30-I5A", "I50.33")
        cases.append((_case(i), "test" if i == 3 else "train", f"p{i}", block, code))
        rows.append((_case(i), "demographic", "Age: 70 years", True, "demographic:age"))
        if i >= 3:
            rows.append((_case(i), "pmh", "I have atrial fibrillation", False, "icd10:I48.91"))
    out = label(_units(rows), _cases(cases), ImportanceRule(min_support=3))
    stroke = out.units.filter((pl.col("case_id") == _case(3)) & (pl.col("category") == "pmh")).row(0, named=True)
    assert (stroke["importance"], stroke["importance_basis"]) == ("key", "knowledge")  # AF ~ embolic stroke


def _one_case(code: str, units: list[tuple]) -> tuple[pl.DataFrame, pl.DataFrame]:
    rows = [(_case(1), cat, text, False, concept, *rest) for cat, text, concept, *rest in units]
    return _units(rows), _cases([(_case(1), "train", "p1", "X", code)])


def test_the_knowledge_fallback_keys_salient_units_only():
    units, cases = _one_case("I61.9", [
        ("medication", "I take warfarin 5 mg", "drug:warfarin"),
        ("medication", "I take multivitamins 1 tab", "drug:multivitamins"),
        ("pmh", "I have high blood pressure", "icd10:I10"),
        ("pmh", "I have acid reflux", "icd10:K21"),
        ("social", "I used to smoke", "icd10:Z87.891"),
        ("social", "Marital status: married", "social:marital_status:married"),
    ])
    out = label(units, cases)
    assert _importance(out) == {
        "I take warfarin 5 mg": ("key", "knowledge"),  # anticoagulant ~ intracerebral hemorrhage
        "I take multivitamins 1 tab": ("supporting", "none"),
        "I have high blood pressure": ("key", "knowledge"),
        "I have acid reflux": ("supporting", "none"),
        "I used to smoke": ("background", "category"),  # smoking is salient for lung disease, not for this
        "Marital status: married": ("background", "category"),
    }
    note = out.notes.row(0, named=True)
    assert note["resolution"] == "knowledge" and "2 key" in note["reason"] and "hypertension" in note["reason"]


def test_smoking_is_key_for_copd_and_symptoms_must_be_affirmed():
    units, cases = _one_case("J44.1", [
        ("social", "I smoke", "icd10:F17"),
        ("hpi", "worse shortness of breath for three days", None),
        ("ros", "no cough", None, True),
    ])
    out = label(units, cases)
    assert _importance(out) == {"I smoke": ("key", "knowledge"),
                                "worse shortness of breath for three days": ("key", "knowledge"),
                                "no cough": ("supporting", "none")}


def test_only_drugs_people_inject_are_key_for_skin_abscesses_and_cellulitis():
    units, cases = _one_case("L03.211", [
        ("social", "I use cannabis", "icd10:F12"),
        ("social", "I use heroin", "icd10:F11.20"),
    ])
    assert _importance(label(units, cases)) == {"I use cannabis": ("background", "category"),
                                                "I use heroin": ("key", "knowledge")}


@pytest.mark.parametrize("association", [a for a in ASSOCIATIONS if a.kind == "drug"], ids=lambda a: a.why[:30])
def test_no_medication_is_key_by_the_fallback_for_an_unrelated_diagnosis(association):
    drugs = association.pattern.removeprefix("^drug:(?:").removesuffix(")").split("|")
    rows = [("medication", f"I take {d.replace(chr(92), '')}", f"drug:{d.replace(chr(92), '')}") for d in drugs]
    for code in ("H25.9", "L60.0", "S52.501A"):  # cataract, ingrown nail, fractured radius
        units, cases = _one_case(code, rows)
        assert set(label(units, cases).units["importance"]) == {"supporting"}, code
    units, cases = _one_case(association.diagnoses[0][0], rows)
    assert set(label(units, cases).units["importance"]) == {"key"}


def test_a_case_with_only_background_facts_has_a_note_instead_of_a_key():
    rows = [(_case(1), "social", "Preferred language: english", False, "social:language:english"),
            (_case(1), "demographic", "Age: 70 years", True, "demographic:age")]
    out = label(_units(rows), _cases([(_case(1), "train", "p1", "I30-I5A", "I50.9")]))
    assert "key" not in out.units["importance"].to_list()
    note = out.notes.row(0, named=True)
    assert note["resolution"] == "no_key" and "only background" in note["reason"]


def test_a_fully_disclosed_case_keeps_the_basis_of_its_key():
    rows = [(_case(1), "medication", "I take warfarin 5 mg", True, "drug:warfarin")]  # a MedQA vignette tells all
    out = label(_units(rows), _cases([(_case(1), "train", "p1", "X", "I61.9")]))
    assert _importance(out) == {"I take warfarin 5 mg": ("key", "knowledge")}
    note = out.notes.row(0, named=True)
    assert note["knowledge_keys"] == out.units["unit_id"].to_list() and "nothing is hidden" in note["reason"]
    published = out.units.drop("importance_basis")
    assert key_problems(published, out.notes) == {"cases_without_key_or_note": 0, "keys_without_basis": 0,
                                                  "no_key_notes_with_a_key": 0}


def test_the_check_counts_find_unexplained_cases_and_baseless_keys():
    units, cases = _one_case("I61.9", [("medication", "I take warfarin 5 mg", "drug:warfarin"),
                                       ("medication", "I take multivitamins 1 tab", "drug:multivitamins")])
    out = label(units, cases)
    published = out.units.drop("importance_basis")  # the basis reaches the warehouse through the notes
    assert key_problems(published, out.notes) == {"cases_without_key_or_note": 0, "keys_without_basis": 0,
                                                  "no_key_notes_with_a_key": 0}
    promoted = published.with_columns(pl.when(pl.col("text").str.contains("multivitamins")).then(pl.lit("key"))
                                      .otherwise(pl.col("importance")).alias("importance"))
    assert key_problems(promoted, out.notes)["keys_without_basis"] == 1
    demoted = published.with_columns(pl.lit("supporting").alias("importance"))
    assert key_problems(demoted, out.notes)["cases_without_key_or_note"] == 1
    noted = out.notes.with_columns(pl.lit("no_key").alias("resolution"))
    assert key_problems(published, noted)["no_key_notes_with_a_key"] == 1
    assert basis_counts(out.notes) == {"keys_from_statistics": 0, "keys_from_knowledge": 1,
                                       "cases_keyed_by_statistics": 0, "cases_keyed_by_knowledge": 1,
                                       "cases_without_key": 0}


def test_learning_counts_a_patient_once_per_block():
    rows = [(_case(i), "pmh", "Gout", False, "icd10:M10") for i in range(5)]
    out = label(_units(rows), _cases([(_case(i), "train", "same-patient", "N17-N19", "N17.9") for i in range(5)]))
    assert out.associations.row(0, named=True)["n_cb"] == 1


def test_labels_are_deterministic():
    rows = [(_case(i), "pmh", f"History {i % 3}", False, None) for i in range(12)]
    cases = _cases([(_case(i), "train", f"p{i}", "A00-A09" if i % 2 else "B00-B09", "A09" if i % 2 else "B01.9")
                    for i in range(12)])
    first, second = label(_units(rows), cases), label(_units(rows), cases)
    assert first.units.equals(second.units) and first.notes.equals(second.notes)


def test_a_triage_complaint_of_weakness_on_one_side_is_key_for_a_stroke():
    units, cases = _one_case("I63.40", [
        ("chief_complaint", "Weakness on the left side", None),
        ("chief_complaint", "Being unable to walk", None),
    ])
    assert _importance(label(units, cases)) == {"Weakness on the left side": ("key", "knowledge"),
                                                "Being unable to walk": ("supporting", "none")}
