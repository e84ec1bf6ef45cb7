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
 * Where the numbers come from: every step's time, measured with `TENANT_STEP_LOG=<file>` (each
 * step appends its label and duration to the file: test/support/steps.ts) over every end-to-end
 * file of the suite, one or two end-to-end files at a time, on a 2-core machine shared with other
 * jobs (load average 4 to 12: two to six times what the two cores run, about what Vitest's three
 * test files at once make of an otherwise idle 2-core machine, with or without a CPU-heavy job
 * beside them). A bound is at least four times the slowest time of its kind so measured, rounded
 * up: twice for a machine busier still, and twice again as room to spare. Measure again when a
 * kind of step gets slower (a bigger stack, another package manager). Unit tests keep the suite's
 * timeout (60 s, vitest.config.mts): they run no step.
 */

/**
 * The bound of one step of each kind, in ms, with what it was measured at (the median and the
 * slowest of each kind, in the measurement above):
 *
 * - `pulumiOperation`: `preview`, `up`, `refresh`, `destroy` of a stack of the examples and
 *   fixtures (up to 10 resources): 5.5 s, 19.5 s (242 runs); 180 s, nine times the slowest. (A
 *   stack of 200 resources takes its own: test/reliability-scale.test.ts.)
 * - `pulumiCommand`: `stack init`, `config set-all`/`rm-all`, `stack output`/`export`, `cancel`:
 *   0.5 s, 2.4 s (255 runs); 30 s.
 * - `pack`: `npm pack` of the repository: 1.8 s, 3.2 s; 60 s.
 * - `install`: one install of a user project, `npm ci --offline` from the npm cache, or npm, pnpm,
 *   Yarn or Yarn classic from the loopback registry: 14 s, 32 s (`npm ci --offline`; the others
 *   8 to 25 s); 240 s.
 * - `node`: a short Node.js process or command (the package's `generate` command, a closure's
 *   serialization, `npm ls`, `yarn node`, Biome's formatter): under 1 s, 4 s; 60 s.
 * - `tsc`: type-checking a generated program against the installed package: 10 s; 120 s.
 * - `exampleTests`: the vitest run of examples/testing in a user project (the local tenant, and
 *   six Automation API operations): 32 s; 540 s.
 * - `goBuild`: `go build` of examples/go against the generated Go SDK, offline, the Automation
 *   API's packages compiled by `npm ci` already: 8 s, 25 s (3 runs, load 3 to 6, test/e2e-go.test.ts
 *   alone); 180 s, seven times the slowest.
 * - `goProgram`: one run of examples/go's driver (`pulumi version`, the Automation API's stack
 *   selection and `config set-all`, then one operation of a stack of three resources): 2.8 s,
 *   5.9 s (21 runs, as above); 180 s, as a `pulumiOperation`.
 */
export const STEP_BOUNDS_MS = {
  pulumiOperation: 180_000,
  pulumiCommand: 30_000,
  pack: 60_000,
  install: 240_000,
  node: 60_000,
  tsc: 120_000,
  exampleTests: 540_000,
  goBuild: 180_000,
  goProgram: 180_000,
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
  /** `go build` of examples/go (test/support/go-example.ts). */
  readonly goBuilds?: number;
  /** Runs of examples/go's driver, each one operation of its stack. */
  readonly goPrograms?: number;
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
    (steps.goBuilds ?? 0) * bound.goBuild +
    (steps.goPrograms ?? 0) * bound.goProgram +
    SLACK_MS
  );
}
