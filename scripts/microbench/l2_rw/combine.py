import csv, sys
import os; sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from parse import load
# argv: the model tsv (model.py), the request's results folder (times.tsv, ncu-cold.csv, ncu-warm.csv)
R = sys.argv[2].rstrip("/") + "/"
ev = [l.rstrip("\n").split("\t") for l in open(R + "times.tsv") if not l.startswith("#")]
model = {}
for l in open(sys.argv[1]):
    if l.startswith("#") or l.startswith("kernel"): continue
    f = l.rstrip("\n").split("\t"); model[(f[0], f[1], f[2])] = f[3:]
cold = load(R + "ncu-cold.csv"); warm = load(R + "ncu-warm.csv")
def key(d):
    return (d["kernel"].replace("l2rw_", ""), d["grid"].split(",")[0].strip("("))
# ncu rows in launch order: map to event rows by kernel+grid in order of appearance (skipping ncu-less sizes)
nc = {}
ci = iter(cold); wi = iter(warm)
for e in ev:
    k, prm, mode = e[0], e[1], e[2]
    mib = prm.split()[0]
    if mode == "cold" and mib in ("MiB=4", "MiB=24", "MiB=48"): continue
    d = next(ci) if mode == "cold" else next(wi)
    assert d["kernel"] == "l2rw_" + k, (d["kernel"], k)
    nc[(k, prm, mode)] = d
hdr = ["kernel", "params", "mode", "event_us", "event_min_us", "model_first_kernel_us", "model_first_us",
       "model_first_dram_write_MB", "ncu_duration_us", "ncu_dram_read_MB", "ncu_dram_write_MB",
       "ncu_lts_sectors_read", "ncu_lts_sectors_write", "ncu_lts_requests_read", "ncu_lts_requests_write",
       "ncu_lts_tag_requests", "ncu_tag_pct", "ncu_xbar2lts_pct", "ncu_lts_throughput_pct", "ncu_dram_pct", "ncu_lts_clock_GHz"]
print("\t".join(hdr))
for e in ev:
    k, prm, mode = e[0], e[1], e[2]
    m = model.get((k, prm, mode), ["", "", "", ""])
    row = [k, prm, mode, e[3], e[4], m[0], m[1], m[3]]
    d = nc.get((k, prm, mode))
    if d:
        g = lambda n: d.get(n, "")
        row += [f"{g('gpu__time_duration.sum')/1000:.2f}", f"{g('dram__bytes_read.sum')/1e6:.2f}", f"{g('dram__bytes_write.sum')/1e6:.2f}",
                f"{g('lts__t_sectors_op_read.sum'):.0f}", f"{g('lts__t_sectors_op_write.sum'):.0f}",
                f"{g('lts__t_requests_srcunit_tex_op_read.sum'):.0f}", f"{g('lts__t_requests_srcunit_tex_op_write.sum'):.0f}",
                f"{g('lts__t_tag_requests.sum'):.0f}", f"{g('lts__t_tag_requests.avg.pct_of_peak_sustained_elapsed'):.1f}",
                f"{g('lts__xbar2lts_cycles_active.avg.pct_of_peak_sustained_elapsed'):.1f}",
                f"{g('lts__throughput.avg.pct_of_peak_sustained_elapsed'):.1f}", f"{g('dram__throughput.avg.pct_of_peak_sustained_elapsed'):.1f}",
                f"{g('lts__cycles_elapsed.avg.per_second')/1e9:.3f}"]
    else:
        row += [""] * 13
    print("\t".join(row))
