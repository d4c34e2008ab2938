/**
 * Test support for this package: an OTC simulator with one project and one
 * subnet (the ids OTC shows for it: VPC subnet, Neutron subnet, Neutron
 * network), and an OtcClient signed in to it. Retries default to none, so
 * that an injected fault reaches the caller as is.
 */
import { OtcClient, type Credentials, type RetryOptions } from "@edgeconnect/otc";
import { startOtcSimulator, type OtcSimulator } from "@edgeconnect/otc-simulator";

export const REGION = "eu-de";
export const PROJECT = { id: "0123456789abcdef0123456789abcdef", name: "eu-de" };
export const CREDENTIALS: Credentials = { accessKey: "CCMTESTACCESSKEY0001", secretKey: "ccm-test-secret-never-logged" };
export const SUBNET = {
  vpcSubnetId: "11111111-1111-4111-8111-111111111111",
  neutronSubnetId: "22222222-2222-4222-8222-222222222222",
  neutronNetworkId: "33333333-3333-4333-8333-333333333333",
  cidr: "192.168.0.0/24",
};

export interface SimulatedCloudOptions {
  /** Default: one attempt. */
  readonly retry?: RetryOptions;
  /** The simulator's PENDING_* spells; default its own. */
  readonly transitionDelayMs?: number;
}

export interface SimulatedCloud {
  readonly sim: OtcSimulator;
  readonly client: OtcClient;
  readonly close: () => Promise<void>;
}

export async function startSimulatedCloud(options: SimulatedCloudOptions = {}): Promise<SimulatedCloud> {
  const sim = await startOtcSimulator({
    credentials: [CREDENTIALS],
    projects: [PROJECT],
    region: REGION,
    ...(options.transitionDelayMs === undefined ? {} : { transitionDelayMs: options.transitionDelayMs }),
  });
  sim.addSubnet(SUBNET);
  const client = new OtcClient({
    credentials: CREDENTIALS,
    region: REGION,
    projectId: PROJECT.id,
    endpoints: sim.endpoints,
    retry: options.retry ?? { attempts: 1 },
  });
  return {
    sim,
    client,
    close: async () => {
      client.close();
      await sim.close();
    },
  };
}
