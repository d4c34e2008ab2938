package resources

import (
	"context"
	"strings"
	"testing"

	"edgeconnect.eu/crossplane-otc-simulator/internal/apis"
	"edgeconnect.eu/crossplane-otc-simulator/internal/terraformed"
)

const internalURL, externalURL = "https://10.0.1.10:5443", "https://80.158.0.2:5443"

// clusterAnswer is CCE's cluster c1 in phase with the given endpoints.
func clusterAnswer(phase string, endpoints ...string) string {
	list := []string{}
	for _, e := range endpoints {
		kind := "Internal"
		if e == externalURL {
			kind = "External"
		}
		list = append(list, `{"url":"`+e+`","type":"`+kind+`"}`)
	}
	return `{"kind":"Cluster","apiVersion":"v3","metadata":{"uid":"c1","name":"ci-cluster"},` +
		`"spec":{"category":"CCE","type":"VirtualMachine","flavor":"cce.s1.small","version":"v1.31","description":"",` +
		`"hostNetwork":{"vpc":"v1","subnet":"net-1"},"containerNetwork":{"mode":"vpc-router","cidr":"172.16.0.0/16"},` +
		`"authentication":{"mode":"rbac","authenticatingProxy":{}},"billingMode":0,"kubernetesSvcIpRange":"10.247.0.0/16"},` +
		`"status":{"phase":"` + phase + `","endpoints":[` + strings.Join(list, ",") + `]}}`
}

func kubeconfigAnswer(servers ...string) string {
	clusters := []string{}
	for i, s := range servers {
		name := "internalCluster"
		if i > 0 {
			name = "externalCluster"
		}
		clusters = append(clusters, `{"name":"`+name+`","cluster":{"server":"`+s+`","certificate-authority-data":"Q0E="}}`)
	}
	return `{"kind":"Config","apiVersion":"v1","preferences":{},"clusters":[` + strings.Join(clusters, ",") + `],` +
		`"users":[{"name":"user","user":{"client-certificate-data":"Q0VSVA==","client-key-data":"S0VZ"}}],` +
		`"contexts":[{"name":"internal","context":{"cluster":"internalCluster","user":"user"}}],"current-context":"internal"}`
}

const clusterForProvider = `{"name":"ci-cluster","clusterType":"VirtualMachine","flavorId":"cce.s1.small","clusterVersion":"v1.31",
	"vpcId":"v1","vpcIdRef":{"name":"net"},"subnetId":"net-1","subnetIdSelector":{"matchLabels":{"a":"b"}},
	"containerNetworkType":"vpc-router","containerNetworkCidr":"172.16.0.0/16","region":"eu-de","deleteEvs":"true"}`

