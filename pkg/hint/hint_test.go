package hint

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"testing"
)

func flag(s Setting) string {
	if s.Value == "" {
		return "--" + s.Key
	}
	return "--" + s.Key + " " + s.Value
}

func TestTextSpell(t *testing.T) {
	tx := T("give ", S("train-size", ""), " or ", S("train-fraction", "0.5"), fmt.Sprintf(" (%d rows)", 3))
	if got, want := tx.String(), "give train-size or train-fraction=0.5 (3 rows)"; got != want {
		t.Errorf("String = %q, want %q", got, want)
	}
	if got, want := tx.Spell(flag), "give --train-size or --train-fraction 0.5 (3 rows)"; got != want {
		t.Errorf("Spell = %q, want %q", got, want)
	}
	b, err := json.Marshal(struct{ Notes []Text }{[]Text{tx}})
	if err != nil || string(b) != `{"Notes":["give train-size or train-fraction=0.5 (3 rows)"]}` {
		t.Errorf("json: %s, %v", b, err)
	}
	var back struct{ Notes []Text }
	if err := json.Unmarshal(b, &back); err != nil || len(back.Notes) != 1 || back.Notes[0].String() != tx.String() {
		t.Errorf("json back: %v, %v", back, err)
	}
}

type rowsError struct{ N, Max int }

func (e *rowsError) Error() string { return e.Words().String() }
func (e *rowsError) Words() Text {
	return T(fmt.Sprintf("%d rows, more than %d: use a ", e.N, e.Max), S("kernel-rows", ""), " subset")
}

// Spell finds the worded error in a chain of wrappers that quote their
// cause, spells it in place, and keeps the chain for errors.Is and As.
func TestSpellThroughWrappers(t *testing.T) {
	inner := Errorf(io.EOF, "reading: ", io.EOF, "; give ", S("missing", "drop"))
	err := fmt.Errorf("data.csv:3: %w", inner)
	got := Spell(err, flag)
	if want := "data.csv:3: reading: EOF; give --missing drop"; got.Error() != want {
		t.Errorf("Spell = %q, want %q", got, want)
	}
	if !errors.Is(got, io.EOF) || !errors.Is(got, inner) {
		t.Errorf("Spell lost the chain: %v", got)
	}
	// An error part is spelled in turn, and a package's typed error too.
	outer := Errorf(nil, "tune: ", &rowsError{N: 30000, Max: 20000}, " (", S("max-iter", ""), ")")
	if got, want := Spell(fmt.Errorf("x: %w", outer), flag).Error(), "x: tune: 30000 rows, more than 20000: use a --kernel-rows subset (--max-iter)"; got != want {
		t.Errorf("Spell = %q, want %q", got, want)
	}
	var re *rowsError
	if w := Spell(&rowsError{N: 5, Max: 4}, flag); !errors.As(w, &re) || w.Error() != "5 rows, more than 4: use a --kernel-rows subset" {
		t.Errorf("typed: %v", w)
	}
	// Nothing to spell: the error itself.
	plain := errors.New("plain")
	if Spell(plain, flag) != plain || Spell(nil, flag) != nil {
		t.Error("Spell changed an error without settings")
	}
	// A wrapper that does not quote its cause keeps its words.
	hidden := fmt.Errorf("failed: %v", inner)
	if Spell(hidden, flag) != hidden {
		t.Error("Spell rewrote a message that does not wrap")
	}
}
