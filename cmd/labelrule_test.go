package cmd

import (
	"strings"
	"testing"
)

// A CSV file's last column, the default label, that looks like a feature
// (docs/input.md "Which column is the label") is refused by every command
// that reads labels, with an error that names --label-col and the columns
// that look like labels; --label-col takes any column as the label. Before,
// iris with its class first was read as 22 classes of petal widths: info
// listed them, train built a 231-pair model and exited 0.
func TestLabelColumnThatLooksLikeAFeature(t *testing.T) {
	t.Parallel()
	classFirst := cmdTestdata + "/labels/iris_class_first.csv"
	speciesFirst := cmdTestdata + "/labels/iris_species_first.csv"
	idLast := cmdTestdata + "/labels/iris_id_last.csv"
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"info", classFirst}, []string{
			classFirst + ": column 5, the last, read as the label by default, looks like a feature, not a class: 22 classes in 150 rows",
			"its values are numbers with fractions (0.1, 0.2, 0.3, …)",
			"the column that looks like a label (integer or text values, fewest distinct first): 1: 3 integer values {1,2,3}; give the label column with --label-col 1 (--label-col 5 takes column 5 as the label anyway)"}},
		{[]string{"train", classFirst}, []string{"22 classes in 150 rows", "--label-col 1"}},
		{[]string{"tune", classFirst, "--method", "svm"}, []string{"22 classes in 150 rows", "--label-col 1"}},
		{[]string{"compare", classFirst, "--methods", "svm", "--train-fraction", "0.5"}, []string{"22 classes in 150 rows", "--label-col 1"}},
		// A text class in the first column: --label-col, not one-hot encoding.
		{[]string{"train", speciesFirst}, []string{
			"column 5 (petal_width), the last, read as the label by default, looks like a feature",
			"1 (species): 3 text values {Iris-setosa,Iris-versicolor,Iris-virginica}; give the label column with --label-col 1"}},
		// Integers, every one its own class (a row id).
		{[]string{"train", idLast}, []string{
			"column 6, the last, read as the label by default, looks like a feature, not a class: 150 classes in 150 rows; 150 of its 150 values occur in at most 2 rows each",
			"give the label column with --label-col 1 (--label-col 6 takes column 6 as the label anyway)"}},
	} {
		out, errOut, code := runCLI(t, c.args...)
		if code != ExitError || out != "" {
			t.Errorf("%s: exit %d, stdout %q; want exit %d and nothing", strings.Join(c.args, " "), code, out, ExitError)
		}
		for _, w := range c.want {
			if !strings.Contains(errOut, w) {
				t.Errorf("%s: stderr %q lacks %q", strings.Join(c.args, " "), errOut, w)
			}
		}
		if strings.Contains(errOut, "onehot") {
			t.Errorf("%s: stderr %q points to one-hot encoding", strings.Join(c.args, " "), errOut)
		}
	}
	// The label column the error names gives iris's three classes of 50.
	for _, f := range []string{classFirst, speciesFirst} {
		r := trainJSON(t, f, "--label-col", "1", "-c", "1", "-g", "0.25")
		if len(r.Classes) != 3 || len(r.ClassRows) != 3 || r.ClassRows[0].Rows != 50 || r.ClassRows[2].Rows != 50 || r.TrainCorrect < 140 {
			t.Errorf("%s --label-col 1: classes %v %v, %d of 150 correct", f, r.Classes, r.ClassRows, r.TrainCorrect)
		}
	}
	// --label-col naming the last column takes it anyway: 22 classes.
	if r := trainJSON(t, classFirst, "--label-col", "5", "-c", "1", "-g", "0.25"); len(r.Classes) != 22 {
		t.Errorf("--label-col 5: %d classes, want the 22 petal widths", len(r.Classes))
	}
	// A text class first while the last column passes as classes (three
	// integer values): the nominal-column error says which column looks
	// like the class, as --label-col.
	dir := t.TempDir()
	rows := "species,length,count\n"
	for i, s := range []string{"setosa", "versicolor", "virginica"} {
		for k := range 4 {
			rows += s + "," + []string{"1.5", "2.5", "3.5", "4.5"}[k] + "," + string(rune('1'+(i+k)%3)) + "\n"
		}
	}
	f := writeFile(t, dir, "species.csv", rows)
	_, errOut, code := runCLI(t, "train", f)
	if want := `"setosa" is not a number (column 1 (species), with 3 text values {setosa,versicolor,virginica}, looks like the class: if it is, give --label-col 1)`; code != ExitError || !strings.Contains(errOut, want) {
		t.Errorf("text class first: exit %d, stderr %q, want %q", code, errOut, want)
	}
}
