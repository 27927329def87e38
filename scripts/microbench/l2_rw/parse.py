import csv, sys, collections
def load(p):
    rows = [r for r in csv.reader(open(p)) if len(r) > 10 and r[0] != "ID"]
    by = collections.OrderedDict()
    for r in rows:
        d = by.setdefault(r[0], {"kernel": r[4], "grid": r[8]})
        d[r[12]] = float(r[14].replace(",", "")) if r[14].replace(",", "").replace(".", "").isdigit() else r[14]
    return list(by.values())
short = {"gpu__time_duration.sum": "ns", "dram__bytes_read.sum": "dramR", "dram__bytes_write.sum": "dramW",
 "lts__t_tag_requests.sum": "tags", "lts__t_tag_requests.avg.pct_of_peak_sustained_elapsed": "tag%",
 "lts__t_sectors_op_read.sum": "secR", "lts__t_sectors_op_write.sum": "secW",
 "lts__t_requests_srcunit_tex_op_read.sum": "reqR", "lts__t_requests_srcunit_tex_op_write.sum": "reqW",
 "lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum": "missR", "lts__t_sectors_srcunit_tex_op_write_lookup_miss.sum": "missW",
 "lts__t_sectors.avg.pct_of_peak_sustained_elapsed": "sec%", "lts__throughput.avg.pct_of_peak_sustained_elapsed": "lts%",
 "dram__throughput.avg.pct_of_peak_sustained_elapsed": "dram%", "lts__cycles_elapsed.avg": "ltscyc", "lts__d_sectors.avg.pct_of_peak_sustained_elapsed": "d%",
 "lts__xbar2lts_cycles_active.avg.pct_of_peak_sustained_elapsed": "x2l%", "lts__cycles_elapsed.avg.per_second": "ltsHz"}
if __name__ == "__main__":
    for p in sys.argv[1:]:
        print("##", p)
        ks = list(short)
        print("kernel grid " + " ".join(short[k] for k in ks))
        for d in load(p):
            out = []
            for k in ks:
                v = d.get(k, "")
                if isinstance(v, float):
                    if k.startswith("dram__bytes"): v = f"{v/1e6:.2f}M"
                    elif k == "lts__cycles_elapsed.avg.per_second": v = f"{v/1e9:.3f}G"
                    elif v >= 1e5: v = f"{v/1e3:.0f}k"
                    else: v = f"{v:.4g}"
                out.append(str(v))
            print(d["kernel"], d["grid"].replace(" ", ""), " ".join(out))
