// promlint reads a Prometheus text exposition on standard input, checks that it parses as
// Prometheus itself would parse it, and lints it with client_golang's promlint (the checks
// `promtool check metrics` runs). It prints each problem and exits 1 when there is one, except
// the problems of the metrics named with -allow (upstream Karpenter's names that the linter
// dislikes, kept so that dashboards work), which it prints as allowed.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/prometheus/client_golang/prometheus/testutil/promlint"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

const maxSeriesLinted = 100

type names map[string]bool

func (n names) String() string     { return fmt.Sprint(map[string]bool(n)) }
func (n names) Set(v string) error { n[v] = true; return nil }

func main() {
	allowed := names{}
	flag.Var(allowed, "allow", "a metric whose problems are allowed (repeatable)")
	flag.Parse()
	text, err := io.ReadAll(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "promlint: reading standard input:", err)
		os.Exit(2)
	}
	parser := expfmt.NewTextParser(model.LegacyValidation)
	families, err := parser.TextToMetricFamilies(bytes.NewReader(text))
	if err != nil {
		fmt.Println("does not parse:", err)
		os.Exit(1)
	}
	// The linter's checks are about families (names, types, help, units), and its cost grows with
	// the square of the series: lint each family's first hundred series (every line has parsed).
	var sampled []*dto.MetricFamily
	for _, family := range families {
		if len(family.Metric) > maxSeriesLinted {
			family.Metric = family.Metric[:maxSeriesLinted]
		}
		sampled = append(sampled, family)
	}
	problems, err := promlint.NewWithMetricFamilies(sampled).Lint()
	if err != nil {
		fmt.Println("lint failed:", err)
		os.Exit(1)
	}
	failed := false
	for _, problem := range problems {
		if allowed[problem.Metric] {
			fmt.Printf("allowed: %s: %s\n", problem.Metric, problem.Text)
			continue
		}
		fmt.Printf("%s: %s\n", problem.Metric, problem.Text)
		failed = true
	}
	if failed {
		os.Exit(1)
	}
	fmt.Printf("ok: %d families\n", len(families))
}
