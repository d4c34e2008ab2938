package resources

import (
	"context"
	"strings"
	"testing"

	"edgeconnect.eu/crossplane-otc-simulator/internal/terraformed"
)

func eipAnswer(status string) string {
	return `{"publicip":{"id":"e1","status":"` + status + `","type":"5_bgp","public_ip_address":"80.158.0.2","private_ip_address":null,` +
		`"port_id":null,"tenant_id":"t","bandwidth_id":"b1","bandwidth_name":"bw","bandwidth_size":10,"bandwidth_share_type":"PER","ip_version":4,"alias":"ingress"}}`
}

const eipForProvider = `{"publicip":[{"type":"5_bgp","name":"ingress"}],"bandwidth":[{"name":"bw","size":10,"shareType":"PER","chargeMode":"traffic"}],"region":"eu-de"}`

func TestEIPCreate(t *testing.T) {
	cases := []struct {
		name        string
		forProvider string
		wantBody    string
		wantErr     string
	}{
		{
			name:        "all arguments",
			forProvider: eipForProvider,
			wantBody:    `{"publicip":{"type":"5_bgp","ip_version":4,"alias":"ingress"},"bandwidth":{"name":"bw","size":10,"share_type":"PER","charge_mode":"traffic"}}`,
		},
		{
			name:        "OTC's defaults",
			forProvider: `{"bandwidth":[{"name":"bw","size":5}]}`,
			wantBody:    `{"publicip":{"type":"5_bgp","ip_version":4},"bandwidth":{"name":"bw","size":5,"share_type":"PER"}}`,
		},
		{
			name:        "a size with a fraction, as JSON may carry it",
			forProvider: `{"publicip":[{"type":"5_bgp"}],"bandwidth":[{"name":"bw","size":5.0}]}`,
			wantBody:    `{"publicip":{"type":"5_bgp","ip_version":4},"bandwidth":{"name":"bw","size":5,"share_type":"PER"}}`,
		},
		{
			name:        "no bandwidth size",
			forProvider: `{"publicip":[{"type":"5_bgp"}],"bandwidth":[{"name":"bw"}]}`,
			wantErr:     `the argument "bandwidth.0.size" is required, but no definition was found`,
		},
		{
			name:        "no bandwidth name",
			forProvider: `{"publicip":[{"type":"5_bgp"}],"bandwidth":[{"size":10}]}`,
			wantErr:     `the argument "bandwidth.0.name" is required, but no definition was found`,
		},
		{
			name:        "no bandwidth block",
			forProvider: `{"publicip":[{"type":"5_bgp"}]}`,
			wantErr:     `the argument "bandwidth.0.size" is required, but no definition was found`,
		},
		{
			name:        "an address asked for",
			forProvider: `{"publicip":[{"type":"5_bgp","ipAddress":"80.158.0.9"}],"bandwidth":[{"name":"bw","size":10}]}`,
			wantErr:     "leave publicip[0].ipAddress out",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fake, c := newFakeOTC(t)
			fake.on("POST", vpcBase+"/publicips", 200, eipAnswer("PENDING_CREATE"))
			id, err := eip.Create(context.Background(), c, params(t, tc.forProvider))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				fake.expect()
				return
			}
			if err != nil || id != "e1" {
				t.Fatalf("got %q, %v", id, err)
			}
			fake.expect(request{method: "POST", path: vpcBase + "/publicips", body: tc.wantBody})
		})
	}
}

