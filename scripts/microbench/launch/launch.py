#!/usr/bin/env python3
"""Launch + block-ramp table (issue 24) from launch.toml's two runs.

    python3 launch.py GPU.json SIM.json > h100-launch-DATE.tsv

GPU.json: warplab run launch.toml --backend gpu --l2 cold --counters --json GPU.json (the GPU's
CUDA-event median of 20 timed launches, and its own kernel duration counter, gpu__time_duration);
SIM.json: warplab run launch.toml --json SIM.json (the timing model's kernel time, cycles / clock,
and the launch term it adds). One row per kernel, grid and block size:

    launch_us = gpu_event_us - model_kernel_us

is what a launch costs beyond what the model's SMs do: configs/h100-sxm.toml's [core]
launch_overhead_us, which tests/321_launch_term.cpp checks against this table (the median over the
empty kernel's rows, to 0.1 us).
"""
import json
import sys


def rows(path, side):
    d = json.load(open(path))
    out = {}
    for l in d["launches"]:
        key = (l["kernel"], l["grid"][0], l["block"][0])
        s = l.get(side) or {}
        if side == "gpu":
            c = (s.get("counters") or {}).get("values") or {}
            out[key] = (s.get("time_us"), s.get("min_us"), c.get("gpu_time_ns"))
        else:
            out[key] = (s.get("kernel_time_us"), s.get("time_us"), s.get("cycles"))
    return out


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: launch.py GPU.json SIM.json")
    gpu, sim = rows(sys.argv[1], "gpu"), rows(sys.argv[2], "sim")
    print("kernel\tblocks\tthreads\tgpu_event_us\tgpu_min_us\tgpu_duration_us\tmodel_kernel_us"
          "\tmodel_time_us\tlaunch_us")
    for key in sorted(gpu, key=lambda k: (k[0], k[2], k[1])):
        ev, mn, dur = gpu[key]
        k, t, _ = sim.get(key, (None, None, None))
        f = lambda v, p=3: "-" if v is None else f"{v:.{p}f}"
        print(f"{key[0]}\t{key[1]}\t{key[2]}\t{f(ev)}\t{f(mn)}\t{f(None if dur is None else dur / 1000)}"
              f"\t{f(k)}\t{f(t)}\t{f(None if ev is None or k is None else ev - k)}")


if __name__ == "__main__":
    main()
