"""The Dagster assets: thin wrappers that read their inputs, call a domain function, write and
attach metadata.

An asset module imports at its top only what the definitions need to load. A domain module that brings
scipy.stats, scikit-learn or statsmodels (ClinLab, the importance statistics, the episode engine,
the study's tests) is imported inside the asset body that calls it, so it loads with its step. Every process
that loads the definitions pays for what they import: `clinverse build` before its first step,
`dagster dev`, a sensor tick and each step process of the multiprocess executor. Those three
libraries were a third of the load (about 1.2 of 3 seconds).
tests/test_definitions.py keeps them out.
"""
