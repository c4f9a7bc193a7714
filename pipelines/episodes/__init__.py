"""Diagnostic episodes on warehouse cases (issue 11): plain Python over polars, no Dagster.

A case is split into three role views (``views``, ``store``); one engine runs every episode
(``engine``: budgets, routing, the ``episode_events`` trace) behind the trainer-facing class
(``environment.DiagnosticEpisode``), which the offline controller drives too (``controller``).
Roles: the observable patient and its self-check (``patient``, ``voice``, ``retrieval``,
``self_check``, ``screen``), the latent patient (``roles``), the laboratory physician (``lab``,
``panels``), the consultant, the offline doctors (``doctors``, ``knowledge``) and the judge's
block-level reward (``judge``). ``stress`` is the boundary stress test. Lexicons, templates,
presets and panels are data files under ``data/``.
"""
