"""What the episodes of a run share: the cases, the preset, the seed, and the offline backends.

:func:`configure` sets the process-wide settings a no-argument ``DiagnosticEpisode()`` runs on (a
warehouse home or a :class:`CaseStore`, a preset, a seed, overrides); without it they come from
``CLINVERSE_HOME`` (default ``./warehouse``) and ``CLINVERSE_EPISODE_PRESET`` (default
``clinverse``), read through pipelines.config like every setting. Backends that cost a fit (the patient's TF-IDF space, the training knowledge)
are built once per store and shared by every episode on it.
"""

from __future__ import annotations

import gc
import hashlib
from collections.abc import Iterable
from dataclasses import asdict
from functools import cache, cached_property
from pathlib import Path
from typing import Any

from pipelines.config import environment_values, episode_preset
from pipelines.episodes.clinlab import ClinLab
from pipelines.episodes.config import DEFAULT_PRESET, DEFAULT_SEED, EpisodeConfig, preset
from pipelines.episodes.consultant import OfflineConsultant
from pipelines.episodes.doctors import Doctor, make_doctor
from pipelines.episodes.engine import Consultant, Engine, Memory
from pipelines.episodes.judge import Judge
from pipelines.episodes.knowledge import TrainingKnowledge
from pipelines.episodes.lab import LaboratoryPhysician, Predictor, no_prediction
from pipelines.episodes.messages import say
from pipelines.exams.procedures import tests as procedure_tests
from pipelines.exams.vocabulary import panels
from pipelines.episodes.patient import ObservablePatient, Patient
from pipelines.episodes.retrieval import Vocabulary
from pipelines.episodes.roles import LatentPatient
from pipelines.episodes.screen import BoundaryScreen
from pipelines.episodes.self_check import SelfCheck
from pipelines.episodes.shift import ShiftedPatient, shifts
from pipelines.episodes.store import CaseStore, EpisodeCase
from pipelines.episodes.vignette import vignette

DEFAULT_HOME = "warehouse"

def _digest(*parts: object) -> str:
    return hashlib.sha256(":".join(map(str, parts)).encode()).hexdigest()


def episode_seed(run_seed: int, case_id: str) -> int:
    """One seed per (run, case), from the run seed and the case id."""
    return int(_digest(run_seed, case_id)[:12], 16)


def episode_id(run_id: str, case_id: str) -> str:
    return f"e_{_digest(run_id, case_id)[:16]}"


def _settled[T](backend: T) -> T:
    """A fitted backend, after every object the process holds so far has left the cyclic garbage
    collector's generations (``gc.freeze``). A backend lives as long as its store, and the
    collections an allocation-heavy episode loop triggers would otherwise traverse every fitted
    model and the store's cases each time (about a tenth of the loop's time on generated 500)."""
    gc.collect()  # what is garbage now is collected, not frozen
    gc.freeze()
    return backend


def unit_vocabulary(texts: Iterable[str]) -> Vocabulary:
    """The patients' vocabulary, fitted on the texts of every case's units (:meth:`CaseStore.unit_texts`)."""
    return _settled(Vocabulary(texts))


class Backends:
    """The offline backends a store's episodes share, built on first use (once per store)."""

    def __init__(self, store: CaseStore):
        self.store = store

    @cached_property
    def vocabulary(self) -> Vocabulary:
        return unit_vocabulary(self.store.unit_texts())

    @cached_property
    def knowledge(self) -> TrainingKnowledge:
        return _settled(TrainingKnowledge(self.store))

    @cached_property
    def consultant(self) -> OfflineConsultant:
        return OfflineConsultant(self.knowledge)  # it holds the knowledge only: nothing to settle

    @cached_property
    def clinlab(self) -> ClinLab:
        """The results predictor, trained on the store's train split (never on the diagnosis)."""
        return _settled(ClinLab.fit(self.store))


@cache
def backends(store: CaseStore) -> Backends:
    return Backends(store)


