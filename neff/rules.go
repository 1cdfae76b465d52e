package neff

import "github.com/npukit/npukit/diag"

// Rule IDs. Container rules first, then the model (def.json, engines,
// cross references, access patterns).
const (
	RuleHeaderTruncated  = "neff/header-truncated"
	RulePkgVersion       = "neff/pkg-version"
	RuleHeaderSize       = "neff/header-size"
	RuleDataSize         = "neff/data-size"
	RuleVersionTooNew    = "neff/version-too-new"
	RuleFeatureBits      = "neff/unsupported-features"
	RuleHashMismatch     = "neff/hash-mismatch"
	RuleGzip             = "neff/payload-framing"
	RuleTarFraming       = "neff/tar-framing"
	RuleUnsafeMember     = "neff/unsafe-member"
	RuleDuplicateMember  = "neff/duplicate-member"
	RuleTooLarge         = "neff/too-large"
	RulePaddingNonZero   = "neff/padding-nonzero"
	RuleTrailingBytes    = "neff/trailing-bytes"
	RuleJSONSyntax       = "neff/json-syntax"
	RuleJSONDuplicateKey = "neff/json-duplicate-key"
	RuleSubgraphName     = "neff/subgraph-name"
	RuleMetadataJSON     = "neff/metadata-json"
	RuleNewerFeatures    = "neff/newer-features"
	RuleFeaturesRuntime  = "neff/features-need-runtime"
	RuleNoKelf           = "neff/no-kelf"
	RuleMissingMember    = "neff/missing-member"
	RuleUnknownTarget    = "neff/unknown-target"
	RuleQueueType        = "neff/queue-type"
	RuleNumQueues        = "neff/num-queues"
	RuleFabricPath       = "neff/fabric-path"
	RuleArchField        = "neff/arch-field"
	RuleVarRequired      = "neff/var-required"
	RuleVarSize          = "neff/var-size"
	RuleVarType          = "neff/var-type"
	RuleVarIDDuplicate   = "neff/var-id-duplicate"
	RuleVarIDDense       = "neff/var-id-dense"
	RuleAlignment        = "neff/alignment"
	RuleVarField         = "neff/var-field"
	RuleVarRef           = "neff/var-ref"
	RuleNoOutput         = "neff/no-output"
	RuleDescRequired     = "neff/desc-required"
	RuleDescQueue        = "neff/desc-queue"
	RuleDescVar          = "neff/desc-var"
	RulePatternShape     = "neff/pattern-shape"
	RuleDType            = "neff/dtype"
	RuleOp               = "neff/op"
	RuleTransposeOp      = "neff/transpose-op"
	RuleFromArr          = "neff/from-arr"
	RuleOpField          = "neff/op-field"
	RuleConstantNull     = "neff/constant-null"
	RulePatternBounds    = "neff/pattern-bounds"
	RuleBinSize          = "neff/bin-size"
	RuleConstantSize     = "neff/constant-size"
	RuleSignatureMissing = "neff/signature-missing"
)

