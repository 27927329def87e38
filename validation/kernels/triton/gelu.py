# GELU (tanh form) in Triton, fused: one load of x, one store of y per element.
#
#   gelu(x) = 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3)))
#
# The CUDA twin is gelu_fused in lessons/06-operator-fusion/gelu.cu. tanh comes from libdevice,
# the same __nv_tanhf that CUDA's tanhf compiles to, so both kernels do the same arithmetic and
# move the same bytes; what differs is how the work is spread: BLOCK_SIZE elements per program,
# several per thread, loaded as vectors.
import triton
import triton.language as tl
from triton.language.extra import libdevice


@triton.jit
def gelu_kernel(x_ptr, y_ptr, n, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    inner = 0.7978845608 * (x + 0.044715 * x * x * x)  # sqrt(2/pi) = 0.7978845608
    y = 0.5 * x * (1.0 + libdevice.tanh(inner))
    tl.store(y_ptr + offsets, y, mask=mask)
