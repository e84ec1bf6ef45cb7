/**
 * A real browser for the console's tests (test/e2e-console.test.ts): Chromium from the npm package
 * `@sparticuz/chromium`, driven by `puppeteer-core`.
 *
 * Why this pair: `npm ci` installs both from the npm registry with no other download (the
 * Chromium build is inside the package, compressed, and unpacked into the system's temporary
 * folder at the first launch), so the suite runs on a fresh clone in CI's loopback-only network
 * namespace. `puppeteer` (not `-core`) and Playwright fetch their browsers from their own hosts
 * in an install script, which these machines cannot reach. Installed, the two and their 34
 * dependencies take 99 MB of node_modules (the compressed Chromium 67 MB of it, puppeteer-core
 * 8.3 MB) and add 7 s to `npm install`; the first launch unpacks a 200 MB Chromium into
 * /tmp/chromium (about 3 s), later launches reuse it.
 *
 * The bounds of the browser's steps, in the style of test/support/budgets.ts, measured on the
 * shared 2-core machine: a launch (the first unpacks Chromium) 3.8 s, the slowest condition the
 * tests wait for on the page (a tick of the live stream after a request) 1.2 s.
 */

import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

type Puppeteer = typeof import("puppeteer-core", { with: { "resolution-mode": "import" }});
type Browser = import("puppeteer-core", { with: { "resolution-mode": "import" }}).Browser;
type Page = import("puppeteer-core", { with: { "resolution-mode": "import" }}).Page;

/**
 * The bound of each kind of browser step in ms, about ten times the slowest measured (see the
 * module's comment): a launch, and one wait for a condition on the page.
 */
export const BROWSER_BOUNDS_MS = { launch: 60_000, condition: 20_000 } as const;

/** A launched browser and what stops it. */
export interface TestBrowser {
  readonly browser: Browser;
  /** A new page of `width` x `height` CSS pixels, its waits bounded by `condition`. */
  page(width?: number, height?: number): Promise<Page>;
  /** Closes the browser and removes its profile folder. */
  close(): Promise<void>;
}

/**
 * Launches headless Chromium with a fresh profile and nothing that reaches beyond loopback: no
 * background networking, component updates, sync or first-run work, no sandbox (CI runs as root)
 * and no GPU.
 */
export async function launchBrowser(): Promise<TestBrowser> {
  // Both packages are ES modules only: imported, not required.
  const { default: chromium } = await import("@sparticuz/chromium");
  const { default: puppeteer }: Puppeteer = await import("puppeteer-core");
  const profile = await mkdtemp(join(tmpdir(), "tenant-console-profile-"));
  try {
    const browser = await puppeteer.launch({
      executablePath: await chromium.executablePath(),
      headless: true,
      timeout: BROWSER_BOUNDS_MS.launch,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        `--user-data-dir=${profile}`,
      ],
    });
    return {
      browser,
      page: async (width = 1280, height = 1000) => {
        const page = await browser.newPage();
        page.setDefaultTimeout(BROWSER_BOUNDS_MS.condition);
        await page.setViewport({ width, height });
        return page;
      },
      close: async () => {
        await browser.close();
        await rm(profile, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await rm(profile, { recursive: true, force: true });
    throw error;
  }
}
