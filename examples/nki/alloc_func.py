# Direct allocation with ncc.sbuf.alloc(func): the allocation function maps
# each logical block index to a physical tile (start_partition, byte_addr).
# npukit's example in the spirit of the NKI direct allocation guide
# (Beta 1 API): a tensor with four logical tiles placed back to back, and
# two tensors from an allocator factory that hands out successive address
# ranges.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.compiler as ncc


def back_to_back(idx, pdim_size, fdim_size):
  # one physical tile per logical tile, side by side in the free dimension
  (i,) = idx
  return (0, i * fdim_size)


class Bump:
  """Hands out consecutive byte ranges of every partition."""

  def __init__(self, start):
    self.next_addr = start

  def reserve(self, total_bytes):
    base = self.next_addr
    self.next_addr += total_bytes

    def place(idx, pdim_size, fdim_size):
      (i,) = idx
      return (0, base + i * fdim_size)

    return place


@nki.jit
def alloc_func_kernel(x):
  # x: (4 * 128, 512) bfloat16
  out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
  tiles = nl.ndarray((4, nl.par_dim(128), 512), dtype=x.dtype,
                     buffer=ncc.sbuf.alloc(back_to_back))
  # after `tiles` (4 x 1 KiB per partition) the bump allocator starts at 4096
  bump = Bump(4 * 512 * 2)
  t0 = nl.ndarray((4, nl.par_dim(128), 512), dtype=x.dtype,
                  buffer=ncc.sbuf.alloc(bump.reserve(4 * 512 * 2)))
  t1 = nl.ndarray((4, nl.par_dim(128), 512), dtype=x.dtype,
                  buffer=ncc.sbuf.alloc(bump.reserve(4 * 512 * 2)))
  for i in nl.affine_range(4):
    tiles[i] = nl.load(x[i * 128:(i + 1) * 128, :])
    t0[i] = nl.exp(tiles[i])
    t1[i] = nl.multiply(t0[i], 2.0)
    nl.store(out[i * 128:(i + 1) * 128, :], value=t1[i])
  return out
