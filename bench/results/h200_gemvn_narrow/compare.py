#!/usr/bin/env python3
"""compare.py PREFIX TREE[,TREE..] [--dir D] [--torch T.json] [--only SUBSTR]: per cell, each tree's best median over
the rounds in PREFIX_<tree><round>.json (in D, default this directory), the ratios to the first tree, PyTorch eager
(this directory's call2_torch.json unless --torch), and geometric means over every cell, over the held-out cells
(held_) and over the rest.
Example: python3 compare.py call2 old,new; python3 compare.py call3 old,new --dir ../h200_gemvn_rows4"""
import json, math, os, sys

here = os.path.dirname(os.path.abspath(__file__))
data = sys.argv[sys.argv.index("--dir") + 1] if "--dir" in sys.argv else here
prefix, trees = sys.argv[1], sys.argv[2].split(",")
torch_path = sys.argv[sys.argv.index("--torch") + 1] if "--torch" in sys.argv else os.path.join(here, "call2_torch.json")
only = sys.argv[sys.argv.index("--only") + 1] if "--only" in sys.argv else ""


def best(tree):
    out = {}
    for r in range(1, 6):
        p = os.path.join(data, "%s_%s%d.json" % (prefix, tree, r))
        if not os.path.exists(p):
            continue
        for x in json.load(open(p))["results"]:
            if "median" in x and x.get("correct", True):
                k = out.get(x["name"])
                if k is None or x["median"] < k[0]:
                    out[x["name"]] = (x["median"], x.get("kernel", ""))
    return out


T = {t: best(t) for t in trees}
torch = {x["name"]: x["median"] for x in json.load(open(torch_path))["results"] if x.get("impl") == "torch_eager" and "median" in x}
cells = sorted(c for c in T[trees[0]] if only in c and all(c in T[t] for t in trees))
print("%-34s" % "cell" + "".join("%9s" % t for t in trees) + "%9s" % "eager" +
      "".join("%9s" % (t + "/" + trees[0]) for t in trees[1:]) + "".join("  %s/eager" % t for t in trees) + "  kernel (" + trees[-1] + ")")
logs = {t: {"all": [], "held": [], "rest": []} for t in trees}
for c in cells:
    e = torch.get(c)
    row = "%-34s" % c[:34] + "".join("%9.4f" % T[t][c][0] for t in trees) + ("%9.4f" % e if e else "%9s" % "-")
    row += "".join("%9.3f" % (T[trees[0]][c][0] / T[t][c][0]) for t in trees[1:])
    row += "".join("%10.2f" % (e / T[t][c][0]) if e else "%10s" % "-" for t in trees)
    print(row + "  " + T[trees[-1]][c][1])
    for t in trees:
        if e:
            v = math.log(e / T[t][c][0])
            logs[t]["all"].append(v)
            logs[t]["held" if c.startswith("held_") else "rest"].append(v)
for t in trees:
    g = [math.log(T[trees[0]][c][0] / T[t][c][0]) for c in cells]
    s = "%s: %.3fx of %s over %d cells" % (t, math.exp(sum(g) / len(g)), trees[0], len(cells))
    for part in ("all", "held", "rest"):
        v = logs[t][part]
        if v:
            s += "; vs eager (%s) %.3fx, %d of %d at or above" % (part, math.exp(sum(v) / len(v)), sum(1 for x in v if x >= 0), len(v))
    print(s)
