"""Big Five personality per case, and the speech style the patient simulator follows.

Norms: the Ten-Item Personality Inventory's published norms (Gosling, Rentfrow & Swann 2003,
"A very brief measure of the Big-Five personality domains", J. Res. Pers. 37:504-528, Appendix B;
1-7 scale, US sample, N = 1,812): sex-specific means, and the whole sample's SDs.  Emotional
Stability is reversed into Neuroticism (8 - x).  Cases without a sex use the whole-sample means.

Each trait is a normal draw (independent across traits) from a keyed hash of (seed, case_id,
trait) through the inverse normal CDF, clipped to the scale and rescaled to [0, 1]:
``(x - 1) / 6``.  Only the seed and the case id enter, never a clinical fact, so personality can
change how the patient talks but nothing that is true about them.

``speech_style`` (JSON) gives four levels the simulator uses, each from a weighted trait score
cut at its population tertiles (the score's normal-theory mean and SD under the same norms):

* ``verbosity``       0.7 extraversion + 0.3 openness        -> terse | moderate | talkative
* ``anxiety``         neuroticism                           -> calm | uneasy | anxious
* ``cooperativeness`` 0.7 agreeableness + 0.3 conscientiousness -> guarded | cooperative | eager
* ``recall``          0.7 conscientiousness + 0.3 openness  -> vague | fair | precise
"""

from __future__ import annotations

from math import sqrt

import numpy as np
import polars as pl
from scipy.special import ndtri

from pipelines.profiles.keys import case_keys, mix, uniform

TRAITS = ("openness", "conscientiousness", "extraversion", "agreeableness", "neuroticism")

# TIPI Appendix B (Gosling et al. 2003), 1-7 scale; neuroticism = 8 - emotional stability.
TIPI_MEANS = {
    None: {"extraversion": 4.44, "agreeableness": 5.23, "conscientiousness": 5.40, "neuroticism": 8 - 4.83,
           "openness": 5.38},
    "M": {"extraversion": 4.25, "agreeableness": 5.06, "conscientiousness": 5.19, "neuroticism": 8 - 5.13,
          "openness": 5.34},
    "F": {"extraversion": 4.54, "agreeableness": 5.32, "conscientiousness": 5.51, "neuroticism": 8 - 4.66,
          "openness": 5.40},
}
TIPI_SDS = {"extraversion": 1.45, "agreeableness": 1.11, "conscientiousness": 1.32, "neuroticism": 1.42,
            "openness": 1.07}
SCALE_MIN, SCALE_MAX = 1.0, 7.0

STYLES: dict[str, tuple[dict[str, float], tuple[str, str, str]]] = {
    "verbosity": ({"extraversion": 0.7, "openness": 0.3}, ("terse", "moderate", "talkative")),
    "anxiety": ({"neuroticism": 1.0}, ("calm", "uneasy", "anxious")),
    "cooperativeness": ({"agreeableness": 0.7, "conscientiousness": 0.3}, ("guarded", "cooperative", "eager")),
    "recall": ({"conscientiousness": 0.7, "openness": 0.3}, ("vague", "fair", "precise")),
}
TERTILE_Z = float(ndtri(2 / 3))  # +-0.4307: a third of the population below -z, a third above +z


def _unit(trait: str) -> tuple[float, float]:
    """The whole-sample mean and SD of a trait on the [0, 1] scale."""
    span = SCALE_MAX - SCALE_MIN
    return (TIPI_MEANS[None][trait] - SCALE_MIN) / span, TIPI_SDS[trait] / span


def _style_expr(name: str) -> pl.Expr:
    weights, labels = STYLES[name]
    score = sum(pl.col(t) * w for t, w in weights.items())
    mean = sum(_unit(t)[0] * w for t, w in weights.items())
    sd = sqrt(sum((_unit(t)[1] * w) ** 2 for t, w in weights.items()))
    z = (score - mean) / sd
    low, middle, high = (pl.lit(label) for label in labels)
    return pl.when(z < -TERTILE_Z).then(low).when(z > TERTILE_Z).then(high).otherwise(middle)


def big_five(cases: pl.DataFrame, seed: int) -> pl.DataFrame:
    """``case_id``, the five traits in [0, 1] and ``speech_style`` for each case (``case_id``, ``sex``)."""
    keys = case_keys(cases["case_id"])
    female = cases["sex"].eq("F").fill_null(False).to_numpy()
    male = cases["sex"].eq("M").fill_null(False).to_numpy()
    columns = {}
    for trait in TRAITS:
        mean = np.select([female, male], [TIPI_MEANS["F"][trait], TIPI_MEANS["M"][trait]], TIPI_MEANS[None][trait])
        draw = mean + TIPI_SDS[trait] * ndtri(uniform(mix(keys, seed, f"big5:{trait}")))
        columns[trait] = (np.clip(draw, SCALE_MIN, SCALE_MAX) - SCALE_MIN) / (SCALE_MAX - SCALE_MIN)
    traits = pl.DataFrame({"case_id": cases["case_id"], **columns})
    return traits.with_columns(
        speech_style=pl.struct(**{name: _style_expr(name) for name in STYLES}).struct.json_encode()
    )

