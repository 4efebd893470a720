"""``terms`` table (``--sparse``): the output's document frequencies, one row per
sparse index, so a query can weigh its terms by BM25's inverse document frequency
(``transforms/embed/sparse.py``). Empty without ``--sparse``."""

# Not ``from __future__ import annotations``: see ``schemas/errors.py``.
from typing import Annotated, TypedDict

import pyarrow as pa

from ragbeam.schemas.typed_rows import arrow_fields


class TermRow(TypedDict):
    """One row of the ``terms`` table."""

    index: Annotated[int, pa.int32()]  # a term's index in ``chunks.sparse``
    chunks: Annotated[int, pa.int64()]  # chunks holding it, less their title_only indices


TERM_SCHEMA = pa.schema(arrow_fields(TermRow))
