"""The Dagster code location (workspace.yaml): every asset and check in the ``assets`` package,
the resources, the one ``build`` job (only the configured sources) and a sensor that requests it
when sources change, all read from the CLINVERSE_* environment (pipelines.build_plan).

`dagster dev -w workspace.yaml` shows this graph; `clinverse build` builds its own Definitions
from its flags and runs the same job in-process (pipelines.runner).
"""

from pipelines.build_plan import make_definitions

defs = make_definitions()
