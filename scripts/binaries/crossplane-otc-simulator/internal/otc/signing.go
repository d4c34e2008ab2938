package otc

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"
)

// AK/SK signing in the API gateway's "Access=" form (SDK-HMAC-SHA256), byte
// for byte as packages/otc/src/signing/signer.ts does it and as the OTC
// simulator's signature-check.ts verifies it: canonical request, string to
// sign, hex HMAC-SHA256 with the SK, and the Authorization header.

const (
	signingAlgorithm = "SDK-HMAC-SHA256"
	// sdkDateLayout is X-Sdk-Date's YYYYMMDDTHHMMSSZ.
	sdkDateLayout = "20060102T150405Z"
	// contentSHA256Header, when present, stands in for the body's hash (streamed or unsigned payloads).
	contentSHA256Header = "X-Sdk-Content-Sha256"
)

// signedIfPresent are signed whenever the request has them; host and
// x-sdk-date are always signed. Signing X-Project-Id matters: unsigned, it
// could be swapped to act in another project.
var signedIfPresent = []string{"content-type", "x-project-id", "x-security-token"}

// SignRequest signs req for the API gateway. body must be the exact bytes
// req sends: the signature covers their hash. It sets X-Sdk-Date (from now;
// the gateway refuses dates more than 15 minutes off), X-Security-Token for
// temporary keys, and Authorization, replacing any previous ones.
func SignRequest(req *http.Request, body []byte, creds AccessKeyCredentials, now time.Time) error {
	if creds.AccessKey == "" || strings.ContainsAny(creds.AccessKey, " \t\r\n,") {
		return &CredentialsError{msg: "access key is empty or contains whitespace or commas"}
	}
	if creds.SecretKey == "" {
		return &CredentialsError{msg: "secret key is empty"}
	}
	if strings.ContainsAny(creds.SecurityToken, "\r\n") {
		return &CredentialsError{msg: "security token contains line breaks"}
	}
	req.Header.Del("Authorization")
	req.Header.Del("X-Sdk-Date")
	if creds.SecurityToken != "" {
		req.Header.Set("X-Security-Token", creds.SecurityToken)
	}
	date := now.UTC().Format(sdkDateLayout)
	req.Header.Set("X-Sdk-Date", date)

	// What net/http sends as Host, which is what the gateway sees and hashes.
	host := req.Host
	if host == "" {
		host = req.URL.Host
	}
	signed := []string{"host", "x-sdk-date"}
	for _, name := range signedIfPresent {
		if _, ok := req.Header[http.CanonicalHeaderKey(name)]; ok {
			signed = append(signed, name)
		}
	}
	sort.Strings(signed)
	value := func(name string) string {
		if name == "host" {
			return host
		}
		return req.Header.Get(name)
	}
	bodyHash, declared := req.Header[contentSHA256Header]
	hash := ""
	if declared && len(bodyHash) > 0 {
		hash = bodyHash[0]
	} else {
		hash = sha256Hex(body)
	}
	canonical := canonicalRequest(req.Method, req.URL, signed, value, hash)
	sig := signature(creds.SecretKey, stringToSign(date, canonical))
	req.Header.Set("Authorization", signingAlgorithm+" Access="+creds.AccessKey+", SignedHeaders="+strings.Join(signed, ";")+", Signature="+sig)
	return nil
}

// canonicalRequest is method, canonical URI, canonical query, one
// "name:value" line per signed header (names lower-case and sorted, values
// trimmed), the signed header names, and the body's hash, joined by
// newlines.
func canonicalRequest(method string, u *url.URL, signed []string, value func(string) string, bodyHash string) string {
	var headers strings.Builder
	for _, name := range signed {
		headers.WriteString(name + ":" + strings.TrimSpace(value(name)) + "\n")
	}
	return strings.Join([]string{
		strings.ToUpper(method),
		canonicalURI(u),
		canonicalQuery(u),
		headers.String(),
		strings.Join(signed, ";"),
		bodyHash,
	}, "\n")
}

func stringToSign(date, canonical string) string {
	return signingAlgorithm + "\n" + date + "\n" + sha256Hex([]byte(canonical))
}

// signature is the hex HMAC-SHA256 of toSign with the SK's bytes as key.
func signature(secretKey, toSign string) string {
	mac := hmac.New(sha256.New, []byte(secretKey))
	mac.Write([]byte(toSign))
	return hex.EncodeToString(mac.Sum(nil))
}

// canonicalURI decodes every path segment and encodes it again the
// gateway's way, then appends "/": /v1/x/vpcs signs as /v1/x/vpcs/ though
// it is sent without. Decoding first makes the result independent of how
// net/http chose to escape the path it sends.
func canonicalURI(u *url.URL) string {
	segments := strings.Split(u.EscapedPath(), "/")
	for i, segment := range segments {
		decoded, err := url.PathUnescape(segment)
		if err != nil {
			// A stray "%" not followed by two hex digits is a literal character.
			decoded = segment
		}
		segments[i] = rfc3986Escape(decoded)
	}
	path := strings.Join(segments, "/")
	if !strings.HasSuffix(path, "/") {
		path += "/"
	}
	return path
}

// canonicalQuery sorts keys and each key's values by their bytes (UTF-8
// order) and encodes both; "+" in the URL is a space, signed as %20.
func canonicalQuery(u *url.URL) string {
	values, _ := url.ParseQuery(u.RawQuery)
	keys := make([]string, 0, len(values))
	for key := range values {
		keys = append(keys, key)
	}
	sort.Strings(keys)
	var parts []string
	for _, key := range keys {
		list := append([]string(nil), values[key]...)
		sort.Strings(list)
		for _, v := range list {
			parts = append(parts, rfc3986Escape(key)+"="+rfc3986Escape(v))
		}
	}
	return strings.Join(parts, "&")
}

// rfc3986Escape keeps only the unreserved characters A-Z a-z 0-9 - _ . ~
// and percent-encodes everything else with upper-case hex. QueryEscape does
// exactly that except that it writes a space as "+", which cannot otherwise
// appear in its output.
func rfc3986Escape(s string) string {
	return strings.ReplaceAll(url.QueryEscape(s), "+", "%20")
}

func sha256Hex(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}
