/**
 * The local tenant's console (docs/design/local-tenant.md, "The console") in a real browser, headless
 * Chromium from npm (test/support/browser.ts), beside the tenant example run by the real `pulumi`
 * CLI: the page loads and lists the seeded clients, shows one, shows a program's calls while its
 * `up` runs, and an edit saved on it is drift that `pulumi refresh` reports. The last test writes
 * docs/console.png, the testing guide's picture of the console
 * (docs/guides/testing-your-program.md), so that it never goes stale.
 */

import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clientAsAnswered } from "../provider/local-tenant/clients.js";
import { DEFAULT_SEED, DEFAULT_SEED_IDS } from "../provider/local-tenant/seed.js";
import { startTenantApi } from "../provider/local-tenant/server.js";
import type { TenantApi, TenantApiOptions } from "../provider/local-tenant/tenant-api.js";
import { BROWSER_BOUNDS_MS, launchBrowser, type TestBrowser } from "./support/browser.js";
import { budget, SLACK_MS, STEP_BOUNDS_MS } from "./support/budgets.js";
import {
  example,
  type Stack,
  startStack,
  tenantExampleConfig,
  undoAfterEach,
} from "./support/e2e.js";
import { runStepOrThrow } from "./support/steps.js";
import { callApi, fetchToken } from "./support/test-client.js";

const PORTAL = DEFAULT_SEED_IDS.regularWeb;
const REPO_ROOT = resolve(__dirname, "..");
/**
 * What the console may add to the packed package (issue 42): 100 kB. Its own folder holds all but
 * about 8 kB of what it added (the hooks in app.ts, the shared edit functions, the kit's member),
 * measured against the package before it; its folder is held to what is left.
 */
const CONSOLE_FOLDER_BUDGET = 92_000;
/** The testing guide's picture of the console, written by the last test. */
const SCREENSHOT = resolve(__dirname, "..", "docs", "console.png");
/**
 * A tenant whose bucket a person can watch: 2 requests a second, a bucket of 4 (the provider keeps
 * 1 of it), and another caller reading every 2 s, so that the `up` is paced over a few seconds.
 */
const WATCHED: TenantApiOptions = {
  rateLimit: { rate: 2, burst: 4 },
  backgroundLoad: { rate: 0.5 },
};

type Page = Awaited<ReturnType<TestBrowser["page"]>>;

let browser: TestBrowser | undefined;
beforeAll(async () => {
  browser = await launchBrowser();
}, BROWSER_BOUNDS_MS.launch + SLACK_MS);
afterAll(async () => {
  await browser?.close();
});
const undo = undoAfterEach();

/** A stack of the tenant example against a fresh local tenant, and its console open in a page. */
async function watched(options: TenantApiOptions = WATCHED): Promise<{ s: Stack; page: Page }> {
  if (browser === undefined) throw new Error("the browser is launched before the first test");
  const s = await startStack(example("tenant"), tenantExampleConfig(), options);
  undo(() => s.stop());
  const page = await browser.page();
  undo(() => page.close());
  await page.goto(s.api.consoleUrl);
  await page.waitForSelector(`#client-list li[data-id="${PORTAL}"]`);
  return { s, page };
}

/**
 * The console of a fresh local tenant open in a page, with no stack (nothing runs pulumi), and the
 * messages of the dialogs the page opened (an `alert` that a client's name smuggled in, say).
 */
