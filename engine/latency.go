package engine

import "time"

// Region latency (AccelByte's match rulesets). A ticket accepts the regions it
// reaches within its current latency range, which grows with its wait. Regions
// are interned per pool as bits of a uint64, so "which regions can this group
// still play in" is one AND per candidate.
//
// Bidirectional filtering: the anchor offers the regions within its own
// range; a candidate joins only for regions within the candidate's own range
// at its own wait. Once the anchor has waited
// disable_bidirectional_latency_after_ms, the candidate's side is judged by
// the anchor's range instead (the anchor "skips the filtering step" and takes
// tickets that are within its expansion). The match is hosted in the common
// region with the lowest worst latency (then lowest total, then name).

// maskAt is the set of regions a ticket accepts at latency range r; lats is
// sorted by latency.
func maskAt(lats []regLat, r int) uint64 {
	var m uint64
	for _, l := range lats {
		if int(l.ms) > r {
			break
		}
		m |= 1 << l.region
	}
	return m
}

// latencyTo is a ticket's latency to a region, or -1 when it has none there
// (or only above the maximum).
func latencyTo(lats []regLat, region uint8) int32 {
	for _, l := range lats {
		if l.region == region {
			return l.ms
		}
	}
	return -1
}

// candidateMask is the set of the anchor's regions a candidate may join in.
func (p *Pool) candidateMask(c *entry, slot int32, env *envelope, now time.Time, anchorMask uint64) uint64 {
	if !env.bidir {
		return maskAt(c.x.lats, env.latRange) & anchorMask
	}
	// A candidate's own expansion depends only on its wait, so it is
	// computed once per Step however many anchors look at it.
	n := now.UnixNano()
	if p.maskAt[slot] != n {
		p.masks[slot] = maskAt(c.x.lats, p.r.latRange(p.waitOf(c, now)))
		p.maskAt[slot] = n
	}
	return p.masks[slot] & anchorMask
}

// chooseRegion picks the hosting region among mask for the given tickets;
// -1 when there are no latency rules.
func (p *Pool) chooseRegion(mask uint64, slots []int32) int {
	if p.r.lat == nil || mask == 0 {
		return -1
	}
	best, bestWorst, bestSum := -1, int32(0), int64(0)
	for reg := 0; reg < len(p.regionNames); reg++ {
		if mask&(1<<reg) == 0 {
			continue
		}
		worst, sum := int32(0), int64(0)
		for _, s := range slots {
			ms := latencyTo(p.entries[s].x.lats, uint8(reg))
			worst = max(worst, ms)
			sum += int64(ms) * int64(p.entries[s].size)
		}
		better := best < 0 || worst < bestWorst || (worst == bestWorst && sum < bestSum) ||
			(worst == bestWorst && sum == bestSum && p.regionNames[reg] < p.regionNames[best])
		if better {
			best, bestWorst, bestSum = reg, worst, sum
		}
	}
	return best
}
