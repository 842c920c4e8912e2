"""scripts/cost_optimum.py against exhaustive search on tiny instances: its bound is never above
the cheapest packing, and an optimum it reports is that packing's price. Run by CTest through
scripts/cost-optimum --test (the Python with highspy)."""

import itertools
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
    def check(self, case, result, truth):
        """The solver's answer against the cheapest packing; whether it proved an optimum."""
        if truth == float("inf"):
            self.assertIsNone(result["optimum"], f"case {case}: {result}")
            return False
        self.assertLessEqual(result["bound"], truth + 1e-6, f"case {case}: {result}")
        # A real fleet for the solver's plan: never below the cheapest packing.
        self.assertIsNotNone(result["found"], f"case {case}: {result}")
        self.assertGreaterEqual(result["found"], truth - 1e-6, f"case {case}: {result}")
        if result["optimum"] is None:
            return False
        self.assertAlmostEqual(result["optimum"], truth, 6, f"case {case}: {result}")
        self.assertEqual(result["found"], result["optimum"], f"case {case}: {result}")
        return True

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
            optima += self.check(case, result, truth)
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
            self.check(case, result, truth)

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

    def test_zone_spreads_match_exhaustive_search(self):
        # Every way to put each pod in a zone that keeps its workload's spread, each zone then
        # packed on its own types: the cheapest of those is what the model must find.
        rng = random.Random(13)
        optima = 0
        for case in range(25):
            zones = ["a", "b", "c"][:rng.randint(2, 3)]
            types = [{"cpu": rng.randint(1, 4) * 1000, "memory": rng.randint(1, 8) * 1024,
                      "pods": 8, "price": round(rng.uniform(0.05, 1.0), 3), "count": None,
                      "zone": zone} for zone in zones for _ in range(rng.randint(1, 2))]
            shapes = [{"cpu": rng.randint(1, 20) * 100, "memory": rng.randint(1, 32) * 128,
                       "pods": 1, "count": rng.randint(1, 3), "maxSkew": rng.randint(0, 1) or None}
                      for _ in range(rng.randint(1, 2))]
            if sum(shape["count"] for shape in shapes) > 5:
                continue
            pods = [(s, shape) for s, shape in enumerate(shapes) for _ in range(shape["count"])]
            truth = float("inf")
            for placed in itertools.product(zones, repeat=len(pods)):
                spread = True
                for s, shape in enumerate(shapes):
                    counts = [sum(1 for (p, _), z in zip(pods, placed) if p == s and z == zone)
                              for zone in zones]
                    if shape["maxSkew"] is not None and max(counts) - min(counts) > 1:
                        spread = False
                if not spread:
                    continue
                truth = min(truth, sum(
                    cheapest_packing([shape for (_, shape), z in zip(pods, placed) if z == zone],
                                     [t for t in types if t["zone"] == zone])
                    for zone in zones))
            result = cost_optimum.solve({"name": str(case), "seconds": 10, "types": types,
                                         "shapes": shapes})
            optima += self.check(case, result, truth)
        self.assertGreater(optima, 5, "too few instances solved to optimality to test anything")

    def test_a_spread_costs_a_node_in_every_zone(self):
        # Three pods that one node holds, spread over three zones: three nodes, one a zone.
        types = [{"cpu": 4000, "memory": 8192, "pods": 8, "price": 0.1, "count": None,
                  "zone": zone} for zone in "abc"]
        shape = {"cpu": 1000, "memory": 1024, "pods": 1, "count": 3}
        free = cost_optimum.solve({"name": "free", "seconds": 10, "types": types,
                                   "shapes": [shape]})
        spread = cost_optimum.solve({"name": "spread", "seconds": 10, "types": types,
                                     "shapes": [dict(shape, maxSkew=1)]})
        self.assertAlmostEqual(free["optimum"], 0.1, 6)
        self.assertAlmostEqual(spread["optimum"], 0.3, 6)

    def test_dominated_types_are_dropped_but_limited_ones_kept(self):
        small = {"cpu": 2000, "memory": 4096, "pods": 10, "price": 0.2, "count": None}
        dearer = dict(small, price=0.3)
        existing = dict(small, price=0.5, count=2)
        kept = cost_optimum.undominated([small, dearer, existing])
        self.assertEqual(kept, [small, existing])


if __name__ == "__main__":
    unittest.main()
