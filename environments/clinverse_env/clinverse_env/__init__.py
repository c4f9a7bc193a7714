"""ClinVerse's diagnostic episodes as a verifiers environment: ``vf-eval clinverse-env``.

Targets verifiers 0.4.0 and its ``verifiers.v1`` API generation: verifiers resolves the id
``clinverse-env`` to this package and takes from ``__all__`` its Taskset (the cases, their tools
and their rewards), its Harness (the default chat program of every seat) and its Env (the one
seat, local by default). ``load_environment``
builds the same environment in Python. Everything lives in clinverse
(pipelines/training/verifiers_env.py), beside the engine and the scorer it reuses.
"""

from pipelines.training.verifiers_env import ChatHarness, ClinverseEnv, ClinverseTaskset, load_environment

__all__ = ["ChatHarness", "ClinverseEnv", "ClinverseTaskset", "load_environment"]
