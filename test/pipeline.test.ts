/**
 * examples/pipeline, the workflow users copy to run the tenant's program in GitHub Actions on
 * Pulumi's own action (docs/guides/drift-detection.md): it passes actionlint (built by `npm ci`
 * from test/pulumi-cli/actionlint, which knows the inputs of pulumi/actions), it previews pull
 * requests with the comment and runs `up` on the main branch, it uploads the audit's SARIF log to
 * code scanning (docs/guides/audit.md), and its drift gate's script, run here
 * as the runner runs it with a stand-in `pulumi`, tells drift (exit 7) from a broken run.
 */
import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { ensureActionlint } from "./support/actionlint.js";
import { STEP_BOUNDS_MS } from "./support/budgets.js";
import { REPO_ROOT } from "./support/installed-package.js";
import { runStep } from "./support/steps.js";

const WORKFLOW = join(REPO_ROOT, "examples", "pipeline", ".github", "workflows", "tenant.yml");
/** The stack the example names. */
const STACK = "acme/tenant-settings/prod";

interface Step {
  readonly id?: string;
  readonly if?: string;
  readonly uses?: string;
  readonly run?: string;
  readonly shell?: string;
  readonly with?: Record<string, unknown>;
}
interface Workflow {
  readonly on: Record<string, unknown>;
  readonly env: Record<string, string>;
  readonly jobs: Record<
    string,
    { if: string; steps: Step[]; permissions?: Record<string, string> }
  >;
}

let work: string;
let text: string;
let workflow: Workflow;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), "pipeline-test-"));
  text = await readFile(WORKFLOW, "utf8");
  workflow = parse(text) as Workflow;
});
afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

/** actionlint's report on a workflow file, and its exit status. */
async function actionlint(file: string): Promise<{ status: number; report: string }> {
  const { path } = await ensureActionlint();
  const result = await runStep(path, ["-no-color", file], {
    cwd: work,
    boundMs: STEP_BOUNDS_MS.node,
    label: "actionlint",
  });
  return { status: result.exitCode, report: result.output };
}

/** The step of `job` that runs pulumi/actions. */
function pulumiStep(job: string): Step | undefined {
  return workflow.jobs[job]?.steps.find((step) => step.uses?.startsWith("pulumi/actions@"));
}

describe("the example workflow", () => {
  it("passes actionlint", async () => {
    expect(await actionlint(WORKFLOW)).toEqual({ status: 0, report: "" });
  });

  it("would be refused by actionlint with an input pulumi/actions does not have", async () => {
    const copy = join(work, "misspelt.yml");
    await writeFile(copy, text.replace("comment-on-pr: true", "comment-on-prr: true"));
    const { status, report } = await actionlint(copy);
    expect(status).toBe(1);
    expect(report).toContain('input "comment-on-prr" is not defined in action "pulumi/actions@v6"');
  });

  it("previews pull requests with a comment on the pull request, and runs up on the main branch", () => {
    expect(Object.keys(workflow.on).sort()).toEqual(
      ["pull_request", "push", "schedule", "workflow_dispatch"].sort(),
    );
    expect(workflow.jobs.preview?.if).toBe("github.event_name == 'pull_request'");
    expect(pulumiStep("preview")?.with).toMatchObject({
      command: "preview",
      "comment-on-pr": true,
    });
    expect(workflow.jobs.up?.if).toBe("github.event_name == 'push'");
    expect(pulumiStep("up")?.with).toMatchObject({ command: "up" });
  });

  it("audits the tenant on the schedule and uploads the audit's SARIF log to code scanning", () => {
    const job = workflow.jobs.audit;
    expect(job?.if).toBe(
      "github.event_name == 'schedule' || github.event_name == 'workflow_dispatch'",
    );
    expect(job?.permissions).toEqual({ contents: "read", "security-events": "write" });
    const audit = job?.steps.find((step) => step.id === "audit");
    expect(audit?.run).toBe("npx pulumi-tenant audit --format sarif --out tenant-audit.sarif");
    const upload = job?.steps.find((step) =>
      step.uses?.startsWith("github/codeql-action/upload-sarif@"),
    );
    expect(upload).toMatchObject({
      if: `\${{ !cancelled() && hashFiles('tenant-audit.sarif') != '' }}`,
      with: { sarif_file: "tenant-audit.sarif", category: "tenant-audit" },
    });
  });

  it("takes the tenant's private key and Pulumi's token from the repository's secrets", () => {
    expect(workflow.env).toMatchObject({
      PULUMI_ACCESS_TOKEN: `\${{ secrets.PULUMI_ACCESS_TOKEN }}`,
      TENANT_CLIENT_ASSERTION_PRIVATE_KEY: `\${{ secrets.TENANT_CLIENT_ASSERTION_PRIVATE_KEY }}`,
    });
  });
});

