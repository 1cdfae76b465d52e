package neff

import (
	"bytes"
	"crypto/md5"
	"crypto/sha256"
	"fmt"
)

// HashForm says how the payload hash is stored in the header.
type HashForm string

// Hash storage forms seen in real files (notes/neff.md, and the
// neuronx-cc 2.0 and 2.16 files of corpus2). The MD5 forms differ in the
// byte order of the digest in hash[0:16] and in what fills hash[16:32].
const (
	// HashNeuronxCC: MD5 with each 32-bit word byte-reversed, zeros in
	// hash[16:32] (neuronx-cc 2.18 and 2.21).
	HashNeuronxCC HashForm = "neuronx-cc"
	// HashNaturalZero: MD5 in natural byte order, zeros in hash[16:32]
	// (neuronx-cc 2.0 and 2.16).
	HashNaturalZero HashForm = "natural-zero"
	// HashNatural: MD5 in natural byte order, ASCII '0' in hash[16:32].
	HashNatural HashForm = "natural"
	// HashSHA256: SHA-256 over the payload (pkg_version 1).
	HashSHA256 HashForm = "sha256"
)

// MD5Forms lists the storage forms of a pkg_version 2 hash, in the order
// a stored hash is matched against them.
var MD5Forms = []HashForm{HashNeuronxCC, HashNaturalZero, HashNatural}

// Describe says in words how the form stores the digest.
func (f HashForm) Describe() string {
	switch f {
	case HashNeuronxCC:
		return "MD5, 32-bit words byte-reversed, zero tail"
	case HashNaturalZero:
		return "MD5, natural byte order, zero tail"
	case HashNatural:
		return "MD5, natural byte order, ASCII '0' tail"
	case HashSHA256:
		return "SHA-256"
	}
	return string(f)
}

// ParseHashForm accepts the names of the forms.
func ParseHashForm(s string) (HashForm, error) {
	switch f := HashForm(s); f {
	case HashNeuronxCC, HashNaturalZero, HashNatural, HashSHA256:
		return f, nil
	}
	return "", fmt.Errorf("unknown hash form %q (want neuronx-cc, natural-zero, natural or sha256)", s)
}

// ComputeHash returns the 32-byte header hash of payload in the given form.
func ComputeHash(payload []byte, form HashForm) []byte {
	var c md5Cache
	return c.hash(payload, form)
}

// HashCheck is the outcome of verifying the header hash.
type HashCheck struct {
	// Form is the storage form that matched, or the form the header's
	// tail bytes suggest when nothing matched.
	Form     HashForm `json:"form"`
	OK       bool     `json:"ok"`
	Stored   Bytes    `json:"stored"`
	Expected Bytes    `json:"expected,omitempty"` // set when !OK
	// Unchecked is set when there was no payload to hash (an unpacked
	// directory): OK is then true by convention and means nothing.
	Unchecked bool `json:"unchecked,omitempty"`
}

// VerifyHash checks the stored hash against the payload, trying every form
// valid for the package version.
func VerifyHash(h Header, payload []byte) HashCheck {
	hc := HashCheck{Stored: h.Hash}
	var forms []HashForm
	if h.PkgVersion == 1 {
		forms = []HashForm{HashSHA256}
	} else {
		forms = MD5Forms
	}
	if len(h.Hash) != lenHash {
		hc.Form = forms[0]
		hc.Expected = ComputeHash(payload, forms[0])
		return hc
	}
	var sum md5Cache
	for _, f := range forms {
		want := sum.hash(payload, f)
		if bytes.Equal(want, h.Hash) {
			hc.Form, hc.OK = f, true
			return hc
		}
	}
	hc.Form = forms[0]
	if h.PkgVersion != 1 && bytes.Equal(h.Hash[16:], bytes.Repeat([]byte{'0'}, 16)) {
		hc.Form = HashNatural
	}

	hc.Expected = sum.hash(payload, hc.Form)
	return hc
}

// md5Cache computes the MD5 of a payload once for both storage forms.
type md5Cache struct {
	done bool
	sum  [16]byte
}

func (c *md5Cache) hash(payload []byte, f HashForm) []byte {
	if f == HashSHA256 {
		s := sha256.Sum256(payload)
		return s[:]
	}
	if !c.done {
		c.sum, c.done = md5.Sum(payload), true
	}
	out := make([]byte, lenHash)
	switch f {
	case HashNatural:
		copy(out, c.sum[:])
		for i := 16; i < lenHash; i++ {
			out[i] = '0'
		}
		return out
	case HashNaturalZero:
		copy(out, c.sum[:])
		return out
	}
	for w := 0; w < 4; w++ {
		for i := 0; i < 4; i++ {
			out[w*4+i] = c.sum[w*4+3-i]
		}
	}
	return out
}