func TestClusterCreate(t *testing.T) {
	cases := []struct {
		name        string
		forProvider string
		wantBody    string
		wantErr     string
	}{
		{
			name:        "rbac by default",
			forProvider: clusterForProvider,
			wantBody: `{"kind":"Cluster","apiVersion":"v3","metadata":{"name":"ci-cluster"},"spec":{"type":"VirtualMachine","flavor":"cce.s1.small",` +
				`"version":"v1.31","hostNetwork":{"vpc":"v1","subnet":"net-1"},"containerNetwork":{"mode":"vpc-router","cidr":"172.16.0.0/16"},` +
				`"authentication":{"mode":"rbac"}}}`,
		},
		{
			name: "masters, description, billing and authentication",
			forProvider: `{"name":"ci-cluster","clusterType":"VirtualMachine","flavorId":"cce.s2.small","vpcId":"v1","subnetId":"net-1",
				"containerNetworkType":"overlay_l2","description":"d","billingMode":1,"authenticationMode":"authenticating_proxy",
				"masters":[{"availabilityZone":"eu-de-01"},{"availabilityZone":"eu-de-02"},{"availabilityZone":"eu-de-03"}]}`,
			wantBody: `{"kind":"Cluster","apiVersion":"v3","metadata":{"name":"ci-cluster"},"spec":{"type":"VirtualMachine","flavor":"cce.s2.small",` +
				`"description":"d","hostNetwork":{"vpc":"v1","subnet":"net-1"},"containerNetwork":{"mode":"overlay_l2"},` +
				`"authentication":{"mode":"authenticating_proxy"},"billingMode":1,` +
				`"masters":[{"availabilityZone":"eu-de-01"},{"availabilityZone":"eu-de-02"},{"availabilityZone":"eu-de-03"}]}}`,
		},
		{
			name:        "no cluster type",
			forProvider: `{"name":"ci-cluster","flavorId":"cce.s1.small","vpcId":"v1","subnetId":"net-1","containerNetworkType":"vpc-router"}`,
			wantErr:     `the argument "cluster_type" is required, but no definition was found`,
		},
		{
			name:        "unresolved subnet reference",
			forProvider: `{"name":"ci-cluster","clusterType":"VirtualMachine","flavorId":"cce.s1.small","vpcId":"v1","subnetIdRef":{"name":"s"},"containerNetworkType":"vpc-router"}`,
			wantErr:     `the argument "subnet_id" is required, but no definition was found`,
		},
		{
			name:        "no container network type",
			forProvider: `{"name":"ci-cluster","clusterType":"VirtualMachine","flavorId":"cce.s1.small","vpcId":"v1","subnetId":"net-1"}`,
			wantErr:     `the argument "container_network_type" is required, but no definition was found`,
		},
		{
			name:        "no name",
			forProvider: `{"clusterType":"VirtualMachine","flavorId":"cce.s1.small","vpcId":"v1","subnetId":"net-1","containerNetworkType":"vpc-router"}`,
			wantErr:     `the argument "name" is required, but no definition was found`,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fake, c := newFakeOTC(t)
			fake.on("POST", clusterBase, 201, clusterAnswer("Creating"))
			id, err := cluster.Create(context.Background(), c, params(t, tc.forProvider))
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				fake.expect()
				return
			}
			if err != nil || id != "c1" {
				t.Fatalf("got %q, %v", id, err)
			}
			fake.expect(request{method: "POST", path: clusterBase, body: tc.wantBody})
		})
	}
	if !cluster.IDWhenSettled {
		t.Error("Terraform records a cluster's ID after its create's wait")
	}
}

func TestClusterReadPhases(t *testing.T) {
	cases := []struct {
		phase     string
		wantPhase terraformed.Phase
		failure   string
	}{
		{"Creating", terraformed.Settling, ""},
		{"Upgrading", terraformed.Settling, ""},
		{"Deleting", terraformed.Deleting, ""},
		{"Error", terraformed.Failed, "error waiting for Open Telekom Cloud CCE cluster to become available: unexpected state 'Error', wanted target 'Available'"},
		{"Unavailable", terraformed.Failed, "unexpected state 'Unavailable', wanted target 'Available'"},
	}
	for _, tc := range cases {
		t.Run(tc.phase, func(t *testing.T) {
			fake, c := newFakeOTC(t)
			fake.on("GET", clusterBase+"/c1", 200, clusterAnswer(tc.phase))
			state := read(t, cluster, c, "c1", params(t, clusterForProvider), nil)
			if state.Phase != tc.wantPhase || !strings.Contains(state.Failure, tc.failure) || (tc.failure == "") != (state.Failure == "") {
				t.Fatalf("phase %v %q, want %v %q", state.Phase, state.Failure, tc.wantPhase, tc.failure)
			}
			if state.AtProvider["status"] != tc.phase {
				t.Errorf("status %v", state.AtProvider["status"])
			}
			for _, key := range []string{"certificateClusters", "certificateUsers", "internal", "external"} {
				if _, ok := state.AtProvider[key]; ok {
					t.Errorf("atProvider has %s while the cluster is %s", key, tc.phase)
				}
			}
			// Only an Available cluster is asked for a certificate.
			fake.expect(request{method: "GET", path: clusterBase + "/c1"})
		})
	}
}

