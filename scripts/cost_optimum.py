"""The cheapest fleet for a set of pods, by mixed-integer programming (HiGHS), for
`karpenter-bench cost --suite --optimum` (run through scripts/cost-optimum, which provides highspy).

Reads {"models": [{"name", "seconds", "types": [{"name", "cpu", "memory", "pods", "price",
"count"}], "shapes": [{"cpu", "memory", "pods", "count"}]}]} from the file named by its first
argument:
each type's allocatable (CPU in millicores, memory in MiB, pod slots) and $/h, `count` limiting
how many nodes of it there are (null: unlimited; existing nodes' free room is a type with price 0),
and the pods grouped by shape. Writes {"results": [{"name", "bound", "optimum", "found",
"status", "seconds"}]} to the file named by its second (stdout has HiGHS's banner).

Zones, when a model has them: each type may name its "zone", and a shape (then one workload's
pods) may carry "maxSkew", a topology spread over the zones: the counts of its pods in the zones
of the model's types differ by at most that much, as kube-scheduler and Karpenter read a
`topology.kubernetes.io/zone` spread (every zone a domain, empty ones too).

The program buys y_t nodes of each type t and puts n_ts pods of shape s on the nodes of type t:

    min  sum_t price_t y_t
    s.t. sum_s req_sr n_ts <= cap_tr y_t      every type t and resource r (CPU, memory, pods)
         n_ts <= fit_ts y_t                   fit_ts: how many pods of shape s one node of t holds
         sum_t n_ts = count_s                 every shape s
         y, n integer >= 0

It pools the capacity of the nodes of one type bought, so its optimum is a lower bound on every
packing of the pods on these types ("bound"; HiGHS's proven dual bound when the time runs out).
Nodes that exist already (a type with price 0 and a count) are not pooled: each is a bin of its
own, n_es pods of shape s on existing node e within its room, because pooling their fragments of
free room makes the bound unreachable when pods are about as large as one node's room. When the
pods it puts on each bought type do go onto that many nodes one by one (first fit, largest
first), the bound is met by a real packing and is the optimum ("optimum"; null otherwise).
"found" is the price of a real fleet for the best plan the solver has (null when it has none):
its pods put on each type's nodes that way, with more nodes of a type where they need them. The
optimum lies between "bound" and "found".
Affinities, host ports and spreads over other keys are not modelled: the caller leaves out mixes
that use them.
"""

import json
import sys
import time

import highspy

RESOURCES = ("cpu", "memory", "pods")


def undominated(types):
    """Drops types another one beats: as much of every resource for no more money."""
    kept = []
    for i, a in enumerate(types):
        dominated = False
        for j, b in enumerate(types):
            if (i == j or a["count"] is not None or b["count"] is not None
                    or a.get("zone") != b.get("zone")):
                continue
            at_least = all(b[r] >= a[r] for r in RESOURCES) and b["price"] <= a["price"]
            same = all(b[r] == a[r] for r in RESOURCES) and b["price"] == a["price"]
            if at_least and (not same or j < i):
                dominated = True
                break
        if not dominated:
            kept.append(a)
    return kept


