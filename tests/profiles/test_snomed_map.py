import polars as pl
import simple_icd_10_cm as cm

from pipelines.profiles.snomed import SHOWN_KINDS, map_conditions, snomed_map


def test_every_icd10_code_exists_in_icd10cm():
    table = snomed_map()
    assert table["snomed_code"].is_unique().all()
    invalid = [c for c in table["icd10cm"].drop_nulls() if not cm.is_valid_item(c)]
    assert invalid == []


def test_kinds_and_hidden_rows():
    table = snomed_map()
    assert set(table["kind"]) <= {*SHOWN_KINDS, "death", "situation"}
    assert table.filter(pl.col("kind").is_in(["death", "situation"]))["icd10cm"].null_count() == \
        table.filter(pl.col("kind").is_in(["death", "situation"])).height


def test_unknown_codes_are_unmapped_and_names_lose_the_semantic_tag():
    conditions = pl.DataFrame({"snomed_code": ["59621000", "999999"],
                               "display": ["Essential hypertension (disorder)", "Something new (finding)"]})
    mapped = map_conditions(conditions)
    assert mapped["name"].to_list() == ["Essential hypertension", "Something new"]
    assert mapped["icd10cm"].to_list() == ["I10", None] and mapped["kind"].to_list() == ["condition", "unmapped"]
