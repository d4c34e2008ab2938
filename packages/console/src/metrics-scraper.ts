/**
 * Scrapes the provider-controller replicas' /metrics (--controller-metrics-url)
 * for the platform view: each URL at most once per `minIntervalMs` however
 * many pages are open, each scrape with a deadline and a size bound, and
 * the scrape before kept for rates.
 */
import { parsePrometheusText } from "./prometheus-text.js";
import type { Scrape } from "./controller-health.js";

export interface MetricsScraperOptions {
  readonly urls: readonly string[];
  readonly timeoutMs?: number;
  /** A controller's /metrics is tens of KiB; more is not what we asked for. */
  readonly maxBytes?: number;
  readonly minIntervalMs?: number;
}

export class MetricsScraper {
  private readonly last = new Map<string, { current: Scrape; previous?: Scrape }>();
  private inFlight: Promise<void> | undefined;
  private lastStarted = 0;

  constructor(private readonly options: MetricsScraperOptions) {}

  /** The latest scrape of every URL and the one before it. */
  async scrapes(): Promise<{ current: Scrape; previous?: Scrape }[]> {
    if (Date.now() - this.lastStarted >= (this.options.minIntervalMs ?? 2_000)) {
      this.lastStarted = Date.now();
      this.inFlight ??= this.scrapeAll().finally(() => (this.inFlight = undefined));
    }
    await this.inFlight;
    return this.options.urls.flatMap((url) => {
      const entry = this.last.get(url);
      return entry === undefined ? [] : [entry];
    });
  }

  private async scrapeAll(): Promise<void> {
    await Promise.all(
      this.options.urls.map(async (url) => {
        const current = await this.scrape(url);
        const before = this.last.get(url)?.current;
        this.last.set(url, before?.samples === undefined ? { current } : { current, previous: before });
      }),
    );
  }

  private async scrape(url: string): Promise<Scrape> {
    const at = Date.now();
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(this.options.timeoutMs ?? 3_000), headers: { accept: "text/plain" } });
      if (!response.ok) return { url, at, error: `HTTP ${response.status}` };
      const text = await boundedText(response, this.options.maxBytes ?? 8 * 1024 * 1024);
      return { url, at, samples: parsePrometheusText(text).samples };
    } catch (err) {
      return { url, at, error: err instanceof Error && err.name === "TimeoutError" ? "no answer in time" : err instanceof Error && err.message.startsWith("metrics larger") ? err.message : "not reachable" };
    }
  }
}

async function boundedText(response: Response, maxBytes: number): Promise<string> {
  if (response.body === null) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
    size += chunk.length;
    if (size > maxBytes) throw new Error(`metrics larger than ${maxBytes} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}
