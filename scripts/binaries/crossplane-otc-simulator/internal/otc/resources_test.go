package otc

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"sync"
	"testing"
)

type recorded struct {
	method, path, query string
	body                any
}

// recorder verifies every request's signature, records it, and answers
// with the body registered for "METHOD path".
type recorder struct {
	t       *testing.T
	mu      sync.Mutex
	calls   []recorded
	answers map[string]answerSpec
}

type answerSpec struct {
	status int
	body   string
}

func newRecorder(t *testing.T, answers map[string]answerSpec) (*recorder, *Client) {
	rec := &recorder{t: t, answers: answers}
	server := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		raw := readBody(t, r)
		verifySigned(t, r, raw, testSK)
		if r.Header.Get("X-Project-Id") != testProjectID {
			t.Errorf("%s %s without X-Project-Id", r.Method, r.URL.Path)
		}
		if len(raw) > 0 && r.Header.Get("Content-Type") != "application/json;charset=UTF-8" {
			t.Errorf("Content-Type %q", r.Header.Get("Content-Type"))
		}
		var body any
		if len(raw) > 0 {
			if err := json.Unmarshal(raw, &body); err != nil {
				t.Errorf("request body is not JSON: %v", err)
			}
		}
		rec.mu.Lock()
		rec.calls = append(rec.calls, recorded{r.Method, r.URL.EscapedPath(), r.URL.RawQuery, body})
		rec.mu.Unlock()
		a, ok := answers[r.Method+" "+r.URL.Path]
		if !ok {
			t.Errorf("unexpected %s %s", r.Method, r.URL.Path)
			writeJSON(w, 404, `{"error_msg":"The API does not exist or has not been published","error_code":"APIGW.0101"}`)
			return
		}
		if a.body == "" {
			w.WriteHeader(a.status)
			return
		}
		writeJSON(w, a.status, a.body)
	})
	return rec, newClient(t, akskConfig(server.URL), Options{})
}

func (r *recorder) expect(want ...recorded) {
	r.t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.calls) != len(want) {
		r.t.Fatalf("calls %+v, want %+v", r.calls, want)
	}
	for i := range want {
		got, w := r.calls[i], want[i]
		if w.body != nil {
			// Compare through JSON, as the server sees it.
			data, _ := json.Marshal(w.body)
			var normal any
			_ = json.Unmarshal(data, &normal)
			w.body = normal
		}
		if !reflect.DeepEqual(got, w) {
			r.t.Errorf("call %d:\n got %+v\nwant %+v", i, got, w)
		}
	}
}

func jsonObject(text string) any {
	var v any
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		panic(err)
	}
	return v
}

const p = "/v1/" + testProjectID

func TestVPCCalls(t *testing.T) {
	vpc := `{"vpc":{"id":"v1","name":"vpc-ci","description":"d","cidr":"10.0.0.0/16","status":"CREATING","routes":[],"enable_shared_snat":false,"enterprise_project_id":"0","tenant_id":"` + testProjectID + `"}}`
	rec, c := newRecorder(t, map[string]answerSpec{
		"POST " + p + "/vpcs":      {200, vpc},
		"GET " + p + "/vpcs/v1":    {200, vpc},
		"PUT " + p + "/vpcs/v1":    {200, vpc},
		"DELETE " + p + "/vpcs/v1": {204, ""},
	})
	ctx := context.Background()
	created, err := c.CreateVPC(ctx, CreateVPCOpts{Name: "vpc-ci", CIDR: "10.0.0.0/16"})
	if err != nil {
		t.Fatal(err)
	}
	want := VPC{ID: "v1", Name: "vpc-ci", Description: "d", CIDR: "10.0.0.0/16", Status: "CREATING", Routes: []VPCRoute{}, EnterpriseProjectID: "0", TenantID: testProjectID}
	if !reflect.DeepEqual(*created, want) {
		t.Fatalf("got %+v", created)
	}
	if _, err := c.GetVPC(ctx, "v1"); err != nil {
		t.Fatal(err)
	}
	empty := ""
	if _, err := c.UpdateVPC(ctx, "v1", UpdateVPCOpts{Description: &empty}); err != nil {
		t.Fatal(err)
	}
	if err := c.DeleteVPC(ctx, "v1"); err != nil {
		t.Fatal(err)
	}
	rec.expect(
		recorded{"POST", p + "/vpcs", "", jsonObject(`{"vpc":{"name":"vpc-ci","cidr":"10.0.0.0/16"}}`)},
		recorded{"GET", p + "/vpcs/v1", "", nil},
		recorded{"PUT", p + "/vpcs/v1", "", jsonObject(`{"vpc":{"description":""}}`)},
		recorded{"DELETE", p + "/vpcs/v1", "", nil},
	)
}

