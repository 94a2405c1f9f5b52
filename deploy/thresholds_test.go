package deploy

import (
	"encoding/json"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/idnode/idnode/server"
)

var (
	// alertRule matches a rule of alerts.yml: its name and its expression, up to its for: or
	// labels: line.
	alertRule = regexp.MustCompile(`(?s)- alert: (\w+)\n\s+expr: (.*?)\n\s+(?:for|labels):`)
	// ruleThreshold matches the comparison that ends an expression: its operator and a number,
	// or a product of numbers (14 * 86400).
	ruleThreshold = regexp.MustCompile(`([<>])\s*([0-9.]+(?:\s*\*\s*[0-9.]+)*)\s*$`)
	// panelAlert matches the alert a dashboard panel's description names.
	panelAlert = regexp.MustCompile(`\balert (Idnode\w+)`)
)

// alertThresholds reads the number each rule of alerts.yml compares its expression with, by
// alert name, for the rules that end in a comparison with a number.
func alertThresholds(t *testing.T) map[string]float64 {
	t.Helper()
	body, err := os.ReadFile("prometheus/alerts.yml")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, rule := range alertRule.FindAllStringSubmatch(string(body), -1) {
		m := ruleThreshold.FindStringSubmatch(strings.TrimSpace(rule[2]))
		if m == nil {
			continue
		}
		product := 1.0
		for _, factor := range strings.Split(m[2], "*") {
			f, err := strconv.ParseFloat(strings.TrimSpace(factor), 64)
			if err != nil {
				t.Fatalf("alert %s: threshold %q: %v", rule[1], m[2], err)
			}
			product *= f
		}
		out[rule[1]] = product
	}
	return out
}

// TestStatusThresholdsAreTheAlerts checks that the thresholds Status carries (and the web
// console marks figures by) are the numbers of the alert rules, so that the console and an
// alert never disagree on what needs an operator.
func TestStatusThresholdsAreTheAlerts(t *testing.T) {
	alerts := alertThresholds(t)
	th := server.HeadroomThresholds()
	for alert, want := range map[string]float64{
		"IdnodeNumericTimeBitsRunningOut": th.GetNumericYearsLeft(),
		"IdnodeNumericWorkersRunningOut":  th.GetWorkersAvailableRatio(),
		"IdnodeCounterHeadroomLow":        th.GetCounterHeadroomRatio(),
		"IdnodeDiskFullSoon":              th.GetDiskFullInDays(),
		"IdnodeCertificateExpiresSoon":    th.GetCertificateDaysLeft() * 86400, // the rule's in seconds
		"IdnodeClockOffsetHigh":           th.GetClockOffsetSeconds(),
	} {
		got, ok := alerts[alert]
		if !ok {
			t.Errorf("alerts.yml has no rule %s ending in a comparison with a number; found %v", alert, alerts)
			continue
		}
		if got != want {
			t.Errorf("alert %s fires past %v; Status's thresholds (server.HeadroomThresholds) say %v: change both", alert, got, want)
		}
	}
}

// TestDashboardThresholdsAreTheAlerts checks that a dashboard panel drawing a threshold draws
// the one of the alert its description names.
func TestDashboardThresholdsAreTheAlerts(t *testing.T) {
	alerts := alertThresholds(t)
	body, err := os.ReadFile("grafana/idnode.json")
	if err != nil {
		t.Fatal(err)
	}
	var dashboard struct {
		Panels []struct {
			Title       string `json:"title"`
			Description string `json:"description"`
			FieldConfig struct {
				Defaults struct {
					Thresholds struct {
						Steps []struct {
							Value *float64 `json:"value"`
						} `json:"steps"`
					} `json:"thresholds"`
				} `json:"defaults"`
			} `json:"fieldConfig"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(body, &dashboard); err != nil {
		t.Fatal(err)
	}
	drawn := 0
	for _, p := range dashboard.Panels {
		var values []float64
		for _, step := range p.FieldConfig.Defaults.Thresholds.Steps {
			if step.Value != nil {
				values = append(values, *step.Value)
			}
		}
		if len(values) == 0 {
			continue
		}
		drawn++
		m := panelAlert.FindStringSubmatch(p.Description)
		if m == nil {
			t.Errorf("panel %q draws thresholds %v but its description names no alert", p.Title, values)
			continue
		}
		want, ok := alerts[m[1]]
		if !ok {
			t.Errorf("panel %q names alert %s, which alerts.yml has not as a comparison with a number", p.Title, m[1])
			continue
		}
		for _, v := range values {
			if v != want {
				t.Errorf("panel %q draws a threshold at %v; alert %s fires past %v", p.Title, v, m[1], want)
			}
		}
	}
	if drawn == 0 {
		t.Error("no dashboard panel draws a threshold: the Headroom row's should")
	}
}
