package resources

import (
	"context"
	"strings"
	"testing"

	"edgeconnect.eu/crossplane-otc-simulator/internal/terraformed"
)

func vpcAnswer(status string) string {
	return `{"vpc":{"id":"v1","name":"vpc-a","description":"d","cidr":"10.0.0.0/16","status":"` + status + `","routes":[],"enterprise_project_id":"0"}}`
}

func TestVPCCreate(t *testing.T) {
	cases := []struct {
		name        string
		forProvider string
		wantBody    string
		wantErr     string
	}{
		{
			name:        "all arguments",
			forProvider: `{"name":"vpc-a","cidr":"10.0.0.0/16","description":"d","region":"eu-de","tags":{"a":"b"}}`,
			wantBody:    `{"vpc":{"name":"vpc-a","cidr":"10.0.0.0/16","description":"d"}}`,
		},
		{
			name:        "no description",
			forProvider: `{"name":"vpc-a","cidr":"10.0.0.0/16"}`,
			wantBody:    `{"vpc":{"name":"vpc-a","cidr":"10.0.0.0/16"}}`,
		},
		{
			name:        "no name",
			forProvider: `{"cidr":"10.0.0.0/16"}`,
			wantErr:     `the argument "name" is required, but no definition was found`,
		},
		{
			name:        "empty cidr",
			forProvider: `{"name":"vpc-a","cidr":""}`,
			wantErr:     `the argument "cidr" is required, but no definition was found`,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fake, c := newFakeOTC(t)
			fake.on("POST", vpcBase+"/vpcs", 200, vpcAnswer("CREATING"))
			id, err := vpc.Create(context.Background(), c, params(t, tc.forProvider))
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				fake.expect()
				return
			}
			if err != nil || id != "v1" {
				t.Fatalf("got %q, %v", id, err)
			}
			fake.expect(request{method: "POST", path: vpcBase + "/vpcs", body: tc.wantBody})
		})
	}
}

func TestVPCCreateRefused(t *testing.T) {
	fake, c := newFakeOTC(t)
	fake.on("POST", vpcBase+"/vpcs", 400, `{"error_msg":"invalid cidr","error_code":"VPC.0002"}`)
	_, err := vpc.Create(context.Background(), c, params(t, `{"name":"vpc-a","cidr":"10.0.0.0/33"}`))
	if err == nil || !strings.Contains(err.Error(), "invalid cidr") {
		t.Fatalf("error %v", err)
	}
}

func TestVPCRead(t *testing.T) {
	cases := []struct {
		status      string
		wantPhase   terraformed.Phase
		wantFailure string
	}{
		{"CREATING", terraformed.Settling, ""},
		{"OK", terraformed.Settled, ""},
		{"PENDING_DELETE", terraformed.Deleting, ""},
		{"ERROR", terraformed.Failed, "unexpected state 'ERROR', wanted target 'OK'"},
	}
	for _, tc := range cases {
		t.Run(tc.status, func(t *testing.T) {
			fake, c := newFakeOTC(t)
			fake.on("GET", vpcBase+"/vpcs/v1", 200, vpcAnswer(tc.status))
			forProvider := params(t, `{"name":"vpc-a","cidr":"10.0.0.0/16","description":"d","tags":{"team":"a"}}`)
			state := read(t, vpc, c, "v1", forProvider, nil)
			if state.Phase != tc.wantPhase || state.Failure != tc.wantFailure {
				t.Fatalf("phase %v %q, want %v %q", state.Phase, state.Failure, tc.wantPhase, tc.wantFailure)
			}
			sameJSON(t, "atProvider", state.AtProvider,
				`{"id":"v1","name":"vpc-a","cidr":"10.0.0.0/16","description":"d","region":"eu-de","status":"`+tc.status+`","tags":{"team":"a"}}`)
			sameJSON(t, "reported", state.Reported, `{"name":"vpc-a","cidr":"10.0.0.0/16","description":"d","region":"eu-de"}`)
			if state.FollowUp != nil {
				t.Error("a VPC has no follow-up")
			}
			noChanges(t, forProvider, state)
			fake.expect(request{method: "GET", path: vpcBase + "/vpcs/v1"})
		})
	}
}

func TestVPCDrift(t *testing.T) {
	fake, c := newFakeOTC(t)
	fake.on("GET", vpcBase+"/vpcs/v1", 200, vpcAnswer("OK"))
	state := read(t, vpc, c, "v1", params(t, `{}`), nil)
	changes := terraformed.Changes(params(t, `{"name":"vpc-b","region":"eu-nl"}`), state.Reported)
	if len(changes) != 2 || changes[0].Argument != "name" || changes[1].Argument != "region" {
		t.Fatalf("changes %+v", changes)
	}
	if terraformed.Matches(vpc.ForceNew, "name") || !terraformed.Matches(vpc.ForceNew, "region") {
		t.Fatal("a VPC is replaced for its region only")
	}
}

func TestVPCReadGoneAndFailing(t *testing.T) {
	fake, c := newFakeOTC(t)
	fake.on("GET", vpcBase+"/vpcs/gone", 404, `{"error_msg":"vpc gone could not be found","error_code":"VPC.0404"}`)
	fake.on("GET", vpcBase+"/vpcs/broken", 500, `{"error_msg":"internal","error_code":"VPC.9999"}`)
	fake.on("GET", vpcBase+"/vpcs/unpublished", 404, notPublished)
	state, err := vpc.Read(context.Background(), c, "gone", params(t, `{}`), nil)
	if err != nil || state != nil {
		t.Fatalf("404: got %+v, %v; want nil state", state, err)
	}
	if state, err := vpc.Read(context.Background(), c, "broken", params(t, `{}`), nil); err == nil || state != nil {
		t.Fatalf("500: got %+v, %v; want an error", state, err)
	}
	// A 404 for an API path says nothing about the VPC.
	if state, err := vpc.Read(context.Background(), c, "unpublished", params(t, `{}`), nil); err == nil || state != nil {
		t.Fatalf("unpublished API: got %+v, %v; want an error", state, err)
	}
}

func TestVPCDelete(t *testing.T) {
	fake, c := newFakeOTC(t)
	fake.on("DELETE", vpcBase+"/vpcs/v1", 204, "")
	if err := vpc.Delete(context.Background(), c, "v1", params(t, `{}`)); err != nil {
		t.Fatal(err)
	}
	fake.expect(request{method: "DELETE", path: vpcBase + "/vpcs/v1"})
}