class EpisodeSettings:
    """What every episode of a run shares: the cases, the preset, the seed and the backends."""

    def __init__(self, store: CaseStore, preset_name: str = DEFAULT_PRESET, seed: int = DEFAULT_SEED,
                 predictor: Predictor | None = None, memory: Memory | None = None, **overrides: Any):
        """``predictor``: None means ClinLab (fitted once per store) where the preset predicts
        unrecorded results or replaces recorded ones, and no prediction otherwise. ``memory``: the
        run's experience memory, shown before every doctor decision (None: memory off)."""
        self.store = store
        self.preset = preset_name
        self.seed = seed
        self.memory = memory
        self.overrides = overrides
        self.backends = backends(store)
        self._catalog_names: dict[bool, tuple[str, ...]] = {}  # by whether the preset has panels
        config = preset(preset_name, **overrides)  # fail now, not at the first reset
        predicts = config.unrecorded == "predict" or config.replace_fraction > 0
        self.predictor = predictor if predictor is not None else (self.backends.clinlab if predicts else no_prediction)
        if config.replace_fraction > 0 and self.predictor is no_prediction:
            raise ValueError("replace_fraction needs a trained predictor (ClinLab) in the episode settings")

    def config(self, preset_name: str | None = None, **overrides: Any) -> EpisodeConfig:
        name = preset_name or self.preset
        return preset(name, **({**self.overrides, **overrides} if name == self.preset else overrides))

    def catalog_names(self, config: EpisodeConfig) -> tuple[str, ...]:
        """The names a doctor may order: the catalog, and the panels and procedure tests (which return
        a procedure's specimen results together) where the preset has panels (listed once per run:
        every episode shows them)."""
        if config.panels not in self._catalog_names:
            self._catalog_names[config.panels] = self.store.catalog.names + (
                (*panels(), *(t.test for t in procedure_tests())) if config.panels else ())
        return self._catalog_names[config.panels]

    def engine(self, case_id: str, config: EpisodeConfig, seed: int, run_id: str | None = None) -> Engine:
        """One episode's controller, each role built from its own view of the case. The doctor
        starts from the presentation, or under ``vignette`` from the whole case; a case of
        ``shift_cases`` has its presentation and its patient's replies reworded by the shift."""
        case = self.store.case(case_id)
        shift = shifts()[config.shift] if case_id in config.shift_cases else None
        presentation = vignette(case, case.presentation) if config.vignette else case.presentation
        presentation = shift.reword(presentation) if shift else presentation
        shown = presentation
        if config.oracle_block:  # ClinVerse's oracle-block task: the true block is given
            shown += "\n\n" + say("oracle_block", block=case.manager.primary_icd10_block)
        opening = say("opening", presentation=shown, catalog=", ".join(self.catalog_names(config)), **asdict(config))
        lab = LaboratoryPhysician(case.exams, config, LatentPatient(case), self.predictor, seed)
        self_check = SelfCheck(BoundaryScreen(case.manager, case.exams)) if config.self_check else None
        episode = episode_id(run_id or f"adhoc-{seed}", case_id)
        patient = self.patient(case, episode, seed)
        return Engine(episode, presentation, opening, config, ShiftedPatient(patient, shift) if shift else patient, lab,
                      self.consultant(case, episode), self_check, Judge(case.manager), self.memory)

    def doctor(self, name: str, seed: int, config: EpisodeConfig) -> Doctor:
        """One episode's offline doctor (``seed``: the episode's); under ``corrupt_share`` wrapped so
        that share of its outputs is written as LLMs write them (pipelines/episodes/corrupt.py)."""
        doctor = make_doctor(name, self.backends.knowledge, seed)
        if not config.corrupt_share:
            return doctor
        from pipelines.episodes.corrupt import CorruptedDoctor  # the LLM package runs the controller, which reads this

        return CorruptedDoctor(doctor, config.corrupt_share, config.corrupt_normalise, self.store.catalog, seed)

    # Role hooks: the LLM driver (pipelines/episodes/llm/driver.py) overrides these two.
    def patient(self, case: EpisodeCase, episode: str, seed: int) -> Patient:
        """One episode's observable patient, built from the patient view only."""
        return ObservablePatient(case.patient, self.backends.vocabulary, episode_seed(seed, case.case_id))

    def consultant(self, case: EpisodeCase, episode: str) -> Consultant:
        """One episode's consultant (it reads the doctor's transcript, never a case view)."""
        return self.backends.consultant


_settings: EpisodeSettings | None = None


def configure(home: Path | str | None = None, *, store: CaseStore | None = None, preset_name: str = DEFAULT_PRESET,
              seed: int = DEFAULT_SEED, predictor: Predictor | None = None, **overrides: Any) -> EpisodeSettings:
    """Set what every ``DiagnosticEpisode()`` of this process runs on (a store, or a warehouse home)."""
    global _settings
    _settings = EpisodeSettings(store or CaseStore.from_home(home or _home()), preset_name, seed, predictor,
                                **overrides)
    return _settings


def _home() -> Path:
    return Path(environment_values("build").get("home") or DEFAULT_HOME)


def default_settings() -> EpisodeSettings:
    return _settings or configure(preset_name=episode_preset())
