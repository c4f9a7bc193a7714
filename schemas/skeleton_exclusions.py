"""skeleton_exclusions: source records that did not become candidate cases, and why.

Same columns as excluded_cases, into which the curation stage folds them. Stages: ``case_skeleton``
(MIMIC-IV record unusable), ``icd_normalisation`` (SICdb diagnosis unmappable), ``medqa_selection``,
and the screening rules of pipelines/cases/encounters.py: ``not_diagnostic``, ``known_condition``
(only on request), ``patient_cap``.
"""

from schemas.excluded_cases import SCHEMA as _EXCLUDED

SCHEMA = _EXCLUDED.set_name("skeleton_exclusions")
