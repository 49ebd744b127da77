package reports

import "testing"

func TestPeakPointsKeepsSpikes(t *testing.T) {
	var s []MemSample
	for i := int64(0); i < 10000; i++ {
		b := int64(100)
		if i == 4321 {
			b = 999
		}
		s = append(s, MemSample{T: i * 1e6, Bytes: b})
	}
	pts := peakPoints(s, 10)
	if len(pts) > maxMemPoints {
		t.Errorf("%d points, bound %d", len(pts), maxMemPoints)
	}
	found := false
	for _, p := range pts {
		found = found || p.Y == 999
	}
	if !found {
		t.Error("the spike was smoothed away")
	}
}
