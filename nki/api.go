package nki

import (
	"fmt"
	"github.com/npukit/npukit/internal/humanize"
	"strings"

	"github.com/npukit/npukit/nki/python"
)

// The stand-ins for the NKI modules. Facts from the public NKI API
// reference (neuronxcc.nki.language / isa / compiler for Beta 1, nki.* for
// the current API): tile_size constants, buffers, dtypes, the output shapes
// of instructions, and the direct-allocation API of the direct allocation
// guide (spec 002).

var dtypes = []string{"float32", "bfloat16", "float16", "int8", "uint8", "int16", "uint16", "int32", "uint32",
	"tfloat32", "float8_e4m3", "float8_e5m2", "float8_e3m4", "float32r", "bool_", "float64", "int64", "uint64",
	// current API (nki.language dtypes): OCP float8, and the MX types
	// (scale exponent, and four values packed in one element)
	"float8_e4m3fn", "float8_e8m0fnu", "float4_e2m1fn_x4", "float8_e4m3fn_x4", "float8_e5m2_x4"}

// tileSizes are nl.tile_size (NKI API reference; total_available_sbuf_size
// is 192 KiB - 16 KiB, the documented NeuronCore-v2 figure, whatever the
// target, as the corpus tracer has it unless a manifest's "constants"
// say otherwise; psum_bank_fmax and psum_num_banks: the Neuron 2.30+
// reference, a bank is 2 KiB of FP32 and there are 8).
var tileSizes = map[string]int64{"pmax": 128, "psum_fmax": 512, "gemm_stationary_fmax": 128, "gemm_moving_fmax": 512,
	"bn_stats_fmax": 512, "total_available_sbuf_size": 180224, "psum_partition_size": 128,
	"psum_bank_fmax": 512, "psum_bank_fmax_bytes": 2048, "psum_num_banks": 8}

func (in *interp) nlModule(name string) *Module {
	m := &Module{Name: name, Attrs: map[string]Value{}}
	for _, d := range dtypes {
		m.Attrs[d] = DType(d)
	}
	m.Attrs["bool"] = DType("bool_")
	// nl.fp32 is the float32 limits namespace (nl.fp32.min is its most
	// negative finite value)
	m.Attrs["fp32"] = &Module{Name: "nl.fp32", Attrs: map[string]Value{"min": -3.4028234663852886e38, "max": 3.4028234663852886e38}}
	for _, b := range []string{"sbuf", "psum", "hbm", "shared_hbm", "private_hbm"} {
		m.Attrs[b] = &BufferVal{Kind: b}
	}
	ts := &Module{Name: "nl.tile_size", Attrs: map[string]Value{}}
	for k, v := range tileSizes {
		ts.Attrs[k] = v
	}
	for k, v := range in.tr.constants {
		if name, ok := strings.CutPrefix(k, "nl.tile_size."); ok {
			ts.Attrs[name] = v
		}
	}
	m.Attrs["tile_size"] = ts
	m.Attrs["finfo"] = bi("nl.finfo", nlFinfo)
	m.Attrs["NKIObject"] = &Class{Name: "NKIObject", Attrs: map[string]Value{}}
	m.Attrs["par_dim"] = bi("nl.par_dim", func(c *callCtx) Value { return &ParDim{N: c.int(0, "size")} })
	m.Attrs["affine_range"] = bi("nl.affine_range", func(c *callCtx) Value { return c.in.tr.makeRange(c, "affine_range") })
	m.Attrs["sequential_range"] = bi("nl.sequential_range", func(c *callCtx) Value { return c.in.tr.makeRange(c, "sequential_range") })
	m.Attrs["static_range"] = bi("nl.static_range", func(c *callCtx) Value { return c.in.tr.makeRange(c, "static_range") })
	m.Attrs["arange"] = bi("nl.arange", func(c *callCtx) Value {
		r := c.in.tr.makeRange(c, "arange").(*RangeVal)
		return &Grid{Shape: []int64{r.Len()}}
	})
	m.Attrs["mgrid"] = &mgridVal{}
	m.Attrs["ds"] = bi("nl.ds", func(c *callCtx) Value {
		return &DSlice{Start: c.need(0, "start"), Size: c.int(1, "size")}
	})
	m.Attrs["program_id"] = bi("nl.program_id", func(c *callCtx) Value {
		ax := c.int(0, "axis")
		c.in.tr.pidQueries[ax]++
		if ax >= 0 && int(ax) < len(c.in.tr.programID) {
			return c.in.tr.programID[ax]
		}
		if ax >= 0 && int(ax) < len(c.in.tr.grid) {
			return int64(0) // a grid without program_id: the first program
		}
		// which program this is along an axis the launch grid does not
		// have is not given (the corpus tracer refuses it too)
		c.in.fail(c.pos, "nl.program_id", "axis %d of a launch grid with %s: give the launch grid (--grid 2,2 and --program-id on the command line, or grid and program_id in a manifest entry)", ax, humanize.Plural(len(c.in.tr.grid), "dimension"))
		return nil
	})
	m.Attrs["num_programs"] = bi("nl.num_programs", func(c *callCtx) Value {
		g := c.in.tr.grid
		if !c.has(0, "axes") {
			n := int64(1)
			for _, x := range g {
				n *= x
			}
			return n
		}
		ax := c.int(0, "axes")
		if ax >= 0 && int(ax) < len(g) {
			return g[ax]
		}
		return int64(1)
	})
	for _, k := range []string{"is_hbm", "is_on_chip", "is_psum", "is_sbuf"} {
		k := k
		m.Attrs[k] = bi("nl."+k, func(c *callCtx) Value {
			b, ok := c.need(0, "buffer").(*BufferVal)
			if !ok {
				c.fail("argument is not a buffer")
			}
			switch k {
			case "is_hbm":
				return strings.HasSuffix(b.Kind, "hbm")
			case "is_on_chip":
				return !strings.HasSuffix(b.Kind, "hbm")
			}
			return b.Kind == strings.TrimPrefix(k, "is_")
		})
	}
	m.Attrs["no_reorder"] = bi("nl.no_reorder", func(c *callCtx) Value { return nil })
	for _, k := range []string{"dynamic_range", "fori_loop", "while_loop"} {
		k := k
		m.Attrs[k] = bi("nl."+k, func(c *callCtx) Value {
			c.fail("loops with runtime trip counts are not modelled by npukit")
			return nil
		})
	}
	m.Attrs["program_ndim"] = bi("nl.program_ndim", func(c *callCtx) Value { return int64(len(c.in.tr.grid)) })
	m.Attrs["device_print"] = bi("nl.device_print", func(c *callCtx) Value { return nil })
	m.Attrs["random_seed"] = bi("nl.random_seed", func(c *callCtx) Value { return nil })
	m.Attrs["dtype"] = &typeVal{Name: "nl.dtype", Fn: func(c *callCtx) Value { return DType(str(c.need(0, "name"))) }}
	for _, d := range []string{"ndarray", "zeros", "ones", "full", "rand", "zeros_like", "empty_like", "ones_like", "shared_constant", "shared_identity_matrix"} {
		d := d
		m.Attrs[d] = bi("nl."+d, func(c *callCtx) Value { return c.in.tr.declareCall(c, d) })
	}
	for fn := range nlOps {
		fn := fn
		m.Attrs[fn] = bi("nl."+fn, func(c *callCtx) Value { return c.in.tr.op(c, "nl."+fn, nlOps[fn]) })
	}
	return m
}

