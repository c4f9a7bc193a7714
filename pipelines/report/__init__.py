"""The evaluation report (issue 12 section 5): one self-contained HTML page over the warehouse.

* :mod:`~pipelines.report.summaries`: the report's tables as polars frames (also Dagster metadata);
* :mod:`~pipelines.report.turns`: information collected, diagnoses made and actions taken per turn;
* :mod:`~pipelines.report.plots`: matplotlib figures as inline SVG, byte-identical for the same input;
* :mod:`~pipelines.report.page`: the page from ``templates/`` and the wording of ``data/report.yaml``.
"""
