"""Content identity in the pipeline, in every run: duplicates indexed once and moves
without re-processing (the rule: ``transforms/plan/content.py``; its Beam step:
``identify.py`` ``IdentifyContent``), the file hashing a decision needs
(``hashing.py``), and near-duplicates reported (``content.py``, pure;
``near_duplicates.py`` ``ReportNearDuplicates``)."""
