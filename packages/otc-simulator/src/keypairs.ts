/**
 * ECS key pairs, Nova's `/v2.1/{project}/os-keypairs[/{name}]`: import of a
 * public key (409 when the name is taken), get, list, and delete, which
 * Nova does even while servers or node pools use the key. The name is the
 * key pair's id. Errors use Nova's fault-named wrappers.
 */
import { createHash } from "node:crypto";
import { ApiError, Fields, json, type ApiRequest, type ApiResponse } from "./api.js";
import { ACCESS_KEY_USER_ID, scopedProject } from "./iam.js";
import type { Keypair, SimulatorState } from "./state.js";

const KEY_TYPES = ["ssh-rsa", "ssh-ed25519", "ecdsa-sha2-nistp256", "ecdsa-sha2-nistp384", "ecdsa-sha2-nistp521"];

export function routeKeypairs(request: ApiRequest, state: SimulatorState): ApiResponse | undefined {
  const [version, projectId, collection, name, ...rest] = request.segments;
  if (version !== "v2.1" || projectId === undefined || collection !== "os-keypairs" || rest.length > 0) return undefined;
  const project = scopedProject(request, state, projectId, "nova");
  if (name === undefined) {
    if (request.method === "GET") {
      const own = [...state.keypairs.values()].filter((keypair) => keypair.projectId === project.id);
      return json(200, { keypairs: own.map((keypair) => ({ keypair: render(keypair) })) });
    }
    if (request.method !== "POST") return undefined;
    const keypair = create(state, project.id, request.token?.userId ?? ACCESS_KEY_USER_ID, request.body);
    return json(200, { keypair: render(keypair) });
  }
  const keypair = findKeypair(state, project.id, name);
  if (keypair === undefined) throw new ApiError(404, "Nova.0404", `Keypair ${name} not found for user`, "nova");
  switch (request.method) {
    case "GET":
      return json(200, { keypair: { ...render(keypair), created_at: keypair.createdAt.toISOString(), deleted: false, deleted_at: null } });
    case "DELETE":
      state.keypairs.delete(keypairKey(project.id, name));
      return json(202);
    default:
      return undefined;
  }
}

export function findKeypair(state: SimulatorState, projectId: string, name: string): Keypair | undefined {
  return state.keypairs.get(keypairKey(projectId, name));
}

function keypairKey(projectId: string, name: string): string {
  return `${projectId}/${name}`;
}

function create(state: SimulatorState, projectId: string, userId: string, body: unknown): Keypair {
  const fields = Fields.wrapped(body, "keypair", "Nova.0400", "nova");
  const name = fields.string("name");
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(name)) throw fields.invalid("name", "must be 1-64 characters of A-Z a-z 0-9 _ -");
  // x509 key pairs exist in Nova but not for ECS.
  fields.optionalEnum("type", ["ssh"]);
  const publicKey = fields.optionalString("public_key");
  if (publicKey === undefined) throw fields.invalid("public_key", "is required (the simulator does not generate key pairs)");
  const fingerprint = sshFingerprint(publicKey);
  if (fingerprint === undefined) throw new ApiError(400, "Nova.0400", "Keypair data is invalid: failed to generate fingerprint", "nova");
  if (findKeypair(state, projectId, name) !== undefined) throw new ApiError(409, "Nova.0409", `Key pair '${name}' already exists.`, "nova");
  const keypair: Keypair = { name, projectId, publicKey, fingerprint, userId, createdAt: state.clock() };
  state.keypairs.set(keypairKey(projectId, name), keypair);
  return keypair;
}

/**
 * OpenSSH's MD5 fingerprint (`aa:bb:…`) of `<type> <base64 blob> [comment]`,
 * whose blob must begin with the same type name; undefined for anything else.
 */
function sshFingerprint(publicKey: string): string | undefined {
  const [type, data] = publicKey.trim().split(/\s+/);
  if (type === undefined || data === undefined || !KEY_TYPES.includes(type)) return undefined;
  const blob = Buffer.from(data, "base64");
  if (blob.toString("base64") !== data || blob.length < 4) return undefined;
  const length = blob.readUInt32BE(0);
  if (blob.subarray(4, 4 + length).toString("latin1") !== type) return undefined;
  const hex = createHash("md5").update(blob).digest("hex");
  return hex.replace(/(..)(?!$)/g, "$1:");
}

function render(keypair: Keypair): Record<string, unknown> {
  return {
    name: keypair.name,
    public_key: keypair.publicKey,
    fingerprint: keypair.fingerprint,
    user_id: keypair.userId,
    type: "ssh",
  };
}
