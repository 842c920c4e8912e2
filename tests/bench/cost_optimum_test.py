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


def cheapest_packing(pods, types):
    """The least total price over every partition of the pods into nodes, each node the cheapest
    type its pods fit on (unlimited types)."""
    def node_price(group):
        need = [sum(p[r] for p in group) for r in RESOURCES]
        prices = [t["price"] for t in types if all(need[k] <= t[r] for k, r in enumerate(RESOURCES))]
        return min(prices) if prices else float("inf")

    best = float("inf")

    def place(i, groups):
        nonlocal best
        if i == len(pods):
            best = min(best, sum(node_price(g) for g in groups))
            return
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

    def test_dominated_types_are_dropped_but_limited_ones_kept(self):
        small = {"cpu": 2000, "memory": 4096, "pods": 10, "price": 0.2, "count": None}
        dearer = dict(small, price=0.3)
        existing = dict(small, price=0.5, count=2)
        kept = cost_optimum.undominated([small, dearer, existing])
        self.assertEqual(kept, [small, existing])


if __name__ == "__main__":
    unittest.main()