def fit(shape, node):
    """How many pods of `shape` one node with allocatable `node` holds."""
    return int(min(node[r] // shape[r] for r in RESOURCES if shape[r] > 0))


def first_fit(counts, shapes, node, limit=None):
    """Puts the pods (counts per shape) on nodes of `node`'s size, first fit with the largest pods
    (by their largest share of the node) first, opening a node when none has room, up to `limit`
    nodes (None: no limit). Returns the nodes opened and the pods left over (counts per shape)."""
    order = sorted(range(len(shapes)),
                   key=lambda s: -max(shapes[s][r] / node[r] for r in RESOURCES if node[r] > 0))
    free = []
    left = list(counts)
    for s in order:
        need = [shapes[s][r] for r in RESOURCES]
        while left[s] > 0:
            room = next((room for room in free
                         if all(room[k] >= need[k] for k in range(3))), None)
            if room is None:
                if limit is not None and len(free) == limit:
                    break
                room = [node[r] for r in RESOURCES]
                free.append(room)
            copies = min([left[s]] + [int(room[k] // need[k]) for k in range(3) if need[k] > 0])
            for k in range(3):
                room[k] -= copies * need[k]
            left[s] -= copies
    return len(free), left


def packs_exactly(counts, shapes, node, nodes, seconds):
    """Whether the pods (counts per shape) go onto `nodes` nodes of `node`'s size, by a small
    integer program of its own (first fit misses packings that fill nodes to the last few
    percent); False when it finds none within `seconds`."""
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("time_limit", float(seconds))
    h.setOptionValue("threads", 1)
    used = [s for s in range(len(shapes)) if counts[s] > 0]
    column = {}
    for s in used:
        for b in range(nodes):
            column[s, b] = len(column)
            h.addCol(0.0, 0.0, float(counts[s]), 0, [], [])
            h.changeColIntegrality(column[s, b], highspy.HighsVarType.kInteger)
    for s in used:
        h.addRow(float(counts[s]), float(counts[s]), nodes, [column[s, b] for b in range(nodes)],
                 [1.0] * nodes)
    for b in range(nodes):
        for r in RESOURCES:
            h.addRow(-highspy.kHighsInf, float(node[r]), len(used),
                     [column[s, b] for s in used], [float(shapes[s][r]) for s in used])
    h.run()
    return h.getInfo().primal_solution_status == 2


def solve(model):
    started = time.monotonic()
    types = undominated(model["types"])
    shapes = model["shapes"]
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("time_limit", float(model.get("seconds", 10)))
    h.setOptionValue("mip_rel_gap", 1e-6)
    h.setOptionValue("threads", 1)
    inf = highspy.kHighsInf
    columns = 0

    def add_column(cost, upper):
        nonlocal columns
        h.addCol(cost, 0.0, upper, 0, [], [])
        h.changeColIntegrality(columns, highspy.HighsVarType.kInteger)
        columns += 1
        return columns - 1

    # Bought types (pooled) first, then one single-node "type" per existing node.
    existing = [t for t in types if t["count"] is not None and t["price"] == 0]
    bought = [t for t in types if not (t["count"] is not None and t["price"] == 0)]
    bins = bought + [dict(t, count=1) for t in existing for _ in range(int(t["count"]))]
    y = [add_column(t["price"], inf if t["count"] is None else float(t["count"])) for t in bins]
    for t in range(len(bought), len(bins)):
        h.changeColBounds(y[t], 1.0, 1.0)
    n = {}
    for t, node in enumerate(bins):
        for s, shape in enumerate(shapes):
            if fit(shape, node) > 0:
                n[t, s] = add_column(0.0, float(shape["count"]))
    for t, node in enumerate(bins):
        for r in RESOURCES:
            index = [n[t, s] for s in range(len(shapes)) if (t, s) in n and shapes[s][r] > 0]
            if not index:
                continue
            value = [float(shapes[s][r]) for s in range(len(shapes))
                     if (t, s) in n and shapes[s][r] > 0]
            h.addRow(-inf, 0.0, len(index) + 1, index + [y[t]], value + [-float(node[r])])
        for s, shape in enumerate(shapes):
            if (t, s) in n:
                h.addRow(-inf, 0.0, 2, [n[t, s], y[t]], [1.0, -float(fit(shape, node))])
    for s, shape in enumerate(shapes):
        index = [n[t, s] for t in range(len(bins)) if (t, s) in n]
        if not index:
            return {"name": model["name"], "bound": None, "optimum": None, "status": "infeasible",
                    "seconds": time.monotonic() - started}
        h.addRow(float(shape["count"]), float(shape["count"]), len(index), index,
                 [1.0] * len(index))
    zones = sorted({node["zone"] for node in bins if node.get("zone") is not None})
    for s, shape in enumerate(shapes):
        if shape.get("maxSkew") is None or not zones:
            continue
        # The fewest and most of its pods in a zone, at most maxSkew apart.
        low = add_column(0.0, float(shape["count"]))
        high = add_column(0.0, float(shape["count"]))
        h.addRow(-inf, float(shape["maxSkew"]), 2, [high, low], [1.0, -1.0])
        for zone in zones:
            index = [n[t, s] for t in range(len(bins))
                     if (t, s) in n and bins[t].get("zone") == zone]
            h.addRow(0.0, inf, len(index) + 1, index + [low], [1.0] * len(index) + [-1.0])
            h.addRow(-inf, 0.0, len(index) + 1, index + [high], [1.0] * len(index) + [-1.0])
    h.run()
    status = h.getModelStatus()
    info = h.getInfo()
    result = {"name": model["name"], "bound": info.mip_dual_bound, "optimum": None,
              "found": None, "status": h.modelStatusToString(status), "seconds": 0.0}
    if info.primal_solution_status == 2:  # a feasible plan, if not yet proven the best
        # The plan pools each type's nodes. The fleet that realizes it puts the pods on that many
        # nodes (first fit, else exactly), and what does not go on them onto the cheapest extra
        # nodes in that zone that hold it.
        values = h.getSolution().col_value
        found = 0.0
        exact = True
        for t, node in enumerate(bins):
            nodes = round(values[y[t]])
            found += node["price"] * nodes
            counts = [round(values[n[t, s]]) if (t, s) in n else 0 for s in range(len(shapes))]
            if sum(counts) == 0:
                continue
            _, left = first_fit(counts, shapes, node, nodes)
            if sum(left) == 0 or packs_exactly(counts, shapes, node, nodes, 5.0):
                continue
            exact = False
            extra = [first_fit(left, shapes, other)[0] * other["price"]
                     for other in bins[:len(bought)] if other.get("zone") == node.get("zone")
                     and all(fit(shapes[s], other) > 0 for s in range(len(shapes)) if left[s])]
            found += min(extra, default=float("inf"))
        result["found"] = found if found < float("inf") else None
        if exact and status == highspy.HighsModelStatus.kOptimal:
            result["optimum"] = info.objective_function_value
    result["seconds"] = time.monotonic() - started
    return result


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: cost_optimum.py MODELS.json RESULTS.json")
    with open(sys.argv[1], encoding="utf-8") as f:
        models = json.load(f)["models"]
    results = [solve(m) for m in models]
    with open(sys.argv[2], "w", encoding="utf-8") as f:
        json.dump({"results": results}, f)


if __name__ == "__main__":
    main()
