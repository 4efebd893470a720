"""Sink stage: keep a vector store (Milvus, Qdrant) equal to the ``chunks`` table.

* ``uri.py``: ``--sink URI`` → ``SinkSpec`` (store, collection, credential), redaction;
* ``records.py``: chunk rows → stored fields and the writes of one sync (pure);
* ``base.py``, ``milvus.py``, ``qdrant.py``: one small interface per store, on top
  of Beam's own writers (``apache_beam.ml.rag.ingestion``) for the upserts;
  ``stores.py``: the stores by kind (``open_store``);
* ``sync.py``: the driver's steps around a run (full or incremental, markers, state);
* ``transforms.py``: ``SyncToVectorStore``, the Beam transform that writes.
"""
