package python

// Module is a parsed source file.
type Module struct {
	File string
	Body []Stmt
	// Lines are the source lines (for rendering a construct in messages).
	Lines []string
}

// Node is any AST node.
type Node interface{ At() Pos }

// Expr is an expression node.
type Expr interface {
	Node
	expr()
}

// Stmt is a statement node.
type Stmt interface {
	Node
	stmt()
}

// P is the position embedded in every node.
type P struct{ Pos Pos }

// At returns the node's position.
func (p P) At() Pos { return p.Pos }

// Expressions.
type (
	Name struct {
		P
		ID string
	}
	// Num is a numeric literal: Int when IsInt, else Float (Imag for j).
	Num struct {
		P
		Text  string
		IsInt bool
		Int   int64
		Big   bool // integer literal beyond int64
		Float float64
		Imag  bool
		// Value is Int (an int64) or Float (a float64) as an interface,
		// made once so that an interpreter evaluating the literal again and
		// again does not box it each time
		Value any
	}
	Str struct {
		P
		Value string
		Bytes bool
	}
	// FString is a formatted string literal: Parts alternate literal text
	// (Str) and replacement fields (FormatField).
	FString struct {
		P
		Parts []Expr
	}
	FormatField struct {
		P
		Value Expr
		Conv  byte // 0, 'r', 's', 'a'
		Spec  Expr // nil or an FString
		Debug string
	}
	Const struct { // None, True, False, Ellipsis
		P
		Kind string
	}
	Tuple struct {
		P
		Elts   []Expr
		Parens bool
	}
	List struct {
		P
		Elts []Expr
	}
	Set struct {
		P
		Elts []Expr
	}
	Dict struct {
		P
		Keys   []Expr // nil key: **value
		Values []Expr
	}
	Attribute struct {
		P
		Value Expr
		Attr  string
	}
	Subscript struct {
		P
		Value Expr
		Index Expr // a Slice, a Tuple of indices, or an expression
	}
	Slice struct {
		P
		Lower, Upper, Step Expr // nil when omitted
	}
	Call struct {
		P
		Func     Expr
		Args     []Expr // may contain Starred
		Keywords []Keyword
	}
	Starred struct {
		P
		Value Expr
	}
	BinOp struct {
		P
		Op          string // + - * / // % ** @ << >> & | ^
		Left, Right Expr
	}
	UnaryOp struct {
		P
		Op      string // - + ~ not
		Operand Expr
	}
	BoolOp struct {
		P
		Op     string // and, or
		Values []Expr
	}
	Compare struct {
		P
		Left        Expr
		Ops         []string // < > == >= <= != in "not in" is "is not"
		Comparators []Expr
	}
	IfExp struct {
		P
		Test, Body, Else Expr
	}
	Lambda struct {
		P
		Args *Params
		Body Expr
	}
	// Comp is a list/set/dict comprehension or generator expression.
	Comp struct {
		P
		Kind  string // list, set, dict, gen
		Elt   Expr   // dict: key
		Value Expr   // dict: value
		Gens  []Comprehension
	}
	NamedExpr struct {
		P
		Target *Name
		Value  Expr
	}
)

// Keyword is a keyword argument; Name "" is **value.
type Keyword struct {
	Pos   Pos
	Name  string
	Value Expr
}

// Comprehension is one `for ... in ... if ...` clause.
type Comprehension struct {
	Pos    Pos
	Target Expr
	Iter   Expr
	Ifs    []Expr
}

// Params are the parameters of a def or lambda.
type Params struct {
	PosOnly  []Param
	Args     []Param // positional-or-keyword
	VarArg   *Param
	KwOnly   []Param
	KwArg    *Param
	NDefault int // number of defaults at the end of PosOnly+Args
}

// Param is one parameter; Default is nil when it has none.
type Param struct {
	Pos        Pos
	Name       string
	Default    Expr
	Annotation Expr
}

