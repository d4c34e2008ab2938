package resources

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"edgeconnect.eu/crossplane-otc-simulator/internal/terraformed"
)

const poolBase = clusterBase + "/c1/nodepools"

func poolAnswer(phase, az string, count int) string {
	return `{"kind":"NodePool","apiVersion":"v3","metadata":{"uid":"np1","name":"pool-a"},"spec":{"type":"vm","initialNodeCount":` +
		strconv.Itoa(count) + `,"nodeTemplate":{"flavor":"s3.xlarge.4","az":"` + az + `","os":"HCE OS 2.0","login":{"sshKey":"ci-key"},` +
		`"rootVolume":{"size":40,"volumetype":"SSD"},"dataVolumes":[{"size":100,"volumetype":"SSD"}],"runtime":{"name":"containerd"},"billingMode":0},` +
		`"autoscaling":{"enable":false},"nodeManagement":{}},"status":{"currentNode":0,"phase":"` + phase + `"}}`
}

const poolForProvider = `{"name":"pool-a","clusterId":"c1","clusterIdRef":{"name":"cluster"},"flavor":"s3.xlarge.4","initialNodeCount":2,
	"os":"HCE OS 2.0","keyPair":"ci-key","keyPairSelector":{"matchLabels":{"a":"b"}},"availabilityZone":"random","runtime":"containerd",
	"rootVolume":[{"size":40,"volumetype":"SSD"}],"dataVolumes":[{"size":100,"volumetype":"SSD"}],
	"passwordSecretRef":{"name":"s","key":"k"}}`

func TestNodePoolWaitBeforeCreate(t *testing.T) {
	cases := []struct {
		name        string
		forProvider string
		status      int
		answer      string
		wantWaiting string
		wantErr     string
	}{
		{
			name:        "cluster Available",
			forProvider: `{"clusterId":"c1"}`,
			status:      200,
			answer:      clusterAnswer("Available", internalURL),
		},
		{
			name:        "cluster Creating",
			forProvider: `{"clusterId":"c1"}`,
			status:      200,
			answer:      clusterAnswer("Creating"),
			wantWaiting: "CCE cluster c1 to become Available",
		},
		{
			name:        "cluster gone",
			forProvider: `{"clusterId":"c1"}`,
			status:      404,
			answer:      `{"kind":"Status","code":404,"error_code":"CCE.01404001","error_msg":"cluster c1 could not be found"}`,
			wantErr:     "error waiting for CCE cluster c1 to become available: the cluster does not exist",
		},
		{
			name:        "CCE fails",
			forProvider: `{"clusterId":"c1"}`,
			status:      503,
			answer:      `{"error_code":"CCE.01500001","error_msg":"busy"}`,
			wantErr:     "busy",
		},
		{
			name:        "no cluster",
			forProvider: `{"clusterIdRef":{"name":"cluster"}}`,
			wantErr:     `the argument "cluster_id" is required, but no definition was found`,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fake, c := newFakeOTC(t)
			if tc.status != 0 {
				fake.on("GET", clusterBase+"/c1", tc.status, tc.answer)
			}
			waiting, err := nodePool.WaitBeforeCreate(context.Background(), c, params(t, tc.forProvider))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || waiting != tc.wantWaiting {
				t.Fatalf("got %q, %v; want %q", waiting, err, tc.wantWaiting)
			}
		})
	}
}

