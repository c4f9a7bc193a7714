"""Profile augmentation assets: the Synthea pool of the strata the cases need, and one profile per case.

``synthea_pool`` reads ``cases`` (a declared dependency) to find the strata (sex x age band) they
need and makes each through ``SyntheaResource``: Synthea's raw output is kept under
``<home>/synthea/<stratum>/`` and reused by later builds while its ``run.json`` matches
(pipelines.profiles.synthea.ensure_stratum). ``profiles`` matches every case of ``cases`` to a
pool patient (pipelines/profiles/match.py) and adds a Big Five personality; it never runs
Synthea, so its cost grows with the cases, not with Synthea.
"""

import shlex
import time

import dagster as dg
import polars as pl

from assets.factories import leak_check
from pipelines.content.leakage_guard import audit, case_terms
from pipelines.profiles.augment import TEXT_COLUMNS, build_profiles
from pipelines.profiles.match import profile_violations
from pipelines.profiles.pool import write_pool
from pipelines.profiles.record import DEMOGRAPHICS, case_record
from pipelines.profiles.strata import STRATA, needed_strata, parse_stratum
from pipelines.resources import ClinverseResource, SyntheaResource

GROUP = "profiles"


@dg.asset(
    deps=["cases"],
    group_name=GROUP,
    kinds={"synthea", "polars"},
    description="Synthea-generated people of every stratum (sex x age band) the cases need: the pool profiles "
                "are drawn from.",
)
def synthea_pool(context: dg.AssetExecutionContext, clinverse: ClinverseResource,
                 synthea: SyntheaResource) -> dg.MaterializeResult:
    """One partition per needed stratum, made one stratum after another.

    The strata run sequentially in this one step (the earlier partitioned asset could run them in
    parallel from the UI). That costs only the first build: a stratum's raw output is cached on
    disk and reused while its ``run.json`` matches, so later builds only parse it again.
    """
    settings = clinverse.settings()
    warehouse = clinverse.warehouse()
    strata = needed_strata(warehouse.read("cases").select("case_id", "sex", "age"))
    outputs = []
    for stratum in strata:
        output = synthea.ensure_stratum(settings.home / "synthea", stratum, settings.seed)
        context.log.info(f"synthea_pool[{stratum}]: {'reused' if output.reused else 'generated'} "
                         f"in {output.seconds:.1f} s")
        outputs.append(output)
    started = time.perf_counter()
    written = write_pool(warehouse, outputs)
    pool = pl.concat(list(written.values())) if written else None
    conditions = pool.select(pl.col("conditions").explode().struct.field("kind")) if pool is not None else None
    generated = [o for o in outputs if not o.reused]
    synthea_seconds = sum(o.seconds for o in generated)
    metadata = {
        "rows": pool.height if pool is not None else 0,
        "strata": dg.MetadataValue.text(", ".join(strata) or "none"),
        **{f"rows_{s}": frame.height for s, frame in written.items()},
        "reused": not generated,
        "strata_generated": len(generated),
        "synthea_seconds": round(synthea_seconds, 3),
        "parse_seconds": round(time.perf_counter() - started, 3),
        "deceased": pool["deceased_date"].is_not_null().sum() if pool is not None else 0,
        "conditions": conditions.height if conditions is not None else 0,
        "conditions_unmapped": conditions.filter(pl.col("kind") == "unmapped").height if conditions is not None else 0,
        "commands": dg.MetadataValue.text("\n".join(shlex.join(o.run.command) for o in outputs) or "none"),
        "raw_output": dg.MetadataValue.path(str(settings.home / "synthea")),
    }
    made = sum(written[o.run.stratum].height for o in generated)
    if generated and made and synthea_seconds:
        metadata["patients_per_second"] = round(made / synthea_seconds, 3)
    return dg.MaterializeResult(metadata=metadata)


