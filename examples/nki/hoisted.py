# Where a tensor is declared decides how many of its tiles can be alive:
# declared inside the loop, each iteration gets a fresh tensor at the same
# address (one tile, the iterations serialise); hoisted above the loop with
# a block dimension and one physical tile per block, the iterations can
# overlap. npukit's example in the spirit of the NKI direct allocation
# guide's first best practice (Beta 1 API).
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.compiler as ncc


@nki.jit
def in_loop_kernel(x):
  # x: (8 * 128, 512) bfloat16
  out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
  for i in nl.affine_range(8):
    t = nl.ndarray((nl.par_dim(128), 512), dtype=x.dtype,
                   buffer=ncc.sbuf.mod_alloc(base_addr=0))
    t[...] = nl.load(x[i * 128:(i + 1) * 128, :])
    nl.store(out[i * 128:(i + 1) * 128, :], value=t)
  return out


@nki.jit
def hoisted_kernel(x):
  # x: (8 * 128, 512) bfloat16
  out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
  t = nl.ndarray((8, nl.par_dim(128), 512), dtype=x.dtype,
                 buffer=ncc.sbuf.mod_alloc(base_addr=0, num_free_tiles=(8,)))
  for i in nl.affine_range(8):
    t[i] = nl.load(x[i * 128:(i + 1) * 128, :])
    nl.store(out[i * 128:(i + 1) * 128, :], value=t[i])
  return out
