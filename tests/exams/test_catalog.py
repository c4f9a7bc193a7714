import polars as pl

from pipelines.exams.catalog import alias_table, canonical_names, catalog, is_exam, name_key


def test_name_key_ignores_case_accents_and_punctuation():
    assert name_key("Hämoglobin") == name_key("hamoglobin")
    assert name_key("INR(PT)") == "inr pt"
    assert name_key("Gesamteiweiß") == "gesamteiweiss"


def test_aliases_from_every_source_map_to_one_canonical_name():
    proposals = pl.DataFrame({
        "exam_name": ["Hgb", "Hämoglobin", "Hemoglobin", "Haemoglobin", "Glucose (Urine)", "Kreatinin", "Frobnicase"],
        "kind": ["lab"] * 7,
    })
    names = dict(canonical_names(proposals).select("exam_name", "canonical").iter_rows())
    assert {names[n] for n in ("Hgb", "Hämoglobin", "Hemoglobin", "Haemoglobin")} == {"Hemoglobin"}
    assert names["Kreatinin"] == "Creatinine"
    assert names["Glucose (Urine)"] == "Urine glucose"  # a urine glucose is not a blood glucose
    assert names["Frobnicase"] == "Frobnicase"  # unknown names stay as proposed


def test_vital_aliases_take_the_vital_kind():
    names = canonical_names(pl.DataFrame({"exam_name": ["Heart Rate", "Weight (Lbs)"], "kind": ["lab", "lab"]}))
    assert set(names["canonical"]) == {"Heart rate", "Body weight"}
    assert set(names["canonical_kind"]) == {"vital"}


def test_tube_holds_ventilator_settings_and_the_stays_antibiotic_levels_are_not_exams():
    assert not is_exam("Red Top Hold")
    assert not is_exam("Specimen Type")
    assert not is_exam("PEEP")
    assert is_exam("Lactate")
    assert not is_exam("Vancomycin") and not is_exam(" Gentamicin ")  # the stay's antibiotics, not results
    assert is_exam("Digoxin")  # a home medication's level: a result


def test_alias_table_has_no_ambiguous_alias():
    table = alias_table()
    assert table["alias_key"].is_unique().all()


def test_catalog_lists_curated_and_seen_aliases():
    counts = pl.DataFrame({"exam_name": ["Hemoglobin"], "kind": ["lab"], "raw_names": [["Hemoglobin", "Hb (POC)"]],
                           "loinc": [None], "n_cases": [3]})
    row = catalog(counts).row(0, named=True)
    assert {"Hgb", "Hb", "Haemoglobin", "Hämoglobin", "Hb (POC)"} <= set(row["aliases"])
    assert "Hemoglobin" not in row["aliases"]
    assert row["loinc"] == "718-7" and row["n_cases"] == 3


def test_catalog_rows_name_the_panel_they_are_ordered_with():
    counts = pl.DataFrame({"exam_name": ["Hemoglobin", "Pleural fluid: Total Protein", "Frobnicase"],
                           "kind": ["lab"] * 3, "raw_names": [[], ["Total Protein, Pleural"], []],
                           "loinc": [None] * 3, "n_cases": [1, 1, 1]})
    panels = dict(catalog(counts).select("exam_name", "panel").iter_rows())
    assert panels == {"Hemoglobin": "CBC", "Pleural fluid: Total Protein": "Pleural fluid analysis", "Frobnicase": None}
