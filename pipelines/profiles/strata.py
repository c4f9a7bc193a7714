"""Pool strata: sex x age band.

A case is matched only to pool patients of its own stratum, so the profile's sex is the case's
sex and the pool patient's age lies in the case's age band.  Bands follow the usual clinical
life stages (paediatric, young adult, middle age, young-old, old-old):

    0-17, 18-39, 40-59, 60-74, 75-120   (inclusive; 120 is the cases schema's maximum age)

Synthea is asked for ages up to ``SYNTHEA_MAX_AGE`` in the last band: it simulates every week
of a life, so very old patients are the slowest to make, and the band's cases are matched on
conditions before their own age anyway.

Cases without a sex get one drawn from their keyed case id alone (deterministic, half F half M,
independent of the seed so that ``needed_strata`` needs nothing but the cases); cases without an
age use ``DEFAULT_BAND`` and keep the pool patient's whole history.
"""

from __future__ import annotations

import polars as pl

from pipelines.profiles.keys import case_keys, mix

AGE_BANDS: tuple[tuple[int, int], ...] = ((0, 17), (18, 39), (40, 59), (60, 74), (75, 120))
SEXES = ("F", "M")
SYNTHEA_MAX_AGE = 100
DEFAULT_BAND = (40, 59)


def stratum_key(sex: str, band: tuple[int, int]) -> str:
    return f"{sex}_{band[0]}-{band[1]}"


STRATA: tuple[str, ...] = tuple(stratum_key(sex, band) for sex in SEXES for band in AGE_BANDS)


def parse_stratum(stratum: str) -> tuple[str, int, int]:
    """``"F_40-59"`` -> ``("F", 40, 59)``; raises on anything that is not a known stratum."""
    if stratum not in STRATA:
        raise ValueError(f"unknown stratum {stratum!r}; known strata: {', '.join(STRATA)}")
    sex, band = stratum.split("_")
    low, high = band.split("-")
    return sex, int(low), int(high)


def synthea_age_range(stratum: str) -> str:
    """The ``-a MIN-MAX`` argument for a stratum."""
    _, low, high = parse_stratum(stratum)
    return f"{low}-{min(high, SYNTHEA_MAX_AGE)}"


def band_expr(age: pl.Expr) -> pl.Expr:
    """The ``low-high`` label of the band an age falls in (the default band for a null age)."""
    expr = pl.lit(f"{DEFAULT_BAND[0]}-{DEFAULT_BAND[1]}")
    for low, high in reversed(AGE_BANDS):
        expr = pl.when(age.is_between(low, high)).then(pl.lit(f"{low}-{high}")).otherwise(expr)
    return expr


def with_strata(cases: pl.DataFrame) -> pl.DataFrame:
    """Add ``profile_sex`` (the case's sex, or a keyed draw) and ``stratum`` to the cases."""
    drawn = pl.Series(
        "drawn_sex", mix(case_keys(cases["case_id"]), 0, "sex") % 2, dtype=pl.UInt64
    ).replace_strict({0: "F", 1: "M"}, return_dtype=pl.Utf8)
    return cases.with_columns(
        profile_sex=pl.coalesce(pl.col("sex"), drawn),
    ).with_columns(
        stratum=pl.concat_str(pl.col("profile_sex"), pl.lit("_"), band_expr(pl.col("age")))
    )


def needed_strata(cases: pl.DataFrame) -> list[str]:
    """The strata the given cases need (the partitions ``synthea_pool`` makes)."""
    if cases.is_empty():
        return []
    return sorted(with_strata(cases.select("case_id", "sex", "age"))["stratum"].unique().to_list())
