package cli

import (
	"embed"
	"fmt"
	"strings"

	"github.com/npukit/npukit"
	"github.com/npukit/npukit/detect"
	"github.com/spf13/cobra"
)

// kindsAnnotation is the cobra annotation naming the input kinds a
// command accepts: an operation of the library registry ("op:inspect")
// or a comma-separated list of kinds.
const kindsAnnotation = "npukit-kinds"

// acceptsOp declares that cmd takes the files the library's operation op
// ("inspect", "check", "report", "simulate", "diff") supports; the list in
// its help is read from the registry when the tree is built, so it stays
// true when a kind gains or loses the operation.
func acceptsOp(cmd *cobra.Command, op string) *cobra.Command {
	return annotateKinds(cmd, "op:"+op)
}

// acceptsKinds declares the kinds a format's own command takes; pass the
// same list the command checks its input against.
func acceptsKinds(cmd *cobra.Command, kinds ...detect.Kind) *cobra.Command {
	s := make([]string, len(kinds))
	for i, k := range kinds {
		s[i] = string(k)
	}
	return annotateKinds(cmd, strings.Join(s, ","))
}

func annotateKinds(cmd *cobra.Command, v string) *cobra.Command {
	if cmd.Annotations == nil {
		cmd.Annotations = map[string]string{}
	}
	cmd.Annotations[kindsAnnotation] = v
	return cmd
}

// commandKinds returns the kinds cmd declared it accepts (nil: none
// declared).
func commandKinds(cmd *cobra.Command) []detect.Kind {
	v, ok := cmd.Annotations[kindsAnnotation]
	if !ok {
		return nil
	}
	if op, isOp := strings.CutPrefix(v, "op:"); isOp {
		return npukit.KindsSupporting(op)
	}
	var ks []detect.Kind
	for _, s := range strings.Split(v, ",") {
		ks = append(ks, detect.Kind(s))
	}
	return ks
}

// kindsHelp is the paragraph a command's help ends with: the kinds it
// accepts, with the name --json output uses and the human name.
func kindsHelp(kinds []detect.Kind) string {
	var b strings.Builder
	b.WriteString("Accepted input (recognised by content, not by file name):\n")
	w := 0
	for _, k := range kinds {
		w = max(w, len(k))
	}
	for _, k := range kinds {
		fmt.Fprintf(&b, "  %-*s  %s\n", w, k, k.Describe())
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// addKindsHelp appends kindsHelp to the long help of every command of
// the tree that declared its kinds.
func addKindsHelp(c *cobra.Command) {
	for _, sub := range c.Commands() {
		addKindsHelp(sub)
	}
	if ks := commandKinds(c); len(ks) > 0 {
		long := c.Long
		if long == "" {
			long = c.Short
		}
		c.Long = long + "\n\n" + kindsHelp(ks)
	}
}

// helpFiles holds the long help of every command, one text file per
// command (help/GROUP-COMMAND.txt), kept as text rather than Go strings.
//
//go:embed help/*.txt
var helpFiles embed.FS

// longHelp is the long help of a command, the text of help/NAME.txt.
func longHelp(name string) string {
	b, err := helpFiles.ReadFile("help/" + name + ".txt")
	if err != nil {
		panic(err) // a programming error: every name has its file
	}
	return string(b)
}
