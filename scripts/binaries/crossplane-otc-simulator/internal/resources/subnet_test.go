package resources

import (
	"context"
	"testing"

	"edgeconnect.eu/crossplane-otc-simulator/internal/otc"
	"edgeconnect.eu/crossplane-otc-simulator/internal/terraformed"
)

func subnetAnswer(status string) string {
	return `{"subnet":{"id":"net-1","name":"subnet-a","description":"","cidr":"10.0.1.0/24","gateway_ip":"10.0.1.1","vpc_id":"v1",` +
		`"neutron_network_id":"net-1","neutron_subnet_id":"sub-1","status":"` + status + `","dhcp_enable":true,` +
		`"primary_dns":"100.125.4.25","secondary_dns":"100.125.129.199","dnsList":["100.125.4.25","100.125.129.199"],"availability_zone":"",` +
		`"ipv6_enable":true,"cidr_v6":"2001:db8::/64","gateway_ip_v6":"2001:db8::1","neutron_subnet_id_v6":"sub-6"}}`
}

func TestSubnetCreate(t *testing.T) {
	cases := []struct {
		name        string
		forProvider string
		wantBody    string
		wantErr     string
	}{
		{
			name:        "required arguments only",
			forProvider: `{"name":"subnet-a","cidr":"10.0.1.0/24","gatewayIp":"10.0.1.1","vpcId":"v1"}`,
			wantBody:    `{"subnet":{"name":"subnet-a","cidr":"10.0.1.0/24","gateway_ip":"10.0.1.1","vpc_id":"v1"}}`,
		},
		{
			name: "optional arguments",
			forProvider: `{"name":"subnet-a","cidr":"10.0.1.0/24","gatewayIp":"10.0.1.1","vpcId":"v1","vpcIdRef":{"name":"net"},` +
				`"description":"d","availabilityZone":"eu-de-01","primaryDns":"1.1.1.1","secondaryDns":"8.8.8.8","dhcpEnable":false,"ipv6Enable":true}`,
			wantBody: `{"subnet":{"name":"subnet-a","description":"d","cidr":"10.0.1.0/24","gateway_ip":"10.0.1.1","vpc_id":"v1",` +
				`"availability_zone":"eu-de-01","primary_dns":"1.1.1.1","secondary_dns":"8.8.8.8","dhcp_enable":false,"ipv6_enable":true}}`,
		},
		{
			name:        "no name",
			forProvider: `{"cidr":"10.0.1.0/24","gatewayIp":"10.0.1.1","vpcId":"v1"}`,
			wantErr:     `the argument "name" is required, but no definition was found`,
		},
		{
			name:        "no gateway",
			forProvider: `{"name":"subnet-a","cidr":"10.0.1.0/24","vpcId":"v1"}`,
			wantErr:     `the argument "gateway_ip" is required, but no definition was found`,
		},
		{
			name:        "an unresolved reference is no VPC",
			forProvider: `{"name":"subnet-a","cidr":"10.0.1.0/24","gatewayIp":"10.0.1.1","vpcIdRef":{"name":"net"}}`,
			wantErr:     `the argument "vpc_id" is required, but no definition was found`,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fake, c := newFakeOTC(t)
			fake.on("POST", vpcBase+"/subnets", 200, subnetAnswer("UNKNOWN"))
			id, err := subnet.Create(context.Background(), c, params(t, tc.forProvider))
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				fake.expect()
				return
			}
			if err != nil || id != "net-1" {
				t.Fatalf("got %q, %v", id, err)
			}
			fake.expect(request{method: "POST", path: vpcBase + "/subnets", body: tc.wantBody})
		})
	}
}