func TestSubnetCalls(t *testing.T) {
	subnet := `{"subnet":{"id":"net-1","name":"subnet-ci","cidr":"10.0.1.0/24","gateway_ip":"10.0.1.1","vpc_id":"v1","neutron_network_id":"net-1","neutron_subnet_id":"sub-1","status":"UNKNOWN","dhcp_enable":true,"primary_dns":"100.125.4.25","secondary_dns":"100.125.129.199","dnsList":["100.125.4.25","100.125.129.199"],"availability_zone":"","ipv6_enable":true,"cidr_v6":"2001:db8::/64","gateway_ip_v6":"2001:db8::1","neutron_subnet_id_v6":"sub-6"}}`
	rec, c := newRecorder(t, map[string]answerSpec{
		"POST " + p + "/subnets":                 {200, subnet},
		"GET " + p + "/subnets/net-1":            {200, subnet},
		"PUT " + p + "/vpcs/v1/subnets/net-1":    {200, `{"subnet":{"id":"net-1","status":"ACTIVE"}}`},
		"DELETE " + p + "/vpcs/v1/subnets/net-1": {204, ""},
	})
	ctx := context.Background()
	off := false
	created, err := c.CreateSubnet(ctx, CreateSubnetOpts{Name: "subnet-ci", CIDR: "10.0.1.0/24", GatewayIP: "10.0.1.1", VPCID: "v1", DHCPEnable: &off})
	if err != nil {
		t.Fatal(err)
	}
	if created.ID != created.NeutronNetworkID || created.NeutronSubnetID != "sub-1" || created.CIDRv6 != "2001:db8::/64" || created.NeutronSubnetIDv6 != "sub-6" || len(created.DNSList) != 2 {
		t.Fatalf("got %+v", created)
	}
	if _, err := c.GetSubnet(ctx, "net-1"); err != nil {
		t.Fatal(err)
	}
	updated, err := c.UpdateSubnet(ctx, "v1", "net-1", UpdateSubnetOpts{Name: "renamed", PrimaryDNS: "1.1.1.1"})
	if err != nil || updated.Status != "ACTIVE" {
		t.Fatalf("got %+v, %v", updated, err)
	}
	if err := c.DeleteSubnet(ctx, "v1", "net-1"); err != nil {
		t.Fatal(err)
	}
	rec.expect(
		recorded{"POST", p + "/subnets", "", jsonObject(`{"subnet":{"name":"subnet-ci","cidr":"10.0.1.0/24","gateway_ip":"10.0.1.1","vpc_id":"v1","dhcp_enable":false}}`)},
		recorded{"GET", p + "/subnets/net-1", "", nil},
		recorded{"PUT", p + "/vpcs/v1/subnets/net-1", "", jsonObject(`{"subnet":{"name":"renamed","primary_dns":"1.1.1.1"}}`)},
		recorded{"DELETE", p + "/vpcs/v1/subnets/net-1", "", nil},
	)
}

func TestPublicIPCalls(t *testing.T) {
	eip := `{"publicip":{"id":"e1","status":"PENDING_CREATE","type":"5_bgp","public_ip_address":"80.158.0.2","private_ip_address":null,"port_id":null,"tenant_id":"t","create_time":"2026-03-01 12:00:00","bandwidth_id":"b1","bandwidth_name":"bw","bandwidth_size":10,"bandwidth_share_type":"PER","ip_version":4,"alias":null}}`
	rec, c := newRecorder(t, map[string]answerSpec{
		"POST " + p + "/publicips":      {200, eip},
		"GET " + p + "/publicips/e1":    {200, eip},
		"GET " + p + "/publicips":       {200, `{"publicips":[{"id":"e1","status":"DOWN","public_ip_address":"80.158.0.2"}]}`},
		"DELETE " + p + "/publicips/e1": {204, ""},
	})
	ctx := context.Background()
	created, err := c.CreatePublicIP(ctx, CreatePublicIPOpts{Bandwidth: BandwidthOpts{Name: "bw", Size: 10}})
	if err != nil {
		t.Fatal(err)
	}
	if created.PublicIPAddress != "80.158.0.2" || created.PortID != "" || created.BandwidthSize != 10 || created.IPVersion != 4 {
		t.Fatalf("got %+v", created)
	}
	if _, err := c.GetPublicIP(ctx, "e1"); err != nil {
		t.Fatal(err)
	}
	all, err := c.ListPublicIPs(ctx)
	if err != nil || len(all) != 1 || all[0].Status != "DOWN" {
		t.Fatalf("got %+v, %v", all, err)
	}
	if err := c.DeletePublicIP(ctx, "e1"); err != nil {
		t.Fatal(err)
	}
	rec.expect(
		recorded{"POST", p + "/publicips", "", jsonObject(`{"publicip":{"type":"5_bgp","ip_version":4},"bandwidth":{"name":"bw","size":10,"share_type":"PER"}}`)},
		recorded{"GET", p + "/publicips/e1", "", nil},
		recorded{"GET", p + "/publicips", "limit=200", nil},
		recorded{"DELETE", p + "/publicips/e1", "", nil},
	)
}