// nlOps maps nl functions to their output-shape rule.
var nlOps = map[string]string{
	"load": "src", "copy": "src", "store": "store", "load_transpose2d": "transpose2d", "matmul": "matmul", "transpose": "transpose",
	"exp": "unary", "log": "unary", "rsqrt": "unary", "sqrt": "unary", "square": "unary", "tanh": "unary", "sigmoid": "unary",
	"relu": "unary", "gelu": "unary", "gelu_apprx_tanh": "unary", "gelu_apprx_sigmoid": "unary", "silu": "unary", "negative": "unary",
	"abs": "unary", "reciprocal": "unary", "softmax": "unary", "dropout": "unary", "erf": "unary", "sign": "unary", "invert": "unary",
	"add": "binary", "subtract": "binary", "multiply": "binary", "divide": "binary", "maximum": "binary", "minimum": "binary",
	"power": "binary", "equal": "binary", "not_equal": "binary", "greater": "binary", "greater_equal": "binary", "less": "binary",
	"less_equal": "binary", "logical_and": "binary", "logical_or": "binary", "bitwise_and": "binary", "bitwise_or": "binary",
	"sum": "reduce", "max": "reduce", "min": "reduce", "mean": "reduce", "prod": "reduce", "all": "reduce",
	"broadcast_to": "broadcast_to", "loop_reduce": "loop_reduce", "where": "where",
	// the rest of nki.language's elementwise functions (NKI API reference)
	"arctan": "unary", "ceil": "unary", "cos": "unary", "sin": "unary", "tan": "unary", "floor": "unary", "trunc": "unary",
	"softplus": "unary", "mish": "unary", "silu_dx": "unary", "gelu_dx": "unary", "gelu_apprx_sigmoid_dx": "unary",
	"erf_dx": "unary", "logical_not": "unary",
	"abs_max": "binary", "abs_min": "binary", "bitwise_xor": "binary", "fmod": "binary", "mod": "binary",
	"left_shift": "binary", "right_shift": "binary", "logical_xor": "binary",
	"var": "reduce", "rms_norm": "loop_reduce", // rms_norm's result has the shape of x
}

// nisaOps maps nisa instructions to their output-shape rule (Beta 1
// returns the result; the current API writes dst).
var nisaOps = map[string]string{
	"nc_matmul": "nc_matmul", "nc_transpose": "nc_transpose", "activation": "data", "activation_reduce": "data",
	"tensor_tensor": "tensor_tensor", "tensor_scalar": "data", "tensor_reduce": "reduce", "tensor_copy": "src",
	"reciprocal": "data", "tensor_tensor_scan": "data0", "bn_stats": "bn_stats", "bn_aggr": "bn_aggr", "memset": "memset",
	"iota": "iota", "affine_select": "affine_select", "scalar_tensor_tensor": "data", "tensor_scalar_reduce": "data",
	"dma_copy": "dma", "dma_transpose": "dma", "tensor_partition_reduce": "data", "range_select": "data",
	"nc_stream_shuffle": "dma", "select_reduce": "data", "exponential": "data", "tensor_copy_predicated": "dma",
	// current-API instructions that write dst= (and possibly other output
	// operands) and return nothing (NKI ISA reference, nki.isa)
	"max8": "current", "nc_find_index8": "current", "nc_match_replace8": "current", "activate2": "current",
	"dropout": "current", "local_gather": "current", "nc_n_gather": "current", "nonzero_with_count": "current",
	"quantize_mx": "current", "nc_matmul_mx": "current", "tensor_scalar_cumulative": "current",
	"sequence_bounds": "current", "topk": "current", "rng": "current", "rand2": "current",
	"dma_compute": "current", "rand_get_state": "current", "set_rng_seed": "current", "rand_set_state": "current",
}

// outputOperands are the parameter names under which current-API
// instructions take the tensors they write (nki.isa signatures: dst, and
// reduce_res, dst_idx, val_dst/idx_dst, dsts, dst_scale).
var outputOperands = map[string]bool{"dst": true, "reduce_res": true, "dst_idx": true, "val_dst": true,
	"idx_dst": true, "dsts": true, "dst_scale": true}

// currentParams are the leading positional parameters of current-API
// instructions whose outputs are not just the first parameter dst (nki.isa
// signatures), so that positional operands are told apart.
var currentParams = map[string][]string{
	"activate2":            {"dst", "op", "data", "imm0", "imm1", "op0", "op1", "relu_param", "reverse0", "reverse1", "reduce_op", "reduce_res"},
	"activation":           {"dst", "op", "data", "bias", "scale", "reduce_op", "reduce_res"},
	"activation_reduce":    {"dst", "op", "data", "reduce_op", "reduce_res"},
	"exponential":          {"dst", "src", "max_value", "reduce_res"},
	"nc_match_replace8":    {"dst", "data", "vals", "imm", "dst_idx"},
	"quantize_mx":          {"dst", "src", "dst_scale"},
	"range_select":         {"dst", "on_true_tile", "comp_op0", "comp_op1", "bound0", "bound1", "reduce_cmd", "reduce_res"},
	"select_reduce":        {"dst", "predicate", "on_true", "on_false", "reduce_res"},
	"tensor_scalar_reduce": {"dst", "data", "op0", "operand0", "reduce_op", "reduce_res"},
	"topk":                 {"val_dst", "idx_dst", "src"},
	"set_rng_seed":         {"src_seeds"},
	"rand_set_state":       {"src_seeds"},
}

// currentKwargs are the documented keyword parameters of current-API
// instructions that kernels are known to misuse (tracing with any other
// keyword is an error, as on the real frontend).
var currentKwargs = map[string][]string{
	"tensor_copy": {"dst", "src", "engine", "name"},
}

type mgridVal struct{}

func (in *interp) nisaModule(name string) *Module {
	m := &Module{Name: name, Attrs: map[string]Value{}}
	for fn := range nisaOps {
		fn := fn
		m.Attrs[fn] = bi("nisa."+fn, func(c *callCtx) Value { return c.in.tr.op(c, "nisa."+fn, nisaOps[fn]) })
	}
	ver := &Class{Name: "nc_version", Attrs: map[string]Value{}, Enum: true}
	for i, g := range []string{"gen1", "gen2", "gen3", "gen4"} {
		ver.Attrs[g] = &enumMember{Class: ver, Name: g, Value: int64(i + 1)}
	}
	m.Attrs["nc_version"] = ver
	m.Attrs["get_nc_version"] = bi("nisa.get_nc_version", func(c *callCtx) Value {
		c.in.tr.ncQueries++
		v := c.in.tr.ncVersion
		if v == "" {
			v = "gen2"
		}
		if e, ok := ver.Attrs[v]; ok {
			return e
		}
		c.fail("unknown NeuronCore version %q", v)
		return nil
	})
	for _, e := range []string{"tensor_engine", "vector_engine", "scalar_engine", "gpsimd_engine", "sync_engine", "unknown_engine"} {
		m.Attrs[e] = "engine:" + strings.TrimSuffix(e, "_engine")
	}
	m.Attrs["engine"] = &Module{Name: name + ".engine", Attrs: map[string]Value{"tensor": "engine:tensor", "vector": "engine:vector",
		"scalar": "engine:scalar", "gpsimd": "engine:gpsimd", "sync": "engine:sync", "unknown": "engine:unknown", "activation": "engine:scalar"}}
	rc := &Module{Name: name + ".reduce_cmd", Attrs: map[string]Value{}}
	for _, k := range []string{"idle", "reset", "reset_reduce", "reduce", "load_reduce"} {
		rc.Attrs[k] = "reduce_cmd:" + k
	}
	m.Attrs["reduce_cmd"] = rc
	// the remaining enumerations of nki.isa (current API): their members
	// are options of DMA and matmul instructions, compared by name
	for cls, members := range map[string][]string{
		"dge_mode": {"hwdge", "none", "swdge", "unknown"}, "oob_mode": {"error", "skip"},
		"matmul_perf_mode": {"double_row", "none"}, "dma_engine": {"dma", "gpsimd_dma"},
	} {
		e := &Module{Name: name + "." + cls, Attrs: map[string]Value{}}
		for _, k := range members {
			e.Attrs[k] = cls + ":" + k
		}
		m.Attrs[cls] = e
	}
	m.Attrs["engine"].(*Module).Attrs["dma"] = "engine:dma"
	m.Attrs["get_nc_sub_version"] = bi("nisa.get_nc_sub_version", func(c *callCtx) Value { return int64(0) })
	// documented instructions whose effect depends on other cores or on
	// runtime register values: importable, refused when called. sendrecv
	// fills dst with data another core sends (nki.isa.sendrecv, a
	// cross-core transfer); the corpus tracer refuses it as it refuses
	// core_barrier (nki-library's rmsnorm_tkg/layernorm_tkg with
	// shard_on_h=True exchange partial sums this way)
	for _, k := range []string{"core_barrier", "sendrecv", "register_alloc", "register_load", "register_move", "register_store"} {
		k := k
		m.Attrs[k] = bi("nisa."+k, func(c *callCtx) Value {
			c.fail("not modelled by npukit (cross-core synchronisation or runtime register values)")
			return nil
		})
	}
	return m
}

