/**
 * The time budgets of the tests that run child processes (the pulumi CLI, package managers, tsc),
 * in one place, so that no test's result depends on the machine being idle:
 *
 * - Each kind of step (a child process) has its own bound ({@link STEP_BOUNDS_MS}), past which the
 *   step and every process it started are killed and the step fails naming itself and the bound
 *   (`pulumi up was killed after 180 s, its bound`: test/support/steps.ts).
 * - A test's (or hook's) timeout is its budget: the sum of the bounds of the steps it runs, plus
 *   slack for what it does between them ({@link budget}). A test's steps run one after the
 *   other, so a slow step always fails by its own bound, naming itself, before the test's budget
 *   runs out; and a test that does time out says which step it was in and for how long
 *   (test/support/step-setup.ts).
 *
 * Where the numbers come from: each step's time measured on the CI machine's size, 2 cores, with
 * Vitest running three test files at once (vitest.config.mts) and the heavy end-to-end files
 * among them (`TENANT_STEP_LOG=<file>` makes every step append its label and duration to the
 * file: test/support/steps.ts). A bound is about four times the slowest such measurement, rounded
 * up: twice, so that it holds with a CPU-heavy job of two busy threads running beside the suite
 * (which halves what the tests get of the two cores), and twice again as room to spare. Unit
 * tests keep Vitest's timeout of the suite (60 s, vitest.config.mts): they run no step.
 */

/**
 * The bound of one step of each kind, in ms. Measured on 2 cores, three test files at once
 * (the slowest of each kind, then the bound, about four times it):
 *
 * - `pulumiOperation`: `preview`, `up`, `refresh`, `destroy` of a stack of the examples (up to 10
 *   resources): 2 to 9 s alone, up to 35 s in the suite; 180 s.
 * - `pulumiCommand`: `stack init`, `config set-all`/`rm-all`, `stack output`/`export`, `cancel`:
 *   0.2 to 1 s alone, up to 6 s in the suite; 30 s.
 * - `pack`: `npm pack` of the repository: 2 s alone, up to 10 s in the suite; 60 s.
 * - `install`: one install of a user project (`npm ci --offline`, or npm, pnpm or Yarn from the
 *   loopback registry): 10 to 30 s alone, up to 60 s in the suite; 240 s.
 * - `node`: a short Node.js process (the package's `generate` command, a serialization, `npm ls`,
 *   a call through the runtime): 0.5 to 2 s alone, up to 10 s in the suite; 60 s.
 * - `tsc`: type-checking a generated program against the installed package: 5 s alone, up to 20 s
 *   in the suite; 120 s.
 * - `exampleTests`: the vitest run of examples/testing in a user project (six Automation API
 *   operations and the tenant's start): 40 s alone, up to 120 s in the suite; 540 s.
 */
export const STEP_BOUNDS_MS = {
  pulumiOperation: 180_000,
  pulumiCommand: 30_000,
  pack: 60_000,
  install: 240_000,
  node: 60_000,
  tsc: 120_000,
  exampleTests: 540_000,
} as const;

/** The kinds of steps, with their bounds. */
export type StepBounds = { readonly [kind in keyof typeof STEP_BOUNDS_MS]: number };

/**
 * What a test (or hook) runs, one step after the other, counted by kind; its budget is
 * {@link budget} of it.
 */
export interface StepCounts {
  /**
   * Runs of a stack's operation (`stack.run`, `project.run`): each is the operation and the
   * pulumi commands that make the stack config it runs with, four at most (at a stack's first run
   * `stack init` and `config set-all` of the stack's config, then `config rm-all` and `set-all`
   * of the run's), so its bound is `pulumiOperation` plus four `pulumiCommand`s.
   */
  readonly pulumi?: number;
  /** Other pulumi commands (`project.cliCommand`: `stack output`, `stack export`, `cancel`). */
  readonly pulumiCommands?: number;
  /**
   * Installs of a user project (`installPackedPackage`, `installUserProject`, and the helpers that
   * call them): each packs the package (`npm pack`) and runs one package manager's install.
   */
  readonly installs?: number;
  /** `npm pack` of the repository alone (`--dry-run`, say). */
  readonly packs?: number;
  /** Short Node.js processes and commands (see {@link STEP_BOUNDS_MS}). */
  readonly node?: number;
  readonly tsc?: number;
  readonly exampleTests?: number;
}

/**
 * Time a test spends outside its steps: starting local tenant APIs, writing files, asserting.
 * Milliseconds alone; 30 s covers it many times over on a loaded machine.
 */
export const SLACK_MS = 30_000;

/**
 * The budget (the Vitest timeout, in ms) of a test or hook that runs `steps` one after the other:
 * the sum of their bounds, plus {@link SLACK_MS}. `bounds` replaces the bound of a kind of step
 * for a test whose steps need another (a stack of 200 resources, a child that retries for 30 s).
 * So the budget is always more than what its steps may take before their own bounds kill them.
 */
export function budget(steps: StepCounts, bounds: Partial<StepBounds> = {}): number {
  const bound = { ...STEP_BOUNDS_MS, ...bounds };
  const pulumiRun = bound.pulumiOperation + 4 * bound.pulumiCommand;
  return (
    (steps.pulumi ?? 0) * pulumiRun +
    (steps.pulumiCommands ?? 0) * bound.pulumiCommand +
    (steps.installs ?? 0) * (bound.pack + bound.install) +
    (steps.packs ?? 0) * bound.pack +
    (steps.node ?? 0) * bound.node +
    (steps.tsc ?? 0) * bound.tsc +
    (steps.exampleTests ?? 0) * bound.exampleTests +
    SLACK_MS
  );
}
