package cmd

import (
	"errors"
	"testing"
)

// The renderers' tests are pkg/report's; cmd's part is that an unknown
// format is a usage error (exit code 2) with report's message.
func TestCheckFormat(t *testing.T) {
	t.Parallel()
	if err := checkFormat("json", "table", "json"); err != nil {
		t.Errorf("json rejected: %v", err)
	}
	err := checkFormat("yaml", "table", "json")
	var fe *flagError
	if !errors.As(err, &fe) {
		t.Fatalf("want a usage error, got %v", err)
	}
	if want := `--format: unknown format "yaml" (want table, json)`; err.Error() != want {
		t.Errorf("message %q, want %q", err.Error(), want)
	}
}
