/** Errors of the ELB drivers beyond the contract's (load-balancer.ts). */

/**
 * The Service asks for another EIP than its live dedicated ELB has: a
 * dedicated ELB takes its EIP only at creation (its update API has no EIP
 * field, and the VPC v1 API does not detach an EIP from one), so the change
 * needs the Service deleted and recreated.
 */
export class EipPlanChangeError extends Error {
  override readonly name = "EipPlanChangeError";
}
