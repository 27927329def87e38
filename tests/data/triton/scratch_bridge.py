#!/usr/bin/env python3
"""A stand-in for lab/triton_bridge.py in tests/522: answers as the bridge does, without Triton,
with scratch_kernel.ptx and metadata that asks for 128 bytes of global scratch memory per
program (the case Triton produces for device-side TMA descriptors on sm_90, which needs Triton
and a target the simulator cannot run yet)."""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
if len(sys.argv) > 1 and sys.argv[1] == "--version":
    print(json.dumps({"ok": True, "triton_version": "3.9.0", "python": sys.version.split()[0]}))
    sys.exit(0)
req = json.loads(sys.stdin.read())
if req.get("function") != "scratch_kernel":
    print(json.dumps({"ok": False, "error": "no @triton.jit function '%s'" % req.get("function"),
                      "file": req.get("file"), "line": 0}))
    sys.exit(0)
with open(os.path.join(HERE, "scratch_kernel.ptx")) as f:
    ptx = f.read()
print(json.dumps({"ok": True, "ptx": ptx, "name": "scratch_kernel", "shared": 0,
                  "num_warps": req.get("num_warps", 1), "num_stages": 1, "target": 80,
                  "global_scratch_size": int(os.environ.get("SCRATCH_SIZE", "128")),
                  "global_scratch_align": int(os.environ.get("SCRATCH_ALIGN", "128")),
                  "profile_scratch_size": 0, "profile_scratch_align": 1,
                  "params": ["out_ptr", "n"], "constexpr_params": [], "triton_version": "3.9.0"}))