func TestEIPRead(t *testing.T) {
	cases := []struct {
		status    string
		wantPhase terraformed.Phase
		failure   string
	}{
		{"PENDING_CREATE", terraformed.Settling, ""},
		{"BINDING", terraformed.Settling, ""},
		{"DOWN", terraformed.Settled, ""},
		{"ACTIVE", terraformed.Settled, ""},
		{"ELB", terraformed.Settled, ""},
		{"PENDING_DELETE", terraformed.Deleting, ""},
		{"NOTIFY_DELETE", terraformed.Deleting, ""},
		{"ERROR", terraformed.Failed, "unexpected state 'ERROR', wanted target 'DOWN'"},
	}
	for _, tc := range cases {
		t.Run(tc.status, func(t *testing.T) {
			fake, c := newFakeOTC(t)
			fake.on("GET", vpcBase+"/publicips/e1", 200, eipAnswer(tc.status))
			forProvider := params(t, eipForProvider)
			state := read(t, eip, c, "e1", forProvider, nil)
			if state.Phase != tc.wantPhase || state.Failure != tc.failure {
				t.Fatalf("phase %v %q", state.Phase, state.Failure)
			}
			// The address is at publicip[0].ipAddress and nowhere else.
			sameJSON(t, "atProvider", state.AtProvider, `{
				"id":"e1","region":"eu-de",
				"publicip":[{"type":"5_bgp","ipAddress":"80.158.0.2","name":"ingress"}],
				"bandwidth":[{"name":"bw","size":10,"shareType":"PER","chargeMode":"traffic","id":"b1"}]}`)
			for _, key := range []string{"address", "status", "publicIpAddress"} {
				if _, ok := state.AtProvider[key]; ok {
					t.Errorf("atProvider has %q, which the provider's EIPV1 has not", key)
				}
			}
			sameJSON(t, "reported", state.Reported, `{
				"publicip":[{"type":"5_bgp","ipAddress":"80.158.0.2"}],
				"bandwidth":[{"size":10,"shareType":"PER"}],
				"region":"eu-de"}`)
			noChanges(t, forProvider, state)
		})
	}
}

// The atProvider blocks are copies: the refresh leaves forProvider alone.
func TestEIPReadLeavesForProviderAlone(t *testing.T) {
	fake, c := newFakeOTC(t)
	fake.on("GET", vpcBase+"/publicips/e1", 200, eipAnswer("DOWN"))
	forProvider := params(t, eipForProvider)
	state := read(t, eip, c, "e1", forProvider, nil)
	state.AtProvider["publicip"].([]any)[0].(map[string]any)["type"] = "changed"
	sameJSON(t, "forProvider", forProvider, eipForProvider)
}

func TestEIPDrift(t *testing.T) {
	fake, c := newFakeOTC(t)
	fake.on("GET", vpcBase+"/publicips/e1", 200, eipAnswer("DOWN"))
	state := read(t, eip, c, "e1", params(t, `{}`), nil)
	changes := terraformed.Changes(params(t, `{"publicip":[{"type":"5_mailbgp"}],"bandwidth":[{"size":20,"shareType":"WHOLE"}]}`), state.Reported)
	want := []string{"bandwidth.0.share_type", "bandwidth.0.size", "publicip.0.type"}
	if len(changes) != len(want) {
		t.Fatalf("changes %+v", changes)
	}
	for i, change := range changes {
		if change.Argument != want[i] {
			t.Fatalf("change %d is %q, want %q", i, change.Argument, want[i])
		}
		forceNew := change.Argument != "bandwidth.0.size"
		if terraformed.Matches(eip.ForceNew, change.Argument) != forceNew {
			t.Errorf("%s forces a new EIP: %v", change.Argument, !forceNew)
		}
	}
}

func TestEIPReadGoneAndDelete(t *testing.T) {
	fake, c := newFakeOTC(t)
	fake.on("GET", vpcBase+"/publicips/gone", 404, `{"error_msg":"not found","error_code":"VPC.0301"}`)
	fake.on("DELETE", vpcBase+"/publicips/e1", 204, "")
	if state, err := eip.Read(context.Background(), c, "gone", params(t, `{}`), nil); err != nil || state != nil {
		t.Fatalf("gone: %+v, %v", state, err)
	}
	if err := eip.Delete(context.Background(), c, "e1", params(t, `{}`)); err != nil {
		t.Fatal(err)
	}
	fake.expect(
		request{method: "GET", path: vpcBase + "/publicips/gone"},
		request{method: "DELETE", path: vpcBase + "/publicips/e1"},
	)
}
