package nki

import (
	"strings"

	"github.com/npukit/npukit/internal/inputfile"
	"github.com/npukit/npukit/nki/python"
)

// isKernelDecorator tells the decorators that make a function an NKI
// kernel (nki.jit and its relatives, torch_neuronx's nki_jit), by the end
// of their dotted name, as the tracer does.
func isKernelDecorator(name string) bool {
	for _, s := range []string{"jit", "trace", "nki_jit", "benchmark", "baremetal", "simulate_kernel"} {
		if name == s || strings.HasSuffix(name, "."+s) {
			return true
		}
	}
	return false
}

// KernelFunctions lists the top-level functions of a kernel file that
// carry an NKI kernel decorator (@nki.jit, @nki.baremetal, ...), in file
// order, so that a command given the file alone can pick its kernel.
func KernelFunctions(path string) ([]string, error) {
	b, err := inputfile.ReadFileMax(path, python.MaxSource)
	if err != nil {
		return nil, err
	}
	mod, err := python.Parse(path, string(b))
	if err != nil {
		return nil, err
	}
	var out []string
	for _, s := range mod.Body {
		switch x := s.(type) {
		case *python.FunctionDef:
			if isKernelDef(x) {
				out = append(out, x.Name)
			}
		case *python.ClassDef:
			// a kernel may be a static method of a top-level class
			// (QuantumCircuit.kernel): traced as Class.method
			for _, cs := range x.Body {
				if fd, ok := cs.(*python.FunctionDef); ok && isKernelDef(fd) && hasDecorator(fd, "staticmethod") {
					out = append(out, x.Name+"."+fd.Name)
				}
			}
		}
	}
	return out, nil
}

// isKernelDef reports whether a def carries an NKI kernel decorator.
func isKernelDef(fd *python.FunctionDef) bool {
	for _, d := range fd.Decorators {
		name := dottedName(d)
		if c, ok := d.(*python.Call); ok {
			name = dottedName(c.Func)
		}
		if isKernelDecorator(name) {
			return true
		}
	}
	return false
}

func hasDecorator(fd *python.FunctionDef, name string) bool {
	for _, d := range fd.Decorators {
		if dottedName(d) == name {
			return true
		}
	}
	return false
}
