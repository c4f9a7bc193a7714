"""Experience memory (MedEvoEval section 3, Appendix B.4), Dagster-free: after an episode is scored
the manager writes compact cards into its run's bank; before every later doctor decision the
cards most similar to the doctor's context are shown to it and logged in the decision's event.

* :mod:`~pipelines.evaluation.memory.cards`: the card language of ``data/memory_cards.yaml``
  (templates, the 80-unit cut, the block the doctor is shown, reading a card back);
* :mod:`~pipelines.evaluation.memory.bank`: a run's bank and its modes (off, empty,
  prepopulated, frozen);
* :mod:`~pipelines.evaluation.memory.retrieval`: top-K by TF-IDF cosine similarity, and the
  engine's view of the bank;
* :mod:`~pipelines.evaluation.memory.manager` (offline templates) and
  :mod:`~pipelines.evaluation.memory.llm_manager` (an OpenAI-compatible model): the write-back;
* :mod:`~pipelines.evaluation.memory.runs`: a run's bank in the warehouse (``memory_cards``) and
  the write-back after each of its episodes.

How the offline ``retrieval`` doctor acts on the cards it reads: pipelines/episodes/experience.py.
"""
