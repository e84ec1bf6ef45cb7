/**
 * Where the package's help texts and messages send a reader: the package ships its README and
 * CHANGELOG but not docs/ (package.json's `files`), so a guide or a design note is cited at its
 * public address, the repository's page of the file, which an installed copy can always reach.
 * test/docs-address.test.ts checks that the address is package.json's `repository` and that no
 * help text or message names a file the package does not ship any other way.
 *
 * @module
 */

/**
 * The repository's public address, as package.json's `repository.url` names it.
 *
 * @internal
 */
export const REPOSITORY_URL = "https://github.com/pulumi-tenant/pulumi-tenant";

/**
 * The public address of a file of the repository (`docs/guides/commands.md`), on its main
 * branch, with a section's anchor when one is named (GitHub's anchor of the heading).
 */
export function docAddress(path: string, anchor?: string): string {
  return `${REPOSITORY_URL}/blob/main/${path}${anchor === undefined ? "" : `#${anchor}`}`;
}