// Severity review (every rule that can fire on a file of a compiler
// generation npukit has not seen must be a gate the runtime enforces, or
// provably wrong, or a warning):
//   - runtime gates (errors): the header gates (truncation, pkg_version,
//     header_size, data_size, major version, feature bits against a named
//     runtime), the hash ("NEFF is invalid"), payload framing, members the
//     graph needs (kelf, members named by kelf/def.json/engines), JSON that
//     does not parse, var_id uniqueness and density, at least one output,
//     required descriptor fields; the spec's restrictions on numbers
//     (num_queues, 1..4-element patterns, from_arr <= 16, alignment a power
//     of two, INF1-only fields, op-only fields, 64-byte instruction slots).
//   - provably wrong (errors): references to undeclared variables, queues
//     or var_ids, access patterns outside their variable, constants larger
//     than their variable, unsafe or duplicate tar entries.
//   - enumerations (warnings): queue types, fabric paths, variable types,
//     dtypes and ops npukit does not know. The spec and neuronx-cc 2.24's
//     values are known; a newer compiler may add values its own runtime
//     accepts, so an unknown value is not proof of a broken file.
func init() {
	diag.Register(
		diag.Rule{ID: RuleHeaderTruncated, Severity: diag.Error, Description: "the file is shorter than the 1024-byte NEFF header"},
		diag.Rule{ID: RulePkgVersion, Severity: diag.Error, Description: "pkg_version must be 1 (tar + SHA-256) or 2 (gzip tar + MD5): the runtime refuses others"},
		diag.Rule{ID: RuleHeaderSize, Severity: diag.Error, Description: "header_size must be 1024"},
		diag.Rule{ID: RuleDataSize, Severity: diag.Error, Description: "data_size must not exceed the bytes after the header"},
		diag.Rule{ID: RuleVersionTooNew, Severity: diag.Error, Description: "neff_version_major above 2: no public runtime loads it (NRT_UNSUPPORTED_NEFF_VERSION)"},
		diag.Rule{ID: RuleFeatureBits, Severity: diag.Error, Description: "with NEFF major version 2 the runtime refuses feature bits it does not know"},
		diag.Rule{ID: RuleHashMismatch, Severity: diag.Error, Description: "the header hash does not match the payload (\"NEFF is invalid; it could be broken or hacked\")"},
		diag.Rule{ID: RuleGzip, Severity: diag.Error, Description: "the payload is not a readable (gzip) stream"},
		diag.Rule{ID: RuleTarFraming, Severity: diag.Error, Description: "the payload is not a well-formed tar archive"},
		diag.Rule{ID: RuleUnsafeMember, Severity: diag.Error, Description: "a tar entry is absolute, leaves the root (..), or is a link, device or fifo"},
		diag.Rule{ID: RuleDuplicateMember, Severity: diag.Error, Description: "two tar entries have the same name"},
		diag.Rule{ID: RuleTooLarge, Severity: diag.Error, Description: "the payload exceeds the configured decompression or entry limits"},
		diag.Rule{ID: RulePaddingNonZero, Severity: diag.Warning, Description: "the padding after the gzip member is not all zeros"},
		diag.Rule{ID: RuleTrailingBytes, Severity: diag.Warning, Description: "the file has bytes after header + data_size, which the runtime ignores"},
		diag.Rule{ID: RuleJSONSyntax, Severity: diag.Error, Description: "a JSON member does not parse or has a field of the wrong type"},
		diag.Rule{ID: RuleSubgraphName, Severity: diag.Warning, Description: "a graph name is used twice or is not a plain name (.., a slash): outputs written per subgraph would merge or be refused"},
		diag.Rule{ID: RuleJSONDuplicateKey, Severity: diag.Warning, Description: "a JSON object names a key twice: parsers disagree on which value counts, so the runtime may read another value than npukit"},
		diag.Rule{ID: RuleMetadataJSON, Severity: diag.Info, Description: "an informational member (neff.json, info.json, metrics.json, tensor_map.json) does not parse or has a value of a type npukit does not model; the runtime loads the graph from kelf and def.json, so inspect only shows less"},
		diag.Rule{ID: RuleFeaturesRuntime, Severity: diag.Info, Description: "with NEFF major version 2, feature bits beyond the oldest described runtime's, in a NEFF that names its compiler: the runtime of that compiler's SDK release (and later ones) loads it, older ones refuse it"},
		diag.Rule{ID: RuleNewerFeatures, Severity: diag.Warning, Description: "with NEFF major version 2, feature bits beyond those the default runtime's error message lists: a runtime older than the compiler refuses the NEFF (name yours with --neff-runtime-features to make this an error)"},
		diag.Rule{ID: RuleNoKelf, Severity: diag.Error, Description: "the NEFF has no kelf-*.json graph description"},
		diag.Rule{ID: RuleMissingMember, Severity: diag.Error, Description: "a member named by kelf, def.json, an engine JSON or a variable is absent"},
		diag.Rule{ID: RuleUnknownTarget, Severity: diag.Warning, Description: "kelf target is not one of sunda/v2/trn1/inf2, cayman/v3/trn2, mariana/v4/trn3, inf1/v1/tonga/inferentia, * or empty"},
		diag.Rule{ID: RuleQueueType, Severity: diag.Warning, Description: "a queue set's type is none npukit knows (in, out, data, embedding_update, dynamic from the spec; act_load from neuronx-cc 2.24): a newer compiler may add types its runtime knows, an older runtime refuses them"},
		diag.Rule{ID: RuleNumQueues, Severity: diag.Error, Description: "num_queues must be 1 on INF1 and between 1 and 16 elsewhere"},
		diag.Rule{ID: RuleFabricPath, Severity: diag.Warning, Description: "a queue set's fabric_path is neither main nor alt (the spec's values; a newer compiler may add others)"},
		diag.Rule{ID: RuleArchField, Severity: diag.Error, Description: "a field is used on an architecture that does not support it (INF1-only, or not on INF1)"},
		diag.Rule{ID: RuleVarRequired, Severity: diag.Error, Description: "a variable needs type, var_id and size (a dge-table its list of var_ids; the state buffer's size is the hardware's)"},
		diag.Rule{ID: RuleVarSize, Severity: diag.Error, Description: "a variable declares more bytes than the target's device memory (neuroncore generation table)"},
		diag.Rule{ID: RuleVarType, Severity: diag.Warning, Description: "a variable's type is none npukit knows (state-buffer, input, output, file, tmp-buf, virtual, pointer, dge-table from the spec; local, shared, remote from neuronx-cc 2.24): a newer compiler may add types its runtime knows"},
		diag.Rule{ID: RuleVarIDDuplicate, Severity: diag.Error, Description: "var_id must be unique"},
		diag.Rule{ID: RuleVarIDDense, Severity: diag.Error, Description: "var_ids must be dense 0..N-1 (the runtime indexes by them)"},
		diag.Rule{ID: RuleAlignment, Severity: diag.Error, Description: "alignment must be 0 or a power of two"},
		diag.Rule{ID: RuleVarField, Severity: diag.Error, Description: "a variable field is only valid with a given type (file_name: file, backing_variable_off: virtual, referenced_var_id: pointer, list: dge-table)"},
		diag.Rule{ID: RuleVarRef, Severity: diag.Error, Description: "referenced_var_id or a dge-table list entry names no variable"},
		diag.Rule{ID: RuleNoOutput, Severity: diag.Error, Description: "a subgraph needs at least one output variable"},
		diag.Rule{ID: RuleDescRequired, Severity: diag.Error, Description: "a DMA entry or descriptor lacks a required field (id, queue or instance_name, desc, to, offsets, steps, sizes, from or from_arr)"},
		diag.Rule{ID: RuleDescQueue, Severity: diag.Error, Description: "a descriptor names a queue set or queue instance that def.json does not declare"},
		diag.Rule{ID: RuleDescVar, Severity: diag.Error, Description: "a descriptor names a variable that def.json does not declare"},
		diag.Rule{ID: RulePatternShape, Severity: diag.Error, Description: "steps and sizes arrays must have 1..4 elements and equal lengths, sizes non-negative"},
		diag.Rule{ID: RuleDType, Severity: diag.Warning, Description: "a dtype is none of the spec's values (a newer compiler may add types; npukit cannot size or convert its elements)"},
		diag.Rule{ID: RuleTransposeOp, Severity: diag.Warning, Description: "a DMA descriptor's transpose_op (neuronx-cc 2.21's transpose marker) is not an order of the axes W, Z, Y, X, or stands beside an op other than copy: npukit cannot execute or price it as the transpose it is"},
		diag.Rule{ID: RuleOp, Severity: diag.Warning, Description: "a descriptor's op is none of the spec's (fma, cast, add, min, max, transpose, copy): a newer compiler may add operations; npukit cannot execute or price it"},
		diag.Rule{ID: RuleFromArr, Severity: diag.Error, Description: "from_arr may hold at most 16 sources"},
		diag.Rule{ID: RuleOpField, Severity: diag.Error, Description: "a descriptor field is only valid with a given op (scale/scale_dtype: fma, constant: min/max, transpose_*: transpose) or has a wrong value"},
		diag.Rule{ID: RuleConstantNull, Severity: diag.Warning, Description: "a float32 constant of a min/max descriptor is null or absent: JSON writers such as nlohmann::json (neuronx-cc's) write +-inf and NaN as null, so the value cannot be known"},
		diag.Rule{ID: RulePatternBounds, Severity: diag.Error, Description: "an access pattern reaches outside its variable (state buffer: partition stride 262144)"},
		diag.Rule{ID: RuleBinSize, Severity: diag.Error, Description: "an engine instruction file is not a whole number of 64-byte instructions"},
		diag.Rule{ID: RuleConstantSize, Severity: diag.Error, Description: "a constant file holds more data than its variable's size"},
		diag.Rule{ID: RuleSignatureMissing, Severity: diag.Warning, Description: "an input or output of neff.json's signature has no variable of that name"},
	)
}