func TestNodePoolCreate(t *testing.T) {
	template := `"flavor":"s3.xlarge.4","os":"HCE OS 2.0","login":{"sshKey":"ci-key"},"rootVolume":{"size":40,"volumetype":"SSD"}`
	cases := []struct {
		name        string
		forProvider string
		wantBody    string
		wantErr     string
	}{
		{
			name:        "all arguments",
			forProvider: poolForProvider,
			wantBody: `{"kind":"NodePool","apiVersion":"v3","metadata":{"name":"pool-a"},"spec":{"type":"vm","initialNodeCount":2,"nodeTemplate":{` +
				template + `,"az":"random","dataVolumes":[{"size":100,"volumetype":"SSD"}],"runtime":{"name":"containerd"}}}}`,
		},
		{
			name: "a zone, no runtime, an incomplete data volume, an empty pool",
			forProvider: `{"name":"pool-a","clusterId":"c1","flavor":"s3.xlarge.4","initialNodeCount":0,"os":"HCE OS 2.0","keyPair":"ci-key",
				"availabilityZone":"eu-de-02","rootVolume":[{"size":40,"volumetype":"SSD"}],"dataVolumes":[{"size":100}]}`,
			wantBody: `{"kind":"NodePool","apiVersion":"v3","metadata":{"name":"pool-a"},"spec":{"type":"vm","initialNodeCount":0,"nodeTemplate":{` +
				template + `,"az":"eu-de-02","dataVolumes":null}}}`,
		},
		{
			name:        "no root volume",
			forProvider: `{"name":"pool-a","clusterId":"c1","flavor":"s3.xlarge.4","initialNodeCount":2,"keyPair":"ci-key"}`,
			wantErr:     `the argument "root_volume" is required, but no definition was found`,
		},
		{
			name:        "a root volume without its type",
			forProvider: `{"name":"pool-a","clusterId":"c1","flavor":"s3.xlarge.4","initialNodeCount":2,"keyPair":"ci-key","rootVolume":[{"size":40}]}`,
			wantErr:     `the argument "root_volume" is required, but no definition was found`,
		},
		{
			name:        "no node count",
			forProvider: `{"name":"pool-a","clusterId":"c1","flavor":"s3.xlarge.4","keyPair":"ci-key","rootVolume":[{"size":40,"volumetype":"SSD"}]}`,
			wantErr:     `the argument "initial_node_count" is required, but no definition was found`,
		},
		{
			name:        "no flavor",
			forProvider: `{"name":"pool-a","clusterId":"c1","initialNodeCount":2,"keyPair":"ci-key","rootVolume":[{"size":40,"volumetype":"SSD"}]}`,
			wantErr:     `the argument "flavor" is required, but no definition was found`,
		},
		{
			name:        "an unresolved key pair reference",
			forProvider: `{"name":"pool-a","clusterId":"c1","flavor":"s3.xlarge.4","initialNodeCount":2,"keyPairRef":{"name":"k"},"rootVolume":[{"size":40,"volumetype":"SSD"}]}`,
			wantErr:     `the argument "key_pair" is required, but no definition was found`,
		},
		{
			name:        "no name",
			forProvider: `{"clusterId":"c1","flavor":"s3.xlarge.4","initialNodeCount":2,"keyPair":"ci-key","rootVolume":[{"size":40,"volumetype":"SSD"}]}`,
			wantErr:     `the argument "name" is required, but no definition was found`,
		},
		{
			name:        "no cluster",
			forProvider: `{"name":"pool-a","flavor":"s3.xlarge.4","initialNodeCount":2,"keyPair":"ci-key","rootVolume":[{"size":40,"volumetype":"SSD"}]}`,
			wantErr:     `the argument "cluster_id" is required, but no definition was found`,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fake, c := newFakeOTC(t)
			fake.on("POST", poolBase, 201, poolAnswer("Synchronizing", "eu-de-01", 2))
			id, err := nodePool.Create(context.Background(), c, params(t, tc.forProvider))
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				fake.expect()
				return
			}
			if err != nil || id != "np1" {
				t.Fatalf("got %q, %v", id, err)
			}
			fake.expect(request{method: "POST", path: poolBase, body: tc.wantBody})
		})
	}
}

func TestNodePoolRead(t *testing.T) {
	cases := []struct {
		phase     string
		wantPhase terraformed.Phase
		failure   string
	}{
		{"", terraformed.Settled, ""},
		{"Synchronizing", terraformed.Settling, ""},
		{"Synchronized", terraformed.Settling, ""},
		{"Deleting", terraformed.Deleting, ""},
		{"SoldOut", terraformed.Failed, "error waiting for Open Telekom Cloud CCE Node Pool to become available: unexpected state 'SoldOut', wanted target ''"},
		{"Error", terraformed.Failed, "error waiting for Open Telekom Cloud CCE Node Pool to become available: unexpected state 'Error', wanted target ''"},
	}
	for _, tc := range cases {
		t.Run("phase "+tc.phase, func(t *testing.T) {
			fake, c := newFakeOTC(t)
			fake.on("GET", poolBase+"/np1", 200, poolAnswer(tc.phase, "eu-de-01", 2))
			forProvider := params(t, poolForProvider)
			state := read(t, nodePool, c, "np1", forProvider, nil)
			if state.Phase != tc.wantPhase || state.Failure != tc.failure {
				t.Fatalf("phase %v %q, want %v %q", state.Phase, state.Failure, tc.wantPhase, tc.failure)
			}
			// status is kept when it is the normal, empty phase; references
			// and secret references are no state; a node pool has no region.
			sameJSON(t, "atProvider", state.AtProvider, `{
				"id":"np1","status":"`+tc.phase+`","name":"pool-a","clusterId":"c1","flavor":"s3.xlarge.4","initialNodeCount":2,
				"os":"HCE OS 2.0","keyPair":"ci-key","availabilityZone":"random","runtime":"containerd",
				"rootVolume":[{"size":40,"volumetype":"SSD"}],"dataVolumes":[{"size":100,"volumetype":"SSD"}]}`)
			if _, ok := state.AtProvider["region"]; ok {
				t.Error("a node pool's atProvider has a region")
			}
			// "random" lets CCE pick the zone: the zone it names is no drift.
			sameJSON(t, "reported", state.Reported, `{
				"name":"pool-a","clusterId":"c1","flavor":"s3.xlarge.4","initialNodeCount":2,"os":"HCE OS 2.0","keyPair":"ci-key",
				"runtime":"containerd","rootVolume":[{"size":40,"volumetype":"SSD"}],"dataVolumes":[{"size":100,"volumetype":"SSD"}]}`)
			noChanges(t, forProvider, state)
			fake.expect(request{method: "GET", path: poolBase + "/np1"})
		})
	}
}

