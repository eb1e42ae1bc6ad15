package app_test

import "testing"

// An account without allocations answers every documented list and the report's map empty
// (spec 001 §3, §7), never a bare {} (issue 42 item 6).
func TestEmptyAllocationAnswersCarryTheirFields(t *testing.T) {
	t.Parallel()
	s := start(t)
	pilot := login(t, s, "pilot@demo.hangar.test")
	code, list := call(t, s, pilot, "GET", "/account/api/subscription/allocations/?users=", "")
	if code != 200 {
		t.Fatalf("allocations = %d %v", code, list)
	}
	for _, f := range []string{"allocations", "allAssignments", "planAssignments", "nonPlanAssignments"} {
		if got, ok := list[f].([]any); !ok || len(got) != 0 {
			t.Errorf("allocations answer %v: %s is not an empty list", list, f)
		}
	}
	code, report := call(t, s, pilot, "GET", "/account/api/subscription/allocation/report", "")
	if _, ok := report["addOnAllocationReports"].(map[string]any); code != 200 || !ok {
		t.Errorf("report = %d %v, want addOnAllocationReports present", code, report)
	}
	if _, ok := report["ownerId"].(string); !ok {
		t.Errorf("report = %v, want ownerId present", report)
	}
}
