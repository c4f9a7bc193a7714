"""Training interfaces: the one episode engine and the one scorer, shaped for existing trainers.

* ``trl_env``: the dataset rows and the reward function of TRL's
  ``GRPOTrainer(environment_factory=DiagnosticEpisode)``;
* ``verifiers_env``: the verifiers (Prime Intellect) taskset, tools and rubric behind the
  installable ``clinverse-env`` package (environments/clinverse_env).

Submodules are imported on use, not here: each pulls in its trainer's stack.
"""
