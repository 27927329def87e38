#!/usr/bin/env python3
"""WarpLab's bridge to Triton: compiles one @triton.jit function to PTX, JSON in and JSON out.

WarpLab (C++) runs this script as a child process (lab/triton.cpp); no Python is embedded in the
C++. Triton compiles without a GPU: triton.compile() on an ASTSource for a GPUTarget ("cuda", 90
or 80) runs the whole pipeline (Python AST -> Triton IR -> TritonGPU IR -> LLVM IR -> PTX) and the
bundled ptxas; WarpLab keeps the PTX (the cubin is not used: the simulator and the real GPU run the
same PTX) and the metadata the launcher needs.

Usage:
  python3 triton_bridge.py < request.json > reply.json   # compile
  python3 triton_bridge.py --version                     # {"ok": true, "triton_version": ...}

Request (one JSON object on stdin):
  file         the .py file that defines the kernel (its directory is put on sys.path)
  function     the @triton.jit function's name
  args         one entry per parameter that is not a constexpr, in order:
               {"type": "*fp32" | "i32" | "fp32" | ..., "divisible_by_16": bool}
               (divisible_by_16: the pointer is 16-byte aligned or the integer a multiple of 16,
               the specialization Triton's launcher makes from the values it is called with)
  constexprs   {"BLOCK_SIZE": 1024, ...}: every tl.constexpr parameter without a default
  num_warps    warps per program (block = 32 * num_warps threads); default 4
  num_stages   software-pipelining depth of loops; default 3
  target       compute capability: 90 (PTX .target sm_90a) or 80 (sm_80); default 90
  ptx_version  the highest PTX ISA version to stamp on the PTX (90 = ".version 9.0", what CUDA
               13.0's nvJitLink and driver read); default 90, lowered to what Triton's own
               ptxas for the target reads (its sm_80 ptxas is older). Triton otherwise stamps
               the version of its newest bundled ptxas, which an older toolkit refuses.
  enable_fp_fusion  contract a * b + c into fma (Triton's default: true)

Reply (one JSON object on stdout; exit status 0 either way). The PTX is Triton's, less the .loc
lines inside inline-asm blocks (drop_inline_asm_locs says why).
  {"ok": true, "ptx": "...", "name": "add_kernel", "shared": 0, "num_warps": 4, "num_stages": 3,
   "global_scratch_size": 0, "global_scratch_align": 1, "profile_scratch_size": 0,
   "profile_scratch_align": 1, "params": ["x_ptr", ...], "constexpr_params": ["BLOCK_SIZE"],
   "triton_version": "3.9.0", "target": 90, "seconds": 0.4}
  shared: dynamic shared memory bytes the launch must give (the PTX declares it extern).
  The PTX's parameters are the non-constexpr arguments, then two pointers Triton 3.x appends:
  global scratch (global_scratch_size bytes per program, 0 = may be null) and profile scratch.
  {"ok": false, "error": "...", "file": "k.py", "line": 12}         a compile error at k.py:12
  {"ok": false, "missing": "triton", "error": "..."}                Triton is not installed
"""
import json
import os
import sys
import time


def reply(obj):
    sys.stdout.write(json.dumps(obj))
    sys.stdout.write("\n")
    sys.stdout.flush()


def triton_version():
    try:
        from importlib import metadata
        return metadata.version("triton")
    except Exception:  # not installed (or installed without metadata)
        return None


