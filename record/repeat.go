package record

// RepeatSummary is how one cell fared over its --runs: what Jepsen's
// test-all and etcd's --count report.
type RepeatSummary struct {
	Cell          string   `json:"cell"` // the cell's name without its run
	ServerVersion string   `json:"server_version"`
	Runs          int      `json:"runs"`
	Planned       int      `json:"planned_runs"` // --runs; more than Runs when --until-fail or an interrupt stopped early
	Failed        int      `json:"failed"`       // runs that found an anomaly
	Unknown       int      `json:"unknown"`
	Errors        int      `json:"errors"` // runs the harness could not finish
	Rate          float64  `json:"failure_rate"`
	FirstFailure  *Failure `json:"first_failure,omitempty"`
}

// Failure is the first failing run of a cell, and how to run it again.
type Failure struct {
	Repeat int    `json:"repeat"`
	Seed   uint64 `json:"seed"`
	Dir    string `json:"dir"`
	Rerun  string `json:"rerun"`
}

// Bisection is what --bisect found across a release range.
type Bisection struct {
	Probes []VersionRate `json:"probes"` // in the order they ran
	// FirstChange is the first release whose outcome differs from the
	// range's first release ("" when undecided); Change says how: the
	// anomaly "stops" or "starts" there.
	FirstChange string `json:"first_change,omitempty"`
	Change      string `json:"change,omitempty"`
	// Subject is FirstChange's subject line when it is a commit of
	// --commits.
	Subject string `json:"subject,omitempty"`
	Decided bool   `json:"decided"`
	Detail  string `json:"detail"`
}

// VersionRate is one probed release.
type VersionRate struct {
	ServerVersion string  `json:"server_version"`
	Runs          int     `json:"runs"`
	Failed        int     `json:"failed"`
	Rate          float64 `json:"failure_rate"`
}