describe("the drift gate's script", () => {
  /** Runs the gate step as the runner does (`bash -eo pipefail`), with a pulumi exiting `exit`. */
  async function gate(exit: number) {
    const step = workflow.jobs.drift?.steps.find((s) => s.id === "gate");
    if (step?.run === undefined) throw new Error("the drift job has no step with id gate");
    const dir = await mkdtemp(join(work, "gate-"));
    const pulumi = join(dir, "pulumi");
    await writeFile(pulumi, `#!/bin/sh\necho "$@" > "${dir}/args"\nexit ${exit}\n`);
    await chmod(pulumi, 0o755);
    await writeFile(join(dir, "output"), "");
    await writeFile(join(dir, "summary"), "");
    const script = join(dir, "gate.sh");
    await writeFile(script, step.run);
    const env = {
      PATH: `${dir}:${process.env.PATH ?? ""}`,
      STACK,
      GITHUB_OUTPUT: join(dir, "output"),
      GITHUB_STEP_SUMMARY: join(dir, "summary"),
    };
    const result = await runStep("bash", ["--noprofile", "--norc", "-eo", "pipefail", script], {
      cwd: dir,
      env,
      boundMs: STEP_BOUNDS_MS.node,
      label: "the drift gate's script",
    });
    return {
      status: result.exitCode,
      stdout: result.stdout,
      args: (await readFile(join(dir, "args"), "utf8")).trim(),
      output: await readFile(join(dir, "output"), "utf8"),
      summary: await readFile(join(dir, "summary"), "utf8"),
    };
  }

  it("runs on the schedule a preview-only refresh that expects no changes", async () => {
    expect(workflow.jobs.drift?.if).toBe(
      "github.event_name == 'schedule' || github.event_name == 'workflow_dispatch'",
    );
    expect((await gate(0)).args).toBe(
      `refresh --preview-only --expect-no-changes --non-interactive --diff --stack ${STACK}`,
    );
  });

  it("passes and says so when the tenant matches the stack", async () => {
    const result = await gate(0);
    expect(result).toMatchObject({ status: 0, output: "result=clean\n" });
    expect(result.summary).toBe(`The tenant matches stack ${STACK}: no drift.\n`);
  });

  it("fails with exit code 7 and a drift annotation when the tenant drifted", async () => {
    const result = await gate(7);
    expect(result).toMatchObject({ status: 7, output: "result=drift\n" });
    expect(result.stdout).toBe(
      `::error title=Tenant drift::the tenant differs from stack ${STACK}: run pulumi up --refresh to put the declared values back, or declare the new ones\n`,
    );
  });

  it("fails with pulumi's own status and says it is no verdict on drift when the run broke", async () => {
    const result = await gate(1);
    expect(result).toMatchObject({ status: 1, output: "result=broken\n" });
    expect(result.stdout).toBe(
      "::error title=Drift gate broken::pulumi refresh exited with 1 (credentials, the network, the tenant): no verdict on drift\n",
    );
  });
});
