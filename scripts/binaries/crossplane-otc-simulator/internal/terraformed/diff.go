package terraformed

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"edgeconnect.eu/crossplane-otc-simulator/internal/apis"
)

// A Change is one argument whose desired value differs from what OTC
// reports: Terraform's plan, reduced to what the simulator needs.
type Change struct {
	// Argument is Terraform's path of the argument: root_volume.0.size.
	Argument string
	// Field is the top-level forProvider field it belongs to: rootVolume.
	Field    string
	From, To any
}

// Changes are the changes that would bring OTC's reported values to desired.
// Only arguments both sides name are compared: one left out of forProvider
// is Optional+Computed (OTC's value stands), and one OTC does not report (a
// delete option, a local flag) cannot drift. Objects compare by the keys
// forProvider gives, lists element by element.
func Changes(desired, reported apis.Parameters) []Change {
	var changes []Change
	fields := make([]string, 0, len(reported))
	for field := range reported {
		fields = append(fields, field)
	}
	sort.Strings(fields)
	for _, field := range fields {
		want, ok := desired[field]
		if !ok || want == nil || reported[field] == nil {
			continue
		}
		changes = collect(changes, field, []string{SnakeCase(field)}, want, reported[field])
	}
	return changes
}

func collect(changes []Change, field string, path []string, desired, reported any) []Change {
	desiredList, desiredIsList := desired.([]any)
	reportedList, reportedIsList := reported.([]any)
	if desiredIsList && reportedIsList {
		if len(desiredList) != len(reportedList) {
			return append(changes, Change{Argument: join(path, "#"), Field: field, From: len(reportedList), To: len(desiredList)})
		}
		for i := range desiredList {
			changes = collect(changes, field, extend(path, strconv.Itoa(i)), desiredList[i], reportedList[i])
		}
		return changes
	}
	desiredMap, desiredIsMap := desired.(map[string]any)
	reportedMap, reportedIsMap := reported.(map[string]any)
	if desiredIsMap && reportedIsMap {
		keys := make([]string, 0, len(desiredMap))
		for key := range desiredMap {
			keys = append(keys, key)
		}
		sort.Strings(keys)
		for _, key := range keys {
			if desiredMap[key] == nil || reportedMap[key] == nil {
				continue
			}
			changes = collect(changes, field, extend(path, SnakeCase(key)), desiredMap[key], reportedMap[key])
		}
		return changes
	}
	if !sameScalar(desired, reported) {
		changes = append(changes, Change{Argument: strings.Join(path, "."), Field: field, From: reported, To: desired})
	}
	return changes
}

// extend is path plus one segment, never sharing path's backing array:
// sibling elements extend the same path.
func extend(path []string, segment string) []string {
	return append(append(make([]string, 0, len(path)+1), path...), segment)
}

func join(path []string, last string) string {
	return strings.Join(extend(path, last), ".")
}

// sameScalar compares as Terraform's diff does, which keeps numbers and
// booleans as strings: "2" and 2 are one value.
func sameScalar(a, b any) bool {
	return scalarText(a) == scalarText(b)
}

func scalarText(value any) string {
	switch v := value.(type) {
	case string:
		return v
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case int:
		return strconv.Itoa(v)
	case int64:
		return strconv.FormatInt(v, 10)
	case bool:
		return strconv.FormatBool(v)
	default:
		text, _ := json.Marshal(v)
		return string(text)
	}
}

// SnakeCase names a field as upjet names its Terraform argument:
// initialNodeCount → initial_node_count.
func SnakeCase(name string) string {
	var out strings.Builder
	for _, r := range name {
		if unicode.IsUpper(r) {
			out.WriteByte('_')
			out.WriteRune(unicode.ToLower(r))
			continue
		}
		out.WriteRune(r)
	}
	return out.String()
}

// Matches says whether argument falls under one of patterns (snake_case
// paths; "*" stands for a list index; a pattern covers everything below it).
func Matches(patterns map[string]bool, argument string) bool {
	segments := strings.Split(argument, ".")
	for i, segment := range segments {
		if segment == "#" || isIndex(segment) {
			segments[i] = "*"
		}
	}
	for length := len(segments); length > 0; length-- {
		if patterns[strings.Join(segments[:length], ".")] {
			return true
		}
	}
	return false
}

func isIndex(segment string) bool {
	_, err := strconv.Atoi(segment)
	return err == nil
}

// ForceNewMessage is Terraform's text for an argument it cannot change in place.
func ForceNewMessage(c Change) string {
	return fmt.Sprintf("cannot change the value of the argument %q from %q to %q", c.Argument, text(c.From), text(c.To))
}

func text(value any) string {
	if s, ok := value.(string); ok {
		return s
	}
	return scalarText(value)
}

// Set builds a pattern set.
func Set(patterns ...string) map[string]bool {
	set := make(map[string]bool, len(patterns))
	for _, pattern := range patterns {
		set[pattern] = true
	}
	return set
}