func (in *interp) nccModule(name string) *Module {
	mk := func(buf string) *Module {
		return &Module{Name: name + "." + buf, Attrs: map[string]Value{
			"alloc": bi(buf+".alloc", func(c *callCtx) Value {
				return &BufferVal{Kind: buf, Alloc: buf + ".alloc", Func: c.need(0, "func")}
			}),
			"mod_alloc":  bi(buf+".mod_alloc", func(c *callCtx) Value { return c.in.tr.modAlloc(c, buf) }),
			"auto_alloc": bi(buf+".auto_alloc", func(c *callCtx) Value { return &BufferVal{Kind: buf} }),
		}}
	}
	deco := bi(name+".decorator", func(c *callCtx) Value {
		if len(c.args) == 1 {
			if _, ok := c.args[0].(*Func); ok {
				return c.args[0]
			}
		}
		return bi("decorator", func(c2 *callCtx) Value { return c2.need(0, "f") })
	})
	return &Module{Name: name, Attrs: map[string]Value{
		"sbuf": mk("sbuf"), "psum": mk("psum"),
		"skip_middle_end_transformations": deco, "enable_stack_allocator": deco, "force_auto_alloc": deco,
		"no_reorder": bi(name+".no_reorder", func(c *callCtx) Value { return nil }),
	}}
}

// modAlloc records mod_alloc arguments (direct allocation guide, spec 002).
func (t *tracer) modAlloc(c *callCtx, buf string) Value {
	args := map[string]Value{}
	names := []string{"base_addr", "base_partition", "num_par_tiles", "num_free_tiles"}
	if buf == "psum" {
		names = []string{"base_bank", "base_addr", "base_partition", "num_bank_tiles", "num_par_tiles", "num_free_tiles"}
	}
	for i, n := range names {
		v := c.arg(i, n, nil)
		if v == nil {
			if strings.HasPrefix(n, "num_") {
				v = Tuple{}
			} else {
				v = int64(0)
			}
		}
		if l, ok := v.(*List); ok {
			v = Tuple(l.Items)
		}
		args[n] = v
	}
	for _, k := range c.kw {
		found := false
		for _, n := range names {
			if n == k.Name {
				found = true
			}
		}
		if !found {
			c.fail("unexpected keyword %q", k.Name)
		}
	}
	return &BufferVal{Kind: buf, Alloc: buf + ".mod_alloc", Args: args}
}

func (t *tracer) makeRange(c *callCtx, kind string) Value {
	var start, stop, step int64 = 0, 0, 1
	ints := func(i int, name string) int64 {
		v := c.arg(i, name, nil)
		n, ok := asInt(v)
		if !ok {
			if _, sym := v.(*Sym); sym {
				c.in.fail(c.pos, kind+" bound", "depends on a symbolic loop index")
			}
			c.fail("bound of type %s", typeName(v))
		}
		return n
	}
	switch {
	case len(c.args) >= 3:
		start, stop, step = ints(0, "start"), ints(1, "stop"), ints(2, "step")
	case len(c.args) == 2:
		start, stop = ints(0, "start"), ints(1, "stop")
	case len(c.args) == 1:
		stop = ints(0, "stop")
	default:
		if c.has(-1, "stop") {
			stop = ints(-1, "stop")
			if c.has(-1, "start") {
				start = ints(-1, "start")
			}
		} else {
			c.fail("range without a stop")
		}
	}
	if step == 0 {
		c.in.raise(c.pos, "ValueError", "range() arg 3 must not be zero")
	}
	sym := t.api == "beta1" && (kind == "affine_range" || kind == "sequential_range")
	precise, _ := c.arg(-1, "precise_schedule", false).(bool)
	return &RangeVal{Kind: kind, Start: start, Stop: stop, Step: step, Symbolic: sym, Precise: precise}
}

// ---- attributes and items of NKI values ----

func (t *tracer) attr(in *interp, obj Value, name string, pos python.Pos) (Value, bool) {
	switch o := obj.(type) {
	case *Tensor, *View, *Tile:
		shape, _ := shapeOf(o)
		if tile, ok := o.(*Tile); ok && tile.Rec == nil && (name == "ap" || name == "reshape" || name == "astype" || name == "view") {
			// a view of a result (index-case-3 in the SDK examples:
			// in_tile = nl.load(...); in_tile.ap([...]); or at once:
			// nl.max(t, axis=2).reshape(...)) uses it as a tile, as
			// indexing it does: the result is written to a tile of its
			// own, which the view reads
			t.materialize(in, tile, pos)
		}
		switch name {
		case "shape":
			return shapeTuple(shape), true
		case "dtype":
			return dtypeOf(o), true
		case "ndim":
			return int64(len(shape)), true
		case "buffer":
			return &BufferVal{Kind: bufferOf(o)}, true
		case "broadcast_to":
			return bi("tile.broadcast_to", func(c *callCtx) Value {
				s, _, _ := c.in.shapeArg(c.need(0, "shape"), c.node, "broadcast_to")
				return c.in.tr.result(c, "tile.broadcast_to", s, dtypeOf(o), "sbuf", "given shape", []Value{o})
			}), true
		case "reshape":
			return bi("tensor.reshape", func(c *callCtx) Value {
				arg := c.need(0, "shape")
				if len(c.args) > 1 {
					arg = Tuple(c.args)
				}
				s, _, _ := c.in.shapeArg(arg, c.node, "reshape")
				if prod(s) != prod(shape) {
					c.fail("cannot reshape %v to %v", shape, s)
				}
				base := baseTensor(o)
				if base == nil {
					c.fail("reshape of an unbound tile")
				}
				v := &View{T: base, Shape: s, DType: dtypeOf(o)}
				if _, whole := o.(*Tensor); whole {
					v.Run = prod(s) // a reshape of a whole tensor is contiguous
				}
				return v
			}), true
		case "astype":
			return bi("tensor.astype", func(c *callCtx) Value {
				d, ok := c.need(0, "dtype").(DType)
				if !ok {
					c.fail("astype of a non-dtype")
				}
				base := baseTensor(o)
				return &View{T: base, Shape: shape, DType: d}
			}), true
		case "itemsize":
			return int64(dtypeOf(o).Size()), true
		case "ap":
			// t.ap(pattern=[[step, count], ...], offset=...): an access
			// pattern over the tensor (current API); its shape is the
			// counts, the first pair being the partitions. Which elements
			// it touches is not modelled: it stands for the whole tensor.
			return bi("tensor.ap", func(c *callCtx) Value {
				var dims []int64
				for _, pair := range c.in.iterate(c.need(0, "pattern"), c.node) {
					items := c.in.iterate(pair, c.node)
					if len(items) != 2 {
						c.fail("an access pattern entry is [step, count]")
					}
					n, ok := asInt(items[1])
					if !ok || n < 0 {
						c.fail("access pattern count %s is not a non-negative integer known at trace time", repr(items[1]))
					}
					dims = append(dims, n)
				}
				if len(dims) == 0 || prod(dims) > 1<<40 {
					c.fail("access pattern of shape %v", dims)
				}
				base := baseTensor(o)
				if base == nil {
					c.fail("access pattern of an unbound tile")
				}
				dt := dtypeOf(o)
				if d, ok := c.arg(-1, "dtype", nil).(DType); ok {
					dt = d
				}
				return &View{T: base, Shape: dims, DType: dt}
			}), true
		case "view":
			// t.view(dtype): the same bytes read as another dtype (numpy's
			// view: the last dimension scales by the itemsize ratio); the
			// SDK's double_row_gen3 matmul test reads float32-typed inputs
			// as float8_e5m2. Other views are not modelled.
			return bi("tensor.view", func(c *callCtx) Value {
				d, ok := c.need(0, "dtype").(DType)
				if !ok {
					c.fail("only view(dtype) is modelled, not view(%s)", typeName(c.args[0]))
				}
				from, to := int64(dtypeOf(o).Size()), int64(d.Size())
				s := append([]int64{}, shape...)
				if len(s) == 0 || from == 0 || to == 0 || (s[len(s)-1]*from)%to != 0 {
					c.fail("view of a %v %s tensor as %s", shape, dtypeOf(o), d)
				}
				s[len(s)-1] = s[len(s)-1] * from / to
				base := baseTensor(o)
				if base == nil {
					c.fail("view of an unbound tile")
				}
				return &View{T: base, Shape: s, DType: d}
			}), true
		case "T":
			in.fail(pos, "tensor."+name, "views of the current API are not modelled yet")
		case "name":
			if ten, ok := o.(*Tensor); ok {
				if ten.Arg != "" {
					return ten.Arg, true
				}
				if ten.Rec != nil {
					return ten.Rec.Name, true
				}
			}
			return "", true
		}
	case DType:
		if name == "itemsize" {
			return int64(o.Size()), true
		}
	case *MGrid:
		switch name {
		case "p":
			return o.Grids[0], true
		case "x":
			if len(o.Grids) > 1 {
				return o.Grids[1], true
			}
		case "y":
			if len(o.Grids) > 2 {
				return o.Grids[2], true
			}
		case "z": // a four-way grid's last axis (reference/vision.py's select_and_scatter)
			if len(o.Grids) > 3 {
				return o.Grids[3], true
			}
		}
	case *BufferVal:
		if name == "name" {
			return o.Kind, true
		}
	}
	return nil, false
}

