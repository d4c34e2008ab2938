/**
 * The console page's script: one EventSource on /api/stream, whose every
 * `view` event redraws the page from the JSON the server sent. The DOM is
 * built with createElement and textContent only, never HTML strings, so
 * nothing a tenant wrote (names, messages, Events) can become markup.
 *
 * The selected cluster lives in the URL's hash
 * (`#cluster/<tenant>/<namespace>/<name>`), so a link can be shared and
 * the back button works.
 */
import type { AttentionItem, ClusterDetail, ClusterRow, ConditionView, ControllerHealth, EventView, LiveView, Overview, TreeNode } from "../view-model.js";

type Child = Node | string | undefined | false;

function el<K extends keyof HTMLElementTagNameMap>(tag: K, attributes: Record<string, string> = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, value);
  for (const child of children) if (child !== undefined && child !== false) element.append(child);
  return element;
}

function section(id: string): HTMLElement {
  const found = document.getElementById(id);
  if (found === null) throw new Error(`the page has no #${id}`);
  return found;
}

function age(since: string | undefined): string {
  if (since === undefined) return "";
  const seconds = Math.max(0, Math.floor((Date.now() - Date.parse(since)) / 1000));
  if (seconds < 120) return `${seconds}s`;
  if (seconds < 7200) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 172_800) return `${Math.floor(seconds / 3600)}h`;
  return `${Math.floor(seconds / 86_400)}d`;
}

function time(at: string | undefined): Child {
  return at === undefined ? undefined : el("time", { datetime: at, title: at }, `${at} (${age(at)} ago)`);
}

function clusterHash(row: Pick<ClusterRow, "tenant" | "namespace" | "name">): string {
  return `#cluster/${[row.tenant, row.namespace, row.name].map(encodeURIComponent).join("/")}`;
}

function selected(): { tenant: string; namespace: string; name: string } | undefined {
  const match = /^#cluster\/([^/]+)\/([^/]+)\/([^/]+)$/.exec(location.hash);
  if (match === null) return undefined;
  const [tenant, namespace, name] = match.slice(1).map((part) => decodeURIComponent(part));
  return tenant === undefined || namespace === undefined || name === undefined ? undefined : { tenant, namespace, name };
}

function condition(view: ConditionView | undefined): Child {
  if (view === undefined) return el("span", { class: "muted" }, "–");
  return el("span", { class: view.status, title: view.message }, `${view.type}=${view.status}`, view.reason === "" ? "" : ` (${view.reason})`);
}

function renderTenants(overview: Overview): void {
  const body = section("tenants").querySelector("div");
  if (body === null) return;
  if (overview.tenants.length === 0) {
    body.replaceChildren(el("p", { class: "muted" }, "No clusters are visible to you."));
    return;
  }
  body.replaceChildren(
    ...overview.tenants.map((tenant) =>
      el(
        "div",
        { class: "tenant" },
        el("h3", {}, overview.viewer.kind === "platform" ? "workspace (logical cluster) " : "workspace ", el("code", {}, tenant.tenant)),
        el(
          "table",
          {},
          el("thead", {}, el("tr", {}, ...["cluster", "phase", "provider", "flavor", "version", "nodes", "age", "Ready"].map((h) => el("th", {}, h)))),
          el(
            "tbody",
            {},
            ...tenant.clusters.map((row) =>
              el(
                "tr",
                { "data-cluster": `${row.namespace}/${row.name}` },
                el("td", {}, el("a", { href: clusterHash(row) }, `${row.namespace}/${row.name}`)),
                el("td", { class: `phase-${row.phase}` }, row.phase, row.deletingSince === undefined ? "" : ` since ${row.deletingSince}`),
                el("td", {}, row.provider),
                el("td", {}, row.flavor ?? ""),
                el("td", {}, row.version ?? ""),
                el("td", {}, row.nodeCount === undefined ? "" : String(row.nodeCount)),
                el("td", {}, age(row.createdAt)),
                el("td", {}, row.ready === undefined ? "" : `${row.ready.reason}: ${row.ready.message}`),
              ),
            ),
          ),
        ),
      ),
    ),
  );
}

