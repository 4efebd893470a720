"""Sink stage: keep a vector store (Milvus, Qdrant, LanceDB, Chroma) equal to the
``chunks`` table.

* ``spec.py``: ``SinkSpec`` (store, collection, credential) and redaction;
  ``uri.py``: ``--sink URI`` → ``SinkSpec``, from the stores' declarations;
* ``columns.py``: the chunk columns a store keeps (from the row type);
  ``records.py``: chunk rows → stored fields and the writes of one sync (pure);
* ``base.py``: the store interface and the one collection check; one module per
  store (``milvus.py``, ``qdrant.py``, ``lancedb.py``, ``chroma.py``), writing through
  Beam's own writers (``apache_beam.ml.rag.ingestion``) or, where Beam has none,
  ``writers.py`` in the same idiom; ``stores.py``: the registry (``STORES``,
  ``open_store``);
* ``sync.py``: the driver's steps around a run (full or incremental, markers, state);
* ``transforms.py``: ``SyncToVectorStore``, the Beam transform that writes.
"""
