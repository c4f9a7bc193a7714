"""The check that MIMIC-IV-ED diagnoses (known at ED discharge, diagnosis-revealing) reach no
patient-visible text of a kept case (pipelines/content/ed_audit.py)."""

from __future__ import annotations

import dagster as dg

from assets.factories import leak_check
from pipelines.content.ed_audit import case_ed_diagnoses, ed_diagnosis_leaks, patient_texts
from pipelines.content.producers import ED
from pipelines.resources import ClinverseResource


@dg.asset_check(asset="cases", blocking=True)
def cases_hold_no_ed_diagnosis(clinverse: ClinverseResource) -> dg.AssetCheckResult:
    """No unit or presentation comes from ``ed_diagnosis`` or holds the ED's title of the case's diagnosis."""
    warehouse = clinverse.warehouse()
    if ED not in clinverse.settings().configured_sources():
        return dg.AssetCheckResult(passed=True, metadata={"skipped": "MIMIC-IV-ED not configured"})
    skeleton = warehouse.read("case_skeleton")
    texts = patient_texts(warehouse.read("information_units"), warehouse.read("cases"))
    hits = ed_diagnosis_leaks(case_ed_diagnoses(warehouse), texts, skeleton)
    return leak_check(hits, [f"{c} [{r}] {t}: {x}" for c, r, t, x in hits.head(10).iter_rows()], skeleton)
