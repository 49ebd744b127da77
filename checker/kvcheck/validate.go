package kvcheck

import (
	"errors"
	"fmt"

	"github.com/jetstream-chaos/jetstream-chaos/checker"
	"github.com/jetstream-chaos/jetstream-chaos/history"
)

// Validate reports the first record of h the KV checkers cannot judge,
// naming its line (a *history.LineError): whatever history.History.Validate
// rejects, and, on top, a write without a value (values tell writes apart),
// an ok write without the revision it was acknowledged with, or an ok get
// of a value without its revision (revision 0 and no value is a not-found
// get, as every checker reads it; a not-found get with a revision found a
// delete or purge marker there, whose id is its value). Every checker calls it first and
// answers a malformed history with unknown; callers may call it to fail
// loudly instead.
func Validate(h history.History) error {
	if err := h.Validate(); err != nil {
		return err
	}
	for i := range h.Ops {
		if err := validateKV(&h.Ops[i]); err != nil {
			return &history.LineError{File: "history.jsonl", Line: h.Line(i), Err: err}
		}
	}
	return nil
}

func validateKV(o *history.Op) error {
	if !isClientOp(o) {
		return nil
	}
	switch {
	case o.IsWrite() && o.Value == "":
		return fmt.Errorf("%s without a value (checkers tell writes apart by their unique values)", o.Type)
	case o.Outcome != history.OK:
	case o.IsWrite() && o.Rev == 0:
		return fmt.Errorf("ok %s without a revision", o.Type)
	case o.Type == history.Get && o.Rev == 0 && o.Value != "":
		return errors.New("ok get of a value without its revision") // revision 0 with no value reads as not found
	}
	return nil
}

// rejectMalformed is the result a checker gives a history that does not
// validate: unknown, with the bad line as the reason. ok is false when the
// history is fine.
func rejectMalformed(name string, h *history.History) (r checker.Result, ok bool) {
	err := Validate(*h)
	if err == nil {
		return checker.Result{}, false
	}
	reason := "malformed history: " + err.Error()
	return checker.Result{Name: name, Verdict: checker.Unknown, Reason: reason, Summary: reason, Counts: map[string]int{}}, true
}
