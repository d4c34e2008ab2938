/** Every MR kind the simulator reconciles, in dependency order (a kind's references point at earlier ones). */
import type { ExternalKind } from "../managed/external.js";
import { CLUSTER_V3 } from "./cluster.js";
import { EIP_V1 } from "./eip.js";
import { KEYPAIR_V2 } from "./keypair.js";
import { NODE_POOL_V3 } from "./node-pool.js";
import { SUBNET_V1, VPC_V1 } from "./vpc.js";

export const EXTERNAL_KINDS: readonly ExternalKind[] = [VPC_V1, SUBNET_V1, EIP_V1, KEYPAIR_V2, CLUSTER_V3, NODE_POOL_V3];

export { CLUSTER_V3, EIP_V1, KEYPAIR_V2, NODE_POOL_V3, SUBNET_V1, VPC_V1 };
