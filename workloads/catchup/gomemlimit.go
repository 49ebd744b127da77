package catchup

import (
	"fmt"
	"strings"

	"github.com/jetstream-chaos/jetstream-chaos/internal/bytesize"
)

// GoMemLimit is the GOMEMLIMIT policy of --gomemlimit: Auto (0) is the
// documented default, 80 % of --memory-limit (cluster.Config.GoMemLimitFor),
// leaving headroom for memory the Go runtime does not account for, and unset
// when there is no limit; Off (-1) leaves GOMEMLIMIT unset; a positive value
// is used as is.
type GoMemLimit int64

const (
	GoMemLimitAuto GoMemLimit = 0
	GoMemLimitOff  GoMemLimit = -1
)

// String prints auto, off or the size.
func (g GoMemLimit) String() string {
	switch {
	case g == GoMemLimitAuto:
		return "auto"
	case g < 0:
		return "off"
	}
	return bytesize.Bytes(g).String()
}

// Set implements pflag.Value: auto, off or a size.
func (g *GoMemLimit) Set(s string) error {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "auto", "":
		*g = GoMemLimitAuto
		return nil
	case "off", "unset", "none":
		*g = GoMemLimitOff
		return nil
	}
	v, err := bytesize.Parse(s)
	if err != nil || v == 0 {
		return fmt.Errorf("%q: want auto, off or a size such as 1200MiB", s)
	}
	*g = GoMemLimit(v)
	return nil
}

// Type implements pflag.Value.
func (g *GoMemLimit) Type() string { return "auto|off|size" }

// bytesize.Bytes is the GOMEMLIMIT in bytes the policy gives for a hard limit; 0
// means leave it unset.
func (g GoMemLimit) Bytes(memoryLimit bytesize.Bytes) int64 {
	switch {
	case g > 0:
		return int64(g)
	case g < 0 || memoryLimit <= 0:
		return 0
	}
	return int64(memoryLimit) / 10 * 8 // the same 80 % as cluster.Config.GoMemLimitFor
}
