package cmd

import (
	"github.com/spf13/pflag"

	"github.com/kerneltune/kerneltune/pkg/study"
)

// mergeStudy merges the study st's top-level settings (study.TopSettings,
// typed by compare's flags of their names) with the flags fs: a flag the
// user gave wins over the file, any other takes the study's value. The
// study's read options (dataio.ReadKeys) stay off the flags: it returns
// those the user did not give, for each dataset's read options.
func mergeStudy(fs *pflag.FlagSet, st *study.Study) (read []study.Setting, err error) {
	sets, err := st.TopSettings(func(key string) study.Kind { return flagKind(fs, key) })
	if err != nil {
		return nil, err
	}
	for _, s := range sets {
		switch {
		case fs.Changed(s.Key):
		case s.Read:
			read = append(read, s)
		default:
			if err := fs.Set(s.Key, s.Value); err != nil {
				return nil, st.SettingError(s, err) // pflag names the value and the flag
			}
		}
	}
	return read, nil
}

// flagKind is the kind of fs's flag name (study.NoKind when there is none):
// the kind of its value.
func flagKind(fs *pflag.FlagSet, name string) study.Kind {
	f := fs.Lookup(name)
	if f == nil {
		return study.NoKind
	}
	switch f.Value.Type() {
	case "bool":
		return study.Bool
	case "int", "uint64":
		return study.Integer
	case "float64":
		return study.Number
	case "stringSlice":
		return study.List
	case "string":
		return study.String
	}
	return study.NoKind
}
