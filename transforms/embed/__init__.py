"""Sentence and chunk embeddings with a sentence-transformers model: chunk embeddings
through Beam's RunInference (``transforms.py``); the Chunk stage's embedding branch
batches its texts with ``BatchElements`` and calls ``encode_texts``
(``chunk/semantic_dofn.py``)."""
