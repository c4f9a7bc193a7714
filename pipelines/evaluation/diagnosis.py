"""Diagnosis agreement: DCA, DSA and the deterministic S_diag levels (data-contract.md).

The true answer is every code of ``acceptable_icd10`` (the primary among them; ``[primary_icd10]``
where the column is absent) and the diagnosis name with its acceptable names and ICD-10 title.

* DCA: the predicted code's ICD-10 block is the block of a true code; DSA: its 3-character
  category is the category of a true code (a code the release lacks counts by its nearest ancestor;
  a malformed or missing code agrees with nothing).
* S_diag: 1 for a true code (or a more specific code under one) or an acceptable name, else 0.75
  for a true category, 0.5 for a true block, 0.25 for a true chapter, 0 otherwise
  (``data/scoring.yaml``). Under the oracle-block condition the true block was given, so a
  code outside it scores 0, whatever its name.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from pipelines import icd
from pipelines.episodes.actions import Finalize
from pipelines.episodes.views import ManagerView
from pipelines.evaluation.text import fold


@dataclass(frozen=True)
class TrueAnswer:
    manager: ManagerView

    @cached_property
    def codes(self) -> tuple[icd.Icd10Info, ...]:
        codes = self.manager.acceptable_icd10 or ((self.manager.primary_icd10,) if self.manager.primary_icd10 else ())
        infos = (icd.icd10cm_info(c) for c in codes)
        return tuple(i for i in infos if i.code)

    @cached_property
    def names(self) -> frozenset[str]:
        m = self.manager
        return frozenset(fold(n) for n in (m.diagnosis_name, *m.acceptable_names, m.icd10_title) if n)

    def _level(self, attribute: str) -> frozenset[str]:
        return frozenset(getattr(i, attribute) for i in self.codes)

    def agreement(self, code: str | None) -> dict[str, bool]:
        """Whether ``code`` is (under) a true code, in a true category, block, chapter."""
        info = icd.icd10cm_info(code) if code else None
        if info is None or not info.code:
            return dict.fromkeys(("code", "category", "block", "chapter"), False)
        return {"code": any(icd.same_or_descendant(info.code, t.code) for t in self.codes),
                "category": info.category in self._level("category"), "block": info.block in self._level("block"),
                "chapter": info.chapter in self._level("chapter")}


def diagnosis_level(final: Finalize | None, truth: TrueAnswer, levels: dict[str, float], oracle_block: bool) -> float:
    """S_diag of a final output (module docstring); 0 without one."""
    if final is None:
        return 0.0
    agrees = truth.agreement(final.icd10)
    if oracle_block and not agrees["block"]:
        return 0.0
    if agrees["code"] or fold(final.diagnosis) in truth.names:
        return levels["code"]
    for level in ("category", "block", "chapter"):
        if agrees[level]:
            return levels[level]
    return 0.0