func bufferOf(v Value) string {
	switch x := v.(type) {
	case *Tensor:
		return x.Buffer
	case *View:
		return x.T.Buffer
	case *Tile:
		return x.Buffer
	}
	return ""
}

func baseTensor(v Value) *Tensor {
	switch x := v.(type) {
	case *Tensor:
		return x
	case *View:
		return x.T
	case *Tile:
		return x.T
	}
	return nil
}

func (t *tracer) item(in *interp, obj, idx Value, node python.Node) (Value, bool) {
	switch o := obj.(type) {
	case *mgridVal:
		var items []Value
		if tu, ok := idx.(Tuple); ok {
			items = tu
		} else {
			items = []Value{idx}
		}
		var dims []int64
		for _, it := range items {
			s, ok := it.(*SliceVal)
			if !ok {
				in.fail(node.At(), "nl.mgrid index", "mgrid takes slices")
			}
			lo, _ := asInt(s.Lower)
			hi, ok := asInt(s.Upper)
			if !ok {
				in.fail(node.At(), "nl.mgrid index", "bounds must be integers known at trace time")
			}
			step := int64(1)
			if s.Step != nil {
				step, _ = asInt(s.Step)
			}
			dims = append(dims, (&RangeVal{Start: lo, Stop: hi, Step: step}).Len())
		}
		// Each output is the index expression of its own iterator: extent
		// along its axis, 1 elsewhere (an open grid that broadcasts). The API
		// page likens mgrid to NumPy's dense grid, which gives the same shape
		// when all outputs index together; kernels also index with a subset
		// (the LayerNorm tutorial loads gamma[i_p_param, i_f_io] of a
		// three-way mgrid, 1 x F), which has that shape only as open grids.
		// The corpus tracer models mgrid the same way.
		g := &MGrid{}
		for i := range dims {
			shape := make([]int64, len(dims))
			for j := range shape {
				shape[j] = 1
			}
			shape[i] = dims[i]
			g.Grids = append(g.Grids, &Grid{Shape: shape})
		}
		return g, true
	case *Grid:
		return &Grid{Shape: in.indexShape(o.Shape, idx, node)}, true
	case *Tensor, *View, *Tile:
		if tile, ok := o.(*Tile); ok && tile.Rec == nil && tile.bound {
			t.materialize(in, tile, node.At())
		}
		base := baseTensor(o)
		if base == nil {
			if tile, ok := o.(*Tile); ok {
				// an unbound result indexed at once: index its shape
				return &Tile{Shape: in.indexShape(tile.Shape, idx, node), DType: tile.DType, Buffer: tile.Buffer, Fn: tile.Fn, Site: tile.Site}, true
			}
		}
		shape, _ := shapeOf(o)
		s := in.indexShape(shape, idx, node)
		if t.api == "beta1" && base.onChip() && len(s) < 2 {
			for len(s) < 2 {
				s = append(s, 1)
			}
		}
		var block []Value
		switch x := o.(type) {
		case *Tensor:
			block = blockIndex(x, idx)
		case *View:
			block = x.Block
		}
		v := &View{T: base, Shape: s, DType: dtypeOf(o), Block: block, Whole: wholeTile(base, block, s), Index: t.indexTiles(in, idx, node)}
		if !base.onChip() {
			// the HBM side of a DMA on this view: row-major over the
			// tensor, or over a contiguous view of it (a reshape)
			switch x := o.(type) {
			case *Tensor:
				v.Run = in.contiguousRun(shape, idx, node)
			case *View:
				if x.Run > 0 && x.Run == prod(shape) {
					v.Run = in.contiguousRun(shape, idx, node)
				}
			}
		}
		return v, true
	}
	return nil, false
}

// ---- kernel arguments and declarations ----

func (t *tracer) declareCall(c *callCtx, fn string) Value {
	in := c.in
	var shape []int64
	block := 0
	marked := false
	var dt DType
	buffer := &BufferVal{Kind: "sbuf"}
	api := "nl." + fn
	switch fn {
	case "zeros_like", "empty_like", "ones_like":
		src := c.need(0, "a")
		s, ok := shapeOf(src)
		if !ok {
			c.fail("argument is not a tensor")
		}
		shape = append([]int64{}, s...)
		dt = dtypeOf(src)
		if b := bufferOf(src); b != "" {
			buffer = &BufferVal{Kind: b}
		}
	case "shared_constant":
		cv := c.need(0, "constant")
		s, ok := shapeOf(cv)
		if !ok {
			c.fail("constant of type %s (npukit models tensors, not numpy arrays)", typeName(cv))
		}
		shape = s
		// shared_constant(constant, dtype=None): without a dtype the
		// tensor has the host array's (NKI API reference)
		dt = dtypeOf(cv)
		buffer = &BufferVal{Kind: "shared_hbm"}
	case "shared_identity_matrix":
		n := c.int(0, "n")
		shape = []int64{n, n}
		buffer = &BufferVal{Kind: "shared_hbm"}
	default:
		shape, block, marked = in.shapeArg(c.need(0, "shape"), c.node, api)
	}
	dtPos := 1
	if fn == "full" {
		dtPos = 2
	}
	if fn == "shared_identity_matrix" {
		dtPos = 1
	}
	if v := c.arg(dtPos, "dtype", nil); v != nil {
		d, ok := v.(DType)
		if !ok {
			if o, isOp := v.(*Opaque); isOp {
				d = DType(strings.TrimPrefix(o.What, "numpy."))
				ok = d.Size() > 0
			}
		}
		if !ok {
			c.fail("dtype of type %s", typeName(v))
		}
		dt = d
	}
	if dt == "" && fn != "shared_identity_matrix" {
		c.fail("missing dtype")
	}
	if dt == "" {
		dt = "float32"
	}
	if v := c.arg(-1, "buffer", nil); v != nil {
		b, ok := v.(*BufferVal)
		if !ok {
			c.fail("buffer of type %s", typeName(v))
		}
		buffer = b
	}
	ten := &Tensor{Shape: shape, DType: dt, Buffer: buffer.Kind}
	if marked {
		ten.BlockDims = block
	}
	var alloc *Alloc
	if ten.onChip() {
		if len(shape) == 0 {
			c.fail("on-chip tensor without dimensions")
		}
		alloc = &Alloc{Kind: "auto"}
		if addr := c.arg(-1, "address", nil); addr != nil {
			if t.api == "beta1" {
				c.fail("address= is the current API's direct allocation; Beta 1 uses ncc.sbuf.alloc/mod_alloc")
			}
			items := in.iterate(addr, c.node)
			if len(items) != 2 {
				c.fail("address must be (partition, byte_offset)")
			}
			p, ok1 := asInt(items[0])
			b, ok2 := asInt(items[1])
			if !ok1 || !ok2 {
				c.fail("address of %s and %s is not known at trace time", typeName(items[0]), typeName(items[1]))
			}
			alloc = &Alloc{Kind: "address", Partition: &p, Offset: &b}
		}
		if buffer.Alloc != "" {
			alloc = t.allocTiles(c, ten, buffer)
		}
	}
	given, _ := c.arg(-1, "name", nil).(string)
	t.declare(in, c.pos, api, ten, alloc, given)
	if fn == "zeros" || fn == "ones" || fn == "full" || fn == "rand" {
		// nl.zeros(..., lazy_initialization=True), as the compiler's own NKI
		// dumps declare PSUM accumulators (AccelOpt's NKIBench: 15,360
		// tiles of one matmul's partial sums, far more than PSUM holds at
		// once), is zero where it is first used, not written whole at
		// its declaration: the call is listed (the reference tracer lists
		// it) but adds no initializing write of every tile to the program
		if lazy, _ := c.arg(-1, "lazy_initialization", false).(bool); fn == "zeros" && lazy {
			t.callSite(in, c.pos, api, nil, []Value{ten}, false)
		} else {
			t.callRecord(in, c.pos, api, nil, []Value{ten}, false)
		}
	}
	return ten
}

