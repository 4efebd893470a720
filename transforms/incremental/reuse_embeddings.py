"""``ReuseEmbeddings``: a re-processed document's new chunk rows take the previous
vector of the same chunk where ``embeddings.py`` allows it, before the embed stage."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import apache_beam as beam
from apache_beam.metrics import Metrics

from ragbeam.schemas.chunks import ChunkRow
from ragbeam.transforms.incremental.embeddings import embedding_key, with_reused_embedding
from ragbeam.transforms.incremental.join import NAMESPACE


class ReuseEmbeddings(beam.PTransform):
    """New chunk rows + ``previous_embeddings`` → the same rows, with the previous
    vector filled in where ``embeddings.py`` allows it. Goes before the embed
    stage, which then embeds only rows whose ``embedding`` is still None.

    Input: ``{"current": chunk rows, "previous": (embedding_key, inputs and vector)}``.
    """

    def expand(self, inputs: Mapping[str, beam.PCollection]) -> beam.PCollection[dict]:
        reused = Metrics.counter(NAMESPACE, "embeddings_reused")

        def fill(element: tuple[str, Mapping[str, Iterable[Any]]]) -> Iterable[ChunkRow]:
            _, grouped = element
            previous = list(grouped["previous"])
            for row in grouped["current"]:
                out = with_reused_embedding(row, previous)
                if out["embedding"] is not None and row.get("embedding") is None:
                    reused.inc()
                yield out

        keyed = inputs["current"] | "By embedding inputs" >> beam.Map(
            lambda r: (embedding_key(r), r))
        return (
            {"current": keyed, "previous": inputs["previous"]}
            | "Join by embedding inputs" >> beam.CoGroupByKey()
            | "Fill reusable vectors" >> beam.FlatMap(fill).with_output_types(ChunkRow)
        )