def line_in_file(path, src, lineno):
    """The line of `path` that line `lineno` of a function's source `src` stands on (0 if unknown)."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError:
        return 0
    at = text.find(src.strip("\n"))
    if at < 0 or lineno is None:
        return 0
    return text.count("\n", 0, at) + lineno


def error_location(exc, path):
    """file:line of a Triton CompilationError chain: the innermost one whose function is in `path`."""
    best = 0
    seen = set()
    e = exc
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        node = getattr(e, "node", None)
        src = getattr(e, "src", None)
        if src and node is not None and hasattr(node, "lineno"):
            line = line_in_file(path, src, node.lineno)
            if line:
                best = line
        e = e.__cause__ or e.__context__
    if not best:  # a Python error while importing or running the kernel's module
        import traceback
        for frame in traceback.extract_tb(exc.__traceback__):
            if os.path.abspath(frame.filename) == os.path.abspath(path):
                best = frame.lineno or 0
        if isinstance(exc, SyntaxError) and exc.filename and \
                os.path.abspath(exc.filename) == os.path.abspath(path):
            best = exc.lineno or 0
    return best


def error_text(exc):
    """The message a student needs: Triton's own (with its source excerpt), and the root cause."""
    parts = []
    e = exc
    seen = set()
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        msg = getattr(e, "error_message", None)
        if msg is None and not hasattr(e, "node"):
            msg = "%s: %s" % (type(e).__name__, e)
        if msg:
            parts.append(str(msg))
        e = e.__cause__ or e.__context__
    if not parts:
        parts.append("%s: %s" % (type(exc).__name__, exc))
    return parts[-1]


def drop_inline_asm_locs(ptx):
    """Drops the .loc lines inside Triton's inline-asm blocks ("// begin inline asm" to "// end
    inline asm"). LLVM gives each line of an inline-asm string its own .loc, one source line
    further down each time: the four movs of a vector load at line 18 come out at lines 18, 19,
    20 and 21 (past the end of a short file, even), which would send per-line counts to the wrong
    .py lines. Without them the block's instructions take the .loc before it, the tl.load or
    tl.store that made them."""
    out = []
    inside = False
    for line in ptx.split("\n"):
        stripped = line.strip()
        if stripped.startswith("// begin inline asm"):
            inside = True
        elif stripped.startswith("// end inline asm"):
            inside = False
        elif inside and stripped.startswith(".loc"):
            continue
        out.append(line)
    return "\n".join(out)


