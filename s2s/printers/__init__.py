"""Printers of one run's results for tools and reviewers: JSON (:mod:`.json_doc`), SARIF
(:mod:`.sarif`) and the HTML review page (:mod:`.html`).

Each prints the same edit set that ``--diff`` prints and ``--in-place`` writes (the
``edits`` of each :class:`~s2s.output.FileChange`), never a second computation of it.
"""
