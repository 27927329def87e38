#!/usr/bin/env python3
"""The latency microbenchmarks (chains.cu, loops.cu) on the simulator beside the H100's figures.

    python3 scripts/microbench/latency/sim_compare.py [--config h200] [--warplab build/warplab]

Runs lessons/calibration/latency_{chains,loops,walk}.toml and prints, per row of
scripts/microbench/h100-latency-2026-11-26.csv, the simulator's cycles per op beside the H100's.
Chains: a launch's simulated cycles / links (its fixed start, about 300-400 cycles, is included:
0.3-0.4 cycles per link); loops: the slope between trip counts 1024 and 2048; walks: cycles / 256
steps. (The simulator reads %clock64 when it fetches an instruction, ahead of the issue, so the
kernels' own stamps are not used.)
"""
import argparse, csv, json, os, subprocess, sys, tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
CAL = os.path.join(ROOT, "lessons", "calibration")


def run(warplab, toml, config, extra=()):
    with tempfile.NamedTemporaryFile(suffix=".json") as f:
        subprocess.run([warplab, "run", toml, "--config", config, "--no-line-counts", "-q",
                        "--json", f.name, *extra], check=True)
        return [l["sim"]["cycles"] for l in json.load(open(f.name))["launches"]]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="h100-sxm")
    ap.add_argument("--warplab", default=os.path.join(ROOT, "build", "warplab"))
    a = ap.parse_args()
    h100 = {}
    for row in csv.reader(open(os.path.join(ROOT, "scripts", "microbench", "h100-latency-2026-11-26.csv"))):
        if len(row) < 5 or row[1].startswith("#") or row[1] in ("class", "kernel"):
            continue
        if row[0] == "chains":
            h100[("chains", row[1], row[4])] = float(row[5])
        elif row[0] == "loops":
            h100[("loops", row[1], row[3], row[2])] = float(row[4])
    print(f"{'benchmark':34s} {'sim':>8s} {'H100':>8s}")
    cyc = run(a.warplab, os.path.join(CAL, "latency_chains.toml"), a.config)
    i = 0
    for name in ["alu", "imad", "ffma", "mufu", "shfl", "match", "vote", "lds"]:
        for warps in (4, 8, 16):
            links = 2048 if name == "alu" else 1024
            print(f"chains {name:6s} {warps:2d} warps{'':15s} {cyc[i] / links:8.2f} "
                  f"{h100.get(('chains', name, str(warps)), float('nan')):8.2f}")
            i += 1
    for warps in (1, 2, 3, 4, 8, 16):
        print(f"chains bar    {warps:2d} warps{'':15s} {cyc[i] / 1024:8.2f} "
              f"{h100.get(('chains', 'bar', str(warps)), float('nan')):8.2f}")
        i += 1
    loops = os.path.join(CAL, "latency_loops.toml")
    text = open(loops).read().replace("init = { constant = 1024 }", "init = { constant = 2048 }")
    with tempfile.NamedTemporaryFile("w", suffix=".toml", dir=CAL) as t:
        t.write(text)
        t.flush()
        c1, c2 = run(a.warplab, loops, a.config), run(a.warplab, t.name, a.config)
    i = 0
    for name in ["loop_runtime", "loop_nounroll", "loop_const"]:
        for warps in (4, 8, 16):
            # loop_const's trip count is a constant: its cycles / 1024 (start included).
            per = c1[i] / 1024 if name == "loop_const" else (c2[i] - c1[i]) / 1024
            print(f"loops {name:14s} {warps:2d} warps{'':6s} {per:8.2f} "
                  f"{h100.get(('loops', name, str(warps), 'n=1024'), float('nan')):8.2f}")
            i += 1
    walk = os.path.join(CAL, "latency_walk.toml")
    for chunk in (1, 32, 256):
        for warps in (1, 4, 32):
            for l2 in ("cold", "warm"):
                c = run(a.warplab, walk, a.config,
                        ("--set", f"CHUNK={chunk}", "--set", f"W={warps}", "--l2", l2))[0]
                print(f"walk_{l2} chunk {chunk:4d} {warps:2d} warps{'':6s} {c / 256:8.2f} "
                      f"{h100.get(('loops', 'walk_' + l2, str(warps), f'chunk={chunk}'), float('nan')):8.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