@dg.asset_check(asset=synthea_pool, blocking=True)
def synthea_pool_fits_strata(clinverse: ClinverseResource) -> dg.AssetCheckResult:
    """Every stratum the cases need has patients, and every stratum written has only patients of
    its sex with an age inside its band."""
    warehouse = clinverse.warehouse()
    needed = needed_strata(warehouse.read("cases").select("case_id", "sex", "age"))
    pool = warehouse.read_or_empty("synthea_pool")
    bands = pl.DataFrame([(s, *parse_stratum(s)) for s in STRATA], schema=["stratum", "band_sex", "low", "high"],
                         orient="row")
    checked = pool.join(bands, on="stratum", how="left")
    unknown = checked.filter(pl.col("band_sex").is_null()).height  # a stratum no band defines
    wrong_sex = checked.filter(pl.col("sex") != pl.col("band_sex")).height
    wrong_age = checked.filter(~pl.col("age_years").is_between(pl.col("low"), pl.col("high"))).height
    empty = sorted(set(needed) - set(pool["stratum"].to_list()))
    return dg.AssetCheckResult(
        passed=not (empty or unknown or wrong_sex or wrong_age),
        metadata={"strata": len(set(pool["stratum"].to_list())), "patients": pool.height,
                  "strata_without_patients": ", ".join(empty) or "none", "patients_of_unknown_strata": unknown,
                  "wrong_sex": wrong_sex, "age_outside_band": wrong_age},
    )


@dg.asset(
    deps=["cases", synthea_pool],
    group_name=GROUP,
    kinds={"polars"},
    description="One generated person per case: Synthea demographics and history, Big Five personality.",
)
def profiles(context: dg.AssetExecutionContext, clinverse: ClinverseResource) -> dg.MaterializeResult:
    settings = clinverse.settings()
    warehouse = clinverse.warehouse()
    started = time.perf_counter()
    cases = warehouse.read("cases")
    pool = warehouse.read_or_empty("synthea_pool")
    source, denied = case_record(warehouse)
    frame = build_profiles(cases, pool, settings.seed, source=source, denied_units=denied)
    rows = warehouse.write("profiles", frame)
    n_conditions = frame["profile_conditions"].list.len()
    context.log.info(f"profiles: {rows} from {frame['generator_patient_id'].n_unique()} pool patients")
    return dg.MaterializeResult(
        metadata={
            "rows": rows,
            "seconds": round(time.perf_counter() - started, 3),
            "pool_patients": pool.height,
            "pool_patients_used": frame["generator_patient_id"].n_unique(),
            "strata": dg.MetadataValue.text(", ".join(sorted(frame["pool_stratum"].unique().to_list()))),
            "profiles_with_secondary_overlap": frame.filter(pl.col("match_overlap") > 0).height,
            "mean_conditions_per_profile": round(float(n_conditions.mean() or 0.0), 2),
            "profiles_with_record_demographics": 0 if source is None else frame.join(
                source.filter(pl.any_horizontal(pl.col(c).is_not_null() for c in DEMOGRAPHICS)), on="case_id",
                how="semi").height,
        }
    )


@dg.asset_check(asset=profiles, blocking=True)
def profiles_match_cases(clinverse: ClinverseResource) -> dg.AssetCheckResult:
    """Exactly one profile per case, traceable to the pool, sex and age band of the case; no profile
    condition in the primary diagnosis's ICD-10-CM category, unfit for the case's sex or age
    (condition_rules.csv) or denied by the case's units; the record's demographics where it has them."""
    warehouse = clinverse.warehouse()
    source, denied = case_record(warehouse)
    violations = profile_violations(warehouse.read("cases"), warehouse.read("profiles"),
                                    warehouse.read_or_empty("synthea_pool"), source, denied)
    return dg.AssetCheckResult(passed=not any(violations.values()), metadata=violations)


@dg.asset_check(asset=profiles, blocking=True)
def profiles_do_not_leak(clinverse: ClinverseResource) -> dg.AssetCheckResult:
    """No profile text names the case's diagnosis (pipelines.leakage terms)."""
    warehouse = clinverse.warehouse()
    text = warehouse.read("profiles").select("case_id", *TEXT_COLUMNS).explode("profile_conditions")
    hits = audit(text, list(TEXT_COLUMNS), case_terms(warehouse.read("cases")))
    return leak_check(hits, [f"{case} {column}: {snippet}" for case, column, _, snippet in hits.head(10).iter_rows()])
