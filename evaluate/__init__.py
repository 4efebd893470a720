"""Evaluation and visual inspection of a run's output.

* ``metrics``: label-free figures (sizes, mid-sentence breaks, redundancy…);
* ``retrieval`` + ``budget``: BM25 / dense ranking and greedy context fill
  under a token budget (parent-child: children retrieved, parents charged);
* ``evaluation``: questions → hit rate, Recall@budget, rank of the answer;
* ``compare``: one pipeline run per strategy, evaluated side by side;
* ``report`` / ``viz``: static HTML (inline SVG, no CDN, no server).
"""
