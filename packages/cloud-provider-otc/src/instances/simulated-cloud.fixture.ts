/**
 * Test support: an OTC simulator with one project and an OtcClient signed in
 * to it, without retries so that an injected fault reaches the caller as is.
 */
import { OtcClient, type Credentials } from "@edgeconnect/otc";
import { startOtcSimulator, type OtcSimulator } from "@edgeconnect/otc-simulator";

export const REGION = "eu-de";
export const PROJECT = { id: "0123456789abcdef0123456789abcdef", name: "eu-de_nodes" };
const CREDENTIALS: Credentials = { accessKey: "NODESTESTACCESSKEY01", secretKey: "nodes-test-secret" };

export interface SimulatedCloud {
  readonly sim: OtcSimulator;
  readonly client: OtcClient;
  close(): Promise<void>;
}

export async function startSimulatedCloud(): Promise<SimulatedCloud> {
  const sim = await startOtcSimulator({ credentials: [CREDENTIALS], projects: [PROJECT], region: REGION });
  const client = new OtcClient({
    credentials: CREDENTIALS,
    region: REGION,
    projectId: PROJECT.id,
    endpoints: sim.endpoints,
    retry: { attempts: 1 },
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