func TestSubnetRead(t *testing.T) {
	cases := []struct {
		status    string
		wantPhase terraformed.Phase
		failure   string
	}{
		{"UNKNOWN", terraformed.Settling, ""},
		{"ACTIVE", terraformed.Settled, ""},
		{"ERROR", terraformed.Failed, "unexpected state 'ERROR', wanted target 'ACTIVE'"},
	}
	for _, tc := range cases {
		t.Run(tc.status, func(t *testing.T) {
			fake, c := newFakeOTC(t)
			fake.on("GET", vpcBase+"/subnets/net-1", 200, subnetAnswer(tc.status))
			forProvider := params(t, `{"name":"subnet-a","cidr":"10.0.1.0/24","gatewayIp":"10.0.1.1","vpcId":"v1",`+
				`"vpcIdRef":{"name":"net"},"vpcIdSelector":{"matchLabels":{"a":"b"}},"dhcpEnable":true,"ipv6Enable":true}`)
			state := read(t, subnet, c, "net-1", forProvider, nil)
			if state.Phase != tc.wantPhase || state.Failure != tc.failure {
				t.Fatalf("phase %v %q", state.Phase, state.Failure)
			}
			sameJSON(t, "atProvider", state.AtProvider, `{
				"id":"net-1","networkId":"net-1","subnetId":"sub-1","status":"`+tc.status+`",
				"name":"subnet-a","cidr":"10.0.1.0/24","gatewayIp":"10.0.1.1","vpcId":"v1","region":"eu-de",
				"primaryDns":"100.125.4.25","secondaryDns":"100.125.129.199","dhcpEnable":true,
				"ipv6Enable":true,"cidrIpv6":"2001:db8::/64","gatewayIpv6":"2001:db8::1","subnetIdV6":"sub-6"}`)
			sameJSON(t, "reported", state.Reported, `{"name":"subnet-a","cidr":"10.0.1.0/24","gatewayIp":"10.0.1.1","vpcId":"v1",
				"primaryDns":"100.125.4.25","secondaryDns":"100.125.129.199","dhcpEnable":true,"region":"eu-de"}`)
			noChanges(t, forProvider, state)
		})
	}
}

// OTC's defaults (DNS servers, DHCP) are no drift when forProvider leaves
// them out, and the CIDR is one Terraform replaces the subnet for.
func TestSubnetDrift(t *testing.T) {
	fake, c := newFakeOTC(t)
	fake.on("GET", vpcBase+"/subnets/net-1", 200, subnetAnswer("ACTIVE"))
	state := read(t, subnet, c, "net-1", params(t, `{}`), nil)
	noChanges(t, params(t, `{"name":"subnet-a","cidr":"10.0.1.0/24","gatewayIp":"10.0.1.1","vpcId":"v1"}`), state)
	changes := terraformed.Changes(params(t, `{"cidr":"10.0.2.0/24","dhcpEnable":false}`), state.Reported)
	if len(changes) != 2 {
		t.Fatalf("changes %+v", changes)
	}
	if !terraformed.Matches(subnet.ForceNew, changes[0].Argument) || terraformed.Matches(subnet.ForceNew, changes[1].Argument) {
		t.Fatalf("cidr forces a new subnet, dhcp_enable does not: %+v", changes)
	}
}

func TestSubnetReadGone(t *testing.T) {
	fake, c := newFakeOTC(t)
	fake.on("GET", vpcBase+"/subnets/gone", 404, `{"error_msg":"subnet gone not found","error_code":"VPC.0202"}`)
	state, err := subnet.Read(context.Background(), c, "gone", params(t, `{}`), nil)
	if err != nil || state != nil {
		t.Fatalf("got %+v, %v", state, err)
	}
}

func TestSubnetDelete(t *testing.T) {
	fake, c := newFakeOTC(t)
	fake.on("DELETE", vpcBase+"/vpcs/v1/subnets/net-1", 204, "")
	if err := subnet.Delete(context.Background(), c, "net-1", params(t, `{"vpcId":"v1"}`)); err != nil {
		t.Fatal(err)
	}
	fake.expect(request{method: "DELETE", path: vpcBase + "/vpcs/v1/subnets/net-1"})

	err := subnet.Delete(context.Background(), c, "net-1", params(t, `{}`))
	if err == nil || err.Error() != `the argument "vpc_id" is required, but no definition was found` {
		t.Fatalf("error %v", err)
	}
	fake.expect()

	fake.on("DELETE", vpcBase+"/vpcs/v1/subnets/gone", 404, `{"error_msg":"not found","error_code":"VPC.0202"}`)
	if err := subnet.Delete(context.Background(), c, "gone", params(t, `{"vpcId":"v1"}`)); !otc.IsNotFound(err) {
		t.Fatalf("a subnet gone already: %v", err)
	}
}