function renderAttention(items: readonly AttentionItem[] | undefined): void {
  const root = section("attention");
  root.hidden = items === undefined;
  const list = root.querySelector("ul");
  if (items === undefined || list === null) return;
  if (items.length === 0) {
    list.replaceChildren(el("li", { class: "muted" }, "Nothing: no failed, stuck or sold-out clusters, no rejected credentials, no orphans."));
    return;
  }
  list.replaceChildren(
    ...items.map((item) =>
      el(
        "li",
        { class: `attention-${item.kind}` },
        el("strong", {}, item.kind),
        " ",
        item.name === undefined || item.tenant === undefined ? "" : el("a", { href: clusterHash({ tenant: item.tenant, namespace: item.namespace ?? "", name: item.name }) }, `${item.namespace ?? ""}/${item.name}`),
        " ",
        item.message,
        item.since === undefined ? "" : el("span", { class: "muted" }, ` since ${item.since}`),
      ),
    ),
  );
}

function renderHealth(health: ControllerHealth | undefined): void {
  const root = section("health");
  root.hidden = health === undefined;
  const body = root.querySelector("div");
  if (health === undefined || body === null) return;
  const rate = (value: number | undefined): string => (value === undefined ? "–" : `${value.toFixed(2)}/s`);
  body.replaceChildren(
    el("h3", {}, `Replicas (${health.mode})`),
    health.leasesError === undefined ? "" : el("p", { class: "problem" }, `Leases: ${health.leasesError}`),
    el(
      "ul",
      { class: "replicas" },
      ...health.replicas.map((replica) =>
        el(
          "li",
          {},
          el("code", {}, replica.identity),
          replica.slots.length === 0 ? " leads all tenants" : ` holds slots ${replica.slots.join(", ")}`,
          replica.tenants.length === 0 ? "" : el("span", { class: "muted" }, ` — ${replica.tenants.join(", ")}`),
          replica.renewTime === undefined ? "" : el("span", { class: "muted" }, ` (renewed ${age(replica.renewTime)} ago)`),
        ),
      ),
    ),
    ...health.scrapes.map((scrape) =>
      el(
        "div",
        { class: "scrape" },
        el("h3", {}, el("code", {}, scrape.url), scrape.up ? "" : el("span", { class: "False" }, ` down: ${scrape.error ?? ""}`)),
        scrape.up &&
          el(
            "table",
            {},
            el(
              "tbody",
              {},
              el("tr", {}, el("th", {}, "queue depth"), el("td", {}, scrape.queueDepth.map((q) => `${q.controller} ${q.depth}`).join(", "))),
              el("tr", {}, el("th", {}, "reconciles"), el("td", {}, `${scrape.reconciles} (${rate(scrape.reconcileRate)})`)),
              el("tr", {}, el("th", {}, "errors"), el("td", {}, `${scrape.errors} (${rate(scrape.errorRate)})`)),
              el("tr", {}, el("th", {}, "queued per tenant"), el("td", {}, scrape.tenantQueue.map((t) => `${t.tenant} ${t.queued} (${rate(t.rate)})`).join(", "))),
              el("tr", {}, el("th", {}, "orphaned objects"), el("td", {}, String(scrape.orphaned))),
            ),
          ),
      ),
    ),
  );
}

function treeItem(node: TreeNode): HTMLLIElement {
  return el(
    "li",
    {},
    el("span", { class: "node" }, node.label),
    node.name === undefined ? "" : el("code", { class: "name" }, ` ${node.name}`),
    el(
      "span",
      { class: "facts" },
      node.state === undefined ? "" : el("span", { class: node.state }, node.state),
      node.reason === undefined ? "" : ` ${node.reason}`,
      node.synced === undefined ? "" : " · ",
      node.synced === undefined ? "" : condition(node.synced),
      node.ready === undefined ? "" : " · ",
      node.ready === undefined ? "" : condition(node.ready),
      node.message === undefined || node.message === "" ? "" : el("span", { class: "muted" }, ` — ${node.message}`),
      node.deletingSince === undefined ? "" : el("span", { class: "Deleting" }, ` deleting since ${node.deletingSince}`),
    ),
    node.cloudId === undefined ? "" : el("code", { class: "cloud-id" }, node.cloudId),
    node.children.length === 0 ? "" : el("ul", {}, ...node.children.map(treeItem)),
  );
}

