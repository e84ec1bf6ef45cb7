/**
 * What GitHub code scanning's SARIF upload (`github/codeql-action/upload-sarif`) asks of each
 * result's location, for the audit's tests: every result has a physical location, and its
 * artifact's URI is a path in the repository, either relative or with the `file:` scheme (any
 * other scheme fails the upload with "unrecognized SARIF location URI scheme"), with no `..` that
 * would leave the repository.
 */

/** The part of a SARIF log these rules look at. */
interface SarifLike {
  readonly runs: readonly {
    readonly results?: readonly {
      readonly ruleId?: string;
      readonly locations?: readonly {
        readonly physicalLocation?: { readonly artifactLocation?: { readonly uri?: string } };
      }[];
    }[];
  }[];
}

/** Why code scanning would refuse a location's URI, or undefined when it takes it. */
export function uriProblem(uri: string): string | undefined {
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(uri)?.[1];
  if (scheme !== undefined && scheme.toLowerCase() !== "file") {
    return `unrecognized SARIF location URI scheme "${scheme}"`;
  }
  const path = scheme === undefined ? uri : uri.replace(/^file:(\/\/)?/i, "");
  if (scheme === undefined && path.startsWith("/")) return "an absolute path without file:";
  if (decodeURIComponent(path).split(/[/\\]/).includes(".."))
    return "a path that leaves the repository (..)";
  if (path === "") return "an empty path";
  return undefined;
}

/** Every result of the log that code scanning would refuse, as `result N (rule): why`. */
export function uploadProblems(log: SarifLike): string[] {
  const problems: string[] = [];
  log.runs.forEach((run, r) => {
    (run.results ?? []).forEach((result, i) => {
      const name = `run ${r} result ${i} (${result.ruleId ?? "no rule"})`;
      const uris = (result.locations ?? []).map((l) => l.physicalLocation?.artifactLocation?.uri);
      if (uris.length === 0 || uris.some((uri) => uri === undefined)) {
        problems.push(`${name}: no physical location`);
        return;
      }
      for (const uri of uris as string[]) {
        const problem = uriProblem(uri);
        if (problem !== undefined) problems.push(`${name}: ${uri}: ${problem}`);
      }
    });
  });
  return problems;
}
