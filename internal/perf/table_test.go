package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func TestSpan(t *testing.T) {
	for _, c := range []struct {
		vs   []float64
		unit string
		want string
	}{
		{[]float64{640.8, 512.3, 601}, "ms", "512–641 ms"},
		{[]float64{5.71, 6.04}, "× sort", "5.71–6.04× sort"},
		{[]float64{1003.4, 1003.2}, "B", "1,003 B"},
		{[]float64{284000, 1165377}, "queries/s", "284,000–1,165,377 queries/s"},
		{[]float64{0.0123}, "", "0.0123"},
		{nil, "ms", "—"},
	} {
		if got := span(c.vs, c.unit); got != c.want {
			t.Errorf("span(%v, %q) = %q, want %q", c.vs, c.unit, got, c.want)
		}
	}
}

// TestTablePrint checks the table's markdown against testdata/table.golden
// (go test ./internal/perf -run TablePrint -update rewrites it).
func TestTablePrint(t *testing.T) {
	var tb table
	pass := row{target: "1v1 pass", command: "go test ./engine -bench X", unit: "ms",
		floorName: "sort", floorUnit: "ms", ratioName: "× sort", ratio: over, most: 1000, mostRatio: 5}
	tb.add(pass, 600, 100)
	tb.add(row{target: "memory", command: "go test ./engine -bench X", unit: "B", most: 1024}, 198.3, 0)
	tb.add(row{target: "no bound", command: "go test ./engine -bench X", unit: "B"}, 630, 0)
	tb.add(pass, 450, 110)
	cpu := row{target: "5v5 pass", command: "go test ./engine -bench Y", unit: "ms CPU",
		floorName: "sort", floorUnit: "ms CPU", ratioName: "× sort", ratio: over}
	tb.addWall(cpu, 500, 10, 1500, 12)
	tb.addWall(cpu, 520, 10, 900, 11)
	tb.add(row{target: "intake", command: "cupid load", unit: "tickets/s", floorName: "store", floorUnit: "tickets/s",
		ratioName: "of the store's", ratio: over, note: storeNote, least: 10000}, 20000, 40000)
	var buf bytes.Buffer
	tb.print(&buf, 2)
	golden := filepath.Join("testdata", "table.golden")
	if *update {
		if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("table differs from %s:\n--- got\n%s--- want\n%s", golden, buf.Bytes(), want)
	}
}