// allocTiles evaluates a Beta-1 allocator for every logical tile.
func (t *tracer) allocTiles(c *callCtx, ten *Tensor, b *BufferVal) *Alloc {
	blocks := ten.Shape[:ten.BlockDims]
	n := prod(blocks)
	if n > 1<<16 {
		c.fail("%d logical tiles is over the bound", n)
	}
	pdim := ten.Shape[ten.BlockDims]
	fdim := prod(ten.Shape[ten.BlockDims+1:]) * int64(ten.DType.Size())
	a := &Alloc{Kind: b.Alloc}
	if b.Args != nil {
		a.Args = b.Args
	}
	if f, ok := b.Func.(*Func); ok {
		a.Func = f.QualName
	}
	seen := map[string]bool{}
	var key []byte
	// one array for every row of a.Tiles: the block index, then room for
	// the location (bank, partition, address)
	stride := int64(len(blocks) + 3)
	rows := make([]int64, n*stride)
	a.Tiles = make([][]int64, 0, n)
	for lin := int64(0); lin < n; lin++ {
		idx := rows[lin*stride : lin*stride+int64(len(blocks)) : (lin+1)*stride]
		r := lin
		for d := len(blocks) - 1; d >= 0; d-- {
			idx[d] = r % blocks[d]
			r /= blocks[d]
		}
		var loc []int64
		if b.Func != nil {
			c.in.inCallback++
			v := c.in.call(b.Func, nil, []kwarg{{"idx", shapeTuple(idx)}, {"pdim_size", pdim}, {"fdim_size", fdim}}, c.pos, nil)
			c.in.inCallback--
			items := c.in.iterate(v, c.node)
			want := 2
			if b.Kind == "psum" {
				want = 3
			}
			if len(items) != want {
				c.fail("allocation function returned %d values, %s needs %d", len(items), b.Alloc, want)
			}
			for _, it := range items {
				x, ok := asInt(it)
				if !ok {
					c.fail("allocation function returned %s", typeName(it))
				}
				loc = append(loc, x)
			}
		} else {
			mod := func(base, shape Value, scale int64) int64 {
				bv, _ := asInt(base)
				var sh []int64
				for _, s := range c.in.iterate(shape, c.node) {
					x, ok := asInt(s)
					if !ok || x <= 0 {
						c.fail("tile count %s must be a positive integer", repr(s))
					}
					sh = append(sh, x)
				}
				if len(sh) == 0 {
					sh = make([]int64, len(idx))
					for i := range sh {
						sh[i] = 1
					}
				}
				// the reference modulo allocator: zip(idx, shape) then a
				// row-major linear index over the whole shape
				var linv int64
				for d := 0; d < len(idx) && d < len(sh); d++ {
					linv += (idx[d] % sh[d]) * prod(sh[d+1:])
				}
				return bv + linv*scale
			}
			if b.Kind == "psum" {
				loc = []int64{mod(b.Args["base_bank"], b.Args["num_bank_tiles"], 1)}
			}
			loc = append(loc, mod(b.Args["base_partition"], b.Args["num_par_tiles"], pdim), mod(b.Args["base_addr"], b.Args["num_free_tiles"], fdim))
		}
		key = appendInts(key[:0], loc)
		if !seen[string(key)] { // (the lookup does not copy key; only an insert does)
			seen[string(key)] = true
		}
		a.Tiles = append(a.Tiles, append(idx, loc...))
	}
	a.PhysicalTiles = len(seen)
	return a
}

// ---- instructions ----

func (t *tracer) result(c *callCtx, fn string, shape []int64, dt DType, buffer, rule string, reads []Value) Value {
	step := t.callRecord(c.in, c.pos, fn, reads, nil, false)
	if step != nil {
		if e, ok := c.arg(-1, "engine", nil).(string); ok {
			step.Engine = e
		}
		// reduce_res= is an output operand (activation_reduce,
		// tensor_scalar_reduce, activation with reduce_op)
		if out := c.arg(-1, "reduce_res", nil); out != nil {
			step.Reads = step.Reads[:0]
			for _, r := range reads {
				if r != out {
					step.Reads = appendAccess(step.Reads, r)
				}
			}
			step.Writes = appendAccess(step.Writes, out)
		}
	}
	rec := t.cBySite[c.in.site(c.pos).key(fn)]
	tile := &Tile{Shape: shape, DType: dt, Buffer: buffer, Fn: fn, Site: c.in.site(c.pos), Rule: rule, call: rec, step: step}
	if t.running && c.in.inCallback == 0 {
		t.results = append(t.results, tile)
	}
	return tile
}

// currentOperands splits a current-API instruction's tensor operands into
// the ones it reads and the ones it writes, by parameter name: positional
// operands are named by params (dst first when params is nil), keywords by
// their own names; mask= is neither.
func currentOperands(c *callCtx, params []string) (reads, writes []Value) {
	if params == nil {
		params = []string{"dst"}
	}
	add := func(name string, v Value) {
		var vs []Value
		switch x := v.(type) {
		case Tuple:
			vs = x
		case *List:
			vs = x.Items
		default:
			vs = []Value{v}
		}
		for _, v := range vs {
			switch {
			case !isTensorish(v) || name == "mask":
			case outputOperands[name]:
				writes = append(writes, v)
			default:
				reads = append(reads, v)
			}
		}
	}
	for i, a := range c.args {
		name := ""
		if i < len(params) {
			name = params[i]
		}
		add(name, a)
	}
	for _, k := range c.kw {
		add(k.Name, k.Value)
	}
	return reads, writes
}