async function opened(
  options: TenantApiOptions = {},
): Promise<{ api: TenantApi; page: Page; dialogs: string[] }> {
  if (browser === undefined) throw new Error("the browser is launched before the first test");
  const api = await startTenantApi(options);
  undo(() => api.stop());
  const page = await browser.page();
  undo(() => page.close());
  const dialogs: string[] = [];
  page.on("dialog", (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  await page.goto(api.consoleUrl);
  await page.waitForSelector(`#client-list li[data-id="${PORTAL}"]`);
  return { api, page, dialogs };
}

/** Waits until the text of `selector` contains `text` (bounded by the page's default timeout). */
async function waitForText(page: Page, selector: string, text: string): Promise<void> {
  await page.waitForFunction(
    `(document.querySelector(${JSON.stringify(selector)})?.textContent ?? "").includes(${JSON.stringify(text)})`,
  );
}

/**
 * Empties the client form's field `name`, focused first: the live updates refill the form while
 * none of its fields has the focus, which would put the old value back before the test types.
 */
async function replaceField(page: Page, name: string): Promise<void> {
  const field = `#client-form [name="${name}"]`;
  await page.focus(field);
  await page.$eval(field, (node) => {
    (node as unknown as { value: string }).value = "";
  });
}

/**
 * Selects the portal client on the page and waits for its settings. The click happens inside the
 * page, in one task: the live updates redraw the client list, and an element found by one call and
 * clicked by the next can be gone in between ("Node is detached from document").
 */
async function showPortal(page: Page): Promise<void> {
  const item = JSON.stringify(`#client-list li[data-id="${PORTAL}"]`);
  await page.waitForFunction(
    `(() => { const item = document.querySelector(${item}); item?.click(); return item !== null; })()`,
  );
  await waitForText(page, "#client-json", PORTAL);
}

// At most two runs of the stack (an up, then a refresh), each test's waits on the page bounded.
const TIMEOUT = budget({ pulumi: 2 }) + 10 * BROWSER_BOUNDS_MS.condition;

describe("the local tenant's console in a real browser", { timeout: TIMEOUT }, () => {
  it("lists the seeded clients when the page loads", async () => {
    const { s, page } = await watched();
    const ids = await page.$$eval("#client-list li", (items) =>
      items.map((item) => item.getAttribute("data-id")),
    );
    expect(ids).toEqual(s.api.clients);
  });

  it("shows a client's settings as the management API answers them, its secret left out", async () => {
    const { s, page } = await watched();
    await showPortal(page);
    const shown = JSON.parse(await page.$eval("#client-json", (node) => node.textContent ?? ""));
    const stored = s.api.store.getClient(PORTAL);
    if (stored === undefined) throw new Error("the portal is in the default seed");
    expect(shown).toEqual(clientAsAnswered(stored, { showKeys: false }));
    await waitForText(page, "#client-hidden", "client_secret");
    expect(await page.content()).not.toContain(String(stored.client_secret));
    expect(await page.content()).not.toContain(s.api.clientSecret);
  });

  it("shows the program's calls in the request log while pulumi up runs", async () => {
    const { s, page } = await watched();
    let finished = false;
    const up = s.run("up");
    const settled = up.then(
      () => {
        finished = true;
      },
      () => {
        finished = true;
      },
    );
    // The first call comes after the CLI's start and the preview pass: on a loaded machine, later
    // than a page's ordinary wait, so this one waits as long as the up may take.
    await page.waitForSelector('#log tr[data-caller="program"][data-path^="/api/v2/"]', {
      timeout: STEP_BOUNDS_MS.pulumiOperation,
    });
    expect(finished).toBe(false);
    await settled;
    expect((await up).ok).toBe(true);
    await page.waitForSelector(
      `#log tr[data-caller="program"][data-method="PATCH"][data-path="/api/v2/clients/${PORTAL}"][data-status="200"]`,
    );
  });

  it("turns an edit saved on the page into drift that pulumi refresh reports", async () => {
    const { s, page } = await watched({});
    expect((await s.run("up")).ok).toBe(true);
    await showPortal(page);
    const description = "Edited on the console by a person";
    await replaceField(page, "description");
    await page.type('#client-form [name="description"]', description);
    await page.click('#client-form button[type="submit"]');
    await waitForText(page, "#client-result", "Saved: description");
    expect(s.api.store.getClient(PORTAL)?.description).toBe(description);
    await page.waitForSelector('#log tr[data-caller="console"][data-method="PATCH"]');

    const refreshed = await s.run("refresh", { previewOnly: true, expectNoChanges: true });
    expect(refreshed.ok).toBe(false);
    const drifted = refreshed.steps.filter((step) => step.op !== "same").map((step) => step.name);
    expect(drifted).toEqual(["portal"]);
  });

  it("shows the management API's 400 when an edit on the page is refused", async () => {
    const { s, page } = await watched({});
    await showPortal(page);
    await replaceField(page, "callbacks");
    await page.type('#client-form [name="callbacks"]', "not a url");
    await page.click('#client-form button[type="submit"]');
    const token = await fetchToken(s.api);
    const patch = await callApi<{ message: string }>(s.api, "PATCH", `/api/v2/clients/${PORTAL}`, {
      token,
      json: { callbacks: ["not a url"] },
    });
    expect(patch.status).toBe(400);
    await waitForText(page, "#client-result", `400: ${patch.body.message}`);
  });

  it("selects the push provider from the page", async () => {
    const { s, page } = await watched({});
    await page.waitForSelector('#provider option[value="sns"]');
    // Focused, the select keeps what the test chose while the live updates redraw the page.
    await page.focus("#provider");
    await page.select("#provider", "sns");
    await page.click('#provider-form button[type="submit"]');
    await waitForText(page, "#provider-result", "Selected sns");
    expect(s.api.store.getProvider()).toBe("sns");
  });

  it("writes the testing guide's screenshot of the console after an up, docs/console.png", async () => {
    const { s, page } = await watched();
    expect((await s.run("up")).ok).toBe(true);
    await showPortal(page);
    await page.waitForSelector(`#log tr[data-caller="program"][data-method="PATCH"]`);
    await page.waitForSelector('#log tr[data-caller="background"]');
    await page.screenshot({ path: SCREENSHOT as `${string}.png`, fullPage: true });
    const png = await readFile(SCREENSHOT);
    expect(png.subarray(0, 8).toString("hex")).toBe("89504e470d0a1a0a");
  });
});

describe("the console's page on its own in a real browser", { timeout: TIMEOUT }, () => {
  /** Types a new description for the portal on the page and saves it. */
  async function saveDescription(page: Page, description: string): Promise<void> {
    await showPortal(page);
    await replaceField(page, "description");
    await page.type('#client-form [name="description"]', description);
    await page.click('#client-form button[type="submit"]');
  }

  it("shows a failed save on the page when the answer is not JSON", async () => {
    const { api, page } = await opened();
    const before = api.store.getClient(PORTAL)?.description;
    await page.setRequestInterception(true);
    page.on("request", (request) => {
      if (request.isInterceptResolutionHandled()) return;
      if (request.method() !== "PATCH") {
        void request.continue();
        return;
      }
      // What a proxy in front of the tenant answers when the tenant is gone: a page, not JSON.
      void request.respond({
        status: 502,
        contentType: "text/html",
        body: "<html><body>Bad gateway</body></html>",
      });
    });
    await saveDescription(page, "Never saved");
    await waitForText(page, "#client-result", "Not saved: 502: the answer is not JSON");
    expect(await page.$eval("#client-result", (node) => node.className)).toBe("error");
    expect(api.store.getClient(PORTAL)?.description).toBe(before);
  });

  it("shows a failed save on the page when the local tenant does not answer", async () => {
    const { api, page } = await opened();
    await showPortal(page);
    await api.stop();
    await saveDescription(page, "Never saved");
    await waitForText(page, "#client-result", "Not saved: the local tenant did not answer (");
    expect(await page.$eval("#client-result", (node) => node.className)).toBe("error");
  });

  it("shows a client's name and description and the tenant's name as text, never as markup", async () => {
    const name = "<img src=x onerror=alert(1)>";
    const description = "</script><script>alert(2)</script>";
    const tenant = "acme</title><img src=x onerror=alert(3)>";
    const { api, page, dialogs } = await opened({ seed: { ...DEFAULT_SEED, tenant } });
    // Into the store as it is: a seed and the API refuse "<" in a name, the page must not rely on it.
    const portal = api.store.getClient(PORTAL);
    if (portal === undefined) throw new Error("the portal is in the default seed");
    api.store.putClient({ ...portal, name, description });
    await waitForText(page, `#client-list li[data-id="${PORTAL}"]`, name);
    await showPortal(page);
    const shown = JSON.parse(await page.$eval("#client-json", (node) => node.textContent ?? ""));
    expect(shown).toMatchObject({ name, description });
    const field = await page.$eval(
      '#client-form [name="description"]',
      (node) => (node as unknown as { value: string }).value,
    );
    expect(field).toBe(description);
    await waitForText(page, "#tenant", tenant);
    expect(await page.title()).toBe(`${tenant} · local tenant console`);
    expect(await page.$$("img")).toHaveLength(0);
    expect(
      await page.$$eval("script", (nodes) => nodes.map((node) => node.getAttribute("src"))),
    ).toEqual(["/__tenant-api/console/console.js"]);
    expect(dialogs).toEqual([]);
  });
});

describe("the console's size in the packed package", { timeout: budget({ packs: 1 }) }, () => {
  it("keeps the console's files within its share of the 100 kB it may add", async () => {
    const { stdout } = await runStepOrThrow(
      "npm",
      ["pack", "--dry-run", "--json", "--ignore-scripts"],
      { cwd: REPO_ROOT, boundMs: STEP_BOUNDS_MS.pack },
    );
    const [result] = JSON.parse(stdout) as [{ files: { path: string; size: number }[] }];
    const inFolder = result.files.filter((file) =>
      file.path.startsWith("dist/provider/local-tenant/console/"),
    );
    expect(inFolder.map((file) => file.path)).toContain(
      "dist/provider/local-tenant/console/console.js",
    );
    const size = inFolder.reduce((sum, file) => sum + file.size, 0);
    expect(size).toBeLessThanOrEqual(CONSOLE_FOLDER_BUDGET);
  });
});
