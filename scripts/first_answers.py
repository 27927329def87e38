#!/usr/bin/env python3
"""Records the model's first answers on a generalization set (issue 25).

    build/warplab validate --only '^g2\\.' --json v.json          # before any model change for it
    scripts/first_answers.py v.json gen2 [--note TEXT]

Adds (or replaces) the group's simulated times under the run's preset in
validation/data/first-answers.json (schema warplab.first-answers/1, read by lab/first_answers.h),
with the commit the simulator was built from (git rev-parse HEAD) and the date. Only points whose
corpus `group` is GROUP and that simulated are recorded.
"""
import argparse
import datetime
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PATH = os.path.join(ROOT, "validation", "data", "first-answers.json")

ap = argparse.ArgumentParser()
ap.add_argument("validate_json")
ap.add_argument("group")
ap.add_argument("--note", default="")
a = ap.parse_args()
with open(a.validate_json) as f:
    v = json.load(f)
times = {p["id"]: p["sim_us"] for p in v["points"] if p.get("group") == a.group and "sim_us" in p}
if not times:
    sys.exit("first_answers.py: no simulated point of group %s in %s" % (a.group, a.validate_json))
data = {"schema": "warplab.first-answers/1", "groups": {}}
if os.path.exists(PATH):
    with open(PATH) as f:
        data = json.load(f)
g = data["groups"].setdefault(a.group, {"time_us": {}})
g["commit"] = subprocess.check_output(["git", "-C", ROOT, "rev-parse", "HEAD"], text=True).strip()
g["date"] = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%MZ")
if a.note:
    g["note"] = a.note
g["time_us"][v["config"]] = {k: round(times[k], 3) for k in sorted(times)}
with open(PATH, "w") as f:
    json.dump(data, f, indent=1, sort_keys=True)
    f.write("\n")
print("%s: %d points of %s under %s" % (PATH, len(times), a.group, v["config"]))