func (t *tracer) op(c *callCtx, fn, rule string) Value {
	in := c.in
	short := fn[strings.IndexByte(fn, '.')+1:]
	current := t.api == "current"
	t.masked = c.arg(-1, "mask", nil) != nil // the steps this call records touch part of their tiles
	defer func() { t.masked = false }()
	if current {
		if allowed, ok := currentKwargs[short]; ok && strings.HasPrefix(fn, "nisa.") {
			for _, k := range c.kw {
				okk := false
				for _, a := range allowed {
					if a == k.Name {
						okk = true
					}
				}
				if !okk {
					c.in.fail(c.pos, "call of "+fn, "got an unexpected keyword argument %q (documented signature: (%s))", k.Name, strings.Join(allowed, ", "))
				}
			}
		}
	}
	var tensors []Value
	for _, a := range c.args {
		if isTensorish(a) {
			tensors = append(tensors, a)
		}
	}
	for _, k := range c.kw {
		if isTensorish(k.Value) && k.Name != "dst" && k.Name != "mask" {
			tensors = append(tensors, k.Value)
		}
	}
	dtArg := func(def DType) DType {
		if v, ok := c.arg(-1, "dtype", nil).(DType); ok {
			return v
		}
		return def
	}
	operand := func(i int, name string) Value {
		v := c.arg(i, name, nil)
		if v == nil {
			c.fail("missing operand %s", name)
		}
		return v
	}
	shp := func(v Value) []int64 { return in.tileShape(v, c.node, "call of "+fn) }

	// the current API and DMA/store calls write a destination
	if rule == "store" {
		dst := operand(0, "dst")
		val := c.arg(1, "value", nil)
		t.callRecord(in, c.pos, fn, []Value{val}, []Value{dst}, false)
		return nil
	}
	if !current && strings.HasPrefix(fn, "nisa.") {
		if v, ok := t.beta1Instruction(c, fn, short, tensors, dtArg, shp); ok {
			return v
		}
	}
	if rule == "current" && !current {
		c.in.fail(c.pos, fn, "not modelled by npukit in the Beta-1 API (a current-API instruction)")
	}
	// current-API instructions (nisa.*) write dst=; nl.* functions return
	// their result in both APIs (nki.language signatures have no dst)
	if rule == "dma" || (current && strings.HasPrefix(fn, "nisa.")) {
		dst := c.arg(0, "dst", nil)
		reads, writes := tensors, []Value{dst}
		if len(reads) > 0 && reads[0] == dst {
			reads = reads[1:]
		}
		if current && strings.HasPrefix(fn, "nisa.") {
			reads, writes = currentOperands(c, currentParams[short])
		}
		t.callRecord(in, c.pos, fn, reads, writes, c.arg(-1, "accumulate", false) == true)
		return nil
	}
	switch rule {
	case "src":
		src := operand(0, "src")
		buf := "sbuf"
		if short == "tensor_copy" || short == "copy" {
			buf = "sbuf"
		}
		return t.result(c, fn, shp(src), dtArg(dtypeOf(src)), buf, "shape of src", tensors)
	case "transpose2d":
		s := shp(operand(0, "src"))
		if len(s) != 2 {
			c.fail("load_transpose2d of a %d-D tensor", len(s))
		}
		return t.result(c, fn, []int64{s[1], s[0]}, dtArg(dtypeOf(c.args[0])), "sbuf", "load_transpose2d", tensors)
	case "matmul":
		x, y := operand(0, "x"), operand(1, "y")
		xs, ys := shp(x), shp(y)
		if len(xs) != 2 || len(ys) != 2 {
			c.fail("matmul of shapes %v and %v", xs, ys)
		}
		m := xs[0]
		if tx, _ := c.arg(-1, "transpose_x", false).(bool); tx {
			m = xs[1]
		}
		return t.result(c, fn, []int64{m, ys[1]}, "float32", "psum", "matmul", tensors)
	case "transpose":
		x := operand(0, "x")
		s := shp(x)
		r := make([]int64, len(s))
		for i := range s {
			r[i] = s[len(s)-1-i]
		}
		return t.result(c, fn, r, dtArg(dtypeOf(x)), "psum", "transpose", tensors)
	case "unary", "binary", "tensor_tensor", "where":
		var shape []int64
		var dt DType
		for _, v := range tensors {
			s := shp(v)
			if shape == nil {
				shape, dt = s, dtypeOf(v)
				continue
			}
			b, ok := broadcast(shape, s)
			if !ok {
				b, ok = partitionBroadcast(shape, s)
				if !ok {
					c.fail("operands of shapes %v and %v do not broadcast", shape, s)
				}
			}
			shape = b
		}
		if shape == nil {
			c.fail("no tensor operand")
		}
		return t.result(c, fn, shape, dtArg(dt), "sbuf", "broadcast", tensors)
	case "reduce":
		var data Value
		if strings.HasPrefix(fn, "nisa.") {
			data = operand(1, "data")
		} else {
			data = operand(0, "x")
		}
		s := shp(data)
		axis := c.arg(1, "axis", nil)
		if strings.HasPrefix(fn, "nisa.") {
			axis = c.arg(2, "axis", nil)
		}
		var axes []int64
		switch a := axis.(type) {
		case int64:
			axes = []int64{a}
		case Tuple, *List:
			for _, x := range in.iterate(a, c.node) {
				n, ok := asInt(x)
				if !ok {
					c.fail("axis of type %s", typeName(x))
				}
				axes = append(axes, n)
			}
		default:
			c.fail("axis of type %s", typeName(axis))
		}
		keep, _ := c.arg(-1, "keepdims", false).(bool)
		var out []int64
		for d, n := range s {
			red := false
			for _, a := range axes {
				if a == int64(d) || a+int64(len(s)) == int64(d) {
					red = true
				}
			}
			if !red {
				out = append(out, n)
			} else if keep {
				out = append(out, 1)
			}
		}
		return t.result(c, fn, out, dtArg(dtypeOf(data)), "sbuf", "reduction", tensors)
	case "broadcast_to":
		s, _, _ := in.shapeArg(operand(1, "shape"), c.node, fn)
		return t.result(c, fn, s, dtArg(dtypeOf(c.args[0])), "sbuf", "broadcast_to", tensors)
	case "loop_reduce":
		x := operand(0, "x")
		return t.result(c, fn, shp(x), dtArg(dtypeOf(x)), "sbuf", "shape of x", tensors)
	case "nc_matmul":
		st, mv := operand(0, "stationary"), operand(1, "moving")
		ss, ms := shp(st), shp(mv)
		if len(ss) < 2 || len(ms) < 2 {
			c.fail("nc_matmul of shapes %v and %v", ss, ms)
		}
		// result: stationary's free size by moving's free dimensions ("the
		// free axis sizes of stationary and moving ... returns a tile of
		// shape (126, 512)", nc_matmul in the NKI ISA reference; several
		// stationary free dimensions count as one, as the corpus tracer
		// has it). In double_row mode the dimension after the partitions
		// packs two FP8 element pairs into the contraction (matmul_perf_mode:
		// "packing two FP8 weight/ifmap element pairs"), so the result is
		// the free sizes after it: (1, 512) for the SDK test's [128, 2, 1]
		// by [128, 2, 512], stored into a [1, 512] tensor. The corpus
		// tracer's generic rule gives (2, 2, 512) there.
		out := append([]int64{prod(ss[1:])}, ms[1:]...)
		if pm, _ := c.arg(-1, "perf_mode", nil).(string); strings.Contains(pm, "double_row") && len(ss) > 2 && len(ms) > 2 {
			out = []int64{prod(ss[2:]), prod(ms[2:])}
		}
		return t.result(c, fn, out, "float32", "psum", "stationary free x moving free, fp32 PSUM", tensors)
	case "nc_transpose":
		d := operand(0, "data")
		s := shp(d)
		if len(s) != 2 {
			c.fail("nc_transpose of a %d-D tile", len(s))
		}
		buf := "psum"
		if e, _ := c.arg(-1, "engine", nil).(string); e == "engine:vector" {
			buf = "sbuf"
		}
		return t.result(c, fn, []int64{s[1], s[0]}, dtArg(dtypeOf(d)), buf, "transpose on tensor engine", tensors)
	case "data", "data0":
		var d Value
		switch short {
		case "activation", "activation_reduce":
			d = operand(1, "data")
		case "tensor_tensor_scan":
			d = operand(0, "data0")
		default:
			d = c.arg(0, "data", nil)
			if d == nil {
				d = c.arg(-1, "src", nil)
			}
			if d == nil {
				c.fail("missing operand data")
			}
		}
		return t.result(c, fn, shp(d), dtArg(dtypeOf(d)), "sbuf", "shape of data", tensors)
	case "bn_stats":
		d := operand(0, "data")
		s := shp(d)
		return t.result(c, fn, []int64{s[0], 6}, dtArg(dtypeOf(d)), "sbuf", "bn_stats", tensors)
	case "bn_aggr":
		d := operand(0, "data")
		s := shp(d)
		return t.result(c, fn, []int64{s[0], 2}, dtArg(dtypeOf(d)), "sbuf", "bn_aggr", tensors)
	case "memset":
		s, _, _ := in.shapeArg(operand(0, "shape"), c.node, fn)
		return t.result(c, fn, s, dtArg("float32"), "sbuf", "given shape", tensors)
	case "iota":
		e := operand(0, "expr")
		if isScalarExpr(e) {
			// a scalar expression (an int, a program id: vLLM's paged
			// attention builds its head id with nisa.iota(head_id, ...))
			// gives one value in one partition
			return t.result(c, fn, []int64{1, 1}, dtArg("int32"), "sbuf", "a scalar expr", tensors)
		}
		return t.result(c, fn, shp(e), dtArg("int32"), "sbuf", "shape of expr", tensors)
	case "affine_select":
		d := operand(1, "on_true_tile")
		return t.result(c, fn, shp(d), dtArg(dtypeOf(d)), "sbuf", "shape of on_true_tile", tensors)
	}
	c.fail("instruction not modelled")
	return nil
}

// partitionBroadcast aligns two tile shapes at the partition (first)
// dimension where numpy's trailing alignment fails: the shorter shape is
// padded with 1s on the right, then each dimension must match or be 1. So a
// (P, 1) operand broadcasts along the free dimensions of (P, F...), and a
// (P, F, 1) tile (a three-way mgrid index) combines with (P, F) (the LayerNorm
// tutorial at nki-samples 5553435 multiplies such tiles). Tiles are laid out
// from the partition dimension ("Tile" in the NKI programming model), which is
// why NKI aligns operands there; the corpus tracer pads the same way.
func partitionBroadcast(a, b []int64) ([]int64, bool) {
	if len(a) == 0 || len(b) == 0 {
		return nil, false
	}
	return broadcastAligned(a, b, true)
}