def load_function(path, name):
    import importlib.util
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    spec = importlib.util.spec_from_file_location("warplab_triton_kernel", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    from triton.runtime.jit import JITFunction
    kernels = sorted(k for k, v in vars(module).items() if isinstance(v, JITFunction))
    fn = getattr(module, name, None)
    if not isinstance(fn, JITFunction):
        raise LookupError("no @triton.jit function '%s' in %s (it defines: %s)" %
                          (name, path, ", ".join(kernels) or "none"))
    return fn


def compile_request(req):
    path = req["file"]
    started = time.time()
    os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
    # Triton's own cache keys a kernel by its function's source, not its file: a copy of a kernel
    # in another file would come back with the first file's .file line (and .loc lines that name
    # it). WarpLab caches by file and source itself (lab/triton.h), so Triton always compiles.
    os.environ["TRITON_ALWAYS_COMPILE"] = "1"
    try:
        import triton
        from triton.backends.compiler import GPUTarget
    except ImportError as e:
        return {"ok": False, "missing": "triton",
                "error": "Triton is not installed for %s (%s): pip install triton" %
                         (sys.executable, e)}
    try:
        fn = load_function(path, req["function"])
    except LookupError as e:
        return {"ok": False, "error": str(e), "file": path, "line": 0}
    except Exception as e:
        return {"ok": False, "error": "%s: %s" % (type(e).__name__, e), "file": path,
                "line": error_location(e, path)}

    names = list(fn.arg_names)
    is_const = [p.is_constexpr for p in fn.params]
    runtime = [n for n, c in zip(names, is_const) if not c]
    const_params = [n for n, c in zip(names, is_const) if c]
    base = {"params": runtime, "constexpr_params": const_params, "file": path,
            "triton_version": triton.__version__}
    def_line = line_in_file(path, fn.src, 1)

    def fail(msg, line=def_line):
        out = dict(base)
        out.update({"ok": False, "error": msg, "line": line})
        return out

    args = req.get("args", [])
    constexprs = dict(req.get("constexprs", {}))
    if len(args) != len(runtime):
        return fail("%s takes %d argument%s besides its constexprs (%s); %d given" %
                    (fn.__name__, len(runtime), "" if len(runtime) == 1 else "s",
                     ", ".join(runtime) or "none", len(args)))
    for k in constexprs:
        if k not in const_params:
            return fail("'%s' is not a tl.constexpr parameter of %s (its constexprs: %s)" %
                        (k, fn.__name__, ", ".join(const_params) or "none"))
    defaults = {p.name: p.default for p in fn.params}
    import inspect
    for k in const_params:
        if k not in constexprs:
            if defaults.get(k, inspect.Parameter.empty) is inspect.Parameter.empty:
                return fail("constexpr '%s' of %s has no value (give it in constexprs)" %
                            (k, fn.__name__))
            constexprs[k] = defaults[k]
    signature = {}
    attrs = {}
    for i, n in enumerate(names):
        if is_const[i]:
            signature[n] = "constexpr"
    for k, (n, a) in enumerate(zip(runtime, args)):
        signature[n] = a["type"]
        if a.get("divisible_by_16"):
            attrs[(names.index(n), )] = [["tt.divisibility", 16]]
    target = int(req.get("target", 90))
    ptx_version = int(req.get("ptx_version", 90))
    try:  # never above what Triton's own ptxas for this target reads (sm_80: an older one)
        from triton.backends.nvidia import compiler as nv
        ptx_version = min(ptx_version, nv.ptx_get_version(nv.get_ptxas(target).version))
    except Exception:
        pass
    options = {"num_warps": int(req.get("num_warps", 4)), "num_stages": int(req.get("num_stages", 3)),
               "ptx_version": ptx_version,
               "enable_fp_fusion": bool(req.get("enable_fp_fusion", True))}
    try:
        src = triton.compiler.ASTSource(fn, signature, constexprs, attrs)
        k = triton.compile(src, target=GPUTarget("cuda", target, 32), options=options)
    except Exception as e:
        return fail("Triton could not compile %s: %s" % (fn.__name__, error_text(e)),
                    error_location(e, path) or def_line)
    md = k.metadata
    out = dict(base)
    out.update({
        "ok": True, "ptx": drop_inline_asm_locs(k.asm["ptx"]), "name": md.name, "shared": int(md.shared),
        "num_warps": int(md.num_warps), "num_stages": int(md.num_stages), "target": target,
        "global_scratch_size": int(getattr(md, "global_scratch_size", 0) or 0),
        "global_scratch_align": int(getattr(md, "global_scratch_align", 1) or 1),
        "profile_scratch_size": int(getattr(md, "profile_scratch_size", 0) or 0),
        "profile_scratch_align": int(getattr(md, "profile_scratch_align", 1) or 1),
        "seconds": round(time.time() - started, 3),
    })
    return out


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--version":
        v = triton_version()
        reply({"ok": v is not None, "triton_version": v, "python": sys.version.split()[0],
               **({} if v else {"missing": "triton", "error": "Triton is not installed for " +
                                sys.executable + ": pip install triton"})})
        return
    try:
        req = json.loads(sys.stdin.read())
        if not isinstance(req, dict) or "file" not in req or "function" not in req:
            raise ValueError("expected an object with 'file' and 'function'")
    except ValueError as e:
        reply({"ok": False, "error": "bad request: %s" % e, "line": 0})
        return
    # Triton prints warnings and its own progress on stdout/stderr: keep stdout for the reply.
    real_stdout = sys.stdout
    sys.stdout = sys.stderr
    try:
        out = compile_request(req)
    except Exception as e:  # a bug here or in Triton: still one JSON reply
        out = {"ok": False, "error": "%s: %s" % (type(e).__name__, e), "file": req.get("file"),
               "line": 0}
    sys.stdout = real_stdout
    reply(out)


if __name__ == "__main__":
    main()
