"""Embedded demo generator: synthetic MIMIC-IV (+ MIMIC-IV-Note), SICdb and MedQA files written in the
publishers' layouts, so that the pipeline's readers run unchanged on the demo and on real copies.

Plain Python (and PyYAML for the catalogs under ``data/``, see :mod:`.catalog`); see :func:`generate_demo`.
"""

from .generator import generate_demo

__all__ = ["generate_demo"]
