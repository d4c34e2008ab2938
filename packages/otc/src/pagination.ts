/**
 * The four paging styles of the OTC APIs, each as an async iterator over
 * items that fetches a page only when the previous one is used up:
 *
 * - ECS: `offset` is a page number (from 1) with `limit`.
 * - ELB v2 (Neutron LBaaS): `marker`/`limit`, more pages announced by a
 *   `rel: "next"` entry in `<items>_links`.
 * - ELB v3: `marker`/`limit`, the next marker in `page_info.next_marker`.
 * - EIP (VPC v1): `marker`/`limit`, the marker being the last item's ID; a
 *   short page is the last.
 */
import type { Service } from "./endpoints.js";
import type { OtcCallOptions, OtcClient, OtcRequestOptions } from "./otc-client.js";

export interface ListRequest {
  readonly service: Service;
  readonly path: string;
  /** The response key holding the items, e.g. `servers`, `loadbalancers`. */
  readonly itemsKey: string;
  /** Filters; the paging parameters are added. */
  readonly query?: OtcRequestOptions["query"];
  /** Items per page. Default 200 (ECS recommends at most 200; ELB and VPC cap at 2000). */
  readonly limit?: number;
}

interface Identified {
  readonly id: string;
}

interface Link {
  readonly rel?: string;
  readonly href?: string;
}

const DEFAULT_LIMIT = 200;

/** ECS-style: `offset` is the page number. A short page is the last. */
export async function* listByPageNumber<T>(client: OtcClient, list: ListRequest, options: OtcCallOptions = {}): AsyncGenerator<T> {
  const limit = list.limit ?? DEFAULT_LIMIT;
  for (let page = 1; ; page++) {
    const items = itemsOf<T>(await get(client, list, { offset: page, limit }, options), list.itemsKey);
    yield* items;
    if (items.length < limit) return;
  }
}

/** ELB v2-style: continues while `<itemsKey>_links` has a `next` link, whose `marker` (else the last ID) is used. */
export async function* listByLinks<T extends Identified>(client: OtcClient, list: ListRequest, options: OtcCallOptions = {}): AsyncGenerator<T> {
  const limit = list.limit ?? DEFAULT_LIMIT;
  let marker: string | undefined;
  for (;;) {
    const answer = await get(client, list, { marker, limit }, options);
    const items = itemsOf<T>(answer, list.itemsKey);
    yield* items;
    const links = answer[`${list.itemsKey}_links`];
    const next = Array.isArray(links) ? (links as readonly Link[]).find((link) => link.rel === "next") : undefined;
    if (next === undefined || items.length === 0) return;
    const nextMarker = markerOf(next.href) ?? items.at(-1)?.id;
    if (!advances(marker, nextMarker)) return;
    marker = nextMarker;
  }
}

/** ELB v3-style: continues while `page_info.next_marker` is set and the page was full. */
export async function* listByPageInfo<T>(client: OtcClient, list: ListRequest, options: OtcCallOptions = {}): AsyncGenerator<T> {
  const limit = list.limit ?? DEFAULT_LIMIT;
  let marker: string | undefined;
  for (;;) {
    const answer = await get(client, list, { marker, limit }, options);
    const items = itemsOf<T>(answer, list.itemsKey);
    yield* items;
    const pageInfo = answer.page_info as { next_marker?: unknown } | undefined;
    const nextMarker = typeof pageInfo?.next_marker === "string" ? pageInfo.next_marker : undefined;
    if (items.length < limit || !advances(marker, nextMarker)) return;
    marker = nextMarker;
  }
}

/** EIP-style: the marker is the last item's ID; a short page is the last. */
export async function* listByMarker<T extends Identified>(client: OtcClient, list: ListRequest, options: OtcCallOptions = {}): AsyncGenerator<T> {
  const limit = list.limit ?? DEFAULT_LIMIT;
  let marker: string | undefined;
  for (;;) {
    const items = itemsOf<T>(await get(client, list, { marker, limit }, options), list.itemsKey);
    yield* items;
    const nextMarker = items.at(-1)?.id;
    if (items.length < limit || !advances(marker, nextMarker)) return;
    marker = nextMarker;
  }
}

/** Gathers an async iterator into an array (`Array.fromAsync` is beyond the ES2023 library the packages compile against). */
export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

async function get(
  client: OtcClient,
  list: ListRequest,
  paging: Record<string, string | number | undefined>,
  options: OtcCallOptions,
): Promise<Record<string, unknown>> {
  const answer = await client.request<Record<string, unknown> | undefined>(list.service, "GET", list.path, {
    ...options,
    query: { ...list.query, ...paging },
  });
  return answer ?? {};
}

function itemsOf<T>(answer: Record<string, unknown>, key: string): T[] {
  const items = answer[key];
  return Array.isArray(items) ? (items as T[]) : [];
}

function markerOf(href: string | undefined): string | undefined {
  if (href === undefined) return undefined;
  try {
    return new URL(href, "http://relative.invalid").searchParams.get("marker") ?? undefined;
  } catch {
    return undefined;
  }
}

/** A server that repeats a marker would otherwise page forever. */
function advances(previous: string | undefined, next: string | undefined): next is string {
  return next !== undefined && next !== "" && next !== previous;
}
