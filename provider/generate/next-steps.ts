/**
 * The adoption commands `generate` ends with, and the adoption guide gives
 * (docs/guides/adopting-a-tenant.md, "Adopt an existing tenant" and "Import"): one place, so that
 * what the command prints, what the guide says and what `npm run bench -- adopt.ts` measures are
 * the same commands.
 *
 * @module
 */

/**
 * `--parallel` for an adoption: Pulumi's largest value, which it takes as no limit (one worker
 * that starts every step at once). Every read then reaches the provider at once, so it lists the
 * tenant rather than reading clients one by one, and each resource is adopted as soon as the page
 * holding its client is in (docs/design/client-reads.md, "Batches"). The tenant's rate limit still paces
 * every call, so the tenant sees no more than under any other `--parallel`.
 *
 * @internal
 */
export const ADOPTION_PARALLEL = 2147483647;

/**
 * The dynamic path's adoption `up`, after the `pulumi preview` that shows only creates: no second
 * preview pass, no limit on parallel steps, and one state save at the end (safe for a run that
 * writes nothing to the tenant). The program `generate` writes runs on Node.js's own type
 * stripping, which checks no types, so there is no type-check to skip (ts-node's
 * `PULUMI_NODEJS_TRANSPILE_ONLY` would change nothing).
 *
 * @internal
 */
export const ADOPTION_UP = `PULUMI_SKIP_CHECKPOINTS=true pulumi up --skip-preview --parallel ${ADOPTION_PARALLEL} --yes`;

/**
 * The plugin's adoption, in a project of any language: `pulumi import` of the file `generate
 * --import-file` wrote, with the same flags as {@link ADOPTION_UP} where they apply.
 *
 * @param importFile - the import file's path as the user would type it.
 * @internal
 */
export function adoptionImport(importFile: string): string {
  return (
    `PULUMI_SKIP_CHECKPOINTS=true pulumi import --file ${importFile} --yes --skip-preview ` +
    `--parallel ${ADOPTION_PARALLEL} --out <program file>`
  );
}

/** What a run of `generate` declared, as its closing line tells it. */
export interface Declared {
  /** The folder written. */
  readonly dir: string;
  readonly clients: number;
  readonly pushProvider: boolean;
  /** Whether `import.json` was written too. */
  readonly importFile: boolean;
}

/**
 * `generate`'s closing line: what it declared and the commands that adopt it, the TypeScript
 * program's and, with `--import-file`, the plugin's.
 */
export function nextSteps(declared: Declared): string {
  const what =
    `declared ${declared.clients} ${declared.clients === 1 ? "client" : "clients"}` +
    (declared.pushProvider ? " and the push provider" : "");
  const typescript =
    `cd ${declared.dir} && npm install && pulumi stack init && pulumi config set tenant:domain ` +
    "... (credentials as in the README) && pulumi preview (only creates) && " +
    `${ADOPTION_UP} (changes nothing)`;
  const anyLanguage = declared.importFile
    ? `; or, in a project of any language with the plugin: ${adoptionImport(`${declared.dir}/import.json`)}`
    : "";
  return `${what}. Next: ${typescript}${anyLanguage}`;
}
