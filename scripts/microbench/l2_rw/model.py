#!/usr/bin/env python3
"""The simulator's answer on scripts/microbench/l2_rw.cu's launches (cold.toml, warm.toml).

  python3 scripts/microbench/l2_rw/model.py WARPLAB [CONFIG] > model.tsv

One row per launch: kernel, params (as l2_rw.cu prints them), mode, the model's kernel time (us,
no launch overhead), with the preset's launch overhead, DRAM bytes read and written."""
import json, os, subprocess, sys, tempfile

warplab = sys.argv[1]
config = sys.argv[2] if len(sys.argv) > 2 else "h100-sxm"
here = os.path.dirname(os.path.abspath(__file__))


def run(toml, sets, l2):
    with tempfile.NamedTemporaryFile(suffix=".json") as f:
        cmd = [warplab, "run", os.path.join(here, toml), "--config", config, "--threads", "1",
               "--l2", l2, "--no-line-counts", "-q", "--json", f.name]
        for s in sets:
            cmd += ["--set", s]
        subprocess.run(cmd, check=True)
        return json.load(open(f.name))["launches"]


print(f"# model: {config}, {warplab}")
print("kernel\tparams\tmode\tmodel_kernel_us\tmodel_us\tdram_read_MB\tdram_write_MB")
def row(name, prm, mode, l):
    s = l["sim"]
    print(f"{name}\t{prm}\t{mode}\t{s['kernel_time_us']:.2f}\t"
          f"{s['kernel_time_us'] + s['launch_overhead_us']:.2f}\t"
          f"{s['memory']['dram_bytes_read'] / 1e6:.2f}\t{s['memory']['dram_bytes_written'] / 1e6:.2f}",
          flush=True)

for mib in [4, 8, 16, 24, 32, 48, 64]:
    ls = run("cold.toml", [f"MiB={mib}"], "cold")
    for name, l in zip(["copy4", "read4", "write4"], ls[:3]):
        row(name, f"MiB={mib} grid=1056", "cold", l)
    if mib in (16, 32):
        n = mib * 65536
        row("copy4", f"MiB={mib} grid={n // 256}", "cold", ls[3])
        row("copy1flat", f"MiB={mib} grid={n * 4 // 256}", "cold", ls[4])
for stride in [1, 8, 32]:
    ls = run("warm.toml", [f"stride={stride}"], "warm")
    if stride == 1:
        for name, l in zip(["copy4", "read4", "write4"], ls[:3]):
            row(name, "region=8MiB n=4194304 grid=1056", "warm", l)
    for name, l in zip(["copy1", "read1", "write1"], ls[3:]):
        row(name, f"region=8MiB stride={stride} n=4194304 grid=1056", "warm", l)