func TestNodePoolDrift(t *testing.T) {
	fake, c := newFakeOTC(t)
	fake.on("GET", poolBase+"/np1", 200, poolAnswer("", "eu-de-01", 2))
	forProvider := params(t, `{"clusterId":"c1","availabilityZone":"eu-de-02","initialNodeCount":3,"rootVolume":[{"size":50,"volumetype":"SSD"}]}`)
	state := read(t, nodePool, c, "np1", forProvider, nil)
	changes := terraformed.Changes(forProvider, state.Reported)
	want := map[string]bool{"availability_zone": true, "initial_node_count": false, "root_volume.0.size": true}
	if len(changes) != len(want) {
		t.Fatalf("changes %+v", changes)
	}
	for _, change := range changes {
		forceNew, ok := want[change.Argument]
		if !ok {
			t.Fatalf("unexpected change %+v", change)
		}
		if terraformed.Matches(nodePool.ForceNew, change.Argument) != forceNew {
			t.Errorf("%s forces a new pool: %v", change.Argument, !forceNew)
		}
		if terraformed.Matches(nodePool.InPlace, change.Argument) == forceNew {
			t.Errorf("%s changes in place: %v", change.Argument, forceNew)
		}
	}
}

func TestNodePoolUpdate(t *testing.T) {
	fake, c := newFakeOTC(t)
	fake.on("GET", poolBase+"/np1", 200, poolAnswer("", "eu-de-01", 2))
	fake.on("PUT", poolBase+"/np1", 200, poolAnswer("Synchronizing", "eu-de-01", 3))
	desired := params(t, `{"clusterId":"c1","initialNodeCount":3}`)
	changes := []terraformed.Change{{Argument: "initial_node_count", Field: "initialNodeCount", From: int64(2), To: int64(3)}}
	if err := nodePool.Update(context.Background(), c, "np1", desired, changes); err != nil {
		t.Fatal(err)
	}
	got := fake.take()
	if len(got) != 2 || got[0].method != "GET" || got[1].method != "PUT" {
		t.Fatalf("requests %+v", got)
	}
	spec := got[1].body.(map[string]any)["spec"].(map[string]any)
	if spec["initialNodeCount"] != float64(3) {
		t.Fatalf("PUT %+v", got[1].body)
	}

	for _, tc := range []struct{ desired, want string }{
		{`{"initialNodeCount":3}`, `the argument "cluster_id" is required, but no definition was found`},
		{`{"clusterId":"c1"}`, `the argument "initial_node_count" is required, but no definition was found`},
	} {
		err := nodePool.Update(context.Background(), c, "np1", params(t, tc.desired), changes)
		if err == nil || err.Error() != tc.want {
			t.Errorf("error %v, want %q", err, tc.want)
		}
	}
	fake.expect()
}

func TestNodePoolReadGoneAndDelete(t *testing.T) {
	fake, c := newFakeOTC(t)
	fake.on("GET", poolBase+"/gone", 404, `{"kind":"Status","code":404,"error_code":"CCE.01404001","error_msg":"node pool gone could not be found"}`)
	fake.on("DELETE", poolBase+"/np1", 200, poolAnswer("Deleting", "eu-de-01", 2))
	if state, err := nodePool.Read(context.Background(), c, "gone", params(t, `{"clusterId":"c1"}`), nil); err != nil || state != nil {
		t.Fatalf("gone: %+v, %v", state, err)
	}
	if _, err := nodePool.Read(context.Background(), c, "np1", params(t, `{}`), nil); err == nil {
		t.Fatal("a node pool was read without its cluster")
	}
	if err := nodePool.Delete(context.Background(), c, "np1", params(t, `{"clusterId":"c1"}`)); err != nil {
		t.Fatal(err)
	}
	if err := nodePool.Delete(context.Background(), c, "np1", params(t, `{}`)); err == nil {
		t.Fatal("a node pool was deleted without its cluster")
	}
	fake.expect(
		request{method: "GET", path: poolBase + "/gone"},
		request{method: "DELETE", path: poolBase + "/np1"},
	)
}
