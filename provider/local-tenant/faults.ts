/**
 * Fault injection: a share of 500/503 answers, dropped connections and added latency, so the
 * provider's retries, timeouts and deadlines can be exercised against a real socket.
 */

import { CommandUsageError } from "../errors.js";

/** Fault settings. Every share is a probability from 0 to 1; all default to 0 (no fault). */
export interface FaultOptions {
  /** Share of requests answered 500 or 503 without being applied. */
  error?: number | undefined;
  /** Share of connections closed without an answer. */
  drop?: number | undefined;
  /** Added delay in milliseconds, drawn uniformly from `[min, max]`. */
  latency?: { min: number; max: number } | undefined;
}

/** What happens to one request: decided up front so that one draw sequence serves one request. */
export interface FaultPlan {
  /** Milliseconds to wait before handling the request. */
  latencyMs: number;
  /** Close the connection without an answer. */
  drop: boolean;
  /** Answer this status (500 or 503) instead of applying the request; 0 for none. */
  errorStatus: 0 | 500 | 503;
}

/** Fault settings with every member present. */
export type ResolvedFaults = Required<{ [K in keyof FaultOptions]: NonNullable<FaultOptions[K]> }>;

/** No faults at all: the default. */
const NO_FAULTS: ResolvedFaults = { error: 0, drop: 0, latency: { min: 0, max: 0 } };

function share(name: string, value: number): number {
  if (!Number.isFinite(value) || value < 0 || value > 1) {
    throw new CommandUsageError(`faults: ${name} must be a share from 0 to 1, got ${value}`);
  }
  return value;
}

/**
 * Parses the CLI form of the fault settings, `error=0.2,drop=0.05,latency=0-300`.
 * `latency=N` means exactly N milliseconds. Unknown keys are refused so a typo is not silently a
 * fault-free run.
 */
export function parseFaultSpec(spec: string): FaultOptions {
  const options: FaultOptions = {};
  for (const part of spec.split(",")) {
    const item = part.trim();
    if (item === "") continue;
    const eq = item.indexOf("=");
    if (eq < 0) throw new CommandUsageError(`faults: expected key=value, got "${item}"`);
    const key = item.slice(0, eq).trim();
    const value = item.slice(eq + 1).trim();
    switch (key) {
      case "error":
      case "drop":
        if (!/^\d*\.?\d+$/.test(value)) {
          throw new CommandUsageError(
            `faults: ${key} must be a number from 0 to 1, got "${value}"`,
          );
        }
        options[key] = share(key, Number(value));
        break;
      case "latency": {
        const match = /^(\d+)(?:-(\d+))?$/.exec(value);
        if (match === null) {
          throw new CommandUsageError(
            `faults: latency must be "MIN-MAX" or "MS" in ms, got "${value}"`,
          );
        }
        const min = Number(match[1]);
        const max = match[2] === undefined ? min : Number(match[2]);
        options.latency = { min, max };
        break;
      }
      default:
        throw new CommandUsageError(
          `faults: unknown key "${key}" (expected error, drop or latency)`,
        );
    }
  }
  return options;
}

/** Checks fault settings (object or CLI string) and fills in the members left out. */
function resolveFaults(options: FaultOptions | string | null | undefined): ResolvedFaults {
  const parsed = typeof options === "string" ? parseFaultSpec(options) : (options ?? {});
  const latency = parsed.latency ?? NO_FAULTS.latency;
  if (
    !Number.isFinite(latency.min) ||
    !Number.isFinite(latency.max) ||
    latency.min < 0 ||
    latency.max < latency.min
  ) {
    throw new CommandUsageError(
      `faults: latency needs 0 <= min <= max, got ${latency.min}-${latency.max}`,
    );
  }
  return {
    error: share("error", parsed.error ?? 0),
    drop: share("drop", parsed.drop ?? 0),
    latency: { min: latency.min, max: latency.max },
  };
}

/**
 * A small seedable PRNG (mulberry32). `Math.random` cannot be seeded, and tests need the same
 * sequence of faults on every run.
 */
export function createRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Decides, request by request, which faults to inject. */
export class FaultInjector {
  private settings: ResolvedFaults;

  constructor(
    private readonly random: () => number,
    options?: FaultOptions | string | null,
  ) {
    this.settings = resolveFaults(options);
  }

  /** Replaces the settings (a string uses the CLI syntax; null or `{}` turns faults off). */
  configure(options: FaultOptions | string | null): void {
    this.settings = resolveFaults(options);
  }

  /** The current settings. */
  current(): ResolvedFaults {
    return { ...this.settings, latency: { ...this.settings.latency } };
  }

  /**
   * The plan for the next request. It always draws four numbers, whatever the settings, so that a
   * seeded run keeps the same sequence when one setting changes.
   */
  next(): FaultPlan {
    const [latencyDraw, dropDraw, errorDraw, statusDraw] = [
      this.random(),
      this.random(),
      this.random(),
      this.random(),
    ];
    const { min, max } = this.settings.latency;
    const drop = dropDraw < this.settings.drop;
    const error = !drop && errorDraw < this.settings.error;
    return {
      latencyMs: Math.round(min + latencyDraw * (max - min)),
      drop,
      errorStatus: error ? (statusDraw < 0.5 ? 500 : 503) : 0,
    };
  }
}
