"""The episode reward where no rubrics exist (the outcome score S needs them: pipelines/evaluation/):
block-level agreement.

1.0 when the finalised ICD-10 code falls in the block of the true primary code or of any code in
``acceptable_icd10``, else 0.0 (an unknown or malformed code is 0.0).
"""

from __future__ import annotations

from pipelines import icd
from pipelines.episodes.actions import Finalize
from pipelines.episodes.views import ManagerView, require_view


def block_of(code: str | None) -> str | None:
    info = icd.icd10cm_info(code) if code else None
    return info.block if info and info.code else None


class Judge:
    def __init__(self, manager: ManagerView):
        manager = require_view(manager, ManagerView, "Judge")
        blocks = {block_of(c) for c in (*manager.acceptable_icd10, manager.primary_icd10)}
        self._blocks = frozenset(b for b in (*blocks, manager.primary_icd10_block) if b)

    def reward(self, final: Finalize | None) -> float:
        return self.code_reward(final.icd10 if final is not None else None)

    def code_reward(self, icd10: str | None) -> float:
        """The reward of a finalised ICD-10 code (None: the episode did not finalise)."""
        return 1.0 if icd10 and block_of(icd10) in self._blocks else 0.0