func TestClusterReadAvailable(t *testing.T) {
	fake, c := newFakeOTC(t)
	fake.on("GET", clusterBase+"/c1", 200, clusterAnswer("Available", internalURL))
	fake.on("POST", clusterBase+"/c1/clustercert", 200, kubeconfigAnswer(internalURL))
	forProvider := params(t, clusterForProvider)
	state := read(t, cluster, c, "c1", forProvider, nil)
	if state.Phase != terraformed.Settled || state.FollowUp != nil {
		t.Fatalf("phase %v, follow-up %v", state.Phase, state.FollowUp != nil)
	}
	sameJSON(t, "atProvider", state.AtProvider, `{
		"id":"c1","status":"Available","internal":"`+internalURL+`",
		"name":"ci-cluster","clusterType":"VirtualMachine","flavorId":"cce.s1.small","clusterVersion":"v1.31",
		"vpcId":"v1","subnetId":"net-1","containerNetworkType":"vpc-router","containerNetworkCidr":"172.16.0.0/16",
		"authenticationMode":"rbac","region":"eu-de","deleteEvs":"true",
		"certificateClusters":[{"name":"internalCluster","server":"`+internalURL+`","certificateAuthorityData":"Q0E="}],
		"certificateUsers":[{"name":"user","clientCertificateData":"Q0VSVA==","clientKeyData":"S0VZ"}]}`)
	sameJSON(t, "reported", state.Reported, `{"name":"ci-cluster","clusterType":"VirtualMachine","flavorId":"cce.s1.small",
		"vpcId":"v1","subnetId":"net-1","containerNetworkType":"vpc-router","containerNetworkCidr":"172.16.0.0/16",
		"authenticationMode":"rbac","region":"eu-de"}`)
	noChanges(t, forProvider, state)
	fake.expect(
		request{method: "GET", path: clusterBase + "/c1"},
		request{method: "POST", path: clusterBase + "/c1/clustercert", body: `{"duration":1}`},
	)
}