func TestListPublicIPsPages(t *testing.T) {
	page := func(from, n int) string {
		items := make([]map[string]any, n)
		for i := range items {
			items[i] = map[string]any{"id": "e" + string(rune('A'+from+i%26)) + string(rune('a'+(from+i)/26))}
		}
		data, _ := json.Marshal(map[string]any{"publicips": items})
		return string(data)
	}
	var queries []string
	server := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		queries = append(queries, r.URL.RawQuery)
		if r.URL.Query().Get("marker") == "" {
			writeJSON(w, 200, page(0, 200))
			return
		}
		writeJSON(w, 200, page(200, 3))
	})
	all, err := newClient(t, akskConfig(server.URL), Options{}).ListPublicIPs(context.Background())
	if err != nil || len(all) != 203 || len(queries) != 2 || queries[1] != "limit=200&marker="+all[199].ID {
		t.Fatalf("got %d items, %v, queries %v", len(all), err, queries)
	}
}

func TestKeypairCalls(t *testing.T) {
	k := "/v2.1/" + testProjectID + "/os-keypairs"
	keypair := `{"keypair":{"name":"ci-key","public_key":"ssh-ed25519 AAAA ci","fingerprint":"aa:bb","user_id":"u","type":"ssh","created_at":"2026-03-01T12:00:00.000Z","deleted":false,"deleted_at":null}}`
	rec, c := newRecorder(t, map[string]answerSpec{
		"POST " + k:               {200, keypair},
		"GET " + k + "/ci-key":    {200, keypair},
		"DELETE " + k + "/ci-key": {202, ""},
	})
	ctx := context.Background()
	created, err := c.CreateKeypair(ctx, CreateKeypairOpts{Name: "ci-key", PublicKey: "ssh-ed25519 AAAA ci"})
	if err != nil || created.Fingerprint != "aa:bb" || created.Type != "ssh" {
		t.Fatalf("got %+v, %v", created, err)
	}
	if _, err := c.GetKeypair(ctx, "ci-key"); err != nil {
		t.Fatal(err)
	}
	if err := c.DeleteKeypair(ctx, "ci-key"); err != nil {
		t.Fatal(err)
	}
	rec.expect(
		recorded{"POST", k, "", jsonObject(`{"keypair":{"name":"ci-key","public_key":"ssh-ed25519 AAAA ci"}}`)},
		recorded{"GET", k + "/ci-key", "", nil},
		recorded{"DELETE", k + "/ci-key", "", nil},
	)
}

