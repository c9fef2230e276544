// Package hint holds the library's advice as data: a message that tells
// its reader which setting to change (a read option, a method's setting,
// a comparison's partitions) names it as a Setting, not as a command-line
// flag. The library spells a Setting as a study file and its option
// errors name it (key=value, or the key alone); a command line spells it
// as its flag (cmd: "--key value"). Nothing here knows the flags.
package hint

import (
	"errors"
	"fmt"
	"strings"
)

// Setting is a setting a message names or suggests: Key is its name as a
// study file and the library's option errors write it ("kernel-rows",
// "missing", "margin"), Value the value suggested ("" when the message
// names the setting alone; a placeholder such as "N" or "sigma=S" when it
// suggests a kind of value).
type Setting struct{ Key, Value string }

// S is the Setting key with the value value ("" for none).
func S(key, value string) Setting { return Setting{Key: key, Value: value} }

// A Speller spells a Setting in a message.
type Speller func(Setting) string

// Plain spells s as the library does: key=value, or the key alone.
func Plain(s Setting) string {
	if s.Value == "" {
		return s.Key
	}
	return s.Key + "=" + s.Value
}

// Text is a message in parts: strings, Settings, errors (whose own
// Settings are spelled in turn) and other values (printed with %v).
type Text []any

// T is the Text of parts.
func T(parts ...any) Text { return Text(parts) }

// String spells t with Plain.
func (t Text) String() string { return t.Spell(Plain) }

// Spell spells t, each Setting by sp.
func (t Text) Spell(sp Speller) string {
	var b strings.Builder
	for _, p := range t {
		switch p := p.(type) {
		case string:
			b.WriteString(p)
		case Setting:
			b.WriteString(sp(p))
		case error:
			b.WriteString(Spell(p, sp).Error())
		default:
			fmt.Fprint(&b, p)
		}
	}
	return b.String()
}

// Worded is an error whose message is a Text: an *Error, or a package's
// typed error, which has the numbers as fields and words them with Words.
type Worded interface {
	error
	Words() Text
}

// Error is an error whose message is a Text. It wraps Err (nil: nothing),
// so that errors.Is and errors.As see through it.
type Error struct {
	Text Text
	Err  error
}

// Errorf is the *Error of the parts that wraps err (which may be one of
// the parts too).
func Errorf(err error, parts ...any) *Error { return &Error{Text: parts, Err: err} }

func (e *Error) Error() string { return e.Text.String() }

// Words is the message of e.
func (e *Error) Words() Text { return e.Text }

func (e *Error) Unwrap() error { return e.Err }

// Spell returns err with the Settings of the first Worded error in its
// chain spelled by sp (and those of the errors its Text holds): the message
// of err with that error's own message in its place. The result wraps err
// (errors.Is and errors.As see all it did). err is returned as it is when
// it holds no *Error or a wrapper in its chain does not quote the
// message of its cause.
func Spell(err error, sp Speller) error {
	var w Worded
	if err == nil || !errors.As(err, &w) {
		return err
	}
	return Reword(err, w, w.Words().Spell(sp))
}

// Reword returns err with the message of target, an error of its chain,
// worded as text: the message of err with target's own message in its
// place (a typed error worded by its caller from its fields). The result
// wraps err. err is returned as it is when a wrapper in its chain does not
// quote the message of its cause.
func Reword(err, target error, text string) error {
	plain, msg := target.Error(), err.Error()
	i := strings.Index(msg, plain)
	if plain == text || i < 0 {
		return err
	}
	return &spelledError{msg: msg[:i] + text + msg[i+len(plain):], err: err}
}

type spelledError struct {
	msg string
	err error
}

func (e *spelledError) Error() string { return e.msg }
func (e *spelledError) Unwrap() error { return e.err }

// Texts are the Texts of plain strings.
func Texts(ss []string) []Text {
	if ss == nil {
		return nil
	}
	out := make([]Text, len(ss))
	for i, s := range ss {
		out[i] = Text{s}
	}
	return out
}

// Strings spells each of ts with Plain.
func Strings(ts []Text) []string {
	if ts == nil {
		return nil
	}
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.String()
	}
	return out
}

// SpellAll spells each of ts by sp.
func SpellAll(ts []Text, sp Speller) []string {
	if ts == nil {
		return nil
	}
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.Spell(sp)
	}
	return out
}

// MarshalText is t spelled with Plain: a Text is a string in JSON.
func (t Text) MarshalText() ([]byte, error) { return []byte(t.String()), nil }

// UnmarshalText reads a Text as one string.
func (t *Text) UnmarshalText(b []byte) error {
	*t = Text{string(b)}
	return nil
}
