/**
 * SSH keypairs (ECS, Nova `os-keypairs` v2.1), what CCE node pools log in
 * with. A keypair is named, not numbered: its name is its ID. Only public
 * keys are imported here: a keypair OTC generates would come back with its
 * private key.
 */
import type { OtcCallOptions, OtcClient } from "./otc-client.js";
import { createResource, deleteResource, getResource, type ResourceType } from "./resource.js";

export interface Keypair {
  readonly name: string;
  readonly public_key: string;
  readonly fingerprint: string;
  readonly user_id?: string;
  readonly type?: "ssh" | "x509";
  readonly created_at?: string;
}

export interface CreateKeypair {
  /** Unique per user and project: OTC answers 409 for a name in use. */
  readonly name: string;
  /** OpenSSH format, e.g. `ssh-ed25519 AAAA... comment`. */
  readonly publicKey: string;
}

function keypairs(client: OtcClient): ResourceType {
  return { service: "ecs", key: "keypair", collectionPath: `/v2.1/${client.projectId}/os-keypairs` };
}

/** Imports a public key as keypair `name`. */
export function createKeypair(client: OtcClient, spec: CreateKeypair, options: OtcCallOptions = {}): Promise<Keypair> {
  return createResource(client, keypairs(client), { name: spec.name, public_key: spec.publicKey }, {}, options);
}

/** Undefined if no keypair is named `name`. */
export function getKeypair(client: OtcClient, name: string, options: OtcCallOptions = {}): Promise<Keypair | undefined> {
  return getResource(client, keypairs(client), name, options);
}

/** Deletes the keypair; false if it was already gone. Servers created with it keep the key. */
export function deleteKeypair(client: OtcClient, name: string, options: OtcCallOptions = {}): Promise<boolean> {
  return deleteResource(client, keypairs(client), name, options);
}
