import json

import polars as pl

from pipelines.ids import case_id
from pipelines.profiles.personality import TRAITS, big_five


def _cases(n: int, sex: str | None = None) -> pl.DataFrame:
    return pl.DataFrame({"case_id": [case_id("k", "medqa", i) for i in range(n)], "sex": [sex] * n},
                        schema={"case_id": pl.Utf8, "sex": pl.Utf8})


def test_traits_are_in_range_and_follow_the_norms():
    traits = big_five(_cases(4000, "F"), seed=0)
    for trait in TRAITS:
        assert traits[trait].is_between(0, 1).all()
    # TIPI women: extraversion 4.54, neuroticism 8 - 4.66 = 3.34 on 1-7, i.e. 0.59 and 0.39
    assert abs(traits["extraversion"].mean() - 0.59) < 0.02
    assert abs(traits["neuroticism"].mean() - 0.39) < 0.02
    levels = pl.Series([json.loads(s)["anxiety"] for s in traits["speech_style"]]).value_counts()
    assert set(levels["anxiety"] if "anxiety" in levels.columns else levels[""]) == {"calm", "uneasy", "anxious"}


def test_traits_are_deterministic_per_seed_and_case():
    cases = _cases(50)
    assert big_five(cases, 3).equals(big_five(cases, 3))
    assert not big_five(cases, 3)["openness"].equals(big_five(cases, 4)["openness"])
    # a case's personality does not depend on which other cases are built with it
    assert big_five(cases.tail(5), 3).equals(big_five(cases, 3).tail(5))


def test_speech_style_has_the_four_simulator_keys():
    style = json.loads(big_five(_cases(1, "M"), 0)["speech_style"][0])
    assert list(style) == ["verbosity", "anxiety", "cooperativeness", "recall"]
