package cluster

import (
	"fmt"
	"strings"

	"github.com/jetstream-chaos/jetstream-chaos/internal/bytesize"
)

// GoMemLimit is a GOMEMLIMIT policy, and a flag value (auto, off or a
// size): GoMemLimitAuto is 80 % of the hard memory limit, leaving headroom
// for memory the Go runtime does not account for, and unset without a
// limit; GoMemLimitOff leaves it unset; a positive value is used as is.
type GoMemLimit int64

// The policies that are not a size.
const (
	GoMemLimitAuto GoMemLimit = 0
	GoMemLimitOff  GoMemLimit = -1
)

// Bytes is the GOMEMLIMIT the policy gives under a hard limit of
// memoryLimit bytes; 0 means leave it unset.
func (g GoMemLimit) Bytes(memoryLimit int64) int64 {
	switch {
	case g > 0:
		return int64(g)
	case g < 0 || memoryLimit <= 0:
		return 0
	}
	return memoryLimit / 10 * 8
}

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
