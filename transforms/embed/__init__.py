"""Sentence and chunk embeddings: a sentence-transformers model behind Beam's RunInference."""
