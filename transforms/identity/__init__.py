"""Content identity, in every run: duplicates indexed once, moves without
re-processing, near-duplicates reported (``content.py``, pure); the file hashing it
and the incremental comparison share (``hashing.py``); the Beam side
(``identify.py`` ``IdentifyContent``, ``near_duplicates.py``
``ReportNearDuplicates``)."""
