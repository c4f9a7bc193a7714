"""The static full-vignette condition (MedEvoEval Appendix D.2, Table 16; issue 12 section 1): the
whole case in the opening and one action, the FINALIZE, against the dynamic episode in which the
doctor acquires the same information by asking and ordering.

:func:`vignette` renders a case from its patient view (the presentation, then every unit the
patient would otherwise have to be asked for) and its exam view (every recorded result, as the
laboratory physician reports it), in the template of data/vignette.yaml. The episode settings put
it where the presentation goes (pipelines/episodes/settings.py), so LLM and offline doctors alike
read it as their opening; the scores treat such an episode as given the whole case
(pipelines/evaluation/scores.py).
"""

from __future__ import annotations

from functools import cache

from pipelines.datafiles import yaml_mapping
from pipelines.episodes.lab import render
from pipelines.episodes.store import EpisodeCase
from pipelines.episodes.views import ExamView, PatientView, require_view


@cache
def _templates() -> dict[str, str]:
    return {k: str(v) for k, v in yaml_mapping(__package__, "data/vignette.yaml", ("vignette", "unit", "none")).items()}


def vignette(case: EpisodeCase, presentation: str) -> str:
    """``presentation`` followed by every hidden unit and every recorded result of ``case``."""
    texts = _templates()
    units = require_view(case.patient, PatientView, "vignette").hidden
    results = require_view(case.exams, ExamView, "vignette").results
    history = "\n".join(texts["unit"].format(text=u.text) for u in sorted(units, key=lambda u: u.ordinal))
    return texts["vignette"].format(presentation=presentation, history=history or texts["none"],
                                    results="\n".join(render(r) for r in results) or texts["none"])
