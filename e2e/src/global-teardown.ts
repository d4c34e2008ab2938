/** Stops what the global setup started; that removes the state file too. */
export default async function globalTeardown(): Promise<void> {
  await globalThis.edgeconnectTestEnvironment?.stop();
  globalThis.edgeconnectTestEnvironment = undefined;
}