var opNames = map[string]string{"+": "add", "-": "subtract", "*": "multiply", "/": "divide", "//": "floor_divide",
	"%": "mod", "**": "power", "&": "bitwise_and", "|": "bitwise_or", "^": "bitwise_xor", "<": "less", ">": "greater",
	"<=": "less_equal", ">=": "greater_equal", "==": "equal", "!=": "not_equal", "neg": "negative", "@": "matmul"}

// tensorOp is a Python operator on tiles (Beta 1: an instruction).
func (t *tracer) tensorOp(in *interp, op string, l, r Value, node python.Node) Value {
	if t.api != "beta1" {
		msg := "the current NKI API has no tensor arithmetic"
		if t.apiDetected {
			// the imports said current (import nki, no neuronxcc): a
			// Beta 1 kernel imported through a stand-in module (NKL's
			// interop tests) is traced with --api beta1
			msg += fmt.Sprintf(" (the API was taken from the kernel's imports; a kernel written for the Beta 1 API, where %s is nl.%s, is traced with --api beta1)", op, opNames[op])
		}
		in.fail(node.At(), fmt.Sprintf("operator %s on tensors", op), "%s", msg)
	}
	name := opNames[op]
	if name == "" {
		in.fail(node.At(), "operator "+op+" on tiles", "not modelled")
	}
	fn := "operator." + name
	ls, lok := shapeOf(l)
	rs, rok := shapeOf(r)
	var shape []int64
	var dt DType
	rule := "broadcast"
	var reads []Value
	switch {
	case lok && rok:
		b, ok := broadcast(ls, rs)
		if !ok {
			b, ok = partitionBroadcast(ls, rs)
			rule = "partition-aligned broadcast"
			if !ok {
				in.fail(node.At(), fn, "operands of shapes %v and %v do not broadcast", ls, rs)
			}
		}
		shape = b
		dt = dtypeOf(l)
		if !isTensorish(l) {
			dt = dtypeOf(r)
		}
		reads = []Value{l, r}
	case lok:
		shape, dt, reads = ls, dtypeOf(l), []Value{l}
	default:
		shape, dt, reads = rs, dtypeOf(r), []Value{r}
	}
	var tensors []Value
	for _, v := range reads {
		if isTensorish(v) {
			tensors = append(tensors, v)
		}
	}
	pos := node.At()
	step := t.callRecord(in, pos, fn, tensors, nil, false)
	return &Tile{Shape: shape, DType: dt, Buffer: "sbuf", Fn: fn, Site: in.site(pos), Rule: rule, step: step}
}

// store is t[idx] = value.
func (t *tracer) store(in *interp, obj, idx, v Value, node python.Node) {
	if tile, ok := obj.(*Tile); ok && tile.Rec == nil {
		// out_tile = nisa.memset(...); out_tile[...] = nisa.op(...): an
		// instruction result first written by another instruction. Whether
		// the compiler keeps one location for both is not documented; the
		// corpus tracer refuses it too.
		in.fail(node.At(), "assignment into the result of "+tile.Fn, "writing into a compiler-allocated result tile before its value is used is not modelled (declare the tile with nl.ndarray)")
	}
	dst := in.getItem(obj, idx, node)
	switch x := v.(type) {
	case *Tile:
		if x.Rec == nil && x.bound {
			// u = op(...); t[...] = u: the result was written to a tile
			// of its own (a TensorE result to PSUM) before this statement
			// copies it
			t.materialize(in, x, node.At())
		}
		if x.Rec == nil {
			// t[...] = op(...): the instruction writes the destination
			// directly
			x.absorbed = true
			if x.step != nil {
				x.step.Writes = appendAccess(x.step.Writes, dst)
			}
			return
		}
		t.callRecord(in, node.At(), "assign(copy)", []Value{x}, []Value{dst}, false)
	case *Tensor, *View:
		t.callRecord(in, node.At(), "assign(copy)", []Value{x}, []Value{dst}, false)
	case int64, float64, bool:
		t.callRecord(in, node.At(), "assign(scalar)", nil, []Value{dst}, false)
	case nil:
		// current API: the instruction wrote dst itself
	default:
		in.fail(node.At(), "assignment of a "+typeName(v)+" to a tensor", "not supported")
	}
}

// accumulate is t += value.
func (t *tracer) accumulate(in *interp, dst, rhs Value, op string, node python.Node, _ string) {
	if tile, ok := rhs.(*Tile); ok && tile.Rec == nil && tile.bound && tile.Buffer == "psum" && bufferOf(dst) != "psum" {
		// u = nl.matmul(...); acc_sbuf[...] += u: the TensorE result
		// landed in its PSUM tile, and adding it into a tensor outside
		// PSUM is an instruction of its own (TensorE accumulates only
		// into PSUM). Into PSUM, or written at once (acc += op(...)), the
		// result stays absorbed, as in the corpus tracer's model.
		t.materialize(in, tile, node.At())
	}
	if tile, ok := rhs.(*Tile); ok && tile.Rec == nil && op == "+" {
		tile.absorbed = true
		if tile.call != nil {
			tile.call.Accumulate = true
		}
		if s := tile.step; s != nil {
			s.Accumulate = true
			if !strings.HasSuffix(s.Fn, "matmul") {
				s.Reads = appendAccess(s.Reads, dst) // dst + value
			}
			s.Writes = appendAccess(s.Writes, dst)
		}
		return
	}
	name := "operator.i" + map[string]string{"+": "add", "-": "sub", "*": "mul"}[op]
	t.callRecord(in, node.At(), name, []Value{dst, rhs}, []Value{dst}, false)
}

// bind notes a Beta-1 instruction result assigned to a name. The result
// becomes an implicit (compiler-allocated) tile when it is used as an
// operand (materialize), counted where it is used: the corpus tracer's
// model, where a result written straight into t[...] = op(...) or
// accumulated with t[...] += op(...) is no tile of its own.
func (t *tracer) bind(in *interp, v Value, name string, src python.Expr) Value {
	tile, ok := v.(*Tile)
	if !ok {
		if ten, ok := v.(*Tensor); ok && ten.Rec != nil && ten.Rec.Name == "" {
			ten.Rec.Name = name
		}
		return v
	}
	if tile.Rec == nil && !tile.bound {
		tile.bound, tile.name = true, name
	}
	return tile
}

// materialize makes a used instruction result an implicit tile.
func (t *tracer) materialize(in *interp, tile *Tile, pos python.Pos) {
	if tile.Rec != nil || in.inCallback > 0 {
		return
	}
	ten := &Tensor{Shape: tile.Shape, DType: tile.DType, Buffer: tile.Buffer}
	t.event(in, pos)
	key := fmt.Sprintf("%s|result of %s|%v|%s|%s", tile.Site, tile.Fn, tile.Shape, tile.DType, tile.Buffer)
	rec := t.tByKey[key]
	if rec == nil {
		t.nT++
		s := tile.Site
		rec = &TensorRec{ID: fmt.Sprintf("T%d", t.nT), API: "result of " + tile.Fn, Name: tile.name, Shape: tile.Shape, DType: tile.DType,
			Buffer: tile.Buffer, Alloc: &Alloc{Kind: "implicit"}, Site: &s, Loop: t.innermost(), key: key, OnChip: true}
		if len(tile.Shape) > 0 {
			rec.Partition = tile.Shape[0]
			rec.FreeDims = append([]int64{}, tile.Shape[1:]...)
			rec.FreeBytes = prod(rec.FreeDims) * int64(tile.DType.Size())
		}
		t.Tensors = append(t.Tensors, rec)
		t.tByKey[key] = rec
	}
	rec.Declared++
	rec.Instances += t.multiplicity(in, pos)
	ten.Rec = rec
	t.nInst++
	ten.inst = t.nInst
	tile.Rec = rec
	tile.T = ten
	if tile.step != nil {
		tile.step.Writes = append(tile.step.Writes, Access{Rec: rec, Inst: ten.inst})
	}
	t.progDecl(in, rec, ten.inst)
}

func (s Site) pos() python.Pos { return python.Pos{Line: s.Line, Col: s.Col} }

func (t *tracer) discard(v Value) {}