func TestClusterCertificateData(t *testing.T) {
	previousCerts := `"certificateClusters":[{"name":"old","server":"` + internalURL + `"}],"certificateUsers":[{"name":"old-user"}]`
	cases := []struct {
		name       string
		extra      string // more forProvider
		endpoints  []string
		previous   string
		certStatus int
		wantFetch  bool
		want       string // certificate keys of atProvider, as JSON
	}{
		{
			name:      "both wanted, fetched",
			endpoints: []string{internalURL},
			wantFetch: true,
			want: `{"certificateClusters":[{"name":"internalCluster","server":"` + internalURL + `","certificateAuthorityData":"Q0E="}],` +
				`"certificateUsers":[{"name":"user","clientCertificateData":"Q0VSVA==","clientKeyData":"S0VZ"}]}`,
		},
		{
			name:      "users ignored",
			extra:     `"ignoreCertificateUsersData":true`,
			endpoints: []string{internalURL},
			wantFetch: true,
			want:      `{"certificateClusters":[{"name":"internalCluster","server":"` + internalURL + `","certificateAuthorityData":"Q0E="}]}`,
		},
		{
			name:      "clusters ignored",
			extra:     `"ignoreCertificateClustersData":true`,
			endpoints: []string{internalURL},
			wantFetch: true,
			want:      `{"certificateUsers":[{"name":"user","clientCertificateData":"Q0VSVA==","clientKeyData":"S0VZ"}]}`,
		},
		{
			name:      "both ignored: no certificate is asked for",
			extra:     `"ignoreCertificateClustersData":true,"ignoreCertificateUsersData":true`,
			endpoints: []string{internalURL},
			want:      `{}`,
		},
		{
			name:      "kept from the previous status for the same endpoints",
			endpoints: []string{internalURL},
			previous:  `{"internal":"` + internalURL + `",` + previousCerts + `}`,
			want:      `{` + previousCerts + `}`,
		},
		{
			name:      "kept with an external endpoint too",
			endpoints: []string{internalURL, externalURL},
			previous:  `{"internal":"` + internalURL + `","external":"` + externalURL + `",` + previousCerts + `}`,
			want:      `{` + previousCerts + `}`,
		},
		{
			name:      "fetched again once the endpoints changed",
			endpoints: []string{internalURL, externalURL},
			previous:  `{"internal":"` + internalURL + `",` + previousCerts + `}`,
			wantFetch: true,
			want: `{"certificateClusters":[{"name":"internalCluster","server":"` + internalURL + `","certificateAuthorityData":"Q0E="},` +
				`{"name":"externalCluster","server":"` + externalURL + `","certificateAuthorityData":"Q0E="}],` +
				`"certificateUsers":[{"name":"user","clientCertificateData":"Q0VSVA==","clientKeyData":"S0VZ"}]}`,
		},
		{
			name:      "fetched when the previous status lacks a wanted part",
			endpoints: []string{internalURL},
			previous:  `{"internal":"` + internalURL + `","certificateClusters":[{"name":"old"}]}`,
			wantFetch: true,
			want: `{"certificateClusters":[{"name":"internalCluster","server":"` + internalURL + `","certificateAuthorityData":"Q0E="}],` +
				`"certificateUsers":[{"name":"user","clientCertificateData":"Q0VSVA==","clientKeyData":"S0VZ"}]}`,
		},
		{
			name:      "only the wanted part is kept",
			extra:     `"ignoreCertificateUsersData":true`,
			endpoints: []string{internalURL},
			previous:  `{"internal":"` + internalURL + `","certificateClusters":[{"name":"old"}]}`,
			want:      `{"certificateClusters":[{"name":"old"}]}`,
		},
		{
			name:       "a failed certificate read leaves them out",
			endpoints:  []string{internalURL},
			certStatus: 500,
			wantFetch:  true,
			want:       `{}`,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fake, c := newFakeOTC(t)
			fake.on("GET", clusterBase+"/c1", 200, clusterAnswer("Available", tc.endpoints...))
			if tc.certStatus != 0 {
				fake.on("POST", clusterBase+"/c1/clustercert", tc.certStatus, `{"error_code":"CCE.01500001","error_msg":"internal"}`)
			} else {
				fake.on("POST", clusterBase+"/c1/clustercert", 200, kubeconfigAnswer(tc.endpoints...))
			}
			forProvider := params(t, clusterForProvider)
			if tc.extra != "" {
				for k, v := range params(t, "{"+tc.extra+"}") {
					forProvider[k] = v
				}
			}
			var previous apis.Parameters
			if tc.previous != "" {
				previous = params(t, tc.previous)
			}
			state := read(t, cluster, c, "c1", forProvider, previous)
			certs := map[string]any{}
			for _, key := range []string{"certificateClusters", "certificateUsers"} {
				if value, ok := state.AtProvider[key]; ok {
					certs[key] = value
				}
			}
			sameJSON(t, "certificate data", certs, tc.want)
			fetched := false
			for _, r := range fake.take() {
				fetched = fetched || strings.HasSuffix(r.path, "/clustercert")
			}
			if fetched != tc.wantFetch {
				t.Errorf("certificate fetched: %v, want %v", fetched, tc.wantFetch)
			}
			if external, _ := state.AtProvider["external"].(string); (external != "") != (len(tc.endpoints) > 1) {
				t.Errorf("external %q", external)
			}
		})
	}
}

