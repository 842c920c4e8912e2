"""scripts/cost_optimum.py against exhaustive search on tiny instances: its bound is never above
the cheapest packing, and an optimum it reports is that packing's price. Run by CTest through
scripts/cost-optimum --test (the Python with highspy)."""

import os
import random
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "scripts"))
import cost_optimum  # noqa: E402  (after the path is set)

RESOURCES = cost_optimum.RESOURCES


def cheapest_packing(pods, types, existing=()):
    """The least total price over every partition of the pods into nodes, each node the cheapest
    type its pods fit on (unlimited types), or one of the `existing` nodes (their free room, for
    nothing)."""
    def node_price(group):
        need = [sum(p[r] for p in group) for r in RESOURCES]
        prices = [t["price"] for t in types if all(need[k] <= t[r] for k, r in enumerate(RESOURCES))]
        return min(prices) if prices else float("inf")

    best = float("inf")
    rooms = [[node[r] for r in RESOURCES] for node in existing]

    def place(i, groups):
        nonlocal best
        if i == len(pods):
            best = min(best, sum(node_price(g) for g in groups))
            return
        need = [pods[i][r] for r in RESOURCES]
        for room in rooms:
            if all(need[k] <= room[k] for k in range(len(RESOURCES))):
                for k in range(len(RESOURCES)):
                    room[k] -= need[k]
                place(i + 1, groups)
                for k in range(len(RESOURCES)):
                    room[k] += need[k]
        for g in groups:
            g.append(pods[i])
            place(i + 1, groups)
            g.pop()
        groups.append([pods[i]])
        place(i + 1, groups)
        groups.pop()

    place(0, [])
    return best


class CostOptimumTest(unittest.TestCase):
    def test_bound_and_optimum_match_exhaustive_search(self):
        rng = random.Random(7)
        optima = 0
        for case in range(40):
            types = [{"name": f"t{i}", "cpu": rng.randint(1, 8) * 1000,
                      "memory": rng.randint(1, 16) * 1024, "pods": rng.randint(2, 8),
                      "price": round(rng.uniform(0.05, 1.0), 3), "count": None}
                     for i in range(rng.randint(1, 3))]
            shapes = [{"cpu": rng.randint(1, 40) * 100, "memory": rng.randint(1, 64) * 128,
                       "pods": 1, "count": rng.randint(1, 3)} for _ in range(rng.randint(1, 3))]
            pods = [s for s in shapes for _ in range(s["count"])]
            truth = cheapest_packing(pods, types)
            result = cost_optimum.solve({"name": str(case), "seconds": 10, "types": types,
                                         "shapes": shapes})
            if truth == float("inf"):
                self.assertIsNone(result["optimum"], f"case {case}: {result}")
                continue
            self.assertLessEqual(result["bound"], truth + 1e-6, f"case {case}: {result}")
            if result["optimum"] is not None:
                optima += 1
                self.assertAlmostEqual(result["optimum"], truth, 6, f"case {case}: {result}")
        self.assertGreater(optima, 10, "too few instances solved to optimality to test anything")

    def test_existing_nodes_are_bins_of_their_own(self):
        rng = random.Random(11)
        for case in range(30):
            types = [{"name": "bought", "cpu": rng.randint(2, 8) * 1000,
                      "memory": rng.randint(2, 16) * 1024, "pods": 8,
                      "price": round(rng.uniform(0.05, 1.0), 3), "count": None}]
            room = {"name": "existing", "cpu": rng.randint(1, 4) * 500,
                    "memory": rng.randint(1, 8) * 512, "pods": 4, "price": 0.0,
                    "count": rng.randint(1, 3)}
            shapes = [{"cpu": rng.randint(1, 20) * 100, "memory": rng.randint(1, 32) * 128,
                       "pods": 1, "count": rng.randint(1, 3)} for _ in range(rng.randint(1, 2))]
            pods = [s for s in shapes for _ in range(s["count"])]
            truth = cheapest_packing(pods, types, [room] * room["count"])
            result = cost_optimum.solve({"name": str(case), "seconds": 10,
                                         "types": types + [room], "shapes": shapes})
            if truth == float("inf"):
                self.assertIsNone(result["optimum"], f"case {case}: {result}")
                continue
            self.assertLessEqual(result["bound"], truth + 1e-6, f"case {case}: {result}")
            if result["optimum"] is not None:
                self.assertAlmostEqual(result["optimum"], truth, 6, f"case {case}: {result}")

    def test_the_free_room_of_existing_nodes_is_not_pooled(self):
        # Two nodes with 1 CPU free each hold one of the pods (700m, 700m, 550m) each: pooled,
        # their 2 CPUs would take all three (1.95 CPUs, at most one of a shape per node) and the
        # bound would be 0.
        bought = {"name": "bought", "cpu": 4000, "memory": 8192, "pods": 8, "price": 0.5,
                  "count": None}
        room = {"name": "existing", "cpu": 1000, "memory": 4096, "pods": 4, "price": 0.0,
                "count": 2}
        result = cost_optimum.solve({"name": "pool", "seconds": 10, "types": [bought, room],
                                     "shapes": [{"cpu": 700, "memory": 512, "pods": 1,
                                                 "count": 2},
                                                {"cpu": 550, "memory": 512, "pods": 1,
                                                 "count": 1}]})
        self.assertAlmostEqual(result["bound"], 0.5, 6)
        self.assertAlmostEqual(result["optimum"], 0.5, 6)

    def test_dominated_types_are_dropped_but_limited_ones_kept(self):
        small = {"cpu": 2000, "memory": 4096, "pods": 10, "price": 0.2, "count": None}
        dearer = dict(small, price=0.3)
        existing = dict(small, price=0.5, count=2)
        kept = cost_optimum.undominated([small, dearer, existing])
        self.assertEqual(kept, [small, existing])


if __name__ == "__main__":
    unittest.main()
