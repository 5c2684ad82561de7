package llm

import (
	"errors"
	"testing"
)

func TestIsOffline(t *testing.T) {
	offline, err := Open(Config{Provider: "offline"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	command, err := Open(Config{Provider: "command", Command: []string{"cat"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		p    Provider
		want bool
	}{
		{"nil", nil, true},
		{"offline", Offline{}, true},
		{"offline as configured", offline, true},
		{"offline wrapped in decorators", WithSchema(WithRetry(WithRedaction(Offline{}), RetryPolicy{})), true},
		{"a command, wrapped as Open wraps it", command, false},
	}
	for _, tt := range tests {
		if got := IsOffline(tt.p); got != tt.want {
			t.Errorf("IsOffline(%s) = %v, want %v", tt.name, got, tt.want)
		}
	}
	if _, err := (Offline{}).Complete(t.Context(), Request{}); !errors.Is(err, ErrOffline) {
		t.Errorf("Offline.Complete: %v, want ErrOffline", err)
	}
}
