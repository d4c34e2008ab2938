// Package otc is the provider's Open Telekom Cloud API client: credentials
// from a ProviderConfig Secret, AK/SK request signing or IAM password
// tokens, and typed calls for the resources the provider manages (VPCs,
// subnets, EIPs, key pairs, CCE clusters and node pools).
//
// It talks to OTC exactly as the TypeScript client packages/otc does, so
// that the OTC simulator (packages/otc-simulator), which verifies every
// signature and token, accepts it the same way the real cloud would.
//
// Nothing in this package puts a credential, token or request signature
// into an error message: credential errors name keys only, and API error
// texts are scrubbed of the client's secrets before they are returned.
package otc