// floatMax is the largest finite value of each NKI float type: IEEE binary32
// and binary16, bfloat16 (binary32's exponent, 7 mantissa bits), the OCP
// float8 formats, and Neuron's FP8_E4M3 whose largest value is 240 (the
// Trainium data-type table).
var floatMax = map[DType]float64{"float32": 3.4028234663852886e38, "bfloat16": 3.3895313892515355e38,
	"float16": 65504, "float8_e4m3": 240, "float8_e5m2": 57344, "float8_e4m3fn": 448}

// nlFinfo is Beta 1's nl.finfo(dtype) (listed in the nki.language stubs of
// Neuron 2.26, undocumented): the machine limits of a float type, used for
// fill values (reference/vision.py pads with nl.finfo(dtype).min). Only min,
// max and bits are modelled.
func nlFinfo(c *callCtx) Value {
	if c.in.tr.api != "beta1" {
		c.fail("nl.finfo is not part of the current nki.language API")
	}
	v := c.need(0, "dtype")
	d, ok := v.(DType)
	if !ok {
		c.fail("dtype is %s, not a dtype", typeName(v))
	}
	mx, ok := floatMax[d]
	if !ok {
		c.fail("no documented range for %s", d)
	}
	return &Module{Name: "nl.finfo(" + string(d) + ")", Attrs: map[string]Value{
		"min": -mx, "max": mx, "bits": int64(d.Size() * 8)}}
}

// indexTiles returns the tiles among the items of an index (a computed
// index tile, e.g. reference/vision.py's resize_nearest loads
// data[b, load_indices, i_f_channel] with load_indices = src_h * in_w +
// src_w): each is materialized as the implicit tile it is, since the access
// uses its value, as the corpus tracer records it. Nil when there are none.
func (t *tracer) indexTiles(in *interp, idx Value, node python.Node) []Value {
	items, ok := idx.(Tuple)
	if !ok {
		items = Tuple{idx}
	}
	var out []Value
	for _, it := range items {
		switch x := it.(type) {
		case *Tile:
			if x.Rec == nil {
				t.materialize(in, x, node.At())
			}
			out = append(out, x)
		case *View, *Tensor:
			if b := baseTensor(x); b != nil && b.onChip() {
				out = append(out, x)
			}
		}
	}
	return out
}

// withIndexReads adds the index tiles of the views an instruction reads or
// writes to what it reads (an indirect load or store reads its index).
func withIndexReads(reads, writes []Value) []Value {
	n := 0
	for _, vs := range [2][]Value{reads, writes} {
		for _, v := range vs {
			if x, ok := v.(*View); ok {
				n += len(x.Index)
			}
		}
	}
	if n == 0 {
		return reads
	}
	out := append(make([]Value, 0, len(reads)+n), reads...)
	for _, vs := range [2][]Value{reads, writes} {
		for _, v := range vs {
			if x, ok := v.(*View); ok {
				out = append(out, x.Index...)
			}
		}
	}
	return out
}

// beta1Instruction models the Beta-1 signatures of instructions whose
// current-API form writes a dst operand (nki.isa stubs of Neuron 2.26,
// general/nki/api/nki/isa): there max8(src), nc_find_index8(data, vals),
// nc_match_replace8(data, vals, imm, dst_idx=None), dropout(data, prob),
// dma_transpose(src, axes=None), sequence_bounds(segment_ids) and
// local_gather(src_buffer, index, ...) return their result;
// select_reduce(dst=, predicate=, on_true=, on_false=, reduce_res=) writes
// dst; tensor_copy_predicated(src, dst, predicate) and
// nc_stream_shuffle(src, dst, shuffle_mask) take dst second. The result
// has the dtype= given, else the first operand's (the API's dtype rule).
// ok is false for the other instructions.
func (t *tracer) beta1Instruction(c *callCtx, fn, short string, tensors []Value, dtArg func(DType) DType, shp func(Value) []int64) (Value, bool) {
	operand := func(i int, name string) Value {
		v := c.arg(i, name, nil)
		if v == nil {
			c.fail("missing operand %s", name)
		}
		return v
	}
	var first DType
	if len(tensors) > 0 {
		first = dtypeOf(tensors[0])
	}
	writesDst := func(dstPos int, outs ...string) (Value, bool) {
		dst := operand(dstPos, "dst")
		writes := []Value{dst}
		var reads []Value
		for _, v := range tensors {
			if v != dst {
				reads = append(reads, v)
			}
		}
		for _, o := range outs {
			if v := c.arg(-1, o, nil); v != nil {
				writes = append(writes, v)
				for i, r := range reads {
					if r == v {
						reads = append(reads[:i], reads[i+1:]...)
						break
					}
				}
			}
		}
		t.callRecord(c.in, c.pos, fn, reads, writes, false)
		return nil, true
	}
	switch short {
	case "max8", "nc_find_index8":
		src := operand(0, map[string]string{"max8": "src", "nc_find_index8": "data"}[short])
		return t.result(c, fn, []int64{shp(src)[0], 8}, dtArg(first), "sbuf", "(partitions, 8)", tensors), true
	case "nc_match_replace8":
		data := operand(0, "data")
		out := c.arg(3, "dst_idx", nil)
		var reads []Value
		for _, v := range tensors {
			if v != out {
				reads = append(reads, v)
			}
		}
		r := t.result(c, fn, shp(data), dtArg(first), "sbuf", "shape of data", reads)
		if out != nil {
			if tile, ok := r.(*Tile); ok && tile.step != nil {
				tile.step.Writes = appendAccess(tile.step.Writes, out)
			}
			if rec := recOf(out); rec != nil {
				if cr := t.cBySite[c.in.site(c.pos).key(fn)]; cr != nil && !contains(cr.Writes, rec.ID) {
					cr.Writes = append(cr.Writes, rec.ID)
				}
			}
		}
		return r, true
	case "dropout":
		var shape []int64
		for _, v := range tensors {
			s := shp(v)
			if shape == nil {
				shape = s
				continue
			}
			b, ok := broadcast(shape, s)
			if !ok {
				if b, ok = partitionBroadcast(shape, s); !ok {
					c.fail("operands of shapes %v and %v do not broadcast", shape, s)
				}
			}
			shape = b
		}
		if shape == nil {
			c.fail("no tensor operand")
		}
		return t.result(c, fn, shape, dtArg(first), "sbuf", "broadcast", tensors), true
	case "dma_transpose":
		s := shp(operand(0, "src"))
		out := make([]int64, len(s))
		if axes := c.arg(-1, "axes", nil); axes != nil {
			ax := c.in.iterate(axes, c.node)
			if len(ax) != len(s) {
				c.fail("axes %s for a %d-D tensor", repr(axes), len(s))
			}
			for i, a := range ax {
				k, ok := asInt(a)
				if !ok || k < 0 || int(k) >= len(s) {
					c.fail("axes %s for a %d-D tensor", repr(axes), len(s))
				}
				out[i] = s[k]
			}
		} else {
			for i := range s {
				out[i] = s[len(s)-1-i]
			}
		}
		return t.result(c, fn, out, dtArg(first), "sbuf", "transpose", tensors), true
	case "sequence_bounds":
		return t.result(c, fn, shp(operand(0, "segment_ids")), dtArg(first), "sbuf", "shape of segment_ids", tensors), true
	case "local_gather":
		return t.result(c, fn, shp(operand(1, "index")), dtArg(first), "sbuf", "shape of index", tensors), true
	case "select_reduce":
		return writesDst(-1, "reduce_res")
	case "tensor_copy_predicated", "nc_stream_shuffle":
		return writesDst(1)
	}
	return nil, false
}

// materializeDead makes every instruction result that was neither used
// nor written straight into a destination an implicit tile, once the
// kernel has returned: the instruction still writes a result the compiler
// must place (the SDK's nl.ds example loads a tile, rebinds the name to a
// second load and never reads the first). As in the corpus tracer, which
// materializes such results when the trace ends, each counts one runtime
// instance (no loop encloses the end of the trace).
func (t *tracer) materializeDead(in *interp) {
	for _, tile := range t.results {
		if tile.Rec == nil && !tile.absorbed {
			t.materialize(in, tile, tile.Site.pos())
		}
	}
	t.results = nil
}

// isScalarExpr reports whether v is a scalar index expression: an int or a
// symbolic loop index / program id, not a tile of indices.
func isScalarExpr(v Value) bool {
	switch v.(type) {
	case int64, *Sym:
		return true
	}
	return false
}
