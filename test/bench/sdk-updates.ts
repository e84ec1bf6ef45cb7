/**
 * The platform's Node.js SDK (`auth0`'s ManagementClient) updating clients as a script of a user's
 * would, for test/bench/sharing.ts to set beside this package: `count` PATCHes of a description,
 * `concurrency` at a time, with the SDK's own retries and no pacing of its own. Run as a child
 * process, because the SDK speaks https only and the local tenant's certificate authority is
 * trusted through NODE_EXTRA_CA_CERTS, which Node.js reads at start.
 *
 * Input: one JSON argument `{ domain, clientId, clientSecret, ids, concurrency }` (`domain` as
 * the SDK takes it: host and port). Output: one JSON line `{ updated, failed, seconds }`.
 */
import { ManagementClient } from "auth0";

interface Job {
  readonly domain: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly ids: readonly string[];
  readonly concurrency: number;
}

async function main(): Promise<void> {
  const job = JSON.parse(process.argv[2] ?? "{}") as Job;
  const management = new ManagementClient({
    domain: job.domain,
    clientId: job.clientId,
    clientSecret: job.clientSecret,
  });
  let next = 0;
  let updated = 0;
  let failed = 0;
  const started = performance.now();
  const worker = async (): Promise<void> => {
    while (next < job.ids.length) {
      const id = job.ids[next] as string;
      next += 1;
      try {
        await management.clients.update(id, { description: `Updated by the SDK (${next})` });
        updated += 1;
      } catch {
        failed += 1;
      }
    }
  };
  await Promise.all(Array.from({ length: job.concurrency }, worker));
  const seconds = (performance.now() - started) / 1000;
  process.stdout.write(`${JSON.stringify({ updated, failed, seconds })}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
