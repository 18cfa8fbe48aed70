package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"time"

	"github.com/spf13/cobra"

	"github.com/cupid-match/cupid/sim"
)

func simCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "sim",
		Short: "Simulate players through rulesets in virtual time; record and replay real traffic",
		Long: `sim runs the real engine in virtual time over a synthetic population (run)
or traffic recorded from a server's store (record, then replay), and reports
waits, skill gaps, team balance, ping, match quality, queue sizes and
abandonment as text, JSON and a self-contained HTML page, beside FIFO and
greedy baselines at the same median wait. See docs/simulator.md.`,
	}
	cmd.AddCommand(simRunCmd(), simReplayCmd(), simRecordCmd())
	return cmd
}

// reportFlags are the flags run and replay share.
type reportFlags struct {
	ruleset, compare string
	seed             uint64
	ttl              time.Duration
	sample           time.Duration
	baselines        bool
	jsonOut, htmlOut string
}

func (f *reportFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.ruleset, "ruleset", "", "the ruleset JSON file to run (required)")
	cmd.Flags().StringVar(&f.compare, "compare", "", "a second ruleset JSON file, run on the same players and shown beside the first")
	cmd.Flags().Uint64Var(&f.seed, "seed", 1, "seed of every random draw: the same seed gives the same report")
	cmd.Flags().DurationVar(&f.ttl, "ttl", sim.DefaultTTL, "ticket time to live, as the queue's ticket_ttl")
	cmd.Flags().DurationVar(&f.sample, "sample", 5*time.Minute, "interval of the queue-size samples")
	cmd.Flags().BoolVar(&f.baselines, "baselines", true, "also run the FIFO and greedy baselines at the first ruleset's median wait")
	cmd.Flags().StringVar(&f.jsonOut, "json", "", "write the JSON report to this file")
	cmd.Flags().StringVar(&f.htmlOut, "html", "", "write the HTML report to this file")
}

// config loads the rulesets the flags name.
func (f *reportFlags) config() (sim.Config, error) {
	cfg := sim.Config{Baselines: f.baselines, Seed: f.seed, TTL: f.ttl, Sample: f.sample}
	if f.ruleset == "" {
		return cfg, fmt.Errorf("--ruleset: required (a ruleset JSON file)")
	}
	files := []string{f.ruleset}
	if f.compare != "" {
		files = append(files, f.compare)
	}
	for i, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			return cfg, err
		}
		label := filepath.Base(name)
		if i == 1 && label == filepath.Base(files[0]) {
			label = name
		}
		rs, err := sim.LoadRuleset(label, data)
		if err != nil {
			return cfg, fmt.Errorf("%s: %w", name, err)
		}
		cfg.Rulesets = append(cfg.Rulesets, rs)
	}
	return cfg, nil
}

// write prints the summary and writes the reports the flags ask for.
func (f *reportFlags) write(out io.Writer, rep *sim.Report) error {
	if f.jsonOut != "" {
		data, err := rep.JSON()
		if err != nil {
			return err
		}
		if err := os.WriteFile(f.jsonOut, data, 0o644); err != nil {
			return err
		}
	}
	if f.htmlOut != "" {
		if err := os.WriteFile(f.htmlOut, rep.HTML(), 0o644); err != nil {
			return err
		}
	}
	_, err := fmt.Fprint(out, rep.Text())
	return err
}

// simGC trades memory for time: a run's garbage is short-lived and its
// live set small, so collecting less often is nearly free. GOGC in the
// environment wins. It returns the restore, for runs inside a test.
func simGC() (restore func()) {
	if os.Getenv("GOGC") != "" {
		return func() {}
	}
	old := debug.SetGCPercent(400)
	return func() { debug.SetGCPercent(old) }
}