function eventRow(event: EventView): HTMLTableRowElement {
  return el("tr", {}, el("td", { class: event.type === "Warning" ? "False" : "" }, event.type), el("td", {}, event.reason), el("td", {}, event.message), el("td", {}, String(event.count)), el("td", {}, age(event.last)));
}

function renderDetail(view: LiveView): void {
  const root = section("detail");
  const ref = selected();
  root.hidden = ref === undefined;
  if (ref === undefined) return;
  if (view.detail === undefined) {
    root.replaceChildren(el("h2", {}, `${ref.namespace}/${ref.name}`), el("p", { class: "problem" }, view.detailError ?? "loading…"));
    return;
  }
  const detail: ClusterDetail = view.detail;
  const row = detail.cluster;
  root.replaceChildren(
    el("h2", {}, `${row.namespace}/${row.name} `, el("span", { class: `phase-${row.phase}` }, row.phase), el("a", { href: "#", class: "muted" }, " (close)")),
    el("p", {}, `${row.provider} · flavor ${row.flavor ?? "–"} · Kubernetes ${row.version ?? "–"} · ${row.nodeCount ?? "–"} nodes · created `, time(row.createdAt)),
    detail.teardown === undefined ? "" : el("p", { class: "teardown Deleting" }, "Teardown since ", time(detail.teardown.since), `: ${detail.teardown.waitingFor}`),
    el("h3", {}, "Conditions"),
    el(
      "table",
      { class: "conditions" },
      el("thead", {}, el("tr", {}, ...["type", "status", "reason", "message", "since"].map((h) => el("th", {}, h)))),
      el("tbody", {}, ...detail.conditions.map((c) => el("tr", {}, el("td", {}, c.type), el("td", { class: c.status }, c.status), el("td", {}, c.reason), el("td", {}, c.message), el("td", {}, age(c.since))))),
    ),
    el("h3", {}, "What it became"),
    el("ul", { class: "tree" }, treeItem(detail.tree)),
    el("h3", {}, "Events"),
    detail.eventsError === undefined ? "" : el("p", { class: "muted" }, `Events cannot be shown: ${detail.eventsError}`),
    detail.events.length === 0 && detail.eventsError === undefined ? el("p", { class: "muted" }, "No Events.") : "",
    detail.events.length === 0 ? "" : el("table", { class: "events" }, el("thead", {}, el("tr", {}, ...["type", "reason", "message", "count", "last"].map((h) => el("th", {}, h)))), el("tbody", {}, ...detail.events.map(eventRow))),
  );
}

function render(view: LiveView): void {
  const viewer = view.overview.viewer;
  section("viewer").textContent = viewer.kind === "platform" ? `platform view · ${viewer.user}` : `tenant ${viewer.workspace} · ${viewer.user}`;
  const problems = section("problems");
  problems.hidden = view.overview.problems.length === 0;
  problems.replaceChildren(...view.overview.problems.map((problem) => el("p", {}, problem)));
  renderDetail(view);
  renderAttention(view.overview.attention);
  renderTenants(view.overview);
  renderHealth(view.overview.health);
}

let source: EventSource | undefined;

function connect(): void {
  source?.close();
  const ref = selected();
  const query = ref === undefined ? "" : `?${new URLSearchParams(ref).toString()}`;
  const live = section("live");
  source = new EventSource(`/api/stream${query}`);
  source.addEventListener("open", () => {
    live.textContent = "live";
    live.classList.add("on");
  });
  source.addEventListener("view", (event) => render(JSON.parse((event as MessageEvent<string>).data) as LiveView));
  source.addEventListener("signedout", () => location.assign("/signin"));
  source.addEventListener("error", () => {
    live.textContent = "reconnecting…";
    live.classList.remove("on");
    // A stream refused for good (401: the session ended) is not retried by the browser.
    if (source?.readyState === EventSource.CLOSED) {
      void fetch("/api/overview").then((response) => {
        if (response.status === 401) location.assign("/signin");
        else setTimeout(connect, 3_000);
      });
    }
  });
}

window.addEventListener("hashchange", connect);
connect();
