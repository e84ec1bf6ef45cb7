/**
 * Concurrency for resource operations: a limit on how many run at once (Pulumi's `--parallel`),
 * and deletion in reverse dependency order, as parallel as the dependencies allow.
 */
import type { ResourceState } from "./state.js";

/** Runs at most `max` tasks at once, in the order they were submitted. */
export class Limiter {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly max: number) {}

  /** Runs `task` when a slot is free. */
  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active >= this.max) {
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else {
      this.active++;
    }
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      // The slot passes straight to the next task, so `active` stays as it is.
      if (next) next();
      else this.active--;
    }
  }
}

/** The URNs `r` depends on: its parent, its dependencies and its property dependencies. */
export function dependenciesOf(r: ResourceState): Set<string> {
  const deps = new Set<string>(r.dependencies);
  if (r.parent) deps.add(r.parent);
  for (const urns of Object.values(r.propertyDependencies ?? {})) for (const u of urns) deps.add(u);
  deps.delete(r.urn);
  return deps;
}

/**
 * Runs `task` for every resource, each only after every resource that depends on it has finished
 * (so dependents are deleted before what they depend on), at most as parallel as `limiter`
 * allows. Once `stop()` is true no further task starts. Rejects with the first task error after
 * the started ones have settled.
 */
export async function inReverseDependencyOrder(
  resources: readonly ResourceState[],
  limiter: Limiter,
  task: (r: ResourceState) => Promise<void>,
  stop: () => boolean,
): Promise<void> {
  const dependents = new Map<ResourceState, ResourceState[]>();
  for (const r of resources) dependents.set(r, []);
  for (const r of resources) {
    const deps = dependenciesOf(r);
    for (const other of resources) {
      if (other !== r && deps.has(other.urn)) dependents.get(other)?.push(r);
    }
  }
  const done = new Map<ResourceState, Promise<void>>();
  const visiting = new Set<ResourceState>();
  const start = (r: ResourceState): Promise<void> => {
    const existing = done.get(r);
    if (existing) return existing;
    visiting.add(r);
    // A dependency cycle cannot come from a program; if a state file has one, ignore the back edge.
    const before = (dependents.get(r) ?? []).filter((d) => !visiting.has(d)).map(start);
    visiting.delete(r);
    const p = Promise.allSettled(before).then(async (results) => {
      if (stop() || results.some((x) => x.status === "rejected")) {
        throw new Skipped();
      }
      await limiter.run(() => (stop() ? Promise.reject(new Skipped()) : task(r)));
    });
    done.set(r, p);
    return p;
  };
  const results = await Promise.allSettled(resources.map(start));
  const failure = results.find(
    (x): x is PromiseRejectedResult => x.status === "rejected" && !(x.reason instanceof Skipped),
  );
  if (failure) throw failure.reason;
}

/** A task that did not run because an earlier one failed or the run stopped. */
class Skipped extends Error {
  constructor() {
    super("skipped");
  }
}