func simRunCmd() *cobra.Command {
	var f reportFlags
	var players int
	var hours float64
	cmd := &cobra.Command{
		Use:   "run POPULATION.yaml --ruleset RULESET.json",
		Short: "Run a population through a ruleset (and --compare another) in virtual time",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			data, err := os.ReadFile(args[0])
			if err != nil {
				return err
			}
			p, err := sim.ParsePopulation(data)
			if err != nil {
				return fmt.Errorf("%s: %w", args[0], err)
			}
			if cmd.Flags().Changed("players") {
				p.Players = players
			}
			if cmd.Flags().Changed("hours") {
				p.Hours = hours
			}
			if err := p.Check(); err != nil {
				return fmt.Errorf("%s: %w", args[0], err)
			}
			cfg, err := f.config()
			if err != nil {
				return err
			}
			defer simGC()()
			rep, err := sim.RunPopulation(p, cfg)
			if err != nil {
				return err
			}
			return f.write(cmd.OutOrStdout(), rep)
		},
	}
	f.register(cmd)
	cmd.Flags().IntVar(&players, "players", 0, "override the population's players")
	cmd.Flags().Float64Var(&hours, "hours", 0, "override the population's hours")
	return cmd
}

func simReplayCmd() *cobra.Command {
	var f reportFlags
	var skill string
	var actual bool
	var w storeWindow
	cmd := &cobra.Command{
		Use:   "replay [TRAFFIC.jsonl] --ruleset RULESET.json",
		Short: "Replay recorded traffic, or a window of a store's, through a ruleset (and --compare another), beside what really happened",
		Long: `replay plays a traffic file (cupid sim record) or, with --queue and no file,
the window --from/--to (or --since) of a queue read from the store (--store,
--data) or from retention's export (--export) through the rulesets, beside
what really happened to those tickets ("actual": their real matches, waits,
quality, cancels and expiries).`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := f.config()
			if err != nil {
				return err
			}
			cfg.SkillAttribute, cfg.Actual = skill, actual
			var tr *sim.Traffic
			name := ""
			switch {
			case len(args) == 1 && w.queue != "":
				return fmt.Errorf("--queue: give a traffic file or --queue (to read the store), not both")
			case len(args) == 1:
				file, err := os.Open(args[0])
				if err != nil {
					return err
				}
				defer file.Close()
				if tr, err = sim.ParseTraffic(file); err != nil {
					return fmt.Errorf("%s: %w", args[0], err)
				}
				name = filepath.Base(args[0])
			case w.queue == "":
				return fmt.Errorf("a traffic file, or --queue to replay a window of the store")
			default:
				if tr, err = w.read(); err != nil {
					return err
				}
				name = w.queue
			}
			defer simGC()()
			rep, err := sim.RunTraffic(name, tr, cfg)
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			return f.write(cmd.OutOrStdout(), rep)
		},
	}
	f.register(cmd)
	cmd.Flags().StringVar(&skill, "skill", "mmr", "the player attribute the report reads as skill")
	cmd.Flags().BoolVar(&actual, "actual", true, "show what really happened to the tickets beside the rulesets (--actual=false to leave it out)")
	w.register(cmd, "the queue whose window to replay from the store, instead of a traffic file")
	return cmd
}

// storeWindow is a queue's window of a server's store, as record and
// replay read it.
type storeWindow struct {
	sf       serveFlags
	queue    string
	from, to string
	since    time.Duration
	// export is retention's export directory to read instead of the
	// store.
	export string
}

func (w *storeWindow) register(cmd *cobra.Command, queueHelp string) {
	cmd.Flags().StringVar(&w.sf.store, "store", "sqlite", "the store to read: sqlite (the file in --data) or a postgres:// URL, as cupid serve --store")
	cmd.Flags().StringVar(&w.sf.data, "data", "cupid-data", "directory of the embedded SQLite database, as cupid serve --data")
	cmd.Flags().StringVar(&w.queue, "queue", "", queueHelp)
	cmd.Flags().StringVar(&w.from, "from", "", "first creation time to read (RFC 3339); default --to minus --since")
	cmd.Flags().StringVar(&w.to, "to", "", "end of the window, exclusive (RFC 3339); default now")
	cmd.Flags().DurationVar(&w.since, "since", 7*24*time.Hour, "length of the window when --from is not given")
	cmd.Flags().StringVar(&w.export, "export", "", "read the window from retention's export directory (retention.export.dir) instead of the store")
}

