package record

import "testing"

func TestWorseAndExitCodes(t *testing.T) {
	if Worse(Valid, Unknown) != Unknown || Worse(Unknown, Error) != Error || Worse(Error, Invalid) != Invalid || Worse(Invalid, Valid) != Invalid {
		t.Fatal("verdict order: want valid < unknown < error < invalid")
	}
	for v, code := range map[Verdict]int{Valid: 0, Invalid: 1, Unknown: 2, Error: 4} {
		if v.ExitCode() != code {
			t.Errorf("%s exits %d, want %d", v, v.ExitCode(), code)
		}
	}
}