// Statements.
type (
	ExprStmt struct {
		P
		Value Expr
	}
	Assign struct {
		P
		Targets []Expr // a = b = value has two
		Value   Expr
	}
	AnnAssign struct {
		P
		Target     Expr
		Annotation Expr
		Value      Expr // may be nil
	}
	AugAssign struct {
		P
		Target Expr
		Op     string // + - ... (without =)
		Value  Expr
	}
	Delete struct {
		P
		Targets []Expr
	}
	Pass     struct{ P }
	Break    struct{ P }
	Continue struct{ P }
	Return   struct {
		P
		Value Expr
	}
	Raise struct {
		P
		Exc, Cause Expr
	}
	Global struct {
		P
		Names    []string
		Nonlocal bool
	}
	Import struct {
		P
		Names []Alias
	}
	ImportFrom struct {
		P
		Module string
		Level  int // leading dots
		Names  []Alias
	}
	Assert struct {
		P
		Test, Msg Expr
	}
	If struct {
		P
		Test Expr
		Body []Stmt
		Else []Stmt // an elif is an If alone in Else
	}
	While struct {
		P
		Test Expr
		Body []Stmt
		Else []Stmt
	}
	For struct {
		P
		Target Expr
		Iter   Expr
		Body   []Stmt
		Else   []Stmt
	}
	With struct {
		P
		Items []WithItem
		Body  []Stmt
	}
	Try struct {
		P
		Body     []Stmt
		Handlers []ExceptHandler
		Else     []Stmt
		Finally  []Stmt
	}
	FunctionDef struct {
		P
		Name       string
		Args       *Params
		Body       []Stmt
		Decorators []Expr
		Returns    Expr
		Doc        string
	}
	ClassDef struct {
		P
		Name       string
		Bases      []Expr
		Keywords   []Keyword
		Body       []Stmt
		Decorators []Expr
	}
)

// Alias is one name of an import: `a.b as c`.
type Alias struct {
	Pos    Pos
	Name   string
	AsName string
}

// WithItem is one context manager of a with statement.
type WithItem struct {
	Context Expr
	Vars    Expr
}

// ExceptHandler is one except clause.
type ExceptHandler struct {
	Pos  Pos
	Type Expr
	Name string
	Body []Stmt
}

func (*Name) expr()        {}
func (*Num) expr()         {}
func (*Str) expr()         {}
func (*FString) expr()     {}
func (*FormatField) expr() {}
func (*Const) expr()       {}
func (*Tuple) expr()       {}
func (*List) expr()        {}
func (*Set) expr()         {}
func (*Dict) expr()        {}
func (*Attribute) expr()   {}
func (*Subscript) expr()   {}
func (*Slice) expr()       {}
func (*Call) expr()        {}
func (*Starred) expr()     {}
func (*BinOp) expr()       {}
func (*UnaryOp) expr()     {}
func (*BoolOp) expr()      {}
func (*Compare) expr()     {}
func (*IfExp) expr()       {}
func (*Lambda) expr()      {}
func (*Comp) expr()        {}
func (*NamedExpr) expr()   {}

func (*ExprStmt) stmt()    {}
func (*Assign) stmt()      {}
func (*AnnAssign) stmt()   {}
func (*AugAssign) stmt()   {}
func (*Delete) stmt()      {}
func (*Pass) stmt()        {}
func (*Break) stmt()       {}
func (*Continue) stmt()    {}
func (*Return) stmt()      {}
func (*Raise) stmt()       {}
func (*Global) stmt()      {}
func (*Import) stmt()      {}
func (*ImportFrom) stmt()  {}
func (*Assert) stmt()      {}
func (*If) stmt()          {}
func (*While) stmt()       {}
func (*For) stmt()         {}
func (*With) stmt()        {}
func (*Try) stmt()         {}
func (*FunctionDef) stmt() {}
func (*ClassDef) stmt()    {}