// read reads the queue's window from the store, or from the export.
func (w *storeWindow) read() (*sim.Traffic, error) {
	start, end, err := w.window()
	if err != nil {
		return nil, err
	}
	if w.export != "" {
		tr, err := sim.ReadExport(w.export, w.queue, start, end)
		if err != nil {
			return nil, fmt.Errorf("--export %s: %w", w.export, err)
		}
		return tr, nil
	}
	ctx := context.Background()
	pager, where, closeStore, err := w.open(ctx)
	if err != nil {
		return nil, err
	}
	defer closeStore()
	tr, err := sim.Read(ctx, pager, w.queue, start, end)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	return tr, nil
}

// window is [from, to) from the flags.
func (w *storeWindow) window() (time.Time, time.Time, error) {
	end := time.Now().UTC()
	if w.to != "" {
		t, err := time.Parse(time.RFC3339, w.to)
		if err != nil {
			return time.Time{}, time.Time{}, fmt.Errorf("--to: %w", err)
		}
		end = t
	}
	start := end.Add(-w.since)
	if w.from != "" {
		t, err := time.Parse(time.RFC3339, w.from)
		if err != nil {
			return time.Time{}, time.Time{}, fmt.Errorf("--from: %w", err)
		}
		start = t
	}
	return start, end, nil
}

// open opens the store for reading tickets by creation time.
func (w *storeWindow) open(ctx context.Context) (sim.TicketPager, string, func(), error) {
	if w.sf.store == "" || w.sf.store == "sqlite" {
		// Opening a missing file would make an empty database and
		// read nothing; say where the data was looked for.
		path := filepath.Join(w.sf.data, "cupid.db")
		if _, err := os.Stat(path); err != nil {
			return nil, "", nil, fmt.Errorf("--data: no database at %s (%v)", path, err)
		}
	}
	st, where, err := openStore(ctx, w.sf)
	if err != nil {
		return nil, "", nil, err
	}
	pager, ok := st.(sim.TicketPager)
	if !ok {
		st.Close()
		return nil, "", nil, fmt.Errorf("%s: this store cannot list tickets by creation time", where)
	}
	return pager, where, func() { st.Close() }, nil
}

func simRecordCmd() *cobra.Command {
	var w storeWindow
	var out string
	cmd := &cobra.Command{
		Use:   "record --queue QUEUE -o TRAFFIC.jsonl",
		Short: "Record a queue's tickets, with their arrival times and real matches, from a server's store into a traffic file",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if w.queue == "" {
				return fmt.Errorf("--queue: required")
			}
			if out == "" {
				return fmt.Errorf("-o: required (the traffic file to write)")
			}
			start, end, err := w.window()
			if err != nil {
				return err
			}
			var n int
			var where string
			var write func(io.Writer) error
			if w.export != "" {
				// The export is read whole (the window's tickets), then
				// written as the store's window would be.
				tr, err := w.read()
				if err != nil {
					return err
				}
				n, where, write = len(tr.Tickets), "export "+w.export, tr.Write
			} else {
				ctx := context.Background()
				pager, at, closeStore, err := w.open(ctx)
				if err != nil {
					return err
				}
				defer closeStore()
				where = at
				write = func(f io.Writer) (err error) {
					n, err = sim.Record(ctx, pager, w.queue, start, end, f)
					return err
				}
			}
			file, err := os.Create(out)
			if err != nil {
				return err
			}
			err = write(file)
			if cerr := file.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "recorded %d tickets of queue %q from %s to %s (%s) into %s\n",
				n, w.queue, start.Format(time.RFC3339), end.Format(time.RFC3339), where, out)
			return nil
		},
	}
	w.register(cmd, "the queue whose tickets to record (required)")
	cmd.Flags().StringVarP(&out, "out", "o", "", "the traffic file to write (required)")
	return cmd
}
