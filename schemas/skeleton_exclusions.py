"""skeleton_exclusions: source records that did not become candidate cases, and why.

Same columns as excluded_cases, into which the curation stage folds them.
"""

from schemas.excluded_cases import SCHEMA as _EXCLUDED

SCHEMA = _EXCLUDED.set_name("skeleton_exclusions")