func TestCCEClusterCalls(t *testing.T) {
	cl := "/api/v3/projects/" + testProjectID + "/clusters"
	cluster := `{"kind":"Cluster","apiVersion":"v3","metadata":{"uid":"c1","name":"ci-cluster","creationTimestamp":"2026-03-01 12:00:00.000000 +0000 UTC"},"spec":{"category":"CCE","type":"VirtualMachine","flavor":"cce.s1.small","version":"v1.31","description":"","hostNetwork":{"vpc":"v1","subnet":"net-1"},"containerNetwork":{"mode":"vpc-router","cidr":"172.16.0.0/16"},"authentication":{"mode":"rbac","authenticatingProxy":{}},"billingMode":0,"kubernetesSvcIpRange":"10.247.0.0/16","kubeProxyMode":"iptables"},"status":{"phase":"Available","endpoints":[{"url":"https://10.0.1.10:5443","type":"Internal"}]}}`
	kubeconfig := `{"kind":"Config","apiVersion":"v1","preferences":{},"clusters":[{"name":"internalCluster","cluster":{"server":"https://10.0.1.10:5443","certificate-authority-data":"Q0E="}}],"users":[{"name":"user","user":{"client-certificate-data":"Q0VSVA==","client-key-data":"S0VZ"}}],"contexts":[{"name":"internal","context":{"cluster":"internalCluster","user":"user"}}],"current-context":"internal"}`
	rec, c := newRecorder(t, map[string]answerSpec{
		"POST " + cl:                     {201, cluster},
		"GET " + cl + "/c1":              {200, cluster},
		"PUT " + cl + "/c1":              {200, cluster},
		"DELETE " + cl + "/c1":           {200, cluster},
		"POST " + cl + "/c1/clustercert": {200, kubeconfig},
		"PUT " + cl + "/c1/mastereip":    {200, `{"metadata":{},"spec":{"action":"bind","spec":{"id":"e1"},"elasticIp":"80.158.0.2"},"status":{}}`},
	})
	ctx := context.Background()
	created, err := c.CreateCCECluster(ctx, CreateCCEClusterOpts{
		Metadata: CCEMetadata{Name: "ci-cluster"},
		Spec: CCEClusterSpec{
			Type: "VirtualMachine", Flavor: "cce.s1.small", Version: "v1.31",
			HostNetwork:      CCEHostNetwork{VPC: "v1", Subnet: "net-1", SecurityGroup: "sg-1"},
			ContainerNetwork: CCEContainerNetwork{Mode: "vpc-router", CIDR: "172.16.0.0/16"},
			Authentication:   &CCEAuthentication{Mode: "rbac"},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if created.Metadata.UID != "c1" || created.Status == nil || created.Status.Phase != "Available" || created.Status.Endpoints[0].Type != "Internal" || created.Spec.KubernetesSvcIPRange != "10.247.0.0/16" {
		t.Fatalf("got %+v", created)
	}
	if _, err := c.GetCCECluster(ctx, "c1"); err != nil {
		t.Fatal(err)
	}
	description := "new description"
	if _, err := c.UpdateCCECluster(ctx, "c1", UpdateCCEClusterOpts{Description: &description, CustomSAN: []string{"api.example"}}); err != nil {
		t.Fatal(err)
	}
	cert, err := c.GetCCEClusterCert(ctx, "c1", 1)
	if err != nil {
		t.Fatal(err)
	}
	if cert.CurrentContext != "internal" || cert.Users[0].User.ClientKeyData != "S0VZ" || cert.Clusters[0].Cluster.CertificateAuthorityData != "Q0E=" || string(cert.Raw) != kubeconfig {
		t.Fatalf("got %+v", cert)
	}
	if err := c.BindCCEMasterEIP(ctx, "c1", "e1"); err != nil {
		t.Fatal(err)
	}
	if err := c.DeleteCCECluster(ctx, "c1", CCEClusterDeletion{DeleteEVS: "try", DeleteNet: "true"}); err != nil {
		t.Fatal(err)
	}
	rec.expect(
		recorded{"POST", cl, "", jsonObject(`{"kind":"Cluster","apiVersion":"v3","metadata":{"name":"ci-cluster"},"spec":{"type":"VirtualMachine","flavor":"cce.s1.small","version":"v1.31","hostNetwork":{"vpc":"v1","subnet":"net-1","SecurityGroup":"sg-1"},"containerNetwork":{"mode":"vpc-router","cidr":"172.16.0.0/16"},"authentication":{"mode":"rbac"}}}`)},
		recorded{"GET", cl + "/c1", "", nil},
		recorded{"PUT", cl + "/c1", "", jsonObject(`{"spec":{"description":"new description","customSan":["api.example"]}}`)},
		recorded{"POST", cl + "/c1/clustercert", "", jsonObject(`{"duration":1}`)},
		recorded{"PUT", cl + "/c1/mastereip", "", jsonObject(`{"spec":{"action":"bind","spec":{"id":"e1"}}}`)},
		recorded{"DELETE", cl + "/c1", "delete_evs=try&delete_net=true", nil},
	)
}

func TestCCENodePoolCalls(t *testing.T) {
	np := "/api/v3/projects/" + testProjectID + "/clusters/c1/nodepools"
	pool := `{"kind":"NodePool","apiVersion":"v3","metadata":{"uid":"np1","name":"pool-a"},"spec":{"type":"vm","initialNodeCount":2,"nodeTemplate":{"flavor":"s3.xlarge.4","az":"eu-de-01","os":"HCE OS 2.0","login":{"sshKey":"ci-key"},"rootVolume":{"size":50,"volumetype":"SSD"},"dataVolumes":[{"size":100,"volumetype":"SSD"}],"runtime":{"name":"containerd"},"billingMode":0},"autoscaling":{"enable":false},"nodeManagement":{}},"status":{"currentNode":0,"phase":"Synchronizing"}}`
	rec, c := newRecorder(t, map[string]answerSpec{
		"POST " + np:            {201, pool},
		"GET " + np + "/np1":    {200, pool},
		"PUT " + np + "/np1":    {200, pool},
		"DELETE " + np + "/np1": {200, pool},
	})
	ctx := context.Background()
	spec := CCENodePoolSpec{
		Type: "vm", InitialNodeCount: 0,
		NodeTemplate: CCENodeTemplate{
			Flavor: "s3.xlarge.4", AZ: "eu-de-01", OS: "HCE OS 2.0", Login: CCELogin{SSHKey: "ci-key"},
			RootVolume: CCEVolume{Size: 50, VolumeType: "SSD"}, DataVolumes: []CCEVolume{{Size: 100, VolumeType: "SSD"}},
			Runtime: &CCERuntime{Name: "containerd"},
		},
	}
	created, err := c.CreateCCENodePool(ctx, "c1", CreateCCENodePoolOpts{Metadata: CCEMetadata{Name: "pool-a"}, Spec: spec})
	if err != nil || created.Metadata.UID != "np1" || created.Status.Phase != "Synchronizing" {
		t.Fatalf("got %+v, %v", created, err)
	}
	if _, err := c.GetCCENodePool(ctx, "c1", "np1"); err != nil {
		t.Fatal(err)
	}
	three := 3
	if _, err := c.UpdateCCENodePool(ctx, "c1", "np1", UpdateCCENodePoolOpts{InitialNodeCount: &three}); err != nil {
		t.Fatal(err)
	}
	if err := c.DeleteCCENodePool(ctx, "c1", "np1"); err != nil {
		t.Fatal(err)
	}
	template := `"nodeTemplate":{"flavor":"s3.xlarge.4","az":"eu-de-01","os":"HCE OS 2.0","login":{"sshKey":"ci-key"},"rootVolume":{"size":50,"volumetype":"SSD"},"dataVolumes":[{"size":100,"volumetype":"SSD"}],"runtime":{"name":"containerd"}}`
	rec.expect(
		// A count of 0 is sent: it is a valid size.
		recorded{"POST", np, "", jsonObject(`{"kind":"NodePool","apiVersion":"v3","metadata":{"name":"pool-a"},"spec":{"type":"vm","initialNodeCount":0,` + template + `}}`)},
		recorded{"GET", np + "/np1", "", nil},
		// The update reads the pool and sends it back whole with the new count.
		recorded{"GET", np + "/np1", "", nil},
		recorded{"PUT", np + "/np1", "", jsonObject(`{"kind":"NodePool","apiVersion":"v3","metadata":{"name":"pool-a"},"spec":{"type":"vm","initialNodeCount":3,` + template + `,"autoscaling":{"enable":false},"nodeManagement":{}}}`)},
		recorded{"DELETE", np + "/np1", "", nil},
	)
}

func TestNotFoundAnswersOfEachService(t *testing.T) {
	cl := "/api/v3/projects/" + testProjectID + "/clusters"
	_, c := newRecorder(t, map[string]answerSpec{
		"GET " + p + "/vpcs/gone":                          {404, `{"error_msg":"vpc gone could not be found","error_code":"VPC.0404","request_id":"r"}`},
		"GET /v2.1/" + testProjectID + "/os-keypairs/gone": {404, `{"itemNotFound":{"code":404,"message":"Keypair gone not found for user"}}`},
		"GET " + cl + "/gone":                              {404, `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"cluster gone could not be found","reason":"NotFound","code":404,"error_code":"CCE.01404001","error_msg":"cluster gone could not be found"}`},
		"GET " + cl + "/c1/nodepools/gone":                 {404, `{"kind":"Status","message":"node pool gone could not be found in cluster c1","reason":"NotFound","code":404,"error_code":"CCE.01404001","error_msg":"node pool gone could not be found in cluster c1"}`},
		"PUT " + p + "/vpcs/v1":                            {404, `{"error_msg":"The API does not exist or has not been published: PUT /v1/p/vpcs/v1","error_code":"APIGW.0101"}`},
	})
	ctx := context.Background()
	for _, err := range []error{
		func() error { _, err := c.GetVPC(ctx, "gone"); return err }(),
		func() error { _, err := c.GetKeypair(ctx, "gone"); return err }(),
		func() error { _, err := c.GetCCECluster(ctx, "gone"); return err }(),
		func() error { _, err := c.GetCCENodePool(ctx, "c1", "gone"); return err }(),
	} {
		if !IsNotFound(err) {
			t.Errorf("not IsNotFound: %v", err)
		}
	}
	name := "x"
	if _, err := c.UpdateVPC(ctx, "v1", UpdateVPCOpts{Name: &name}); err == nil || IsNotFound(err) {
		t.Fatalf("an unpublished API counted as a missing VPC: %v", err)
	}
}
