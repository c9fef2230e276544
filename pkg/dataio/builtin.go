package dataio

import (
	"embed"
	"sort"
)

// The embedded data sets: copies of files in the shared data folder (see
// testdata/ and PROVENANCE.md there), kept here because go:embed cannot reach
// outside the package directory.
//
//go:embed builtin/heart_scale builtin/breast-cancer_scale builtin/diabetes_scale
var builtinFS embed.FS

// Builtin describes an embedded data set, addressed as "builtin:NAME".
type Builtin struct {
	Name        string   `json:"name"`
	File        string   `json:"file"`
	Rows        int      `json:"rows"`
	Features    int      `json:"features"`
	Description string   `json:"description"`
	Notes       []string `json:"notes,omitempty"`
}

var builtins = []Builtin{
	{
		Name: "heart", File: "heart_scale", Rows: 270, Features: 13,
		Description: "UCI Statlog heart disease, LIBSVM's heart_scale (features scaled to [-1,1])",
		Notes:       []string{"+1 = heart disease present (UCI class 2), -1 = absent (class 1)"},
	},
	{
		Name: "breast-wisconsin", File: "breast-cancer_scale", Rows: 683, Features: 10,
		Description: "UCI Wisconsin breast cancer (original), LIBSVM's breast-cancer_scale (not the IDA Ljubljana set)",
		Notes: []string{
			"feature 1 is the scaled UCI sample code number (a patient ID), not a measurement; it is kept, as the papers did",
			"+1 = malignant (UCI class 4, 239 rows), -1 = benign (UCI class 2, 444 rows); the 16 UCI rows with missing values are absent",
		},
	},
	{
		Name: "diabetes", File: "diabetes_scale", Rows: 768, Features: 8,
		Description: "UCI Pima Indians diabetes, LIBSVM's diabetes_scale (features scaled to [-1,1])",
		Notes:       []string{"labels are inverted: -1 = diabetic (268 rows), +1 = not diabetic (500 rows)"},
	},
}

// Builtins returns the embedded data sets, sorted by name.
func Builtins() []Builtin {
	out := append([]Builtin(nil), builtins...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// BuiltinNames returns the names of the embedded data sets, sorted.
func BuiltinNames() []string {
	var out []string
	for _, b := range Builtins() {
		out = append(out, b.Name)
	}
	return out
}

func lookupBuiltin(name string) (Builtin, bool) {
	for _, b := range builtins {
		if b.Name == name {
			return b, true
		}
	}
	return Builtin{}, false
}
