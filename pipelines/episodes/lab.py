"""The laboratory physician: deterministic lookup of requested examinations (Protocol B.3).

A requested name is folded by ``pipelines.exams.catalog.name_key`` and resolved to a catalog
name: exactly (every preset), or through an alias or a panel (``lookup: alias``, ``panels: true``).
With panels, a procedure's test (``Pleural fluid analysis``, ``thoracentesis``;
:mod:`pipelines.exams.procedures`) returns the case's results of that procedure's specimen, which
no other name but their own reaches.
A name the catalog does not have is ``not_allowed``; a catalog exam the case did not record goes
by the ``unrecorded`` policy:

* ``not_in_case``: not returned, reported as not done for this patient (an invalid test);
* ``null``: returned as an explicit null result (ClinVerse's null arm);
* ``predict``: the results predictor (ClinLab) answers from the latent patient's clinical state;
  when it has no prediction the exam is ``not_in_case``.

``replace_fraction`` (ClinVerse's validity analysis, its section K) serves that share of a case's
recorded numeric lab values as the predictor's answer instead, flagged ``predicted``; which values
is fixed per (seed, case, exam) by :func:`replaced`. A predictor never sees the value it stands in
for: the state it gets has that exam's results removed.

The examination limit is the engine's (``budget_limited``, :func:`budget_limited`). Every report
states value, unit, reference range and abnormal flag, and says plainly when one is unknown:
never a silent "normal".
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import cache, lru_cache

from pipelines.episodes.config import EpisodeConfig
from pipelines.episodes.messages import messages, say
from pipelines.episodes.roles import ClinicalState, LatentPatient, Role
from pipelines.episodes.views import ExamResult, ExamView, require_view
from pipelines.exams.catalog import alias_table, name_key
from pipelines.exams.procedures import procedure_test
from pipelines.exams.vocabulary import panel as panel_members
from pipelines.exams.vocabulary import panel_name

Predictor = Callable[[str, ClinicalState], ExamResult | None]
RESULTS_CACHED = 1 << 16  # results rendered
REPORTS_CACHED = 1 << 15  # reports to a case's requests (:meth:`LaboratoryPhysician.lookup`)


def no_prediction(exam_name: str, state: ClinicalState) -> ExamResult | None:
    """The predictor until ClinLab exists: nothing is predicted, so the exam is ``not_in_case``."""
    return None


def replaced(seed: int, case_id: str, exam_name: str, fraction: float) -> bool:
    """Whether a recorded value is served as a prediction: a uniform hash of (seed, case, exam) under
    ``fraction``, so the choice is fixed per item and the items at 10 % are among those at 20 %."""
    if fraction <= 0:
        return False
    digest = hashlib.sha256(f"{seed}:{case_id}:{exam_name}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64 < fraction


@dataclass(frozen=True)
class Item:
    """One examination in a report: what the event row for it records."""

    test_name: str
    match_type: str  # exact | predicted | not_allowed | not_in_case | budget_limited
    returned: bool
    text: str
    result: ExamResult | None = None


@dataclass(frozen=True)
class LabReport:
    requested: str
    items: tuple[Item, ...]
    text: str  # what the doctor reads

    @property
    def returned(self) -> bool:
        return any(i.returned for i in self.items)

    @property
    def invalid(self) -> bool:
        """Not an orderable exam, or not done for this patient (MedEvoEval's invalid test)."""
        return all(i.match_type in ("not_allowed", "not_in_case") and not i.returned for i in self.items)


def _number(value: float) -> str:
    return f"{value:g}"


@lru_cache(maxsize=RESULTS_CACHED)  # a case's results are reported in every episode of it
def render(result: ExamResult) -> str:
    """A result as the doctor reads it: value, unit, reference range, abnormal flag."""
    value = result.value_text if result.value_text is not None else (
        _number(result.value_num) if result.value_num is not None else "null")
    unit = f" {result.unit}" if result.unit else ""
    low, high = result.ref_low, result.ref_high
    if low is not None and high is not None:
        reference = f"{_number(low)}-{_number(high)}{unit}"
    elif low is not None:
        reference = f">= {_number(low)}{unit}"
    elif high is not None:
        reference = f"<= {_number(high)}{unit}"
    else:
        reference = say("lab.reference_unknown")
    flag = {True: "lab.flag_abnormal", False: "lab.flag_normal", None: "lab.flag_unknown"}[result.abnormal]
    return say("lab.result", name=result.exam_name, value=f"{value}{unit}", reference=reference, flag=say(flag))


@dataclass(frozen=True)
class Reading:
    """A reported result as a reader of :func:`render`'s line sees it."""

    exam: str
    value: float | None
    low: float | None
    high: float | None
    abnormal: bool | None

    @property
    def direction(self) -> str | None:
        """``high`` or ``low`` when the value lies outside its reference range."""
        if self.value is None:
            return None
        if self.high is not None and self.value > self.high:
            return "high"
        if self.low is not None and self.value < self.low:
            return "low"
        return None


_NUMBER = r"(-?\d+(?:\.\d+)?)"


@cache
def _report_line() -> tuple[re.Pattern[str], str]:
    """The pattern of a :func:`render` line, and the longest literal text every such line holds."""
    fields = {"name": r"(?P<name>.+)", "value": r"(?P<value>.*?)", "reference": r"(?P<reference>.*?)",
              "flag": r"(?P<flag>.*)"}
    template = messages()["lab"]["result"]
    pattern = re.sub(r"\\\{(\w+)\\\}", lambda m: fields[m.group(1)], re.escape(template))
    return re.compile("^" + pattern + "$"), max(re.split(r"\{\w+\}", template), key=len)


def _leading(text: str) -> float | None:
    match = re.match(_NUMBER, text.strip())
    return float(match.group(1)) if match else None


def read(line: str) -> Reading | None:
    """The result a :func:`render` line reports, or None for any other line: the inverse a doctor
    reading its reports needs (direction from value and reference range)."""
    pattern, literal = _report_line()
    if literal not in line:  # most lines are no report: skip the pattern
        return None
    match = pattern.match(line.strip())
    if match is None:
        return None
    reference, low, high = match.group("reference"), None, None
    if (both := re.match(_NUMBER + "-" + _NUMBER, reference)) is not None:
        low, high = float(both.group(1)), float(both.group(2))
    elif reference.startswith(">="):
        low = _leading(reference[2:])
    elif reference.startswith("<="):
        high = _leading(reference[2:])
    flag = match.group("flag")
    abnormal = True if flag == say("lab.flag_abnormal") else False if flag == say("lab.flag_normal") else None
    return Reading(match.group("name"), _leading(match.group("value")), low, high, abnormal)


def _one(requested: str, item: Item) -> LabReport:
    return LabReport(requested, (item,), item.text)


def budget_limited(name: str, limit: int) -> LabReport:
    return _one(name, Item(name, "budget_limited", False, say("lab.budget_limited", name=name, limit=limit)))


_REPORTS: dict[tuple[object, ...], LabReport] = {}  # oldest first


class LaboratoryPhysician:
    def __init__(self, view: ExamView, config: EpisodeConfig, latent: LatentPatient | None = None,
                 predictor: Predictor = no_prediction, seed: int = 0):
        self._view = require_view(view, ExamView, "LaboratoryPhysician")
        self._config = config
        self._latent = latent
        self._predictor = predictor
        self._seed = seed

    def lookup(self, name: str) -> LabReport:
        """The report to a request. Without seeded replacement it depends on the case, the policy,
        the predictor and the name only, so every episode of a case shares it (``REPORTS_CACHED``)."""
        if self._config.replace_fraction:
            return self._report(name)
        config, state = self._config, self._latent.answer(Role.LAB) if self._latent is not None else None
        who = None if state is None else (state.age, state.sex, state.patient)  # what a predictor may read besides
        key = (self._view, who, self._predictor, config.lookup, config.panels, config.unrecorded, name)
        report = _REPORTS.get(key)
        if report is None:
            report = self._report(name)
            if len(_REPORTS) >= REPORTS_CACHED:
                del _REPORTS[next(iter(_REPORTS))]  # the oldest
            _REPORTS[key] = report
        return report

    def _report(self, name: str) -> LabReport:
        key = name_key(name)
        catalog = self._view.catalog
        # before exact names: a source may name an exam like the procedure (a MedQA "Bronchoscopy")
        if self._config.panels and (procedure := procedure_test(name)):
            members = [n for n in catalog.names if procedure.includes(n) or procedure_test(n) == procedure]
            return self._panel(name, procedure.test, members)
        if key in catalog.by_key:
            return self._single(name, catalog.by_key[key])
        if self._config.lookup == "alias" and key in catalog.alias_keys:
            candidates = catalog.alias_keys[key]
            chosen = candidates[0] if len(candidates) == 1 else _curated(key, candidates)
            if chosen is None:
                text = say("lab.ambiguous", name=name, candidates=" or ".join(candidates))
                return _one(name, Item(name, "not_allowed", False, text))
            return self._single(name, chosen)
        if self._config.panels and panel_name(name):
            return self._panel(name, panel_name(name), panel_members(name))
        return _one(name, Item(name, "not_allowed", False, say("lab.not_allowed", name=name)))

    def _single(self, requested: str, exam: str) -> LabReport:
        return _one(requested, self._item(exam) or self._missing(exam))

    def _panel(self, requested: str, panel: str, members: list[str]) -> LabReport:
        items = tuple(i for i in (self._item(m) for m in members) if i is not None)
        if not items:
            return _one(requested, self._missing(panel))
        text = say("lab.panel", panel=panel, results="\n".join(i.text for i in items))
        return LabReport(requested, items, text)

    def _item(self, exam: str) -> Item | None:
        """The recorded result (or its stand-in under ``replace_fraction``), else a prediction when the
        policy asks for one."""
        recorded = self._view.by_name.get(exam)
        if recorded is None:
            predicted = self._predict(exam) if self._config.unrecorded == "predict" else None
        else:  # a value chosen for replacement the predictor cannot answer is served as recorded
            predicted = self._predict(exam) if self._replaces(recorded) else None
        if predicted is not None:
            return Item(exam, "predicted", True, render(predicted), predicted)
        return None if recorded is None else Item(exam, "exact", True, render(recorded), recorded)

    def _replaces(self, recorded: ExamResult) -> bool:
        return (recorded.kind == "lab" and recorded.value_num is not None
                and replaced(self._seed, self._view.case_id, recorded.exam_name, self._config.replace_fraction))

    def _predict(self, exam: str) -> ExamResult | None:
        if self._latent is None:
            return None
        state = self._latent.answer(Role.LAB)
        exams = state.exams
        if exam in exams.by_name:  # leave-one-out: the predictor never gets the value it stands in for
            state = replace(state, exams=replace(exams, results=tuple(r for r in exams.results if r.exam_name != exam)))
        predicted = self._predictor(exam, state)
        return None if predicted is None else replace(predicted, exam_name=exam, origin="predicted")

    def _missing(self, exam: str) -> Item:
        if self._config.unrecorded == "null":
            return Item(exam, "not_in_case", True, say("lab.null", name=exam))
        return Item(exam, "not_in_case", False, say("lab.not_in_case", name=exam))


def _curated(key: str, candidates: tuple[str, ...]) -> str | None:
    """An alias several catalog exams carry (source labels clash): the curated alias table decides."""
    curated = alias_table().filter(alias_key=key)["exam_name"].to_list()
    return curated[0] if curated and curated[0] in candidates else None