func TestClusterBindsItsEIP(t *testing.T) {
	fake, c := newFakeOTC(t)
	fake.on("GET", clusterBase+"/c1", 200, clusterAnswer("Available", internalURL))
	fake.on("GET", vpcBase+"/publicips", 200, `{"publicips":[{"id":"e0","status":"DOWN","public_ip_address":"80.158.0.1"},{"id":"e2","status":"DOWN","public_ip_address":"80.158.0.2"}]}`)
	fake.on("PUT", clusterBase+"/c1/mastereip", 200, `{"metadata":{},"spec":{"action":"bind","spec":{"id":"e2"},"elasticIp":"80.158.0.2"},"status":{}}`)
	forProvider := params(t, clusterForProvider)
	forProvider["eip"] = "80.158.0.2"
	forProvider["eipRef"] = map[string]any{"name": "api"}

	state := read(t, cluster, c, "c1", forProvider, nil)
	if state.Phase != terraformed.Settled || state.FollowUp == nil {
		t.Fatalf("phase %v: an Available cluster without its EIP needs a follow-up", state.Phase)
	}
	if _, ok := state.AtProvider["certificateClusters"]; ok {
		t.Error("certificates read before the EIP is bound")
	}
	if _, ok := state.AtProvider["eipRef"]; ok {
		t.Error("eipRef echoed into atProvider")
	}
	if state.AtProvider["eip"] != "80.158.0.2" {
		t.Errorf("eip %v", state.AtProvider["eip"])
	}
	fake.expect(request{method: "GET", path: clusterBase + "/c1"})

	if err := state.FollowUp(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	fake.expect(
		request{method: "GET", path: vpcBase + "/publicips", query: "limit=200"},
		request{method: "PUT", path: clusterBase + "/c1/mastereip", body: `{"spec":{"action":"bind","spec":{"id":"e2"}}}`},
	)

	// Once bound, nothing follows.
	fake.on("GET", clusterBase+"/c1", 200, clusterAnswer("Available", internalURL, externalURL))
	fake.on("POST", clusterBase+"/c1/clustercert", 200, kubeconfigAnswer(internalURL, externalURL))
	state = read(t, cluster, c, "c1", forProvider, nil)
	if state.FollowUp != nil {
		t.Fatal("a follow-up for a bound EIP")
	}
	if state.AtProvider["external"] != externalURL {
		t.Errorf("external %v", state.AtProvider["external"])
	}
}

func TestClusterEIPNotFound(t *testing.T) {
	fake, c := newFakeOTC(t)
	fake.on("GET", clusterBase+"/c1", 200, clusterAnswer("Available", internalURL))
	fake.on("GET", vpcBase+"/publicips", 200, `{"publicips":[{"id":"e0","status":"DOWN","public_ip_address":"80.158.0.1"}]}`)
	forProvider := params(t, clusterForProvider)
	forProvider["eip"] = "80.158.0.9"
	state := read(t, cluster, c, "c1", forProvider, nil)
	err := state.FollowUp(context.Background(), c)
	if err == nil || err.Error() != "error binding EIP 80.158.0.9 to the cluster: no EIP with this address" {
		t.Fatalf("error %v", err)
	}
}

func TestClusterNoFollowUpBeforeAvailable(t *testing.T) {
	fake, c := newFakeOTC(t)
	fake.on("GET", clusterBase+"/c1", 200, clusterAnswer("Creating"))
	forProvider := params(t, clusterForProvider)
	forProvider["eip"] = "80.158.0.2"
	if state := read(t, cluster, c, "c1", forProvider, nil); state.FollowUp != nil {
		t.Fatal("a follow-up while the cluster is Creating")
	}
}

func TestClusterForceNew(t *testing.T) {
	for argument, want := range map[string]bool{
		"name": true, "flavor_id": true, "vpc_id": true, "subnet_id": true, "cluster_version": true,
		"masters.0.availability_zone": true, "masters.#": true, "region": true, "container_network_cidr": true,
		"description": false, "eip": false,
	} {
		if got := terraformed.Matches(cluster.ForceNew, argument); got != want {
			t.Errorf("%s forces a new cluster: %v, want %v", argument, got, want)
		}
	}
}

func TestClusterReadGoneAndDelete(t *testing.T) {
	fake, c := newFakeOTC(t)
	fake.on("GET", clusterBase+"/gone", 404, `{"kind":"Status","code":404,"error_code":"CCE.01404001","error_msg":"cluster gone could not be found"}`)
	fake.on("DELETE", clusterBase+"/c1", 200, clusterAnswer("Deleting"))
	if state, err := cluster.Read(context.Background(), c, "gone", params(t, clusterForProvider), nil); err != nil || state != nil {
		t.Fatalf("gone: %+v, %v", state, err)
	}
	fake.take()
	forProvider := params(t, `{"deleteEvs":"true","deleteNet":"try","deleteObs":"false","deleteSfs":"bogus"}`)
	if err := cluster.Delete(context.Background(), c, "c1", forProvider); err != nil {
		t.Fatal(err)
	}
	fake.expect(request{method: "DELETE", path: clusterBase + "/c1", query: "delete_evs=true&delete_net=try&delete_obs=false"})
}
