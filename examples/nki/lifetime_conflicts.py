# The two lifetime conflicts the NKI direct allocation guide warns about,
# as npukit's own kernels (Beta 1 API), and the fix of the second:
#  - overlap_kernel: t0's two physical tiles cover bytes [0, 2048) of every
#    partition and t1's cover [1024, 3072); both tensors are alive at once
#    (disjoint_kernel moves t1 to [2048, 4096));
#  - too_few_tiles_kernel: eight logical tiles are loaded in one loop and
#    all read in a second, but only two physical tiles back them;
#  - blocked_kernel: the tensor is declared per outer iteration with two
#    tiles, each dead before the next iteration reuses its place.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.compiler as ncc


def overlapping(x, t1_base):
  # x: (2 * 128, 512) bfloat16. Both blocks of t0 and of t1 stay alive
  # until the second loop adds them.
  out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
  t0 = nl.ndarray((2, nl.par_dim(128), 512), dtype=x.dtype,
                  buffer=ncc.sbuf.mod_alloc(base_addr=0, num_free_tiles=(2,)))
  t1 = nl.ndarray((2, nl.par_dim(128), 512), dtype=x.dtype,
                  buffer=ncc.sbuf.mod_alloc(base_addr=t1_base, num_free_tiles=(2,)))
  s = nl.ndarray((2, nl.par_dim(128), 512), dtype=x.dtype,
                 buffer=ncc.sbuf.mod_alloc(base_addr=8192, num_free_tiles=(2,)))
  for i in nl.affine_range(2):
    t0[i] = nl.load(x[i * 128:(i + 1) * 128, :])
    t1[i] = nl.exp(t0[i])
  for i in nl.affine_range(2):
    s[i] = nl.add(t0[i], t1[i])
    nl.store(out[i * 128:(i + 1) * 128, :], value=s[i])
  return out


@nki.jit
def overlap_kernel(x):
  # t0 covers bytes [0, 2048), t1 [1024, 3072): t0[1] and t1[0] collide
  return overlapping(x, 1024)


@nki.jit
def disjoint_kernel(x):
  # the fix: t1 starts where t0 ends
  return overlapping(x, 2048)


@nki.jit
def too_few_tiles_kernel(x):
  # x: (8 * 128, 512) bfloat16
  out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
  t = nl.ndarray((8, nl.par_dim(128), 512), dtype=x.dtype,
                 buffer=ncc.sbuf.mod_alloc(base_addr=0, num_free_tiles=(2,)))
  r = nl.ndarray((8, nl.par_dim(128), 512), dtype=x.dtype,
                 buffer=ncc.sbuf.mod_alloc(base_addr=4096, num_free_tiles=(2,)))
  for i in nl.affine_range(8):
    t[i] = nl.load(x[i * 128:(i + 1) * 128, :])
  # all eight tiles of t must still be alive here
  for i in nl.affine_range(8):
    r[i] = nl.exp(t[i])
    nl.store(out[i * 128:(i + 1) * 128, :], value=r[i])
  return out


@nki.jit
def blocked_kernel(x):
  # x: (8 * 128, 512) bfloat16
  out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
  for j in nl.affine_range(4):
    t = nl.ndarray((2, nl.par_dim(128), 512), dtype=x.dtype,
                   buffer=ncc.sbuf.mod_alloc(base_addr=0, num_free_tiles=(2,)))
    r = nl.ndarray((2, nl.par_dim(128), 512), dtype=x.dtype,
                   buffer=ncc.sbuf.mod_alloc(base_addr=4096, num_free_tiles=(2,)))
    for i in nl.affine_range(2):
      row = (j * 2 + i) * 128
      t[i] = nl.load(x[row:row + 128, :])
      r[i] = nl.exp(t[i])
      nl.store(out[row:row + 128, :], value=r[i])
  return out
