"""Tests for pipelines.icd (ICD-9/10-CM/10-GM -> ICD-10-CM normalisation)."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from pipelines import icd
from pipelines.icd import (
    ORIGINS,
    OUTPUT_COLUMNS,
    Icd10Info,
    chapter_title,
    descendants_or_self,
    dotted,
    icd9_to_icd10,
    icd10cm_from_title,
    icd10cm_info,
    icd10gm_to_cm,
    is_valid_category,
    normalise_codes,
    same_or_descendant,
)

SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
DIAGNOSES = SHARED_DATA / "mimic-iv-demo-2.2" / "hosp" / "diagnoses_icd.csv.gz"


# ------------------------------------------------------------------ dotted / ICD-10-CM hierarchy


@pytest.mark.parametrize(
    ("raw", "expected"),
    [("I214", "I21.4"), ("I21.4", "I21.4"), ("I50", "I50"), (" i509 ", "I50.9"), ("T814XXA", "T81.4XXA")],
)
def test_dotted(raw: str, expected: str) -> None:
    assert dotted(raw) == expected
    assert dotted(dotted(raw)) == expected  # idempotent


def test_i50_9_hierarchy() -> None:
    info = icd10cm_info("I50.9")
    assert info == icd10cm_info("I509")
    assert (info.code, info.category, info.block, info.chapter) == ("I50.9", "I50", "I30-I5A", "09")
    assert info.title == "Heart failure, unspecified"
    assert info.origin == "icd10" and info.reason is None
    assert chapter_title(info.chapter) == "Diseases of the circulatory system (I00-I99)"


def test_i21_4() -> None:
    info = icd10cm_info("I214")
    assert (info.code, info.category, info.block, info.chapter) == ("I21.4", "I21", "I20-I25", "09")
    assert "NSTEMI" in (info.title or "")


def test_code_missing_from_release_walks_up_to_ancestor() -> None:
    # MIMIC's T81.4XXA was split (T81.40XA, ...) in FY2024, so it is absent from the 2026 release.
    info = icd10cm_info("T814XXA")
    assert info.code == "T81.4" and info.category == "T81" and info.block == "T80-T88"
    assert info.origin == "icd10_ancestor"  # the fallback is recorded in the origin, never silent
    assert info.reason is not None and "T81.4XXA" in info.reason and "ancestor" in info.reason


def test_a_code_no_release_had_is_unmapped_not_shortened() -> None:
    # Z99.9999: nothing of that shape exists under Z99, so it is not a retired code but a wrong one.
    for code in ("Z999999", "I2149"):
        info = icd10cm_info(code)
        assert info.code is None and info.origin == "unmapped"
        assert "is not an ICD-10-CM code" in info.reason


def test_single_category_block_is_written_as_a_range() -> None:
    info = icd10cm_info("B99.9")
    assert (info.category, info.block, info.chapter) == ("B99", "B99-B99", "01")


@pytest.mark.parametrize("bad", ["", "4280", "I30-I5A", "X"])
def test_icd10cm_info_rejects_malformed(bad: str) -> None:
    info = icd10cm_info(bad)
    assert info.origin == "unmapped" and info.code is None and info.reason


def test_icd10cm_info_rejects_unknown_origin() -> None:
    with pytest.raises(ValueError):
        icd10cm_info("I50.9", origin="bogus")


def test_chapter_title_and_categories() -> None:
    assert chapter_title("9") == chapter_title("09")
    assert chapter_title("22").startswith("Codes for special purposes")
    with pytest.raises(KeyError):
        chapter_title("99")
    assert is_valid_category("I50")
    assert not is_valid_category("I50.9")
    assert not is_valid_category("I30-I5A")
    assert not is_valid_category("ZZZ")


def test_same_or_descendant() -> None:
    assert same_or_descendant("I50.23", "I50")
    assert same_or_descendant("I50.23", "I50.23")
    assert same_or_descendant("I5023", "I30-I5A")
    assert same_or_descendant("I50.23", "09")
    assert same_or_descendant("T814XXA", "T81")  # via its nearest existing ancestor
    assert not same_or_descendant("I50.23", "I21")
    assert not same_or_descendant("I50.23", "I20-I25")
    assert not same_or_descendant("I50", "I50.2")
    assert {"I50", "I50.9", "I50.23"} <= descendants_or_self("I50")
    assert "I21.4" not in descendants_or_self("I50")
    assert descendants_or_self("NOPE") == frozenset()


def test_text_match() -> None:
    info = icd10cm_from_title("heart failure,  UNSPECIFIED")
    assert info.code == "I50.9" and info.origin == "text_match"
    assert icd10cm_from_title("no such diagnosis").origin == "unmapped"


# ------------------------------------------------------------------ ICD-9 via GEM


def test_icd9_4280_heart_failure() -> None:
    info = icd9_to_icd10("4280")
    assert (info.code, info.category, info.block) == ("I50.9", "I50", "I30-I5A")
    # The CMS GEM flags 4280 -> I509 as approximate (flags 10000), like most GEM rows.
    assert info.origin == "icd9_gem_approximate"
    assert info.reason is not None and "4280" in info.reason


def test_icd9_41071_nstemi() -> None:
    info = icd9_to_icd10("41071")
    assert info.code == "I21.4" and info.origin == "icd9_gem_approximate"
    assert icd9_to_icd10("410.71") == info  # a dot is tolerated


def test_icd9_exact_v_code() -> None:
    info = icd9_to_icd10("V5861")  # long-term anticoagulants
    assert info.code == "Z79.01" and info.origin == "icd9_gem_exact"
    assert info.chapter == "21"


def test_icd9_e_code() -> None:
    info = icd9_to_icd10("E8889")  # fall, unspecified
    assert info.code == "W19.XXXA" and info.category == "W19" and info.block == "W00-W19"
    assert info.origin == "icd9_gem_approximate"


def test_icd9_one_to_many_chooses_the_target_its_title_says() -> None:
    info = icd9_to_icd10("99859")  # "Other postoperative infection"; GEM: K68.11 or T81.4XXA
    assert info.origin == "icd9_gem_one_to_many"
    # the smallest target, K68.11 postprocedural retroperitoneal abscess, says no "infection"
    assert info.code == "T81.4" and info.title == "Infection following a procedure"
    assert info.acceptable == ("T81.4", "K68.11")  # every target counts, resolved in the release
    assert info.reason is not None and "K68.11" in info.reason and "T81.4XXA" in info.reason


def test_icd9_one_to_many_keeps_every_target_primary_first() -> None:
    info = icd9_to_icd10("4241")  # "Aortic valve disorders": five I35 targets
    assert info.acceptable[0] == info.code == "I35.0"
    assert sorted(info.acceptable) == ["I35.0", "I35.1", "I35.2", "I35.8", "I35.9"]
    single = icd9_to_icd10("4280")
    assert single.acceptable == ("I50.9",) and icd10cm_info("I21.4").acceptable == ("I21.4",)
    assert icd10gm_to_cm("I21.0").acceptable == ("I21.0",) and icd9_to_icd10("E9342").acceptable == ()


def test_a_diabetes_of_unstated_type_is_type_2_when_the_titles_tie() -> None:
    info = icd9_to_icd10("3572")  # "Polyneuropathy in diabetes": E08.42, E09.42, E10.42, E11.42, E13.42
    assert info.code == "E11.42" and info.origin == "icd9_gem_one_to_many"
    assert sorted(info.acceptable) == ["E08.42", "E09.42", "E10.42", "E11.42", "E13.42"]
    assert icd9_to_icd10("24900").code == "E08.9"  # "Secondary diabetes mellitus": no type 2 target


def test_icd9_one_to_many_prefers_shared_category() -> None:
    info = icd9_to_icd10("6820")  # GEM: K12.2, L03.211, L03.212 -> category L03 is shared by 2
    assert info.code == "L03.211" and info.origin == "icd9_gem_one_to_many"


def test_title_words_break_a_tie_the_old_rule_broke_by_the_smallest_code() -> None:
    # "Infective otitis externa, unspecified": H60.00 (abscess) was the smallest of five targets
    assert icd9_to_icd10("38010").code == "H60.399"  # Other infective otitis externa, unspecified ear
    assert icd9_to_icd10("2511").code == "E16.1"  # "Other specified hypoglycemia": not drug-induced E16.0


def test_icd9_combination_takes_first_choice_list() -> None:
    info = icd9_to_icd10("25082")  # GEM combination: E11.69 (choice list 1) + E11.65 (list 2)
    assert info.code == "E11.69" and info.origin == "icd9_gem_one_to_many"
    assert info.reason is not None and "combination" in info.reason and "E11.65" in info.reason
    assert info.acceptable == ("E11.69", "E11.65")
    # a second choice list names a part of the condition, never the primary: injury to the spleen with
    # an open wound into the cavity is a spleen injury, although the wound code says more words
    assert icd9_to_icd10("86510").category == "S36"


def test_diabetic_ketoacidosis_is_a_ketoacidosis_code() -> None:
    # The bundled GEM predates E11.1x (FY2017) and sends DKA to E11.69 "other specified complication".
    for code9 in ("25012", "25010"):
        info = icd9_to_icd10(code9)
        assert info.code == "E11.1" and info.title == "Type 2 diabetes mellitus with ketoacidosis"
        assert "E11.69" in info.acceptable and info.acceptable[0] == "E11.1"
        assert info.reason is not None and "refined to E11.1" in info.reason
    assert icd9_to_icd10("25012").origin == "icd9_gem_one_to_many"
    assert icd9_to_icd10("25010").origin == "icd9_gem_approximate"
    assert icd9_to_icd10("72403").code == "M48.062"  # ... with neurogenic claudication (FY2018)
    assert icd9_to_icd10("72402").code == "M48.061"  # ... without


@pytest.mark.parametrize(("code9", "code10"), [
    ("4280", "I50.9"),  # not I50.20: "(congestive)" is a nonessential modifier of systolic failure
    ("41401", "I25.10"),  # not a newer "native artery of transplanted heart with angina" code
    ("53140", "K25.4"),  # "with hemorrhage, without obstruction": never K25.7 "without hemorrhage"
    ("41060", "I21.29"),  # "episode of care unspecified" does not make I21.9 "unspecified" more specific
    ("64290", "O16.9"),  # "pregnancy, childbirth, or the puerperium": not childbirth O16.4
])
def test_refinement_needs_more_of_the_title_and_nothing_else(code9: str, code10: str) -> None:
    assert icd9_to_icd10(code9).code == code10


def test_choice_rule_is_order_independent() -> None:
    rows = icd._gem()["4241"]
    assert icd._from_gem("4241", rows) == icd._from_gem("4241", tuple(reversed(rows)))
    assert icd9_to_icd10("4241").code == "I35.0"


def test_icd9_no_map_is_unmapped() -> None:
    info = icd9_to_icd10("E9342")  # GEM says NoDx
    assert info.origin == "unmapped" and info.code is None
    assert info.reason is not None and "NoDx" in info.reason


def test_icd9_without_gem_entry_uses_parent() -> None:
    info = icd9_to_icd10("42899")  # not a real code; parent 4289 maps to I50.9
    assert info.code == "I50.9" and info.origin == "icd9_gem_approximate"
    assert info.reason is not None and "parent 4289" in info.reason


def test_icd9_without_gem_entry_uses_unanimous_siblings() -> None:
    info = icd9_to_icd10("41079")  # 4107 is not in the GEM; 41070/1/2 all map into I21
    assert info.code == "I21" and info.category == "I21" and info.origin == "icd9_gem_approximate"
    assert info.reason is not None and "41071" in info.reason


@pytest.mark.parametrize("bad", ["", "ABC", "12", "9999999"])
def test_icd9_malformed(bad: str) -> None:
    assert icd9_to_icd10(bad).origin == "unmapped"


# ------------------------------------------------------------------ ICD-10-GM


def test_gm_i21_0_exists_in_cm() -> None:
    info = icd10gm_to_cm("I21.0")
    assert (info.code, info.category, info.block, info.origin) == ("I21.0", "I21", "I20-I25", "icd10_gm")


def test_gm_u07_1_covid() -> None:
    info = icd10gm_to_cm("U07.1")
    assert info.code == "U07.1" and info.category == "U07" and info.chapter == "22"
    assert info.origin == "icd10_gm"


def test_gm_specific_fifth_character() -> None:
    info = icd10gm_to_cm("E11.90")  # GM-only 5th character
    assert info.code in {"E11", "E11.9"} and info.category == "E11"
    assert info.block == "E08-E13" and info.origin == "icd10_gm"
    assert info.reason is not None and "E11.90" in info.reason


def test_gm_markers_and_placeholders() -> None:
    assert icd10gm_to_cm("B95.6!").code == "B95.6"
    assert icd10gm_to_cm("G63.2*").category == "G63"
    assert icd10gm_to_cm("I21.-").code == "I21"


@pytest.mark.parametrize(
    ("bad", "fragment"),
    [
        ("C19.x1", "malformed"),
        ("103.2", "letter"),
        ("", "empty"),
        (None, "empty"),
        ("U80.0", "not in ICD-10-CM"),  # GM-only category
    ],
)
def test_gm_malformed(bad: str | None, fragment: str) -> None:
    info = icd10gm_to_cm(bad)  # type: ignore[arg-type]
    assert info.origin == "unmapped" and info.code is None and info.category is None
    assert info.reason is not None and fragment in info.reason


# ------------------------------------------------------------------ normalise_codes


def test_normalise_codes_small_frame() -> None:
    df = pl.DataFrame(
        {
            "row": list(range(8)),
            "icd_code": ["4280", "I214", "I21.0", "4280", "C19.x1", None, "E11.90", "4280"],
            "icd_version": ["9", "10", "gm", "9", "gm", "10", "gm", "11"],
        }
    )
    icd._normalise_one.cache_clear()
    out = normalise_codes(df)
    assert out.height == df.height
    assert out.columns == [*df.columns, *OUTPUT_COLUMNS]
    assert out["row"].to_list() == list(range(8))  # order kept
    assert all(out.schema[c] == pl.Utf8 for c in OUTPUT_COLUMNS)
    # each distinct (code, version) pair is computed once
    assert icd._normalise_one.cache_info().misses == 7
    assert out["icd10_code"].to_list() == ["I50.9", "I21.4", "I21.0", "I50.9", None, None, "E11", None]
    assert out["icd10_block"].to_list()[:3] == ["I30-I5A", "I20-I25", "I20-I25"]
    assert out["icd_origin"].to_list() == [
        "icd9_gem_approximate",
        "icd10",
        "icd10_gm",
        "icd9_gem_approximate",
        "unmapped",
        "unmapped",
        "icd10_gm",
        "unmapped",
    ]
    assert "unknown ICD version" in out["icd_reason"][7]
    assert set(out["icd_origin"].to_list()) <= set(ORIGINS)


def test_normalise_codes_int_versions_custom_columns_and_rerun() -> None:
    df = pl.DataFrame({"dx": ["41071", "I509"], "ver": [9, 10]})
    out = normalise_codes(df, code_col="dx", version_col="ver")
    assert out["icd10_category"].to_list() == ["I21", "I50"]
    again = normalise_codes(out, code_col="dx", version_col="ver")  # output columns are replaced
    assert again.columns == out.columns and again.equals(out)


def test_normalise_codes_adds_the_acceptable_codes_on_request() -> None:
    df = pl.DataFrame({"icd_code": ["99859", "I214", None], "icd_version": [9, 10, 10]})
    out = normalise_codes(df, acceptable=True)
    assert out["icd10_acceptable"].to_list() == [["T81.4", "K68.11"], ["I21.4"], []]
    assert "icd10_acceptable" not in normalise_codes(df).columns


def test_normalise_codes_empty_and_missing_column() -> None:
    empty = pl.DataFrame(schema={"icd_code": pl.Utf8, "icd_version": pl.Int64})
    out = normalise_codes(empty)
    assert out.height == 0 and set(OUTPUT_COLUMNS) <= set(out.columns)
    with pytest.raises(KeyError):
        normalise_codes(pl.DataFrame({"icd_code": ["I10"]}))


def test_icd10info_is_frozen() -> None:
    info = icd10cm_info("I10")
    assert isinstance(info, Icd10Info)
    with pytest.raises(AttributeError):
        info.code = "X"  # type: ignore[misc]


# ------------------------------------------------------------------ real MIMIC-IV demo


@pytest.mark.skipif(not DIAGNOSES.exists(), reason=f"MIMIC-IV demo not present at {DIAGNOSES}")
def test_mimic_demo_primary_diagnoses_conform() -> None:
    df = pl.read_csv(DIAGNOSES, schema_overrides={"icd_code": pl.Utf8})
    out = normalise_codes(df)
    assert out.height == df.height == 4506
    primaries = out.filter(pl.col("seq_num") == 1)
    assert primaries.height == 275
    ok = [
        is_valid_category(cat) and block is not None
        for cat, block in primaries.select("icd10_category", "icd10_block").iter_rows()
    ]
    failures = primaries.filter(~pl.Series(ok)).select("icd_code", "icd_version", "icd_reason")
    assert sum(ok) >= 270, failures
    # every mapped code carries a consistent hierarchy
    mapped = out.filter(pl.col("icd10_code").is_not_null())
    assert mapped.filter(
        pl.col("icd10_code").str.slice(0, 3) != pl.col("icd10_category")
    ).height == 0
    assert mapped["icd10_chapter"].str.len_chars().unique().to_list() == [2]
