"""One-to-one assignment of printed references to registry references.

First-come matching lets an early, weaker pair take a candidate that a later entry fits
better (two papers by the same group in the same year). The optimal assignment maximises the
summed score. The score graph is split into connected components so that a 7,000 × 7,000
problem becomes many small dense ones for ``scipy.optimize.linear_sum_assignment``.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

import numpy as np
from scipy.optimize import linear_sum_assignment

logger = logging.getLogger(__name__)


def _components(
    edges: Mapping[tuple[int, int], float],
) -> list[tuple[list[int], list[int]]]:
    """Connected components of the bipartite graph, as (rows, columns) lists."""
    parent: dict[tuple[str, int], tuple[str, int]] = {}

    def find(node: tuple[str, int]) -> tuple[str, int]:
        parent.setdefault(node, node)
        while parent[node] != node:
            parent[node] = parent[parent[node]]
            node = parent[node]
        return node

    for row, col in edges:
        a, b = find(("r", row)), find(("c", col))
        if a != b:
            parent[a] = b
    groups: dict[tuple[str, int], tuple[list[int], list[int]]] = {}
    for node in list(parent):
        rows, cols = groups.setdefault(find(node), ([], []))
        (rows if node[0] == "r" else cols).append(node[1])
    return [(sorted(r), sorted(c)) for r, c in groups.values()]


def assign_one_to_one(edges: Mapping[tuple[int, int], float]) -> dict[int, int]:
    """Row → column pairs maximising the total score; only given edges can be chosen.

    Args:
        edges: ``{(row, column): score}`` for the admissible pairs (score > 0).
    """
    chosen: dict[int, int] = {}
    components = _components(edges)
    component_of_row = {
        row: k for k, (rows, _) in enumerate(components) for row in rows
    }
    edges_by_component: dict[int, list[tuple[int, int, float]]] = {}
    for (row, col), score in edges.items():
        edges_by_component.setdefault(component_of_row[row], []).append(
            (row, col, score)
        )
    for k, (rows, cols) in enumerate(components):
        if len(rows) == 1 and len(cols) == 1:
            chosen[rows[0]] = cols[0]
            continue
        row_at = {r: i for i, r in enumerate(rows)}
        col_at = {c: j for j, c in enumerate(cols)}
        matrix = np.zeros((len(rows), len(cols)))
        for row, col, score in edges_by_component[k]:
            matrix[row_at[row], col_at[col]] = score
        picked_rows, picked_cols = linear_sum_assignment(matrix, maximize=True)
        for i, j in zip(picked_rows, picked_cols, strict=True):
            if matrix[i, j] > 0:
                chosen[rows[i]] = cols[j]
    return chosen
