package terraformed

import (
	"reflect"
	"testing"

	"edgeconnect.eu/crossplane-otc-simulator/internal/apis"
)

func TestChanges(t *testing.T) {
	cases := []struct {
		name              string
		desired, reported apis.Parameters
		want              []Change
	}{
		{
			name:     "equal strings",
			desired:  apis.Parameters{"name": "a"},
			reported: apis.Parameters{"name": "a"},
		},
		{
			name:     "different strings",
			desired:  apis.Parameters{"name": "b"},
			reported: apis.Parameters{"name": "a"},
			want:     []Change{{Argument: "name", Field: "name", From: "a", To: "b"}},
		},
		{
			name:     "a number string equals the number",
			desired:  apis.Parameters{"size": "2"},
			reported: apis.Parameters{"size": 2},
		},
		{
			name:     "int64 equals float64",
			desired:  apis.Parameters{"size": int64(2)},
			reported: apis.Parameters{"size": float64(2)},
		},
		{
			name:     "int equals int64",
			desired:  apis.Parameters{"size": 3},
			reported: apis.Parameters{"size": int64(3)},
		},
		{
			name:     "a bool string equals the bool",
			desired:  apis.Parameters{"dhcpEnable": "true"},
			reported: apis.Parameters{"dhcpEnable": true},
		},
		{
			name:     "different bools",
			desired:  apis.Parameters{"dhcpEnable": false},
			reported: apis.Parameters{"dhcpEnable": true},
			want:     []Change{{Argument: "dhcp_enable", Field: "dhcpEnable", From: true, To: false}},
		},
		{
			name:     "different numbers of different Go types",
			desired:  apis.Parameters{"initialNodeCount": int64(3)},
			reported: apis.Parameters{"initialNodeCount": float64(2)},
			want:     []Change{{Argument: "initial_node_count", Field: "initialNodeCount", From: float64(2), To: int64(3)}},
		},
		{
			name:     "a fraction is not its integer part",
			desired:  apis.Parameters{"size": 2.5},
			reported: apis.Parameters{"size": int64(2)},
			want:     []Change{{Argument: "size", Field: "size", From: int64(2), To: 2.5}},
		},
		{
			name:     "a field left out of forProvider is not compared",
			desired:  apis.Parameters{},
			reported: apis.Parameters{"availabilityZone": "eu-de-01"},
		},
		{
			name:     "a field OTC does not report is not compared",
			desired:  apis.Parameters{"deleteEvs": "true"},
			reported: apis.Parameters{},
		},
		{
			name:     "nil on either side is not compared",
			desired:  apis.Parameters{"a": nil, "b": "x"},
			reported: apis.Parameters{"a": "y", "b": nil},
		},
		{
			name: "nested list of blocks",
			desired: apis.Parameters{"rootVolume": []any{
				map[string]any{"size": int64(50), "volumetype": "SSD"},
			}},
			reported: apis.Parameters{"rootVolume": []any{
				map[string]any{"size": float64(40), "volumetype": "SSD"},
			}},
			want: []Change{{Argument: "root_volume.0.size", Field: "rootVolume", From: float64(40), To: int64(50)}},
		},
		{
			name: "nested keys are snake_cased",
			desired: apis.Parameters{"publicip": []any{
				map[string]any{"ipAddress": "80.158.0.3", "type": "5_bgp"},
			}},
			reported: apis.Parameters{"publicip": []any{
				map[string]any{"ipAddress": "80.158.0.2", "type": "5_bgp"},
			}},
			want: []Change{{Argument: "publicip.0.ip_address", Field: "publicip", From: "80.158.0.2", To: "80.158.0.3"}},
		},
		{
			name:     "list length change",
			desired:  apis.Parameters{"dataVolumes": []any{map[string]any{"size": int64(100)}, map[string]any{"size": int64(200)}}},
			reported: apis.Parameters{"dataVolumes": []any{map[string]any{"size": int64(100)}}},
			want:     []Change{{Argument: "data_volumes.#", Field: "dataVolumes", From: 1, To: 2}},
		},
		{
			name:     "nested list length change",
			desired:  apis.Parameters{"outer": []any{map[string]any{"innerList": []any{"a"}}}},
			reported: apis.Parameters{"outer": []any{map[string]any{"innerList": []any{}}}},
			want:     []Change{{Argument: "outer.0.inner_list.#", Field: "outer", From: 0, To: 1}},
		},
		{
			name:     "empty lists are equal",
			desired:  apis.Parameters{"dataVolumes": []any{}},
			reported: apis.Parameters{"dataVolumes": []any{}},
		},
		{
			name: "map keys missing on either side are ignored",
			desired: apis.Parameters{"rootVolume": []any{
				map[string]any{"size": int64(50), "kmsId": "k"},
			}},
			reported: apis.Parameters{"rootVolume": []any{
				map[string]any{"size": int64(50), "volumetype": "SSD"},
			}},
		},
		{
			name:     "maps compare by the desired keys",
			desired:  apis.Parameters{"tags": map[string]any{"a": "1", "b": "2"}},
			reported: apis.Parameters{"tags": map[string]any{"a": "1", "b": "3", "c": "4"}},
			want:     []Change{{Argument: "tags.b", Field: "tags", From: "3", To: "2"}},
		},
		{
			name:     "mismatched shapes compare as JSON",
			desired:  apis.Parameters{"x": map[string]any{"a": "1"}},
			reported: apis.Parameters{"x": []any{"a"}},
			want:     []Change{{Argument: "x", Field: "x", From: []any{"a"}, To: map[string]any{"a": "1"}}},
		},
		{
			name: "several changes in a deterministic order",
			desired: apis.Parameters{
				"name": "n2", "cidr": "10.1.0.0/16", "zeta": "z2",
				"block": []any{map[string]any{"zKey": "2", "aKey": "2", "mKey": "2"}},
			},
			reported: apis.Parameters{
				"name": "n1", "cidr": "10.0.0.0/16", "zeta": "z1",
				"block": []any{map[string]any{"zKey": "1", "aKey": "1", "mKey": "1"}},
			},
			want: []Change{
				{Argument: "block.0.a_key", Field: "block", From: "1", To: "2"},
				{Argument: "block.0.m_key", Field: "block", From: "1", To: "2"},
				{Argument: "block.0.z_key", Field: "block", From: "1", To: "2"},
				{Argument: "cidr", Field: "cidr", From: "10.0.0.0/16", To: "10.1.0.0/16"},
				{Argument: "name", Field: "name", From: "n1", To: "n2"},
				{Argument: "zeta", Field: "zeta", From: "z1", To: "z2"},
			},
		},
		{
			name: "sibling list elements get their own paths",
			desired: apis.Parameters{"masters": []any{
				map[string]any{"availabilityZone": "eu-de-01"},
				map[string]any{"availabilityZone": "eu-de-02"},
				map[string]any{"availabilityZone": "eu-de-03"},
			}},
			reported: apis.Parameters{"masters": []any{
				map[string]any{"availabilityZone": "eu-de-02"},
				map[string]any{"availabilityZone": "eu-de-01"},
				map[string]any{"availabilityZone": "eu-de-03"},
			}},
			want: []Change{
				{Argument: "masters.0.availability_zone", Field: "masters", From: "eu-de-02", To: "eu-de-01"},
				{Argument: "masters.1.availability_zone", Field: "masters", From: "eu-de-01", To: "eu-de-02"},
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// The same answer every time: map order must not show.
			for range 20 {
				got := Changes(tc.desired, tc.reported)
				if !reflect.DeepEqual(got, tc.want) {
					t.Fatalf("Changes:\n got %#v\nwant %#v", got, tc.want)
				}
			}
		})
	}
}

