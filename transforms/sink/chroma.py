"""Chroma (its persistent local client, one folder) as a ragbeam sink.

The collection ragbeam creates: cosine HNSW space, no embedding function (ragbeam
gives the vectors), ``metadata`` ``ragbeam_dimension`` (Chroma learns a dimension
only from the first vector; ragbeam records it to check later runs) and the sync
marker. Per chunk: id = the chunk id, the embedding, the document = the chunk's
``text``, and its other stored columns (``columns.stored_columns``) as metadata:
strings and integers as they are, a null left out (Chroma keeps no nulls), lists
and maps (``heading_path``, ``metadata``) as JSON strings (Chroma refuses an empty
list and any map). Chroma's local client keeps no sparse vectors: with
``--sparse`` the dense vectors are synced and the run says so once. Beam has no
Chroma writer (apache/beam#40047): ``writers.py`` ``ChromaWriteConfig`` is one in
Beam's ``VectorDatabaseWriteConfig`` idiom.

Chroma keeps one client system per folder and process; ``close`` leaves it to
Chroma (closing and reopening the same folder in one process can time out on
Chroma's SQLite pool under load: seen on a loaded machine).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ragbeam.transforms.sink.base import MARKER_KEY, CollectionShape, VectorStore

DIMENSION_KEY = "ragbeam_dimension"
_PAGE = 1000
_NAME_RULE = "Chroma collection names are 3 to 512 characters, starting and ending with a " \
    "letter or digit"


class ChromaStore(VectorStore):
    kind = "chroma"
    title = "Chroma"
    local_form = "DIR"
    local_title = "Chroma's persistent local client, one folder"
    keeps_sparse = False

    @classmethod
    def check_options(cls, options: Mapping[str, str], collection: str) -> str | None:
        if not 3 <= len(collection) <= 512 or not (collection[0].isalnum()
                                                   and collection[-1].isalnum()):
            return f"collection {collection!r}: {_NAME_RULE}"
        return None

    def connect(self) -> None:
        from ragbeam.transforms.sink.writers import chroma_client

        self._client = chroma_client(self.spec.target)

    def close(self) -> None:
        self._client = None  # see the module's docstring

    def _collection(self) -> Any:
        return self._client.get_collection(self.spec.collection, embedding_function=None)

    def describe(self) -> CollectionShape | None:
        from chromadb.errors import NotFoundError

        try:
            metadata = self._collection().metadata or {}
        except NotFoundError:
            return None
        dimension = metadata.get(DIMENSION_KEY)
        return CollectionShape(made_by_ragbeam=isinstance(dimension, int),
                               dimension=dimension if isinstance(dimension, int) else 0,
                               sparse=False)

    def create_collection(self, dimension: int, sparse: bool, multivector: bool = False
                          ) -> None:
        self._client.create_collection(self.spec.collection, embedding_function=None,
                                       configuration={"hnsw": {"space": "cosine"}},
                                       metadata={DIMENSION_KEY: dimension})

    def read_marker(self) -> str | None:
        value = (self._collection().metadata or {}).get(MARKER_KEY)
        return str(value) if value is not None else None

    def write_marker(self, value: str) -> None:
        collection = self._collection()
        collection.modify(metadata={**(collection.metadata or {}), MARKER_KEY: value})

    def stored_ids(self) -> list[str]:
        collection, ids, offset = self._collection(), [], 0
        while page := collection.get(include=[], limit=_PAGE, offset=offset)["ids"]:
            ids.extend(page)
            offset += len(page)
        return ids

    def delete(self, chunk_ids: list[str]) -> None:
        if chunk_ids:
            self._collection().delete(ids=list(chunk_ids))

    def count(self) -> int:
        return int(self._collection().count())

    def write_config(self, dimension: int, sparse: bool = False) -> Any:
        from ragbeam.transforms.sink.writers import ChromaWriteConfig

        return ChromaWriteConfig(path=self.spec.target, collection=self.spec.collection,
                                 batch_size=self.spec.batch_size)
