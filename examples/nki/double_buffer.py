# Double buffering with ncc.sbuf.mod_alloc: eight logical tiles rotate over
# two physical tiles (base_addr + (i % 2) * bytes per tile), so the load of
# one block can overlap the exponential of the previous one. npukit's
# example in the spirit of the NKI direct allocation guide (Beta 1 API).
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.compiler as ncc


@nki.jit
def double_buffer_kernel(x):
  # x: (8 * 128, 512) bfloat16
  n = x.shape[0] // 128
  out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
  inp = nl.ndarray((n, nl.par_dim(128), 512), dtype=x.dtype,
                   buffer=ncc.sbuf.mod_alloc(base_addr=0, num_free_tiles=(2,)))
  res = nl.ndarray((n, nl.par_dim(128), 512), dtype=x.dtype,
                   buffer=ncc.sbuf.mod_alloc(base_addr=2048, num_free_tiles=(2,)))
  for i in nl.affine_range(n):
    inp[i] = nl.load(x[i * 128:(i + 1) * 128, :])
    res[i] = nl.exp(inp[i])
    nl.store(out[i * 128:(i + 1) * 128, :], value=res[i])
  return out