func TestChangesLeavesItsInputsAlone(t *testing.T) {
	desired := apis.Parameters{"rootVolume": []any{map[string]any{"size": int64(50)}}, "name": "b"}
	reported := apis.Parameters{"rootVolume": []any{map[string]any{"size": int64(40)}}, "name": "a"}
	desiredCopy, reportedCopy := desired.DeepCopy(), reported.DeepCopy()
	if len(Changes(desired, reported)) != 2 {
		t.Fatal("expected two changes")
	}
	if !reflect.DeepEqual(desired, desiredCopy) || !reflect.DeepEqual(reported, reportedCopy) {
		t.Fatal("Changes modified its inputs")
	}
}

func TestSnakeCase(t *testing.T) {
	for in, want := range map[string]string{
		"":                              "",
		"name":                          "name",
		"initialNodeCount":              "initial_node_count",
		"gatewayIp":                     "gateway_ip",
		"ipv6Enable":                    "ipv6_enable",
		"cidrIpv6":                      "cidr_ipv6",
		"subnetIdV6":                    "subnet_id_v6",
		"k8sTags":                       "k8s_tags",
		"ignoreCertificateClustersData": "ignore_certificate_clusters_data",
		"volumetype":                    "volumetype",
		"already_snake":                 "already_snake",
	} {
		if got := SnakeCase(in); got != want {
			t.Errorf("SnakeCase(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMatches(t *testing.T) {
	patterns := Set("name", "root_volume", "publicip.*.type", "bandwidth.*.share_type", "a.*.b.*.c")
	cases := []struct {
		argument string
		want     bool
	}{
		{"name", true},
		{"name_prefix", false},
		{"description", false},
		// A block covers everything below it.
		{"root_volume", true},
		{"root_volume.#", true},
		{"root_volume.0", true},
		{"root_volume.0.size", true},
		{"root_volume.3.extend_params.x", true},
		// "*" stands for any index, and for a length change.
		{"publicip.0.type", true},
		{"publicip.12.type", true},
		{"publicip.0.type.sub", true},
		{"publicip.0.ip_address", false},
		{"publicip.#", false},
		{"publicip", false},
		{"publicip.x.type", false},
		{"bandwidth.0.share_type", true},
		{"bandwidth.0.size", false},
		{"a.0.b.1.c", true},
		{"a.0.b.#", false},
		{"a.0.b", false},
		{"", false},
	}
	for _, tc := range cases {
		if got := Matches(patterns, tc.argument); got != tc.want {
			t.Errorf("Matches(%q) = %v, want %v", tc.argument, got, tc.want)
		}
	}
	if Matches(nil, "name") {
		t.Error("a nil pattern set matched")
	}
	if !Matches(Set("list.*"), "list.#") {
		t.Error("list.* does not cover a length change of list")
	}
}

func TestSet(t *testing.T) {
	got := Set("a", "b.*.c", "a")
	want := map[string]bool{"a": true, "b.*.c": true}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Set = %v, want %v", got, want)
	}
	if len(Set()) != 0 {
		t.Fatal("Set() is not empty")
	}
}

func TestForceNewMessage(t *testing.T) {
	cases := []struct {
		change Change
		want   string
	}{
		{
			Change{Argument: "name", From: "a", To: "b"},
			`cannot change the value of the argument "name" from "a" to "b"`,
		},
		{
			Change{Argument: "root_volume.0.size", From: float64(40), To: int64(50)},
			`cannot change the value of the argument "root_volume.0.size" from "40" to "50"`,
		},
		{
			Change{Argument: "data_volumes.#", From: 1, To: 2},
			`cannot change the value of the argument "data_volumes.#" from "1" to "2"`,
		},
		{
			Change{Argument: "multi_az", From: false, To: true},
			`cannot change the value of the argument "multi_az" from "false" to "true"`,
		},
		{
			Change{Argument: "description", From: "", To: `say "hi"`},
			`cannot change the value of the argument "description" from "" to "say \"hi\""`,
		},
		{
			Change{Argument: "x", From: []any{"a"}, To: map[string]any{"k": "v"}},
			`cannot change the value of the argument "x" from "[\"a\"]" to "{\"k\":\"v\"}"`,
		},
	}
	for _, tc := range cases {
		if got := ForceNewMessage(tc.change); got != tc.want {
			t.Errorf("ForceNewMessage(%+v)\n got %s\nwant %s", tc.change, got, tc.want)
		}
	}
}
