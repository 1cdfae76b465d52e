# The direct allocation guide's common errors and known limitations, as
# npukit's own small kernels (Beta 1 API). Each breaks one rule; the
# compiler rejects all of them.
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.compiler as ncc


@nki.jit
def mixed_kernel(x):
  # an instruction result bound to a name is a new, automatically
  # allocated tensor: not allowed once the kernel allocates directly
  out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
  r = nl.ndarray((nl.par_dim(128), 512), dtype=x.dtype,
                 buffer=ncc.sbuf.mod_alloc(base_addr=0))
  t = nl.load(x)
  r[...] = nl.exp(t)
  nl.store(out, value=r)
  return out


@nki.jit
def softmax_kernel(x):
  # nl.softmax lowers to several instructions whose intermediate tensors
  # cannot be allocated by the kernel
  out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
  t = nl.ndarray((nl.par_dim(128), 512), dtype=x.dtype,
                 buffer=ncc.sbuf.mod_alloc(base_addr=0))
  r = nl.ndarray((nl.par_dim(128), 512), dtype=x.dtype,
                 buffer=ncc.sbuf.mod_alloc(base_addr=1024))
  t[...] = nl.load(x)
  r[...] = nl.softmax(t, axis=1)
  nl.store(out, value=r)
  return out


@nki.jit
def transpose_kernel(x):
  # a transpose on TensorE multiplies by an identity matrix the compiler
  # creates, which the kernel cannot allocate
  out = nl.ndarray((128, 128), dtype=x.dtype, buffer=nl.shared_hbm)
  t = nl.ndarray((nl.par_dim(128), 128), dtype=x.dtype,
                 buffer=ncc.sbuf.mod_alloc(base_addr=0))
  p = nl.ndarray((nl.par_dim(128), 128), dtype=x.dtype,
                 buffer=ncc.psum.mod_alloc(base_bank=0))
  r = nl.ndarray((nl.par_dim(128), 128), dtype=x.dtype,
                 buffer=ncc.sbuf.mod_alloc(base_addr=256))
  t[...] = nl.load(x)
  p[...] = nisa.nc_transpose(t, engine=nisa.tensor_engine)
  r[...] = nl.copy(p)
  nl.store(out, value=r)
  return out


@nki.jit
def scratch_hbm_kernel(x):
  # an HBM tensor that is not the kernel's output
  out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
  scratch = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.hbm)
  t = nl.ndarray((nl.par_dim(128), 512), dtype=x.dtype,
                 buffer=ncc.sbuf.mod_alloc(base_addr=0))
  t[...] = nl.load(x)
  nl.store(scratch, value=t)
  nl.store(out, value=t)
  return out


@nki.jit
def psum_bank_kernel(a, b):
  # a 512-column fp32 PSUM tile is a whole 2 KiB bank: starting it at
  # byte 1024 runs it into the next bank
  out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
  sa = nl.ndarray((nl.par_dim(128), 128), dtype=a.dtype,
                  buffer=ncc.sbuf.mod_alloc(base_addr=0))
  sb = nl.ndarray((nl.par_dim(128), 512), dtype=b.dtype,
                  buffer=ncc.sbuf.mod_alloc(base_addr=256))
  acc = nl.ndarray((nl.par_dim(128), 512), dtype=nl.float32,
                   buffer=ncc.psum.alloc(lambda idx, pdim_size, fdim_size: (0, 0, 1024)))
  res = nl.ndarray((nl.par_dim(128), 512), dtype=nl.float32,
                   buffer=ncc.sbuf.mod_alloc(base_addr=4096))
  sa[...] = nl.load(a)
  sb[...] = nl.load(b)
  acc[...] = nisa.nc_matmul(sa, sb)
  res[...] = nl.copy(acc)
  nl.store(out, value=res)
  return out
